"""A knockout of 8 played on 4 tables by real daemons on mock pins (issue 30's "Done means"):
the desk (real Chromium, tests/desk_knockout_e2e.mjs) draws it, hands each match to the next free
table by itself (the table's retained ``next``), starts it (``start_next``), and the match ends
by a concession sent from the desk; winners move on from the tables' records until the final;
the bracket is complete and ``cueboard archive run`` on SQLite, fed by the same broker, holds the
7 matches, each once, with their fixture and competition.

tests/test_desk_competition.py checks the desk's half alone, against stand-in tables.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from mosquitto import Mosquitto, free_port, require_mosquitto
from test_desk import Table, cli
from test_screen import CHROMIUM, _require_browser

from cueboard.screen import make_server, serve_in_thread
from cueboard.web_server import tls_context

pytest_plugins = ["mosquitto"]

E2E = Path(__file__).with_name("desk_knockout_e2e.mjs")
TABLES = ("t1", "t2", "t3", "t4")


@pytest.fixture
def club(tmp_path: Path) -> Iterator[dict[str, Any]]:
    require_mosquitto()
    _require_browser()
    ports = {"tables": free_port(), "people": free_port(), "pages": free_port(), "screens": free_port()}
    directory = tmp_path / "venue"
    cli("init", "--dir", str(directory), "--venue", "club", "--tables", str(len(TABLES)), "--host", "localhost",
        "--host", "127.0.0.1", "--bind", "127.0.0.1", "--tables-port", str(ports["tables"]),
        "--people-port", str(ports["people"]), "--pages-port", str(ports["pages"]),
        "--screens-port", str(ports["screens"]))
    config = (directory / "mosquitto" / "venue.conf").read_text()
    with ExitStack() as stack:
        stack.enter_context(Mosquitto(tmp_path / "broker", port=ports["tables"], config=config))
        tables = {name: Table(name, tmp_path / name, directory, ports["tables"]) for name in TABLES}
        for table in tables.values():
            table.start()
            stack.callback(table.stop)
        # The archive reads every table's record as the desk's login does (docs/league.md).
        db = tmp_path / "archive.db"
        archive = subprocess.Popen(
            [sys.executable, "-m", "cueboard.cli", "archive", "run", "--db", f"sqlite:///{db}", "--host", "localhost",
             "--port", str(ports["people"]), "--ca", str(directory / "ca" / "venue-ca.crt"), "--username", "desk",
             "--password-file", str(directory / "logins" / "desk.password")],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        stack.callback(archive.wait, 30)
        stack.callback(archive.terminate)
        certs = directory / "certs"
        tls = tls_context(str(certs / "server.crt"), str(certs / "server.key"))
        server = make_server("127.0.0.1", 0, venue="club", tls=tls, broker_ws=f"wss://localhost:{ports['screens']}",
                             page={"desk_broker": f"wss://localhost:{ports['pages']}"})
        serve_in_thread(server)
        stack.callback(server.server_close)
        stack.callback(server.shutdown)
        yield {"tables": tables, "venue": directory, "db": db, "base": f"https://localhost:{server.server_address[1]}"}


def stored(db: Path) -> list[dict[str, Any]]:
    """The archive's finished matches of the night (``cueboard archive matches``: a record a line)."""
    run = subprocess.run([sys.executable, "-m", "cueboard.cli", "archive", "matches", "--db", f"sqlite:///{db}",
                          "--competition", "Club Cup"], capture_output=True, text=True, check=True)
    records = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    return [r for r in records if r.get("winner") is not None]


def test_a_knockout_of_8_on_4_tables_by_real_daemons(club: dict[str, Any], tmp_path: Path) -> None:
    venue: Path = club["venue"]
    shots = os.environ.get("CUEBOARD_DESK_SHOTS")
    plan = {"base": club["base"], "chromium": CHROMIUM,
            "desk": {"user": "desk", "password": (venue / "logins" / "desk.password").read_text().strip()},
            "screenshots": str(Path(shots).resolve()) if shots else str(tmp_path / "shots")}
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan))
    node = subprocess.Popen(["node", str(E2E), str(plan_file)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    timer = threading.Timer(600, node.kill)
    timer.start()
    out: list[str] = []
    try:
        assert node.stdout is not None and node.stdin is not None
        for line in node.stdout:
            out.append(line)
            print(line, end="")
        node.wait()
    finally:
        timer.cancel()
    err = node.stderr.read() if node.stderr else ""
    assert node.returncode == 0, "".join(out[-8:]) + err
    # Every table played; the archive holds the 7 matches once, each with its fixture.
    tables: dict[str, Table] = club["tables"]
    played = {name for name, t in tables.items() if t.daemon is not None
              and any(Path(t.config.journal_dir).glob("match-*.jsonl"))}
    assert played == set(TABLES), played
    # The archive commits each record as it arrives: asked until it has the final's (a bounded count of asks).
    matches = stored(club["db"])
    for _ in range(300):
        if len(matches) >= 7:
            break
        threading.Event().wait(0.2)  # not a wall-clock limit: a pause between asks (300 asks, not a time)
        matches = stored(club["db"])
    assert len(matches) == 7, matches
    assert len({m["match_id"] for m in matches}) == 7
    assert {m.get("fixture") for m in matches} == {f"club-cup-R{r}-{n}" for r, k in ((1, 4), (2, 2), (3, 1))
                                                   for n in range(1, k + 1)}
