"""The desk and the venue service (issue 38 row 3, docs/venue-service.md) in real Chromium
(tests/screen/desk_night_e2e.mjs): the pages served by ``cueboard venue serve`` itself over HTTPS,
the venue's broker (TLS, the venue tool's ACL), two stand-in tables (tests/screen/desk_standin.py).
The desk shows that the service runs and whether it hands; switching it on there makes the
service hand round 1 (as its own login, ``venue``); a reload keeps the switch (the competition's
``auto``); switched off, the broker's competition says so; with the service stopped the desk says
it is not running and that this tab hands only while it stays open.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from cueboard.venue.competition import from_draw
from tests.helpers.venue import running_venue
from tests.screen.desk_standin import StandIn
from tests.screen.node_e2e import run_e2e
from tests.screen.test_desk import desk_shots, login
from tests.screen.test_screen import CHROMIUM, _require_browser
from tests.venue.test_serve_night import LOGINS, Service, Watch

pytestmark = pytest.mark.system

E2E = Path(__file__).with_name("desk_night_e2e.mjs")
RESERVE_E2E = Path(__file__).with_name("desk_reserve_e2e.mjs")
TABLES = ("t1", "t2")


@contextmanager
def _night(tmp_path: Path, names: tuple[str, ...], auto: bool) -> Iterator[dict[str, Any]]:
    """The venue's broker, stand-in tables ``names``, a 4-player knockout (best of one; handed by
    itself when ``auto``) and ``cueboard venue serve``."""
    _require_browser()
    with ExitStack() as stack:
        venue = stack.enter_context(running_venue(tmp_path, tables=len(names), desks=LOGINS))
        tables = {name: StandIn(name, venue.directory, venue.ports["tables"]) for name in names}
        for table in tables.values():
            stack.callback(table.close)
        watch = Watch(venue, "referee")
        stack.callback(watch.close)
        made = from_draw({"kind": "knockout", "name": "Club Cup", "seeded": True,
                          "players": [{"name": n, "handicap": 0} for n in ("Ann", "Bob", "Cat", "Dan")]})
        watch.publish(watch.topics.competition, {
            "schema": 1, "id": "knockout-desk", "name": "Club Cup", "kind": "knockout",
            "format": {"game": "snooker", "best_of": 1},
            "created": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
            "rounds": made["rounds"], "handicaps": made["handicaps"], "seed": None, "seeded": True,
            "matches": made["matches"], "rev": 1, "by": "referee", **({"auto": True} if auto else {})})
        service = Service(venue.directory)
        stack.callback(service.stop)
        port = service.url.rsplit(":", 1)[1].split("/")[0]
        yield {"venue": venue, "service": service, "watch": watch, "base": f"https://localhost:{port}",
               "tables": tables, "final": made["matches"][-1]["fixture"]}


@pytest.fixture
def night(tmp_path: Path) -> Iterator[dict[str, Any]]:
    with _night(tmp_path, TABLES, auto=False) as found:
        yield found


def test_the_desk_shows_and_switches_the_venue_service(night: dict[str, Any], tmp_path: Path) -> None:
    watch: Watch = night["watch"]
    service: Service = night["service"]
    c = watch.topics.competition

    def auto_off(args: list[str]) -> None:
        watch.until("the broker's competition: auto off", lambda s: (s.get(c) or {}).get("auto") is False)

    def stop_service(args: list[str]) -> None:
        assert service.stop() == 0, "".join(service.log)
        watch.until("the service gone", lambda s: (s.get(watch.topics.service) or {}).get("online") is False)

    plan = {"base": night["base"], "chromium": CHROMIUM, "desk": login(night["venue"].directory, "desk"),
            "screenshots": desk_shots(tmp_path)}
    run_e2e(E2E, plan, tmp_path / "plan.json", timeout=300,
            handlers={"auto-off": auto_off, "stop-service": stop_service})
    handed = watch.get(c)
    assert [m["handed_by"] for m in handed["matches"] if m["round"] == 1] == ["venue", "venue"], json.dumps(handed)


def test_a_final_reserved_on_the_desk_goes_to_its_table(tmp_path: Path) -> None:
    """Issue 38 row 10: the desk reserves t1 for the final (after reserving t2 and clearing it);
    the service hands the semi-finals to t1 and t2, and once they are won the final goes to t1,
    though t3, free all night and with no match played, comes first for any other match."""
    with _night(tmp_path, ("t1", "t2", "t3"), auto=True) as found:
        watch: Watch = found["watch"]
        tables: dict[str, StandIn] = found["tables"]
        c = watch.topics.competition
        final = found["final"]

        def play_semis(args: list[str]) -> None:
            for name in ("t1", "t2"):
                watch.until(f"a semi-final on {name}'s next",
                            lambda s, n=name: (s.get(watch.topics.table(n).next) or {}).get("fixture"))
                assert tables[name].start() == ""
                tables[name].finish(0)

        plan = {"base": found["base"], "chromium": CHROMIUM, "desk": login(found["venue"].directory, "desk"),
                "screenshots": desk_shots(tmp_path), "final": final}
        run_e2e(RESERVE_E2E, plan, tmp_path / "plan.json", timeout=300, handlers={"play-semis": play_semis})
        handed = watch.until("the final handed", lambda s: next(
            (m for m in (s.get(c) or {}).get("matches", []) if m["fixture"] == final and m.get("table")), None))
        assert handed["table"] == "t1" and handed["reserved"] == "t1", handed
        assert (watch.get(watch.topics.table("t1").next) or {}).get("fixture") == final
        assert not watch.get(watch.topics.table("t3").next), "t3 was handed something"
