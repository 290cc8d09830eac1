"""The hall's bracket page for a groups night (issue 38, row 10), in real Chromium
(tests/screen/bracket_groups_e2e.mjs): a groups-into-a-knockout competition retained on
``cueboard/<venue>/competition`` by the desk's login on the venue broker (TLS, the ACL of
``cueboard venue init``), group A over (with a withdrawn player's walkovers), group B under
way with a match on a table. ``/bracket`` shows each group's table in the order the server places
it, the knockout with group A's places filled and B's still "B1"/"B2", a walkover as such; at
1920x1080 all of it on one screen in type readable across a hall, on a phone nothing wider than
the screen. Screenshots with ``CUEBOARD_DESK_SHOTS=docs/img``."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from cueboard.venue.competition import advance, from_draw, group_table, withdraw
from tests.helpers.venue import Pages, Venue, running_venue
from tests.screen.node_e2e import run_e2e
from tests.screen.test_desk import desk_shots
from tests.screen.test_desk_standings import publish_retained
from tests.screen.test_screen import CHROMIUM, _require_browser

pytestmark = pytest.mark.system

E2E = Path(__file__).with_name("bracket_groups_e2e.mjs")
PLAYERS = [("Ann Smith", 0), ("Bob Jones", 7), ("Cat Lee", 0), ("Dan Ross", 14), ("Eve Hart", 0),
           ("Fay Moss", 0), ("Gus Park", 21), ("Hal Wood", 0)]


def night() -> dict[str, Any]:
    """The night as a desk keeps it: group A played out (Hal Wood withdrew after one match),
    group B half played, one of its matches on t1."""
    c = from_draw({"kind": "groups", "name": "Winter Cup", "groups": 2, "advance": 2,
                   "players": [{"name": n, "handicap": h} for n, h in PLAYERS]})
    for m in c["matches"]:
        if m.get("group") == "A" and "Hal Wood" in m["sides"] and m["round"] == 1:
            m.update(winner=m["sides"].index("Hal Wood"), frames=[2, 1] if m["sides"][0] == "Hal Wood" else [1, 2],
                     table="t2", started=True)
    c = withdraw(c, "Hal Wood")
    for m in c["matches"]:
        if m.get("group") == "A" and m["winner"] is None:
            m.update(winner=0, frames=[2, 0], table="t1", started=True)
    b = [m for m in c["matches"] if m.get("group") == "B"]
    for m in b[:3]:
        m.update(winner=1, frames=[1, 2], table="t2", started=True)
    b[3].update(table="t1", started=True)
    c = advance(c)
    now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return {"schema": 1, "id": "groups-winter", "name": "Winter Cup", "format": {"game": "snooker", "best_of": 3},
            "created": now, "rev": 1, "by": "desk", "ts": now, **c}


@pytest.fixture
def venue_night(tmp_path: Path) -> Iterator[tuple[Venue, Pages, dict[str, Any]]]:
    _require_browser()
    c = night()
    with running_venue(tmp_path, tables=2) as venue, venue.desk_pages() as pages:
        publish_retained(venue, "cueboard/club/competition", c)
        yield venue, pages, c


def test_the_bracket_page_shows_groups_and_their_knockout_across_a_hall(
        venue_night: tuple[Venue, Pages, dict[str, Any]], tmp_path: Path) -> None:
    _, pages, c = venue_night
    r1 = next(m for m in c["matches"] if m["label"] == "R1-1")
    assert r1["sides"][0] is not None and r1["sides"][1] is None  # A's winner in, B's runner-up to come
    plan = {"base": pages.base, "chromium": CHROMIUM, "screenshots": desk_shots(tmp_path),
            "order": {g: [r["name"] for r in group_table(c, g)] for g in ("A", "B")},
            "r1": r1["fixture"], "a1": r1["sides"][0],
            "walkovers": len([m for m in c["matches"] if m.get("walkover")])}
    out = run_e2e(E2E, plan, tmp_path / "plan.json", timeout=300)
    assert any(line.startswith("ok: at 1920x1080 everything is on one screen") for line in out)
    assert any(line.startswith("ok: on a phone") for line in out)
