"""The shot clock (rule 8a) as a pure model, its set-up on the match line, the foul for time,
and what the state shows."""

from __future__ import annotations

from typing import Any

import pytest

from cueboard.engine import IllegalEvent, Match
from cueboard.engine.shot_clock import STANDARD, ShotClock, ShotClockRules
from tests.helpers.blackball import NO_POT, foul, match_after, new_match, play, pot, refused, state_after, turn

# -- the pure model ----------------------------------------------------------------------------


def test_sixty_seconds_with_the_thirty_second_call_rule_8a() -> None:
    clock = STANDARD.start(now=500.0)
    assert clock == ShotClock(length=60.0, call_at=30.0, started_at=500.0)
    assert clock.left(500.0) == 60.0 and not clock.call_due(500.0)
    assert clock.left(529.9) == pytest.approx(30.1) and not clock.call_due(529.9)
    assert clock.call_due(530.0) and not clock.expired(530.0)
    assert clock.call_due(559.0) and clock.left(559.0) == 1.0
    assert clock.expired(560.0) and clock.left(560.0) == 0.0 and clock.left(600.0) == 0.0


def test_the_clock_never_reads_the_time() -> None:
    """Given the same times, the same answers: nothing but the arguments counts."""
    clock = STANDARD.start(now=0.0)
    assert [clock.left(t) for t in (10.0, 10.0, 70.0, 10.0)] == [50.0, 50.0, 0.0, 50.0]
    assert clock.left(-5.0) == 60.0  # a time before the start counts as none taken


def test_a_hold_stops_the_count_rule_8a() -> None:
    """Rule 8a (a)-(c): a rest asked for, an interference, a ruling on touching balls."""
    clock = STANDARD.start(now=0.0).pause(20.0)
    assert clock.left(1000.0) == 40.0 and not clock.expired(1000.0)
    assert clock.pause(30.0) == clock  # held already
    running = clock.resume(100.0)
    assert running.left(100.0) == 40.0 and running.call_due(110.0) and running.expired(140.0)
    assert running.resume(200.0) == running  # not held


def test_shoot_out_style_clock() -> None:
    """15 seconds for the first shot of a visit, then 10, no call."""
    rules = ShotClockRules.parse({"seconds": 10, "first": 15, "call": None})
    assert rules == ShotClockRules(seconds=10.0, first=15.0, call=None)
    first, other = rules.start(0.0, first_of_visit=True), rules.start(0.0)
    assert (first.length, other.length) == (15.0, 10.0)
    assert not first.call_due(14.0) and first.expired(15.0) and other.expired(10.0)


def test_call_only_when_the_shot_is_longer() -> None:
    assert ShotClockRules.parse(20) == ShotClockRules(seconds=20.0, first=None, call=None)
    rules = ShotClockRules.parse({"seconds": 10, "first": 20, "call": 12})
    assert rules is not None
    assert rules.start(0.0, first_of_visit=True).call_at == 12.0
    assert rules.start(0.0).call_at is None


@pytest.mark.parametrize("value", [60, 60.0, 45, None, {"seconds": 60}, {"seconds": 60, "call": None},
                                   {"seconds": 10, "first": 15}, {"seconds": 35, "call": 25}])
def test_round_trip_through_the_match_line(value: Any) -> None:
    rules = ShotClockRules.parse(value)
    assert ShotClockRules.parse(None if rules is None else rules.to_json()) == rules


@pytest.mark.parametrize(("value", "message"), [
    (0, "'shot_clock' must be seconds per shot (more than 0) or null, not 0"),
    (True, "must be seconds per shot"),
    ("60", "must be seconds per shot"),
    ({"first": 15}, "'shot_clock' needs 'seconds'"),
    ({"seconds": 10, "secs": 1}, "'shot_clock' has an unknown field 'secs'"),
    ({"seconds": -1}, "'shot_clock' 'seconds' must be seconds (more than 0), not -1"),
    ({"seconds": 10, "first": 0}, "'first' must be seconds"),
    ({"seconds": 10, "call": 10}, "the shot clock's 'call' (10 seconds in) must come before the time is up"),
])
def test_bad_clock_on_the_match_line(value: Any, message: str) -> None:
    with pytest.raises(IllegalEvent) as info:
        new_match(shot_clock=value)
    assert message in str(info.value)


