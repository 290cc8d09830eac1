"""The whole club night as one test (issue 38), following docs/club-night.md: the real CLI
writes the venue (``cueboard venue init --tables 4``, the service's and the archive's logins),
mosquitto runs the files it wrote, ``cueboard venue serve`` runs as systemd would, each table
is joined from its bundle (``cueboard join``) into a folder of its own and started as a real
daemon on mock pins; then, with no command typed, the desk in Chromium
(tests/venue/club_night_e2e.mjs) draws 8 players into a knockout and switches handing on,
the service hands each match to a free table, each is begun and played by the referee's
buttons until a champion; tonight's results and a sheet follow; the archive (SQLite in the
venue's folder, or PostgreSQL by ``--db``) holds the 7 matches once each.

Pictures for docs/club-night.md: ``CUEBOARD_CLUB_NIGHT_SHOTS=docs/img`` (else the test's folder).
"""

from __future__ import annotations

import grp
import json
import os
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory
from PIL import Image

from cueboard.boards import render
from cueboard.boards.preview import leds
from cueboard.boards.shown import Shown
from cueboard.contract.notices import Notice, Prompt
from cueboard.hw.clock import ManualClock
from cueboard.table.config import parse_config
from tests.helpers.mosquitto import Mosquitto, free_port, port_taken, require_mosquitto
from tests.helpers.venue_service import VenueService
from tests.screen.node_e2e import run_e2e
from tests.screen.test_screen import CHROMIUM, _require_browser
from tests.table.test_reliability import Daemon

pytestmark = [pytest.mark.system]

TABLES = ("t1", "t2", "t3", "t4")
PLAYERS = ("Ann Smith", "Bob Jones", "Cat Lee", "Dan Moss", "Eve Hart", "Fay Ward", "Gus Kerr", "Hal Peet")
E2E = Path(__file__).with_name("club_night_e2e.mjs")
GROUP = grp.getgrgid(os.getgid()).gr_name  # the table service's group: the tester's own here
# The referee box's buttons (examples/keymaps/referee-box-12.toml: row * 4 + column).
RED, PINK, BLACK, NO_POT, SHIFT = 0, 5, 6, 9, 10


def cli(*argv: str) -> str:
    """``cueboard <argv>`` as a club types it: what it printed; it must succeed."""
    run = subprocess.run([sys.executable, "-m", "cueboard.cli", *argv], capture_output=True, text=True)
    assert run.returncode == 0, f"cueboard {' '.join(argv)}: {run.stdout}{run.stderr}"
    return run.stdout


def shots_dir(tmp_path: Path) -> Path:
    shots = os.environ.get("CUEBOARD_CLUB_NIGHT_SHOTS")
    return Path(shots).resolve() if shots else tmp_path / "shots"


class Lamp:
    """A table's LED board as the daemon drives it, keeping what it was last told to show (a
    picture of it is the max7219 64x16 board the bundle configures, drawn as LEDs)."""

    def __init__(self) -> None:
        self.shown: Shown | None = None

    @property
    def health(self) -> str:
        return "ok"

    def show(self, shown: Shown | None, clock: float | None = None, now: float | None = None) -> bool:
        self.shown = shown
        return True

    def flash(self, now: float | None = None, reason: str | None = None) -> None:
        pass

    def prompt(self, prompt: Prompt | None, now: float | None = None) -> None:
        pass

    def notice(self, notice: Notice, now: float | None = None) -> None:
        pass

    def tick(self, now: float | None = None) -> bool:
        return False

    def next_deadline(self, now: float | None = None) -> float | None:
        return None

    def close(self) -> None:
        pass

    def picture(self, path: Path) -> None:
        """The board's first pages in turn (one every 2.5 s, repeats left out: the time, then the
        match handed to it moving past), one under another. A fixed time of day: the picture
        must not change with the hour the test runs."""
        pages: list[Image.Image] = []
        for k in range(4):
            page = render(self.shown, 64, 16, mode="1", at=k * 2.5, time_of_day="19:30")
            if all(page.tobytes() != p.tobytes() for p in pages):
                pages.append(page)
        drawn = [leds(p, scale=10) for p in pages]
        gap = 12
        sheet = Image.new("RGB", (drawn[0].width, len(drawn) * (drawn[0].height + gap) - gap), (60, 60, 60))
        for i, image in enumerate(drawn):
            sheet.paste(image, (0, i * (image.height + gap)))
        sheet.save(path)


