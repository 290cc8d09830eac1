"""A knockout of 8 played on 4 tables by real daemons on mock pins (issue 30's "Done means"):
the desk (real Chromium, tests/screen/desk_knockout_e2e.mjs) draws it, hands each match to the next free
table by itself (the table's retained ``next``), starts it (``start_next``), and the match ends
by a concession sent from the desk; winners move on from the tables' records until the final;
the bracket is complete and ``cueboard archive run`` on SQLite, fed by the same broker, holds the
7 matches, each once, with their fixture and competition.

tests/screen/test_desk_competition.py checks the desk's half alone, against stand-in tables.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.venue import Venue
from tests.screen.node_e2e import run_e2e
from tests.screen.test_desk import Table, desk_shots, login, started
from tests.screen.test_screen import CHROMIUM, _require_browser

TABLES = ("t1", "t2", "t3", "t4")

pytestmark = [pytest.mark.system, pytest.mark.club(tables=len(TABLES))]


E2E = Path(__file__).with_name("desk_knockout_e2e.mjs")


@pytest.fixture
def night(club: Venue, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """The club fixture's venue (tests/conftest.py) with its tables' daemons running and the desk's pages."""
    _require_browser()
    with ExitStack() as stack:
        venue = club
        directory, ports = venue.directory, venue.ports
        tables = started(stack, venue, tmp_path, TABLES)
        # The archive reads every table's record (docs/league.md) with a login of its own: one login
        # per device, and the venue tool has no reading-only role, so a desk-role one (the desk page
        # signed in as `desk` beside it would otherwise take its session, and the archive its).
        venue.add_user("archive")
        db = tmp_path / "archive.db"
        archive = subprocess.Popen(
            [sys.executable, "-m", "cueboard.cli", "archive", "run", "--db", f"sqlite:///{db}", "--host", "localhost",
             "--port", str(ports["people"]), "--ca", str(venue.ca), "--username", "archive",
             "--password-file", str(directory / "logins" / "archive.password")],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        stack.callback(archive.wait, 30)
        stack.callback(archive.terminate)
        pages = stack.enter_context(venue.desk_pages())
        yield {"tables": tables, "venue": directory, "db": db, "base": pages.base}


def stored(db: Path) -> list[dict[str, Any]]:
    """The archive's finished matches of the night (``cueboard archive matches``: a record a line)."""
    run = subprocess.run([sys.executable, "-m", "cueboard.cli", "archive", "matches", "--db", f"sqlite:///{db}",
                          "--competition", "Club Cup"], capture_output=True, text=True, check=True)
    records = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    return [r for r in records if r.get("winner") is not None]


def test_a_knockout_of_8_on_4_tables_by_real_daemons(night: dict[str, Any], tmp_path: Path) -> None:
    venue: Path = night["venue"]
    plan = {"base": night["base"], "chromium": CHROMIUM, "desk": login(venue, "desk"),
            "screenshots": desk_shots(tmp_path)}
    run_e2e(E2E, plan, tmp_path / "plan.json", timeout=600)
    # Every table played; the archive holds the 7 matches once, each with its fixture.
    tables: dict[str, Table] = night["tables"]
    played = {name for name, t in tables.items() if t.daemon is not None
              and any(Path(t.config.journal_dir).glob("match-*.jsonl"))}
    assert played == set(TABLES), played
    # The archive commits each record as it arrives: asked until it has the final's (a bounded count of asks).
    matches = stored(night["db"])
    for _ in range(300):
        if len(matches) >= 7:
            break
        threading.Event().wait(0.2)  # not a wall-clock limit: a pause between asks (300 asks, not a time)
        matches = stored(night["db"])
    assert len(matches) == 7, matches
    assert len({m["match_id"] for m in matches}) == 7
    assert {m.get("fixture") for m in matches} == {f"club-cup-R{r}-{n}" for r, k in ((1, 4), (2, 2), (3, 1))
                                                   for n in range(1, k + 1)}
