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
from contextlib import ExitStack
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
TABLES = ("t1", "t2")


@pytest.fixture
def night(tmp_path: Path) -> Iterator[dict[str, Any]]:
    _require_browser()
    with ExitStack() as stack:
        venue = stack.enter_context(running_venue(tmp_path, tables=len(TABLES), desks=LOGINS))
        tables = {name: StandIn(name, venue.directory, venue.ports["tables"]) for name in TABLES}
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
            "matches": made["matches"], "rev": 1, "by": "referee"})
        service = Service(venue.directory)
        stack.callback(service.stop)
        port = service.url.rsplit(":", 1)[1].split("/")[0]
        yield {"venue": venue, "service": service, "watch": watch, "base": f"https://localhost:{port}"}


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