class JoinedTable:
    """A Pi made a table of the venue by ``cueboard join`` (under ``root``: its /etc/cueboard and
    /var/lib/cueboard moved there), its daemon on mock pins with the configuration it wrote."""

    def __init__(self, name: str, bundle: Path, root: Path) -> None:
        cli("join", str(bundle), "--root", str(root), "--group", GROUP, "--no-restart")
        text = (root / "etc/cueboard/cueboard.toml").read_text()
        text = text.replace("/etc/cueboard/", f"{root}/etc/cueboard/").replace("/var/lib/cueboard", f"{root}/var/lib")
        raw = tomllib.loads(text)
        # No serial keypad here (nothing can stand in for its USB device): the referee box on
        # mock pins is the table's input; the board is the Lamp above.
        raw.pop("keypad", None)
        self.config = parse_config(raw, root / "etc/cueboard/cueboard.toml")
        assert self.config.start == "idle" and self.config.table == name
        self.pins = MockFactory()
        self.clock = ManualClock(start=1000.0)
        self.lamp = Lamp()
        self.daemon = Daemon(self.config, boards=[self.lamp], control=False, pin_factory=self.pins,
                             button_clock=self.clock)

    def press(self, *buttons: int) -> None:
        pins = self.config.referee_boxes[0].pins
        for button in buttons:
            pin = self.pins.pin(pins[button])
            pin.drive_low()
            self.clock.advance(0.05)
            pin.drive_high()
            self.clock.advance(0.05)


def venue_folder(tmp_path: Path) -> tuple[Path, Mosquitto]:
    """``cueboard venue init`` for 4 tables (it writes the service's login, `venue`), the archive's login, and the
    broker started on the files it wrote (its listeners on free loopback ports)."""
    require_mosquitto()
    for attempt in range(3):
        # A port found free can be taken before mosquitto binds it: then the venue is written
        # again on new ones (tests/helpers/mosquitto.py free_port).
        directory = tmp_path / f"venue-{attempt}"
        ports = {name: free_port() for name in ("tables", "people", "pages", "screens")}
        cli("venue", "init", "--dir", str(directory), "--venue", "club", "--tables", str(len(TABLES)), "--host",
            "localhost", "--host", "127.0.0.1", "--bind", "127.0.0.1", *(f"--{k}-port={v}" for k, v in ports.items()))
        cli("venue", "add-user", "archive", "--role", "archive", "--dir", str(directory), "--no-reload")
        broker = Mosquitto(tmp_path / f"broker-{attempt}", port=ports["tables"],
                           config=(directory / "mosquitto" / "venue.conf").read_text())
        try:
            broker.start()
        except RuntimeError as error:
            if not port_taken(error) or attempt == 2:
                raise
            continue
        return directory, broker
    raise AssertionError("unreachable")


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest) -> str | None:
    """The archive's database: the service's own SQLite (no option), or PostgreSQL by ``--db``."""
    if request.param == "sqlite":
        return None
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture
def hall(tmp_path: Path, db: str | None) -> Iterator[dict[str, Any]]:
    _require_browser()
    with ExitStack() as stack:
        directory, broker = venue_folder(tmp_path)
        stack.enter_context(broker)
        service = VenueService(directory, *(["--db", db] if db else []))
        stack.callback(service.stop)
        tables = {}
        for name in TABLES:
            table = JoinedTable(name, directory / "joins" / f"cueboard-join-club-{name}.json", tmp_path / f"pi-{name}")
            table.daemon.__enter__()
            stack.callback(table.daemon.__exit__, None, None, None)
            tables[name] = table
        yield {"directory": directory, "service": service, "tables": tables, "db": db}


