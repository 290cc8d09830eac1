"""The desk (issue 28, docs/desk.md) end to end: ``/desk`` served by ``cueboard screen`` over
HTTPS with the venue's certificate, in real Chromium (tests/screen/desk_e2e.mjs), signed in as the
desk's login over secure WebSockets to a real mosquitto running the files ``cueboard venue
init`` writes (TLS, passwords, ACL), with three real table daemons on mock pins.

The scenario: a wrong password is refused by the broker; a match started on two tables at once,
each table's answer shown in the form; a referee's press on t1 arrives; undo from the desk;
the shot clock started and held; a frame awarded with its reason; a stroke five strokes back
corrected (``amend``); a message for a table's boards; a finished match's sheet printed (A4 PDF);
a set-up the table refuses shows the table's reason in the form; a scorer's login is refused
the desk's powers by the broker (it sees its own table only, and a match line for another is
"Not authorized"); a table going offline and coming back is shown. Screenshots at 1366x768 and
1280x800 in English and German (docs/img/desk-*.png with ``CUEBOARD_DESK_SHOTS=docs/img``).
"""

from __future__ import annotations

import os
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from cueboard.cli import parser
from cueboard.engine import decode
from cueboard.hw.clock import ManualClock
from cueboard.table.journal import read_lines
from cueboard.venue.pages import SCREEN_DIR, make_server, serve_in_thread
from tests.helpers.daemon import table_config
from tests.helpers.venue import Venue
from tests.screen.node_e2e import run_e2e
from tests.screen.test_screen import CHROMIUM, _require_browser
from tests.table.test_reliability import KEYMAP, PINS, Daemon

TABLES = ("t1", "t2", "t3")

pytestmark = [pytest.mark.system, pytest.mark.club(tables=len(TABLES), scorers=["t1"])]


E2E = Path(__file__).with_name("desk_e2e.mjs")


def login(venue: Path, user: str) -> dict[str, str]:
    """A login of the venue as the desk's form takes it."""
    return {"user": user, "password": (venue / "logins" / f"{user}.password").read_text().strip()}


def desk_shots(tmp_path: Path) -> str:
    """Where the desk's screenshots go: ``CUEBOARD_DESK_SHOTS`` (docs/img for the docs), else the test's folder."""
    shots = os.environ.get("CUEBOARD_DESK_SHOTS")
    return str(Path(shots).resolve()) if shots else str(tmp_path / "shots")


class Table:
    """A table's daemon on mock pins, connected with its login from ``cueboard venue``; it can
    be stopped (the broker publishes its will: offline) and started again."""

    def __init__(self, name: str, directory: Path, venue: Path, port: int) -> None:
        self.name = name
        self.pins = MockFactory()
        self.clock = ManualClock(start=1000.0)
        password = (venue / "logins" / f"{name}.password").read_text().strip()
        mqtt = {"host": "localhost", "port": port, "username": name, "password": password, "command": True,
                "tls": {"ca": str(venue / "ca" / "venue-ca.crt")}}
        # The desk starts a second match on t2 seconds after its first ended: the daemon's
        # one-new-match-every-10-s limit is tests/table/test_command_path.py's, not this scenario's.
        self.config = table_config(directory, table={"venue": "club", "name": name}, mqtt=mqtt,
                                   referee_box=[{"pins": PINS[0], "keymap": str(KEYMAP)}],
                                   commands={"new_match_every": 0})
        self.daemon: Daemon | None = None

    def start(self) -> None:
        self.daemon = Daemon(self.config, boards=[], control=False, pin_factory=self.pins, button_clock=self.clock)
        self.daemon.__enter__()

    def stop(self) -> None:
        if self.daemon is not None:
            self.daemon.__exit__(None, None, None)
            self.daemon = None

    def press(self, button: int) -> None:
        pin = self.pins.pin(PINS[0][button])
        pin.drive_low()
        self.clock.advance(0.05)
        pin.drive_high()
        self.clock.advance(0.05)


def started(stack: ExitStack, venue: Venue, tmp_path: Path, names: Sequence[str]) -> dict[str, Table]:
    """A table's daemon for each of ``names`` on ``venue``'s broker, started; stopped with ``stack``."""
    tables = {name: Table(name, tmp_path / name, venue.directory, venue.ports["tables"]) for name in names}
    for table in tables.values():
        table.start()
        stack.callback(table.stop)
    return tables


