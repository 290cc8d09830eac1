"""Blackball matches: race to N or best of N, breaks alternating between frames (rule 4),
doubles with a fixed order of play, concessions and awards (rule 8b, 8c, 8i), the match line."""

from __future__ import annotations

from typing import Any

import pytest

from cueboard.engine import IllegalEvent, Match
from tests.helpers.blackball import (
    BAD_BREAK,
    CONCEDE,
    NEXT_FRAME,
    NO_POT,
    REDO,
    UNDO,
    ann_clears_reds,
    award,
    foul,
    match_after,
    new_match,
    play,
    pot,
    refused,
    rerack,
    state_after,
    turn,
)


def breaker_wins() -> list[dict[str, Any]]:
    """The breaker pots nothing; the other misses; the breaker takes reds, clears them and the black."""
    return [*ann_clears_reds(), pot("black")]


def frames(s: dict[str, Any]) -> list[int]:
    return [side["frames"] for side in s["sides"]]


def test_race_to_two_with_breaks_alternating_rule_4() -> None:
    """Rule 4: "Les casses sont ensuite alternées": Ann breaks frame 1, Bob frame 2, Ann frame 3."""
    m = new_match(race_to=2)
    s = play(m, *breaker_wins())
    assert frames(s) == [1, 0] and s["frame_over"] and not s["match_over"]
    assert (s["race_to"], s["best_of"]) == (2, 3)
    s = play(m, NEXT_FRAME)
    assert (s["frame"], s["breaker"], s["striker"], s["player"]) == (2, 1, 1, "Bob")
    assert s["open_table"] and s["balls"] == {"red": 7, "yellow": 7, "black": 1} and s["break_shot"]
    assert s["order"] == ["Bob", "Ann"]
    s = play(m, *breaker_wins())  # Bob breaks and wins with the reds
    assert frames(s) == [1, 1] and s["sides"][1]["group"] == "red"
    s = play(m, NEXT_FRAME)
    assert (s["frame"], s["breaker"]) == (3, 0)
    s = play(m, *breaker_wins())
    assert frames(s) == [2, 1] and s["match_over"] and s["match_winner"] == 0
    refused(m, NEXT_FRAME, "the match is over")
    refused(m, award(1, match=True), "the match is over")


def test_best_of_is_a_race_to_more_than_half() -> None:
    s = state_after([], best_of=5)
    assert (s["best_of"], s["race_to"]) == (5, 3)


def test_best_of_must_be_odd() -> None:
    with pytest.raises(IllegalEvent, match=r"'best_of' must be odd \(best of 4 can end level\)"):
        new_match(best_of=4)


def test_first_sets_who_breaks_frame_one() -> None:
    s = state_after([], first=1, race_to=3)
    assert (s["breaker"], s["striker"], s["order"]) == (1, 1, ["Bob", "Ann"])
    s = state_after([*breaker_wins(), NEXT_FRAME], first=1, race_to=3)
    assert s["breaker"] == 0


def test_next_frame_only_once_the_frame_is_over() -> None:
    refused(new_match(race_to=2), NEXT_FRAME, "the frame is not over")


def test_rerack_does_not_change_who_breaks_the_next_frame() -> None:
    """A lag won by Bob re-racks frame 1 for him (rule 4p(b)); frame 2 is still his by the
    alternation, as the schedule is by frame."""
    s = state_after([rerack(breaker=1), *breaker_wins(), NEXT_FRAME], race_to=2)
    assert frames(s) == [0, 1] and s["frame"] == 2 and s["breaker"] == 1


# -- doubles: a fixed order of play ------------------------------------------------------------

PAIRS = [["A1", "A2"], ["B1", "B2"]]


def test_doubles_order_of_play_is_fixed() -> None:
    m = new_match(sides=PAIRS, race_to=3)
    s = m.state().to_json()
    assert s["order"] == ["A1", "B1", "A2", "B2"]
    assert [side["name"] for side in s["sides"]] == ["A1 & A2", "B1 & B2"]
    players = [s["player"]]
    for _ in range(5):
        players.append(play(m, NO_POT)["player"])
    assert players == ["A1", "B1", "A2", "B2", "A1", "B1"]


