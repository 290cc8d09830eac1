"""One ranking (issue 36): the league's archive and the desk's night are ordered by the same
function, cueboard.league.standings.rank. A night that only head to head separates is ordered
alike by the archive's tables over HTTP (cueboard/league/http.py) and by the desk's route
``POST /desk/api/standings`` (cueboard/venue/desk_routes.py); the route's bad input is answered
4xx naming the field or the limit. The same night in the browser: tests/screen/test_desk_standings.py."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from cueboard.league.http import archive_app
from cueboard.league.records import checked
from cueboard.league.standings import Result, rank, standings
from cueboard.league.store import Archive
from cueboard.venue import desk_routes
from tests.venue.test_desk_routes import base as base  # the fixture, taken by its name
from tests.venue.test_desk_routes import post

PLAYERS = ["Amy", "Bob", "Cal", "Zoe"]
NIGHT: list[tuple[str, str, int, tuple[int, int]]] = [
    # home, away, the winner's side, frames won: Amy and Zoe end level on points (4), frame
    # difference (+2) and frames won (5); Zoe beat Amy, so Zoe is above her (by name: below).
    ("Zoe", "Amy", 0, (2, 1)),
    ("Amy", "Bob", 0, (2, 1)),
    ("Bob", "Zoe", 0, (2, 1)),
    ("Amy", "Cal", 0, (2, 0)),
    ("Zoe", "Cal", 0, (2, 0)),
    ("Cal", "Bob", 0, (2, 0)),
]
ORDER = ["Zoe", "Amy", "Bob", "Cal"]  # Bob above Cal on frames won (3 to 2), level on points and difference


def night_request() -> dict[str, Any]:
    """The night as the desk sends it (screen/desk/competition.js standingsRequest)."""
    return {"players": PLAYERS, "results": [{"sides": [home, away], "winner": winner, "frames": list(frames)}
                                            for home, away, winner, frames in NIGHT]}


def night_records() -> list[dict[str, Any]]:
    """The night as the tables' records reach the archive (docs/record.md)."""
    out = []
    for n, (home, away, winner, frames) in enumerate(NIGHT, start=1):
        won = [0] * frames[0] + [1] * frames[1]
        out.append({"game": "snooker", "sides": [{"name": home, "players": [home]}, {"name": away, "players": [away]}],
                    "frames": [{"frame": k, "winner": w, "breaks": []} for k, w in enumerate(won, start=1)],
                    "frames_won": list(frames), "winner": winner, "competition": "Friday Round Robin",
                    "fixture": f"friday-{n}", "venue": "club", "table": "t1", "started": f"2026-12-04T19:{n:02d}:00Z"})
    return out


def archive_standings(tmp_path: Path) -> list[dict[str, Any]]:
    url = f"sqlite:///{tmp_path}/league.db"
    with Archive.open(url) as archive:
        for record in night_records():
            archive.put(checked(record), source="test")
    got: list[dict[str, Any]] = []

    async def main() -> None:
        async with TestClient(TestServer(archive_app(url))) as client:
            answer = await client.get("/standings", params={"competition": "Friday Round Robin"})
            assert answer.status == 200
            got.extend(await answer.json())

    asyncio.run(main())
    return got


def test_a_night_only_head_to_head_separates_is_ordered_alike_by_the_archive_and_the_desk(
        tmp_path: Path, base: str) -> None:
    league = archive_standings(tmp_path)
    status, desk = post(f"{base}/desk/api/standings", json.dumps(night_request()).encode())
    assert status == 200
    assert [r["name"] for r in league] == ORDER, league
    assert desk["standings"] == league
    amy, zoe = (next(r for r in league if r["name"] == n) for n in ("Amy", "Zoe"))
    level = ("points", "frame_difference", "frames_for")
    assert [amy[k] for k in level] == [zoe[k] for k in level] == [4, 2, 5], "level on all but head to head"
    assert (zoe["position"], amy["position"]) == (1, 2), "head to head decides: they do not share a place"


def test_the_desk_lists_a_player_with_nothing_played_yet(base: str) -> None:
    status, body = post(f"{base}/desk/api/standings", json.dumps({"players": ["Dan", "Ann"], "results": [
        {"sides": ["Ann", "Bob"], "winner": 1, "frames": None}]}).encode())
    assert status == 200
    rows = [(r["name"], r["played"], r["points"], r["position"]) for r in body["standings"]]
    assert rows == [("Bob", 1, 2, 1), ("Ann", 1, 0, 2), ("Dan", 0, 0, 2)], "a result without frames counts its win"


def test_rank_is_what_the_archives_standings_are() -> None:
    results = [Result((home, away), winner, frames) for home, away, winner, frames in NIGHT]
    assert [r.as_dict() for r in rank(results)] == [r.as_dict() for r in standings(night_records())]


def big(n: int) -> bytes:
    return json.dumps({"results": [{"sides": ["A", "B"], "winner": 0}] * n}).encode()


@pytest.mark.parametrize(("body", "status", "reason"), [
    (b"x" * (desk_routes.MAX_STANDINGS_BYTES + 1), 413, "at most 16,777,216 bytes"),
    (big(desk_routes.MAX_RESULTS + 1), 422, "results: 65,281; at most 65,280 in one night"),
    (json.dumps({"players": ["A"] * (desk_routes.MAX_ENTRANTS + 1), "results": []}).encode(), 422,
     "players: 4,001; at most 4,000"),
    (b"\xff", 422, "utf-8"),
    (b"[1, 2]", 422, "a JSON object"),
    (b"{}", 422, "results: a list"),
    (json.dumps({"results": [{"sides": ["A", "B"], "winner": 2}]}).encode(), 422, "result 1: winner: 0 or 1"),
    (json.dumps({"results": [{"sides": ["A", "B"], "winner": True}]}).encode(), 422, "result 1: winner: 0 or 1"),
    (json.dumps({"results": [{"sides": ["A"], "winner": 0}]}).encode(), 422, "result 1: sides"),
    (json.dumps({"results": [{"sides": ["A", "B\u0007"], "winner": 0}]}).encode(), 422,
     "result 1: side 1: the name has a control character (U+0007)"),
    (json.dumps({"results": [{"sides": ["A", "x" * 404], "winner": 0}]}).encode(), 422, "a name is at most 403"),
    (json.dumps({"results": [{"sides": ["A", "B"], "winner": 0, "frames": [1, -1]}]}).encode(), 422,
     "frames: the frames each side won, two whole numbers from 0 to 1000"),
    (json.dumps({"players": [7], "results": []}).encode(), 422, "player 1: a name"),
])
def test_bad_input_is_answered_naming_the_field_or_the_limit(base: str, body: bytes, status: int, reason: str) -> None:
    got, answer = post(f"{base}/desk/api/standings", body)
    assert (got, reason.lower() in answer["error"]["reason"].lower()) == (status, True), answer


def test_the_largest_night_is_ranked(base: str) -> None:
    status, body = post(f"{base}/desk/api/standings", big(desk_routes.MAX_RESULTS))
    assert status == 200
    assert [(r["name"], r["won"], r["lost"]) for r in body["standings"]] == [
        ("A", desk_routes.MAX_RESULTS, 0), ("B", 0, desk_routes.MAX_RESULTS)]