@pytest.fixture
def night(club: Venue, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """The club fixture's venue (tests/conftest.py) with its tables' daemons running and the desk's pages."""
    _require_browser()
    with ExitStack() as stack:
        venue = club
        tables = started(stack, venue, tmp_path, TABLES)
        # The tablet and the other desks are devices of their own: a login each (one login per
        # device: a second connection of `desk` would take the first desk's session).
        others = {f"desk{n}": venue.add_user(f"desk-{n}") for n in (2, 3, 4)}
        pages = stack.enter_context(venue.desk_pages())
        yield {"broker": venue.broker, "tables": tables, "venue": venue.directory, "ports": venue.ports,
               "url": f"{pages.base}/desk", "others": others}


def test_the_desk_runs_a_club_night(night: dict[str, Any], tmp_path: Path) -> None:
    venue: Path = night["venue"]
    tables: dict[str, Table] = night["tables"]
    plan = {"url": night["url"], "chromium": CHROMIUM, "ca": str(venue / "ca" / "venue-ca.crt"),
            "desk": login(venue, "desk"), "scorer": login(venue, "scorer-t1"), "screenshots": desk_shots(tmp_path),
            "pdf": str(tmp_path / "sheet-t2.pdf"), **night["others"]}

    def press(args: list[str]) -> None:
        (target,) = args
        name, buttons = target.split(":")
        for button in buttons.split(","):
            tables[name].press(int(button))

    def stop(args: list[str]) -> None:
        (name,) = args
        tables[name].stop()

    def start(args: list[str]) -> None:
        (name,) = args
        tables[name].start()

    run_e2e(E2E, plan, tmp_path / "plan.json", timeout=300, handlers={"press": press, "stop": stop, "start": start})
    # What the desk did is the tables' own, in their journals under the desk's name: t1's match
    # started by the desk, the referee's first red undone, the black of stroke 2 made a pink.
    daemon = tables["t1"].daemon
    assert daemon is not None
    state = daemon.state()
    assert [s["name"] for s in state["sides"]] == ["Cath", "Dave"] and state["sides"][0]["score"] == 24
    journal = read_lines(sorted(Path(tables["t1"].config.journal_dir).glob("match-*.jsonl"))[-1])
    assert decode(journal[0])["user"] == "desk"
    lines = [decode(line) for line in journal[1:]]
    assert any(line.get("type") == "undo" and line.get("user") == "desk" for line in lines)
    assert any(line.get("type") == "amend" and line.get("seq") == 2 and line.get("user") == "desk" for line in lines)


def test_the_desks_javascript_is_type_checked_and_linted() -> None:
    """tsc over the desk's JSDoc (screen/tsconfig.json) and eslint (screen/eslint.config.mjs):
    ``npm run check`` in screen/, as scripts/test runs it."""
    _require_browser()
    if not (SCREEN_DIR / "node_modules" / "typescript").is_dir():
        pytest.fail("screen/node_modules has no typescript: (cd screen && npm ci --no-audit --no-fund)")
    run = subprocess.run(["npm", "run", "--silent", "check"], cwd=SCREEN_DIR, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_desk_uses_the_pages_one_ui_library() -> None:
    """The desk imports Preact and htm from screen/shared/ui.js, the copy the scorer uses too
    (vendored from the pinned packages: tests/screen/test_screen.py checks them)."""
    page = (SCREEN_DIR / "desk" / "desk.js").read_text()
    assert 'from "../shared/ui.js"' in page and "vendor/" not in page



def test_cueboard_screen_serves_the_desk_and_its_broker() -> None:
    """``/desk`` is the desk's page (with the screen's security headers), its files beside it;
    ``--desk-broker`` reaches the page in config.js; the folder's tooling is never served."""
    args = parser().parse_args(["screen", "--desk-broker", "wss://broker.club.lan:8885"])
    server = make_server("127.0.0.1", 0, venue="club", page={"desk_broker": args.desk_broker})
    serve_in_thread(server)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with urllib.request.urlopen(f"{base}/desk") as answer:
            assert answer.status == 200 and "desk/desk.js" in answer.read().decode()
            assert "script-src 'self'" in answer.headers["Content-Security-Policy"]
        for path in ("/desk/desk.js", "/desk/link.js", "/desk/lines.js", "/desk/desk.css",
                     "/shared/page.js", "/shared/bracket_view.js", "/shared/competition.js",
                     "/shared/ui.js", "/vendor/preact.js", "/vendor/hooks.js", "/vendor/htm.js"):
            with urllib.request.urlopen(base + path) as answer:
                assert answer.status == 200, path
        with urllib.request.urlopen(f"{base}/config.js") as answer:
            assert '"desk_broker": "wss://broker.club.lan:8885"' in answer.read().decode()
        for path in ("/tsconfig.json", "/eslint.config.mjs", "/desk/globals.d.ts", "/package.json"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(base + path)
            assert refused.value.code == 404, path
    finally:
        server.shutdown()
        server.server_close()
