"""The desk's ``/desk/api/draw`` for groups and ``/desk/api/advance`` (withdrawals, walkovers,
groups into the knockout) over a real ``cueboard screen`` server; bad input answered, naming
the field, with nothing changed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from cueboard.common.web_server import WebServer
from cueboard.venue.pages import make_server, serve_in_thread
from tests.venue.test_desk_routes import post

EIGHT = [{"name": n, "handicap": h} for n, h in
         zip(["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"], [0, 7, 0, 14, 0, 0, 21, 0], strict=True)]


@pytest.fixture
def base() -> Iterator[str]:
    server: WebServer = make_server("127.0.0.1", 0, venue="club")
    serve_in_thread(server)
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def groups(base: str) -> dict[str, Any]:
    status, body = post(f"{base}/desk/api/draw", json.dumps(
        {"kind": "groups", "name": "Club Cup", "players": EIGHT, "groups": 2, "advance": 2}).encode())
    assert status == 200, body
    return dict(body)


def test_a_groups_draw_then_a_withdrawal_gives_walkovers_and_the_groups_tables(base: str) -> None:
    c = groups(base)
    assert c["kind"] == "groups" and c["groups"]["A"] == ["Ann", "Dan", "Eve", "Hal"]
    status, body = post(f"{base}/desk/api/advance", json.dumps({"competition": c, "withdraw": "hal"}).encode())
    assert status == 200, body
    hal = [m for m in body["competition"]["matches"] if "Hal" in m["sides"]]
    assert len(hal) == 3 and all(m["walkover"] and m["frames"] is None and m["sides"][m["winner"]] != "Hal"
                                 for m in hal)
    assert body["competition"]["withdrawn"] == ["Hal"]  # the name as the draw keeps it (RFC 8266)
    assert [r["name"] for r in body["groups"]["A"]][-1] == "Hal"
    assert {r["name"]: r["won"] for r in body["groups"]["A"]} == {"Ann": 1, "Dan": 1, "Eve": 1, "Hal": 0}


def test_finished_groups_fill_the_knockout_with_handicaps(base: str) -> None:
    c = groups(base)
    for m in c["matches"]:
        if m.get("group"):
            m["winner"], m["frames"] = 0, [2, 0]
    status, body = post(f"{base}/desk/api/advance", json.dumps({"competition": c}).encode())
    assert status == 200, body
    r1 = [m for m in body["competition"]["matches"] if m["label"].startswith("R1-")]
    assert all(None not in m["sides"] for m in r1)
    places = {g: [r["name"] for r in rows] for g, rows in body["groups"].items()}
    assert r1[0]["sides"] == [places["A"][0], places["B"][1]]
    hc = {p["name"]: p["handicap"] for p in EIGHT}
    a, b = (hc[s] for s in r1[0]["sides"])
    assert r1[0]["handicap"] == [max(0, a - b), max(0, b - a)]


@pytest.mark.parametrize(("body", "reason"), [
    ({"competition": []}, "competition: an object"),
    ({"competition": {"matches": [{"fixture": "x", "sides": ["a"]}]}}, "match 1: sides"),
    ({"competition": {"matches": [{"fixture": "x", "sides": ["a", "b"], "winner": 2}]}}, "match 1: winner"),
    ({"competition": {"matches": [{"fixture": "x", "sides": ["a", "b"], "frames": [-1, 0]}]}}, "frames"),
    ({"competition": {"matches": [{"fixture": "x", "sides": [None, "b"], "from": [{"group": 1}, None]}]}},
     "from"),
    ({"competition": {"matches": [{"fixture": "x", "sides": ["Ann", "Bob"]}]}, "withdraw": "Zed"},
     "'Zed' is not a player"),
    ({"competition": {"matches": []}, "withdraw": "A\u200bnn"}, "withdraw"),
    ([1], "a JSON object"),
    ({"competition": {"matches": [{"fixture": "x", "sides": [{"a": 1}, "b"]}]}}, "match 1: sides"),
    ({"competition": {"handicaps": {"a": "7"}, "matches": []}}, "handicaps"),
    ({"competition": {"matches": [{"fixture": "x", "sides": ["a", "b"], "group": ["A"]}]}}, "group"),
])
def test_a_bad_advance_request_says_why(base: str, body: Any, reason: str) -> None:
    status, answer = post(f"{base}/desk/api/advance", json.dumps(body).encode())
    assert status == 422
    assert reason in answer["error"]["reason"]


def test_a_league_night_of_pairs_advances_with_nothing_to_do(base: str) -> None:
    pairs = {"matches": [{"fixture": "D1-1", "sides": [["Cat Lee", "Dan Ross"], ["Eve Hart", "Fay Moss"]],
                          "winner": None, "next": None}], "withdrawn": ["Cat Lee"]}
    status, body = post(f"{base}/desk/api/advance", json.dumps({"competition": pairs}).encode())
    assert status == 200 and body["competition"]["matches"] == pairs["matches"]


def test_an_advance_request_that_is_not_json_is_refused(base: str) -> None:
    status, answer = post(f"{base}/desk/api/advance", b"\xff{")
    assert status == 422 and answer["error"]["reason"]