def stored(directory: Path, db: str | None) -> list[dict[str, Any]]:
    """The archive's finished matches of the night (``cueboard archive matches``: a record a line)."""
    url = db or f"sqlite:///{directory / 'archive.db'}"
    out = cli("archive", "matches", "--db", url, "--competition", "Club Cup")
    return [r for r in (json.loads(line) for line in out.splitlines() if line.strip()) if r.get("winner") is not None]


def test_a_club_night_from_venue_init_to_the_champion(hall: dict[str, Any], tmp_path: Path) -> None:
    began = time.monotonic()
    directory: Path = hall["directory"]
    tables: dict[str, JoinedTable] = hall["tables"]
    shots = shots_dir(tmp_path)
    played: list[str] = []

    def board(args: list[str]) -> None:
        (name,) = args
        lamp = tables[name].lamp
        assert lamp.shown is not None and lamp.shown.handed is not None and lamp.shown.waiting, lamp.shown
        lamp.picture(shots / "club-night-4-board-idle.png")

    def play(args: list[str]) -> None:
        (name,) = args
        played.append(name)
        # The breaker's red and black, then a miss (NO POT); the other player, at the table
        # now, concedes the match: SHIFT PINK (MATCH), SHIFT NO POT (CONCEDE).
        tables[name].press(RED, BLACK, NO_POT, SHIFT, PINK, SHIFT, NO_POT)

    def archived(args: list[str]) -> None:
        # The archive stores each record as it arrives: asked until it has the final's (a bounded count of asks).
        for _ in range(300):
            if len(stored(directory, hall["db"])) >= 7:
                return
            threading.Event().wait(0.2)  # not a wall-clock limit: a pause between asks

    password = (directory / "logins" / "desk.password").read_text().strip()
    plan = {"url": hall["service"].url.replace("127.0.0.1", "localhost"), "chromium": CHROMIUM,
            "desk": {"user": "desk", "password": password}, "players": PLAYERS, "shots": str(shots),
            "final": "club-cup-R3-1"}
    said = run_e2e(E2E, plan, tmp_path / "plan.json", timeout=600, handlers={"board": board, "play": play,
                                                                              "archived": archived})
    (champion,) = [line.split(": ", 1)[1].strip() for line in said if line.startswith("champion: ")]
    assert len(played) == 7 and set(played) <= set(TABLES), played
    # The archive stores each record as it arrives: asked until it has the final's (a bounded count of asks).
    matches = stored(directory, hall["db"])
    for _ in range(300):
        if len(matches) >= 7:
            break
        threading.Event().wait(0.2)  # not a wall-clock limit: a pause between asks
        matches = stored(directory, hall["db"])
    assert len(matches) == 7 and len({m["match_id"] for m in matches}) == 7, matches
    assert {m.get("fixture") for m in matches} == {f"club-cup-R{r}-{n}" for r, k in ((1, 4), (2, 2), (3, 1))
                                                   for n in range(1, k + 1)}
    # The league's table of the night from the same archive: the champion first with 3 wins,
    # the finalist 2, the semi-finalists 1, the rest none; the 8 players each once.
    url = hall["db"] or f"sqlite:///{directory / 'archive.db'}"
    rows = json.loads(cli("archive", "standings", "--db", url, "--competition", "Club Cup", "--json"))
    assert rows[0]["name"] == champion and sorted(r["name"] for r in rows) == sorted(PLAYERS), rows
    assert [r["won"] for r in rows] == [3, 2, 1, 1, 0, 0, 0, 0], rows
    # The service ran the whole night through, and says nothing went wrong.
    service: VenueService = hall["service"]
    assert service.process.poll() is None, "".join(service.log)
    assert not any("Traceback" in line or " ERROR " in line for line in service.log), "".join(service.log)
    print(f"the club night took {time.monotonic() - began:.0f} s ({hall['db'] or 'sqlite'})")
