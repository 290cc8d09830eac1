"""Bad input (events.md, Bad input): malformed, unknown or impossible events are refused with
IllegalEvent, impossible ones with a reason naming the rule, and the match is unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from cueboard.engine import IllegalEvent, Match
from tests.helpers.snooker import (
    NEXT_FRAME,
    NO_POT,
    RED,
    UNDO,
    Event,
    award,
    colours,
    foul,
    new_match,
    play,
    pot,
    reds_and_blacks,
    refused,
)

# -- malformed -------------------------------------------------------------------------


@pytest.mark.parametrize("event", [{"type": "push"}, {"type": "Pot", "balls": ["red"]}, {"type": "match"},
                                   {"type": "loss", "reason": "time"}])
def test_unknown_event_type_refused(event: Event) -> None:
    """events.md: blackball's loss, a capitalised type or a typo are not snooker events."""
    refused(new_match(), event, "unknown event type", repr(event["type"]))


@pytest.mark.parametrize("event", [{"points": 4}, {"type": 4}, {"type": None}])
def test_event_without_a_type_refused(event: Event) -> None:
    refused(new_match(), event, "type")


def test_event_that_is_not_an_object_refused() -> None:
    m = new_match()
    with pytest.raises(IllegalEvent):
        m.parse(["pot", "red"])
    with pytest.raises(IllegalEvent, match="not JSON"):
        m.parse_line('{"type": "pot", "balls": ["red"]')
    assert m.seq == 0


@pytest.mark.parametrize(("event", "field"), [
    ({"type": "foul", "points": 4, "reds": 1}, "reds"),
    ({"type": "foul", "points": 4, "freeball": True}, "freeball"),
    ({"type": "no_pot", "balls": ["red"]}, "balls"),
    ({"type": "pot", "balls": ["red"], "points": 1}, "points"),
    ({"type": "award", "side": 1, "sied": 0}, "sied"),
    ({"type": "undo", "steps": 2}, "steps"),
])
def test_unknown_field_refused(event: Event, field: str) -> None:
    """events.md: fields not listed are rejected, so typos never pass silently."""
    refused(new_match(), event, "unknown field", repr(field))


@pytest.mark.parametrize(("event", "field"), [
    ({"type": "foul", "points": True}, "points"),
    ({"type": "foul", "points": 4.0}, "points"),
    ({"type": "foul", "points": "4"}, "points"),
    ({"type": "foul", "points": None}, "points"),
    ({"type": "foul", "points": 4, "reds_off": 1.0}, "reds_off"),
    ({"type": "foul", "points": 4, "reds_off": True}, "reds_off"),
    ({"type": "foul", "points": 4, "miss": 1}, "miss"),
    ({"type": "foul", "points": 4, "free_ball": "yes"}, "free_ball"),
    ({"type": "pot", "balls": "red"}, "balls"),
    ({"type": "pot", "balls": [1]}, "balls"),
    ({"type": "award", "side": True}, "side"),
    ({"type": "award", "side": "1"}, "side"),
    ({"type": "award", "side": 1.0}, "side"),
    ({"type": "concede", "match": "yes"}, "match"),
    ({"type": "no_pot", "t": "now"}, "t"),
])
def test_wrong_type_refused(event: Event, field: str) -> None:
    """events.md: true is not a whole number, 4.0 is not a whole number of points."""
    refused(new_match(), event, repr(field))


@pytest.mark.parametrize(("event", "field"), [
    ({"type": "foul"}, "points"), ({"type": "pot"}, "balls"), ({"type": "award"}, "side"),
    ({"type": "respotted_black"}, "striker"),
])
def test_missing_required_field_refused(event: Event, field: str) -> None:
    refused(new_match(), event, repr(field), "required")


def test_time_stamp_is_accepted_and_ignored() -> None:
    """events.md: any event may carry t; replay ignores it."""
    with_t, without = new_match(), new_match()
    play(with_t, {"type": "pot", "balls": ["red"], "t": 1700000000.5}, {"type": "no_pot", "t": 1700000004})
    play(without, RED, NO_POT)
    assert with_t.state().to_json() == without.state().to_json()


# -- impossible now ----------------------------------------------------------------------


def test_colour_when_red_is_on_refused_section3_rule10() -> None:
    """Section 3 Rule 3(f), Rule 10(b)(iii): with red on, potting a colour is a foul."""
    refused(new_match(), pot("yellow"), "red is on", "Section 3 Rule 10")
    refused(new_match(), pot("red", "black"), "red is on", "Section 3 Rule 10")


def test_red_or_two_colours_when_a_colour_is_on_refused_section3_rule3g_i() -> None:
    """Section 3 Rule 3(g)(i): after a red, one colour of the striker's choice is on."""
    m = new_match()
    play(m, RED)
    refused(m, RED, "Section 3 Rule 3(g)(i)")
    refused(m, pot("pink", "black"), "Section 3 Rule 3(g)(i)")


def test_colour_out_of_order_refused_section3_rule3g_iii() -> None:
    """Section 3 Rule 3(g)(iii), Rule 10(b)(iii): in the colours only the lowest is on."""
    m = new_match(reds=6)
    play(m, *reds_and_blacks(6))
    refused(m, pot("green"), "yellow is on", "Section 3 Rule 10")
    refused(m, pot("yellow", "green"), "yellow is on", "Section 3 Rule 10")
    refused(m, RED, "yellow is on")