# -- the state ------------------------------------------------------------------------------


def test_clock_in_the_state_by_default_rule_8a() -> None:
    s = state_after([])
    assert (s["shot_clock"], s["shot_clock_call"]) == (60, 30)


def test_no_clock() -> None:
    m = new_match(shot_clock=None)
    assert (m.state().to_json()["shot_clock"], m.state().to_json()["shot_clock_call"]) == (None, None)
    refused(m, foul(reason="time"), "this match has no shot clock, so no foul for time (rule 8a)")


def test_other_lengths() -> None:
    s = state_after([], shot_clock=45)
    assert (s["shot_clock"], s["shot_clock_call"]) == (45, 30)
    s = state_after([], shot_clock=25.5)
    assert (s["shot_clock"], s["shot_clock_call"]) == (25.5, None)


def test_shoot_out_clock_follows_the_visits() -> None:
    m = new_match(shot_clock={"seconds": 10, "first": 15, "call": None})
    assert m.state().to_json()["shot_clock"] == 15  # the break: the first shot of a visit
    assert play(m, pot("red"))["shot_clock"] == 10  # a fair pot: the visit goes on
    assert play(m, NO_POT)["shot_clock"] == 15  # Bob's visit
    assert play(m, foul())["shot_clock"] == 15  # Ann's free shot
    assert play(m, NO_POT)["shot_clock"] == 15  # her second visit
    assert play(m, pot("yellow"))["shot_clock"] == 10


def test_snooker_has_no_clock_unless_set() -> None:
    line = {"type": "match", "game": "snooker", "sides": ["Ronnie", "Judd"]}
    assert Match.from_json(line).state().to_json()["shot_clock"] is None
    assert Match.from_json({**line, "shot_clock": 30}).state().to_json()["shot_clock"] == 30.0
    shoot_out = Match.from_json({**line, "shot_clock": {"seconds": 10, "first": 15, "call": None}})
    assert shoot_out.state().to_json()["shot_clock"] == 10.0
    assert shoot_out.setup.clock == ShotClockRules(seconds=10.0, first=15.0, call=None)
    assert shoot_out.log()[0]["shot_clock"] == {"seconds": 10.0, "first": 15.0}


# -- the foul for time ---------------------------------------------------------------------------


def test_time_foul_is_a_foul_rule_8a() -> None:
    s = state_after([NO_POT, foul(reason="time")])
    assert turn(s) == (0, 2, True)


def test_time_foul_has_no_balls_rule_8a() -> None:
    refused(match_after([NO_POT]), foul("red", reason="time"), "a foul for time is a shot not played")


def test_time_foul_on_the_break_gives_the_break_to_the_opponent_rule_8a() -> None:
    """Rule 8a counts the break too: no stroke was played, so the rack is still to be broken,
    by the incoming player with his free shot and visit; a black he pots re-racks (4d)."""
    s = state_after([foul(reason="time")])
    assert turn(s) == (1, 2, True) and s["break_shot"] and s["breaker"] == 1
    s = state_after([foul(reason="time"), pot("black")])
    assert turn(s) == (1, 2, True) and s["break_shot"] and not s["frame_over"]
    s = state_after([foul(reason="time"), NO_POT])
    assert turn(s) == (1, 1, False) and not s["break_shot"]


def test_time_foul_after_the_free_shot_rule_8a() -> None:
    m = match_after([NO_POT, foul()])
    s = play(m, foul(reason="time"))
    assert turn(s) == (1, 2, True)


def test_clock_given_as_other_reasons_is_free_text() -> None:
    s = state_after([NO_POT, foul(reason="push stroke (5f)")], shot_clock=None)
    assert turn(s) == (0, 2, True)


def test_time_foul_with_a_clock_state_from_the_contract() -> None:
    """The daemon starts a clock for the next shot from the state alone."""
    s = state_after([NO_POT])
    clock = ShotClock(length=s["shot_clock"], call_at=s["shot_clock_call"], started_at=0.0)
    assert clock.expired(60.0) and clock.call_due(30.0)
