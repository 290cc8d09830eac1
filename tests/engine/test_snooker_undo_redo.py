"""Undo and redo of every kind of event (events.md: undo takes back the last event, redo puts
it back; state.md: seq counts the events in effect).

The state after an undo must equal the state before the event exactly, seq included.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers.snooker import (
    CLAIM,
    NEXT_FRAME,
    NO_POT,
    PLAY_AGAIN,
    RED,
    REDO,
    REPLACE,
    RERACK,
    UNDO,
    Event,
    award,
    colours,
    concede,
    foul,
    new_match,
    order,
    play,
    pot,
    reds_and_blacks,
    refused,
    respotted_black,
    six_reds_to_black,
)

SIX = {"reds": 6}
TIE = {"reds": 6, "handicap": [0, 75]}
MISSED = [RED, pot("black"), NO_POT, foul(4, miss=True, reds_off=2)]

CASES: list[tuple[str, dict[str, Any], list[Event], Event]] = [
    ("pot-red", {}, [], RED),
    ("pot-several-reds", {}, [], pot("red", "red", "red")),
    ("pot-colour", {}, [RED], pot("black")),
    ("pot-in-the-colours", SIX, reds_and_blacks(6), pot("yellow")),
    ("no_pot", {}, [RED], NO_POT),
    ("foul", {}, [RED, pot("black")], foul(4)),
    ("foul-with-everything", {}, [RED, NO_POT], foul(5, reds_off=2, miss=True, free_ball=True)),
    ("foul-last-red-off", SIX, reds_and_blacks(5), foul(4, reds_off=1)),
    ("free-ball-pot", {}, [foul(4, free_ball=True)], pot("free", "red")),
    ("play_again", {}, [foul(4, free_ball=True)], PLAY_AGAIN),
    ("replace", {}, MISSED, REPLACE),
    ("second-miss", {}, [*MISSED, REPLACE], foul(4, miss=True)),
    ("concede", {"best_of": 3}, [RED, NO_POT], concede()),
    ("concede-match", {"best_of": 5}, [RED], concede(match=True)),
    ("claim", {**SIX, "best_of": 3}, six_reds_to_black(), CLAIM),
    ("award", {"best_of": 3}, [RED], award(1)),
    ("award-match-aggregate", {"best_of": 3, "aggregate": True}, [RED, NO_POT], award(0, match=True)),
    ("last-black", {**SIX, "best_of": 3}, six_reds_to_black(), pot("black")),
    ("black-tied", TIE, six_reds_to_black(), pot("black")),
    ("respotted_black", TIE, [*six_reds_to_black(), pot("black")], respotted_black(1)),
    ("respotted-black-potted", TIE, [*six_reds_to_black(), pot("black"), respotted_black(1)], pot("black")),
    ("rerack", {}, [RED, pot("black"), NO_POT], RERACK),
    ("order", {"sides": [["A1", "A2"], ["B1", "B2"]]}, [], order("A2", "B1", "A1", "B2")),
    ("next_frame", {"best_of": 3}, [award(0)], NEXT_FRAME),
    ("maximum", {}, [*reds_and_blacks(15), *colours("yellow", "pink")], pot("black")),
]


@pytest.mark.parametrize(("setup", "before_events", "event"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_undo_gives_back_the_state_before_and_redo_the_state_after(
        setup: dict[str, Any], before_events: list[Event], event: Event) -> None:
    """events.md undo / redo: exact, seq included, and repeatable."""
    m = new_match(**setup)
    before = play(m, *before_events)
    log = m.log()
    after = play(m, event)
    assert after != before
    assert after["seq"] == before["seq"] + 1
    assert play(m, UNDO) == before
    assert m.log() == log
    assert play(m, REDO) == after
    assert play(m, UNDO, REDO, UNDO) == before
    assert play(m, REDO) == after


def test_undo_everything_back_to_the_start_and_redo_it_all() -> None:
    """A frame of every kind of stroke, taken back one event at a time to the match line, then
    put back: each state is met again, in order."""
    m = new_match(best_of=3, reds=6)
    script = [RED, pot("black"), NO_POT, foul(4, miss=True, reds_off=1), REPLACE, foul(4),
              PLAY_AGAIN, RED, pot("pink"), NO_POT, foul(5, free_ball=True), pot("free"), pot("blue"),
              RED, NO_POT, concede(), NEXT_FRAME, RED]
    states = [m.state().to_json()]
    for event in script:
        states.append(play(m, event))
    for expected in reversed(states[:-1]):
        assert play(m, UNDO) == expected
    assert m.seq == 0
    refused(m, UNDO, "nothing to undo")
    for expected in states[1:]:
        assert play(m, REDO) == expected
    refused(m, REDO, "nothing to redo")


def test_undo_and_redo_with_nothing_to_take_back_refused() -> None:
    """events.md Bad input: undo with nothing to undo is refused and changes nothing."""
    m = new_match()
    refused(m, UNDO, "nothing to undo")
    refused(m, REDO, "nothing to redo")


def test_a_new_event_after_undo_clears_redo() -> None:
    """events.md: after an undo the marker enters what really happened; the old event is gone."""
    m = new_match()
    play(m, RED, UNDO)
    s = play(m, NO_POT)
    assert (s["seq"], s["striker"], s["sides"][0]["score"]) == (1, 1, 0)
    refused(m, REDO, "nothing to redo")


def test_undo_a_replace_then_play_on_instead() -> None:
    """Section 3 Rule 14(a): the next player's choice, taken back, can be made the other way."""
    m = new_match()
    after_miss = play(m, *MISSED)
    assert play(m, REPLACE, UNDO) == after_miss
    s = play(m, NO_POT)
    assert (s["reds"], s["misses"], s["striker"]) == (12, 0, 1)


def test_check_changes_nothing() -> None:
    """docs/engine.md: check raises for an impossible event, else does nothing at all."""
    m = new_match()
    play(m, RED)
    before = m.state().to_json()
    m.check(m.parse(pot("black")))
    m.check(m.parse(UNDO))
    assert m.state().to_json() == before