def test_more_reds_than_on_the_table_refused() -> None:
    m = new_match(reds=6)
    play(m, *reds_and_blacks(5))
    refused(m, pot("red", "red"))


@pytest.mark.parametrize("ball", ["white", "cue", "Red", ""])
def test_no_such_ball_refused(ball: str) -> None:
    refused(new_match(), pot(ball), repr(ball))


def test_pot_of_nothing_refused() -> None:
    """events.md: a stroke that pots nothing is no_pot."""
    refused(new_match(), pot(), "no_pot")


def test_four_point_foul_with_pink_on_refused_section3_rule10() -> None:
    """Section 3 Rule 10: the penalty is at least the value of the ball on (pink: 6)."""
    m = new_match(reds=6)
    play(m, *reds_and_blacks(6), *colours("yellow", "blue"))
    message = refused(m, foul(4), "Section 3 Rule 10")
    assert "pink" in message and "6" in message


def test_next_frame_mid_frame_refused() -> None:
    """events.md Bad input: next_frame mid-frame is impossible and changes nothing."""
    m = new_match(best_of=3)
    play(m, RED)
    refused(m, NEXT_FRAME, "not over")


def test_next_frame_mid_frame_names_the_rule_section2_rule1() -> None:
    """events.md Bad input: an impossible event is rejected 'with a reason naming the rule'; a
    frame is completed only as Section 2 Rule 1 (and Section 3 Rule 4) say."""
    m = new_match(best_of=3)
    play(m, RED)
    refused(m, NEXT_FRAME, "Section")


def test_undo_with_nothing_to_undo_refused() -> None:
    refused(new_match(), UNDO, "nothing to undo")


@pytest.mark.parametrize("event", [RED, NO_POT, foul(4), NEXT_FRAME, award(0), {"type": "concede"},
                                   {"type": "rerack"}])
def test_nothing_after_the_match_is_over(event: Event) -> None:
    """Section 3 Rule 1(g): the match has a winner; nothing more is played."""
    m = new_match()
    play(m, award(1))
    refused(m, event, "match is over")


# -- the match line ------------------------------------------------------------------------


@pytest.mark.parametrize("setup", [
    {"best_of": 4},                                  # odd, except with aggregate
    {"best_of": 0},
    {"best_of": True},
    {"best_of": 3, "race_to": 2},
    {"race_to": 2, "aggregate": True},
    {"reds": 12},
    {"reds": True},
    {"reds": "15"},
    {"handicap": [-1, 0]},
    {"handicap": [1.5, 0]},
    {"handicap": [7]},
    {"aggregate": "yes"},
    {"first": 2},
    {"frames": 3},
    {"sides": ["Ann"]},
    {"sides": ["Ann", "Ann"]},
    {"sides": [["A1", "A2"], "Bob"]},
])
def test_bad_match_line_refused(setup: dict[str, Any]) -> None:
    """events.md Match set-up: the fields, their types and defaults."""
    line = {"type": "match", "game": "snooker", "sides": ["Ann", "Bob"], **setup}
    with pytest.raises(IllegalEvent):
        Match.from_json(line)


def test_reds_must_be_a_whole_number_not_15_0() -> None:
    """events.md: reds is 15, 10 or 6; like every whole-number field, 15.0 is not one
    (engine/events.py: 'nothing is guessed')."""
    with pytest.raises(IllegalEvent):
        Match.from_json({"type": "match", "game": "snooker", "sides": ["Ann", "Bob"], "reds": 15.0})


def test_unknown_game_refused() -> None:
    with pytest.raises(IllegalEvent, match="game"):
        Match.from_json({"type": "match", "game": "pool", "sides": ["Ann", "Bob"]})


@pytest.mark.parametrize("event,said", [
    # An unknown key is named before any field, wherever it stands in the object.
    ({"type": "foul", "points": "four", "pionts": 4}, "foul: unknown field 'pionts'"),
    ({"type": "no_pot", "balls": ["red"]}, "no_pot: unknown field 'balls' (no_pot takes: safety, t)"),
    # The first field in the order the class lists them, not in the order of the object.
    ({"type": "foul", "miss": "yes", "points": "four"}, "foul: 'points' must be a whole number, not 'four'"),
    ({"type": "foul", "free_ball": 1, "miss": True}, "foul: 'points' is required"),
    ({"type": "foul", "t": "now", "points": 4, "miss": 1}, "foul: 'miss' must be true or false, not 1"),
    ({"type": "pot"}, "pot: 'balls' is required"),
    ({"type": "pot", "balls": ["red", 7]}, "pot: 'balls' must be a list of a strings, not ['red', 7]"),
    ({"type": "no_pot", "t": float("inf")}, "no_pot: 't' must be a number or null, not inf"),
])
def test_a_refusal_names_the_first_thing_wrong(event: Event, said: str) -> None:
    """Parsing converts the object's own keys as they come and, on anything wrong, says what in
    a fixed order (``engine/events.py``, ``_refusal``): the same message whatever the order of
    the object's keys."""
    for obj in (event, dict(reversed(list(event.items())))):
        m = new_match()
        with pytest.raises(IllegalEvent) as caught:
            m.parse(obj)
        assert str(caught.value).startswith(said), (obj, str(caught.value))