def test_doubles_both_visits_after_a_foul_are_the_same_players() -> None:
    """Rule 6a: the incoming player (the next in the order) takes the free shot and the visit;
    then the order goes on from him."""
    m = new_match(sides=PAIRS)
    s = play(m, NO_POT, foul())  # A1 breaks, B1 fouls
    assert (s["player"], s["visits"], s["free_shot"]) == ("A2", 2, True)
    assert play(m, NO_POT)["player"] == "A2"
    assert play(m, NO_POT)["player"] == "B2"


def test_doubles_every_player_breaks_in_turn() -> None:
    m = new_match(sides=PAIRS, race_to=4)
    breakers = [m.state().to_json()["player"]]
    for _ in range(3):
        s = play(m, {"type": "loss"}, NEXT_FRAME)
        breakers.append(s["player"])
        assert s["order"][0] == s["player"]
    assert breakers == ["A1", "B1", "A2", "B2"]
    assert [play(m, NO_POT)["player"] for _ in range(2)] == ["A1", "B1"]


def test_doubles_rerack_to_the_other_side_after_a_lag() -> None:
    s = state_after([NO_POT, rerack(breaker=1)], sides=PAIRS)
    assert (s["breaker"], s["player"], s["order"]) == (1, "B1", ["B1", "A2", "B2", "A1"])


# -- concessions and awards ----------------------------------------------------------------------


def test_concede_the_frame() -> None:
    s = state_after([NO_POT, CONCEDE], race_to=2)
    assert s["frame_winner"] == 0 and frames(s) == [1, 0] and not s["match_over"]


def test_concede_the_match() -> None:
    s = state_after([NO_POT, {"type": "concede", "match": True}], race_to=3)
    assert frames(s) == [3, 0] and s["match_over"] and s["match_winner"] == 0


def test_award_frame_and_match_rule_8b() -> None:
    s = state_after([award(1)], race_to=2)
    assert s["frame_winner"] == 1 and frames(s) == [0, 1]
    m = match_after([award(1)], race_to=2)
    refused(m, award(0), "the frame is over: only the match can be awarded now")
    s = play(m, award(0, match=True))
    assert frames(s) == [2, 1] and s["match_winner"] == 0


def test_concede_refused_once_the_frame_is_over() -> None:
    refused(match_after([CONCEDE], race_to=2), CONCEDE, "the frame is over: enter next_frame to start frame 2")


# -- the match line --------------------------------------------------------------------------------


@pytest.mark.parametrize(("line", "message"), [
    ({"reds": 10}, "'reds' is for snooker only, not blackball"),
    ({"handicap": [0, 7]}, "'handicap' is for snooker only, not blackball"),
    ({"aggregate": True}, "'aggregate' is for snooker only, not blackball"),
    ({"best_of": 3, "race_to": 2}, "give 'best_of' or 'race_to', not both"),
    ({"nine_ball": True}, "unknown field 'nine_ball'"),
])
def test_match_line_is_strict(line: dict[str, Any], message: str) -> None:
    with pytest.raises(IllegalEvent, match=message):
        new_match(**line)


def test_log_round_trip() -> None:
    m = new_match(sides=PAIRS, race_to=2, first=1, shot_clock={"seconds": 10, "first": 15, "call": None})
    play(m, BAD_BREAK, pot("red"), foul("yellow", reason="slow"), UNDO, REDO)
    again = Match.from_json(m.log()[0])
    for obj in m.log()[1:]:
        again.apply(again.parse(obj))
    assert again.state().to_json() == m.state().to_json() and again.position == m.position
    assert m.log()[0]["shot_clock"] == {"seconds": 10.0, "first": 15.0}


def test_undo_and_redo_of_a_frame_end() -> None:
    m = new_match(race_to=1)
    before = play(m, *ann_clears_reds())
    after = play(m, pot("black"))
    assert after["match_over"]
    assert play(m, UNDO) == before
    assert play(m, REDO) == after
    assert turn(play(m, UNDO, NO_POT)) == (1, 1, False)
    refused(m, REDO, "nothing to redo")
