"""Tonight's competition at the desk (issue 30, docs/desk.md "Tonight's competition") end to end
in real Chromium (tests/desk_competition_e2e.mjs) against a real mosquitto running the files
``cueboard venue init`` writes (TLS, passwords, ACL), with ``/desk`` and ``/bracket`` served by
``cueboard screen`` over HTTPS.

The desk's half of the hand-off is what this test checks, against stand-in tables
(tests/desk_standin.py: the contract's table half of ``next`` and ``start_next``) because the
table side is built in parallel; tests/test_desk_knockout.py plays the same night against real
daemons. A hostile fixture file is refused with its line and reason in the page; a seeded
knockout of 8 with handicaps; a match handed to t1 and started by the desk once (handed again:
refused); the rest handed to the next free table by themselves, winners moved on from the
tables' records until the champion; the same night after a reload and on the bracket page
(anonymous, read only); a preset and the player list kept for the venue; a table's history from
its retained ``history`` (after a reload too), a correction's preview before sending (and the
table's refusal of one), a message until a time and cleared, a table offline and back. Screenshots with
``CUEBOARD_DESK_SHOTS=docs/img``.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from desk_standin import StandIn
from mosquitto import Mosquitto, free_port, require_mosquitto
from test_desk import cli
from test_screen import CHROMIUM, _require_browser

from cueboard.screen import make_server, serve_in_thread
from cueboard.web_server import tls_context

pytest_plugins = ["mosquitto"]

E2E = Path(__file__).with_name("desk_competition_e2e.mjs")
TABLES = ("t1", "t2", "t3", "t4")


def allow_table_topics(venue: Path) -> None:
    """The table's half of ``next`` (it clears it) until the venue tool's ACL says so itself
    (the table side's change, built in parallel): appended under each table's login."""
    acl = venue / "mosquitto" / "acl"
    text = acl.read_text()
    for name in TABLES:
        text = text.replace(f"user {name}\n", f"user {name}\n" + "".join(
            f"topic write cueboard/club/{name}/{kind}\n" for kind in ("next", "history", "preview")))
    acl.write_text(text)


@pytest.fixture
def night(tmp_path: Path) -> Iterator[dict[str, Any]]:
    require_mosquitto()
    _require_browser()
    ports = {"tables": free_port(), "people": free_port(), "pages": free_port(), "screens": free_port()}
    directory = tmp_path / "venue"
    cli("init", "--dir", str(directory), "--venue", "club", "--tables", str(len(TABLES)), "--host", "localhost",
        "--host", "127.0.0.1", "--bind", "127.0.0.1", "--tables-port", str(ports["tables"]),
        "--people-port", str(ports["people"]), "--pages-port", str(ports["pages"]),
        "--screens-port", str(ports["screens"]))
    allow_table_topics(directory)
    config = (directory / "mosquitto" / "venue.conf").read_text()
    with ExitStack() as stack:
        stack.enter_context(Mosquitto(tmp_path / "broker", port=ports["tables"], config=config))
        tables = {}
        for name in TABLES:
            tables[name] = StandIn(name, directory, ports["tables"])
            stack.callback(tables[name].close)
        certs = directory / "certs"
        tls = tls_context(str(certs / "server.crt"), str(certs / "server.key"))
        server = make_server("127.0.0.1", 0, venue="club", tls=tls, broker_ws=f"wss://localhost:{ports['screens']}",
                             page={"desk_broker": f"wss://localhost:{ports['pages']}"})
        serve_in_thread(server)
        stack.callback(server.server_close)
        stack.callback(server.shutdown)
        base = f"https://localhost:{server.server_address[1]}"
        yield {"tables": tables, "venue": directory, "base": base}


def test_tonights_knockout_is_run_from_the_desk(night: dict[str, Any], tmp_path: Path) -> None:
    venue: Path = night["venue"]
    tables: dict[str, StandIn] = night["tables"]
    shots = os.environ.get("CUEBOARD_DESK_SHOTS")
    plan = {"base": night["base"], "chromium": CHROMIUM,
            "desk": {"user": "desk", "password": (venue / "logins" / "desk.password").read_text().strip()},
            "screenshots": str(Path(shots).resolve()) if shots else str(tmp_path / "shots")}
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan))
    node = subprocess.Popen(["node", str(E2E), str(plan_file)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    timer = threading.Timer(400, node.kill)
    timer.start()
    out: list[str] = []
    played: list[tuple[str, str]] = []
    try:
        assert node.stdout is not None and node.stdin is not None
        for line in node.stdout:
            out.append(line)
            print(line, end="")
            if line.startswith("need: "):
                verb = line.split(": ", 1)[1].split()
                if verb[0] == "play":
                    # Every table with a match handed: the referee starts it; then the home side wins.
                    for table in tables.values():
                        if table.next is not None and table.live is None:
                            fixture = table.next["fixture"]
                            assert table.start() == "", fixture
                            table.finish(0)
                            played.append((table.name, fixture))
                    print(f"played {len(played)}")
                elif verb[0] == "finish":
                    tables[verb[1]].finish(0)
                elif verb[0] == "history":
                    tables[verb[1]].history()
                elif verb[0] in ("offline", "online"):
                    tables[verb[1]].status(verb[0] == "online")
                node.stdin.write("done\n")
                node.stdin.flush()
        node.wait()
    finally:
        timer.cancel()
    err = node.stderr.read() if node.stderr else ""
    assert node.returncode == 0, "".join(out[-8:]) + err
    fixtures = [f for t in tables.values() for f in t.started if f.startswith("club-cup-")]
    assert len(fixtures) == len(set(fixtures)) == 7, f"each of the 7 matches started once, on one table: {fixtures}"
    robin = sorted(f for t in tables.values() for f in t.started if f.startswith("friday-"))
    assert robin == ["friday-round-robin-1-1", "friday-round-robin-1-2"], \
        f"a round robin's player plays one match at a time: round 2 waits for round 1 ({robin})"
    assert {t for t, _ in played} == set(TABLES), "every table was used"
