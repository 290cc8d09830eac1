"""The three rulings issue 39 found the engine getting wrong, each worked from the rule text.

1. Snooker, Section 3 Rule 14(c)(ii): an award for a miss comes after the third failure, not
   at the warning (the warning is given when the offender is asked to play again from the
   original position after the second miss).
2. Blackball, rule 4i: several balls may be called touching for one stroke ("Si deux billes ou
   plus sont touchantes").
3. Blackball, rule 8a: no foul for time while the clock is held (the 60 seconds are suspended).
"""

from __future__ import annotations

from tests.helpers import blackball as bb
from tests.helpers.snooker import REPLACE, foul, new_match, play, refused

MISS = foul(4, miss=True)


def award_miss(side: int) -> dict[str, object]:
    return {"type": "award", "side": side, "reason": "miss"}


# -- 1. Section 3 Rule 14(c)(ii) -------------------------------------------------------------


def test_the_issues_log_two_misses_and_no_replacement_is_no_award_rule_14c_ii() -> None:
    """The log of issue 39: miss, replace, miss, award. Rule 14(c)(ii): "if asked to play again
    from the original position, the offender shall be warned by the referee that a third failure
    will result in the frame being awarded to his opponent". After the second miss nobody has
    asked for the original position yet: no warning, and certainly no third failure."""
    m = new_match()
    s = play(m, MISS, REPLACE, MISS)
    assert (s["misses"], s["missed_by"], s["striker"]) == (2, 0, 1)
    refused(m, award_miss(1), "third failure", "Section 3 Rule 14(c)(ii)")
    assert m.state().frame_winner is None


def test_the_warning_alone_is_no_award_the_third_failure_is_keyed_first_rule_14c_ii() -> None:
    """Rule 14(c)(ii): the warning stands once Bob is asked to play again from the original
    position after his second miss; "a third failure will result in the frame being awarded":
    the frame goes only once that failure is keyed."""
    m = new_match()
    play(m, MISS, REPLACE, MISS, REPLACE)  # Ann is warned, to play from the original position
    refused(m, award_miss(1), "third failure", "Section 3 Rule 14(c)(ii)")
    s = play(m, MISS, award_miss(1))  # the third failure keyed, then the award
    assert (s["frame_winner"], [side["score"] for side in s["sides"]]) == (1, [0, 12])


def test_the_award_is_taken_right_after_the_third_failure_not_later_rule_14c_ii() -> None:
    """After the third failure the next player may still ask for the balls back; once any other
    event is keyed (here the replacement) the award is no longer "right after" it: refused."""
    m = new_match()
    play(m, MISS, REPLACE, MISS, REPLACE, MISS, REPLACE)
    refused(m, award_miss(1), "third failure", "Section 3 Rule 14(c)(ii)")
    play(m, MISS)  # a fourth failure, the warning still standing: the award may follow it
    assert play(m, award_miss(1))["frame_winner"] == 1


# -- 2. rule 4i: two or more touching balls ----------------------------------------------------


def test_two_touching_balls_may_be_called_for_one_stroke_rule_4i() -> None:
    """Rule 4i: "Si deux billes ou plus sont touchantes. Le coup doit répondre à toutes les
    exigences d'un coup légal." Each ball is called once: a red and a yellow, or two reds."""
    m = bb.new_match()
    bb.play(m, bb.NO_POT)
    bb.play(m, {"type": "touching", "ball": "red"}, {"type": "touching", "ball": "yellow"})
    assert m.position.touching == ("red", "yellow")
    bb.play(m, {"type": "touching", "ball": "red"})  # a second red: seven are on the table
    assert m.position.touching == ("red", "yellow", "red")


# -- 3. rule 8a: no foul for time while the clock is held -------------------------------------


def test_no_foul_for_time_while_the_clock_is_held_rule_8a() -> None:
    """Rule 8a: a hold suspends the 60 seconds ("Une suspension de temps est demandée ...");
    a shot cannot run out of time while they are suspended. The hold stays."""
    m = bb.new_match()
    bb.play(m, bb.NO_POT, {"type": "clock_hold", "reason": "rest"})
    bb.refused(m, bb.foul(reason="time"), "held", "rule 8a")
    assert m.position.held == "rest"
    s = bb.play(m, {"type": "clock_resume"}, bb.foul(reason="time"))  # resumed, the time runs out
    assert (s["striker"], s["free_shot"]) == (0, True)
