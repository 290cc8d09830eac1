"""The desk's JSON routes (cueboard/venue/desk_routes.py, docs/desk.md "Tonight's competition"): a
fixture file checked by cueboard.league.match_day and a draw made by cueboard.venue.pairings, each answered as the
matches the desk keeps, and a hostile file refused with its line and reason, over a real server."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from cueboard.common.web_server import WebServer
from cueboard.venue.pages import make_server, serve_in_thread

CSV = (b"competition,day,fixture,home_team,away_team,home,away,game,best_of\n"
       b"Division 1,2026-12-03,D1-05-1,Red Lion,Crown,Ann Smith,Bob Jones,snooker,3\n"
       b"Division 1,2026-12-03,D1-05-2,Red Lion,Crown,Cat Lee & Dan Ross,Eve Hart & Fay Moss,snooker,1\n")


@pytest.fixture
def base() -> Iterator[str]:
    server: WebServer = make_server("127.0.0.1", 0, venue="club")
    serve_in_thread(server)
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def post(url: str, body: bytes) -> tuple[int, Any]:
    request = urllib.request.Request(url, data=body, method="POST")
    try:
        with urllib.request.urlopen(request) as answer:
            assert answer.headers["Content-Type"].startswith("application/json")
            assert "script-src 'self'" in answer.headers["Content-Security-Policy"]
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def test_a_match_day_from_csv_is_the_desks_matches(base: str) -> None:
    status, body = post(f"{base}/desk/api/fixtures?name=day5.csv", CSV)
    assert status == 200
    assert [m["fixture"] for m in body["matches"]] == ["D1-05-1", "D1-05-2"]
    first, pairs = body["matches"]
    assert first["sides"] == ["Ann Smith", "Bob Jones"] and first["format"] == {"game": "snooker", "best_of": 3}
    assert first["competition"] == "Division 1" and first["home_team"] == "Red Lion"
    assert pairs["sides"] == [["Cat Lee", "Dan Ross"], ["Eve Hart", "Fay Moss"]]


@pytest.mark.parametrize(("data", "line", "reason"), [
    (CSV.replace(b"Bob Jones", b"Bob\x07Jones"), 2, "control"),
    (CSV + b'Division 1,2026-12-03,"D1-05-3,Red Lion\n', 4, "not valid CSV"),
    (CSV.replace(b"best_of\n", b"best_of,colour\n"), 1, "unknown column 'colour'"),
    (CSV + CSV.split(b"\n", 1)[1], 4, "listed twice"),
    (b"fixture,home,away\n" + b"x" * (10 * 1024 * 1024), None, "at most 1,048,576"),
])
def test_a_hostile_fixture_file_is_refused_with_its_line_and_reason(base: str, data: bytes, line: int | None,
                                                                     reason: str) -> None:
    status, body = post(f"{base}/desk/api/fixtures?name=bad.csv&competition=D1", data)
    assert status == 422
    assert body["error"]["line"] == line and reason in body["error"]["reason"], body
    assert body["error"]["file"] == "bad.csv"


def test_a_seeded_knockout_of_five_gives_the_top_seeds_byes(base: str) -> None:
    players = [{"name": n, "handicap": h} for n, h in [("Ann", 0), ("Bob", 7), ("Cat", 14), ("Dan", 0), ("Eve", 21)]]
    status, body = post(f"{base}/desk/api/draw", json.dumps(
        {"kind": "knockout", "name": "Club Cup", "players": players, "seeded": True}).encode())
    assert status == 200 and body["rounds"] == 3 and len(body["matches"]) == 7
    r1 = {m["label"]: m for m in body["matches"] if m["round"] == 1}
    # Seeds 1-3 have byes (1 v 8, 4 v 5, 2 v 7, 3 v 6): only Dan v Eve is played in round 1.
    assert [m["sides"] for m in r1.values() if m["winner"] is None] == [["Dan", "Eve"]]
    assert r1["R1-2"]["handicap"] == [0, 21] and r1["R1-2"]["next"] == {"fixture": "club-cup-R2-1", "side": 1}
    r2 = [m for m in body["matches"] if m["round"] == 2]
    assert r2[0]["sides"] == ["Ann", None] and r2[1]["sides"] == ["Bob", "Cat"]


def test_a_drawn_knockout_is_the_same_for_the_same_seed(base: str) -> None:
    draw = {"kind": "knockout", "name": "Open", "players": [{"name": f"P{i}"} for i in range(8)], "seeded": False}
    status, body = post(f"{base}/desk/api/draw", json.dumps(draw).encode())
    assert status == 422 and "seed" in body["error"]["reason"]
    one = post(f"{base}/desk/api/draw", json.dumps({**draw, "seed": 42}).encode())[1]
    two = post(f"{base}/desk/api/draw", json.dumps({**draw, "seed": 42}).encode())[1]
    assert one == two and one["seed"] == 42
    assert [m["sides"] for m in one["matches"][:4]] != [["P0", "P7"], ["P3", "P4"], ["P1", "P6"], ["P2", "P5"]]


def test_a_round_robin_meets_everyone_once(base: str) -> None:
    status, body = post(f"{base}/desk/api/draw", json.dumps(
        {"kind": "round_robin", "name": "Friday", "players": [{"name": n} for n in "ABCDE"]}).encode())
    assert status == 200 and body["rounds"] == 5 and len(body["matches"]) == 10
    assert len({frozenset(m["sides"]) for m in body["matches"]}) == 10


@pytest.mark.parametrize(("draw", "reason"), [
    ({"kind": "knockout", "name": "Cup", "players": [{"name": "Ann"}, {"name": "Ann"}]}, "entered twice"),
    ({"kind": "knockout", "name": "Cup", "players": [{"name": "Ann\u202e"}, {"name": "Bob"}]}, "control character"),
    ({"kind": "knockout", "name": "Cup", "players": [{"name": "Ann", "handicap": "7"}, {"name": "Bob"}]},
     "handicap"),
    ({"kind": "swiss", "name": "Cup", "players": [{"name": "Ann"}, {"name": "Bob"}]}, "not knockout or round_robin"),
    ({"kind": "knockout", "name": "", "players": []}, "name"),
])
def test_a_draw_that_cannot_be_made_says_why(base: str, draw: dict[str, Any], reason: str) -> None:
    status, body = post(f"{base}/desk/api/draw", json.dumps(draw).encode())
    assert status == 422 and reason in body["error"]["reason"], body


def test_a_draw_that_is_not_json_is_refused(base: str) -> None:
    status, body = post(f"{base}/desk/api/draw", b"\xff{")
    assert status == 422 and "not JSON" in body["error"]["reason"]


@pytest.mark.parametrize("name", ["competition", "desk"])
def test_a_table_cannot_take_the_name_of_a_venue_topic(name: str) -> None:
    """cueboard/<venue>/competition and desk/presets are the venue's own (docs/mqtt.md)."""
    from cueboard.common.errors import VenueError
    from cueboard.venue.plan import Venue

    with pytest.raises(VenueError, match="venue's own topics"):
        Venue(name="club", hosts=["broker.club.lan"]).add_table(name)
