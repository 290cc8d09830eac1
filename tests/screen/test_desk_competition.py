"""Tonight's competition at the desk (issue 30, docs/desk.md "Tonight's competition") end to end
in real Chromium (tests/screen/desk_competition_e2e.mjs) against a real mosquitto running the files
``cueboard venue init`` writes (TLS, passwords, ACL), with ``/desk`` and ``/bracket`` served by
``cueboard screen`` over HTTPS.

The desk's half of the hand-off is what this test checks, against stand-in tables
(tests/screen/desk_standin.py: the contract's table half of ``next`` and ``start_next``) because the
table side is built in parallel; tests/screen/test_desk_knockout.py plays the same night against real
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

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.venue import running_venue
from tests.screen.desk_standin import StandIn
from tests.screen.node_e2e import Handler, run_e2e
from tests.screen.test_desk import desk_shots, login
from tests.screen.test_screen import CHROMIUM, _require_browser

pytestmark = pytest.mark.system


E2E = Path(__file__).with_name("desk_competition_e2e.mjs")
TABLES = ("t1", "t2", "t3", "t4")


@pytest.fixture
def night(tmp_path: Path) -> Iterator[dict[str, Any]]:
    _require_browser()
    with ExitStack() as stack:
        venue = stack.enter_context(running_venue(tmp_path, tables=len(TABLES)))
        tables = {}
        for name in TABLES:
            tables[name] = StandIn(name, venue.directory, venue.ports["tables"])
            stack.callback(tables[name].close)
        # The second desk (a tablet) is another device: a login of its own (one login per device).
        desk2 = venue.add_user("desk-2")
        pages = stack.enter_context(venue.desk_pages())
        yield {"tables": tables, "venue": venue.directory, "base": pages.base, "desk2": desk2}


def test_tonights_knockout_is_run_from_the_desk(night: dict[str, Any], tmp_path: Path) -> None:
    venue: Path = night["venue"]
    tables: dict[str, StandIn] = night["tables"]
    plan = {"base": night["base"], "chromium": CHROMIUM, "desk": login(venue, "desk"), "desk2": night["desk2"],
            "screenshots": desk_shots(tmp_path)}
    played: list[tuple[str, str]] = []

    def play(args: list[str]) -> None:
        # Every table with a match handed: the referee starts it; then the home side wins.
        for table in tables.values():
            if table.next is not None and table.live is None:
                fixture = table.next["fixture"]
                assert table.start() == "", fixture
                table.finish(0)
                played.append((table.name, fixture))
        print(f"played {len(played)}")

    def status(online: bool) -> Handler:
        return lambda args: tables[args[0]].status(online)

    run_e2e(E2E, plan, tmp_path / "plan.json", timeout=400, handlers={
        "play": play, "finish": lambda args: tables[args[0]].finish(0),
        "history": lambda args: tables[args[0]].history(), "offline": status(False), "online": status(True)})
    fixtures = [f for t in tables.values() for f in t.started if f.startswith("club-cup-")]
    assert len(fixtures) == len(set(fixtures)) == 7, f"each of the 7 matches started once, on one table: {fixtures}"
    robin = sorted(f for t in tables.values() for f in t.started if f.startswith("friday-"))
    assert robin == ["friday-round-robin-1-1", "friday-round-robin-1-2"], \
        f"a round robin's player plays one match at a time: round 2 waits for round 1 ({robin})"
    assert {t for t, _ in played} == set(TABLES), "every table was used"
