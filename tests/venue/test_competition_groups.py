"""Walkovers, withdrawals and groups into a knockout (cueboard.venue.competition; docs/desk.md,
"Walkovers and withdrawals", "Groups into a knockout"): pure functions, hand-worked cases."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from cueboard.common.errors import DrawError
from cueboard.venue.competition import advance, from_draw, group_table, withdraw

EIGHT = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"]


def draw(kind: str, players: list[str], **extra: Any) -> dict[str, Any]:
    return from_draw({"kind": kind, "name": "Cup", "players": [{"name": p} for p in players], **extra})


def match(c: dict[str, Any], fixture: str) -> dict[str, Any]:
    return next(m for m in c["matches"] if m["fixture"] == fixture)


def play(c: dict[str, Any], a: str, b: str, frames: tuple[int, int]) -> None:
    """The match between a and b (either way round) finished with a's and b's frames."""
    m = next(m for m in c["matches"] if set(m["sides"]) == {a, b} and m["winner"] is None)
    fa, fb = frames if m["sides"][0] == a else frames[::-1]
    m["frames"] = [fa, fb]
    m["winner"] = 0 if fa > fb else 1


def test_groups_are_snaked_by_seeding_and_the_knockout_cross_seeded() -> None:
    c = draw("groups", EIGHT, groups=2, advance=2)
    assert c["groups"] == {"A": ["Ann", "Dan", "Eve", "Hal"], "B": ["Bob", "Cat", "Fay", "Gus"]}
    assert len([m for m in c["matches"] if m.get("group") == "A"]) == 6  # 4 players: each meets 3
    r1 = [m for m in c["matches"] if m["label"].startswith("R1-")]
    assert [m["from"] for m in r1] == [[{"group": "A", "place": 1}, {"group": "B", "place": 2}],
                                       [{"group": "B", "place": 1}, {"group": "A", "place": 2}]]
    assert all(m["sides"] == [None, None] for m in r1)
    assert match(c, "cup-R1-1")["next"] == {"fixture": "cup-R2-1", "side": 0}
    assert c["rounds"] == 3 + 2  # three group rounds, then semi-finals and the final


def test_four_groups_cross_in_pairs_and_winners_of_a_pair_meet_only_in_the_final() -> None:
    c = draw("groups", [f"P{n}" for n in range(16)], groups=4, advance=2)
    r1 = [[f"{s['group']}{s['place']}" for s in m["from"]] for m in c["matches"] if m["label"].startswith("R1-")]
    assert r1 == [["A1", "B2"], ["D1", "C2"], ["B1", "A2"], ["C1", "D2"]]
    top = {x for pair in r1[:2] for x in pair}
    assert "A1" in top and "A2" not in top  # a group's two are in opposite halves


def test_a_group_is_ranked_by_wins_then_frames_then_head_to_head() -> None:
    c = draw("groups", EIGHT, groups=2, advance=2)
    # Group A: Ann, Eve and Hal win 2 each; Ann and Eve have 5 frames, Hal 4; Eve beat Ann.
    play(c, "Ann", "Hal", (2, 0))
    play(c, "Eve", "Dan", (2, 1))
    play(c, "Eve", "Ann", (2, 1))
    play(c, "Hal", "Dan", (2, 0))
    play(c, "Ann", "Dan", (2, 0))
    play(c, "Hal", "Eve", (2, 1))
    rows = group_table(c, "A")
    assert [r["name"] for r in rows] == ["Eve", "Ann", "Hal", "Dan"]
    assert [(r["won"], r["frames_for"]) for r in rows] == [(2, 5), (2, 5), (2, 4), (0, 1)]


def test_the_knockout_is_filled_when_a_group_finishes_and_not_before() -> None:
    c = draw("groups", EIGHT, groups=2, advance=2)
    for a, b in [("Ann", "Hal"), ("Eve", "Dan"), ("Eve", "Ann"), ("Hal", "Dan"), ("Ann", "Dan")]:
        play(c, a, b, (2, 0))
    c = advance(c)
    assert match(c, "cup-R1-1")["sides"] == [None, None]  # group A has a match to play
    play(c, "Hal", "Eve", (2, 0))
    c = advance(c)
    # A: Ann 2 wins 4 frames, Eve 2 wins 4 frames, Hal 2 wins 4 frames: head-to-head all 1 -> draw order.
    assert [r["name"] for r in group_table(c, "A")] == ["Ann", "Eve", "Hal", "Dan"]
    assert match(c, "cup-R1-1")["sides"] == ["Ann", None]  # B's runner-up still to come
    assert match(c, "cup-R1-2")["sides"] == [None, "Eve"]
    for a, b in [("Bob", "Gus"), ("Fay", "Cat"), ("Bob", "Fay"), ("Gus", "Cat"), ("Bob", "Cat"), ("Fay", "Gus")]:
        play(c, a, b, (2, 1))
    c = advance(c)
    assert match(c, "cup-R1-1")["sides"] == ["Ann", "Fay"]  # B: Bob 3 wins, Fay 2
    assert match(c, "cup-R1-2")["sides"] == ["Bob", "Eve"]
    assert advance(c) == c  # idempotent


def test_groups_with_byes_fill_the_second_round() -> None:
    c = draw("groups", [f"P{n}" for n in range(9)], groups=3, advance=2)  # 6 into a bracket of 8
    byes = [m for m in c["matches"] if m["label"].startswith("R1-") and (m["bye"][0] or m["bye"][1])]
    assert len(byes) == 2 and all(m["winner"] == 0 for m in byes)
    for g in "ABC":
        for m in c["matches"]:
            if m.get("group") == g:
                m["winner"], m["frames"] = 0, [1, 0]
    c = advance(c)
    r2 = [m for m in c["matches"] if m["label"].startswith("R2-")]
    # the byes' players (seeds 1 and 2: groups A's and B's winners) wait in round 2
    assert sorted(s for m in r2 for s in m["sides"] if s is not None) == sorted(
        [group_table(c, "A")[0]["name"], group_table(c, "B")[0]["name"]])


@pytest.mark.parametrize(("extra", "said"), [
    ({"groups": 5}, "a group needs at least 2"),
    ({"groups": 2, "advance": 4}, "advance"),
    ({"groups": 0}, "groups:"),
    ({"groups": 2, "advance": True}, "advance"),
    ({"groups": 1, "advance": 1}, "no knockout"),
])
def test_a_bad_groups_draw_is_refused_naming_the_field(extra: dict[str, Any], said: str) -> None:
    with pytest.raises(DrawError, match=said):
        draw("groups", EIGHT, **extra)


def test_a_withdrawal_in_a_knockout_gives_the_next_match_as_a_walkover() -> None:
    c = draw("knockout", EIGHT)
    first = match(c, "cup-R1-1")
    assert first["sides"] == ["Ann", "Hal"]
    c = withdraw(c, "Hal")
    m = match(c, "cup-R1-1")
    assert (m["winner"], m["walkover"], m["frames"]) == (0, True, None)  # a walkover, not a 0-0
    assert match(c, "cup-R2-1")["sides"] == ["Ann", None]
    assert c["withdrawn"] == ["Hal"]
    assert withdraw(c, "Hal") == c


def test_a_withdrawn_player_whose_opponent_is_still_to_come_gives_a_walkover_when_known() -> None:
    c = draw("knockout", EIGHT)
    play(c, "Ann", "Hal", (2, 0))
    c = withdraw(advance(c), "Ann")  # won round 1, then withdrew before round 2
    assert match(c, "cup-R2-1")["sides"] == ["Ann", None]
    assert match(c, "cup-R2-1")["winner"] is None
    play(c, "Dan", "Eve", (2, 1))
    c = advance(c)
    m = match(c, "cup-R2-1")
    assert (m["sides"], m["winner"], m["walkover"]) == (["Ann", "Dan"], 1, True)
    assert match(c, "cup-R3-1")["sides"][0] == "Dan"


def test_a_started_match_is_left_to_its_table() -> None:
    c = draw("knockout", EIGHT)
    match(c, "cup-R1-1")["started"] = True
    c = withdraw(c, "Hal")
    assert match(c, "cup-R1-1")["winner"] is None and "walkover" not in match(c, "cup-R1-1")


def test_a_withdrawal_in_a_round_robin_makes_the_rest_walkovers_and_keeps_what_was_played() -> None:
    c = draw("round_robin", ["Ann", "Bob", "Cat", "Dan"])
    play(c, "Ann", "Dan", (0, 2))
    before = copy.deepcopy(c)
    c = withdraw(c, "Dan")
    dans = [m for m in c["matches"] if "Dan" in m["sides"]]
    played = next(m for m in dans if m.get("frames") == [0, 2] or m.get("frames") == [2, 0])
    assert "walkover" not in played
    rest = [m for m in dans if m is not played]
    assert len(rest) == 2 and all(m["walkover"] and m["sides"][m["winner"]] != "Dan" and m["frames"] is None
                                  for m in rest)
    assert all("walkover" not in m for m in before["matches"])


def test_a_group_with_a_withdrawn_player_places_them_last() -> None:
    c = draw("groups", EIGHT, groups=2, advance=2)
    play(c, "Hal", "Ann", (2, 0))
    c = withdraw(c, "Hal")
    assert group_table(c, "A")[-1]["name"] == "Hal"
    assert group_table(c, "A")[-1]["withdrawn"] is True


def test_withdrawing_someone_not_in_the_competition_is_refused() -> None:
    with pytest.raises(DrawError, match="'Zed' is not a player"):
        withdraw(draw("knockout", EIGHT), "Zed")


def test_a_competition_from_before_walkovers_is_unchanged_by_advance() -> None:
    c = draw("round_robin", ["Ann", "Bob", "Cat"])
    play(c, "Ann", "Bob", (2, 1))
    assert advance(c) == c
