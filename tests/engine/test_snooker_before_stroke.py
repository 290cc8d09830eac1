"""A foul before a stroke after a replacement: Section 3 Rule 14(d).

"After the cue-ball has been replaced under this Rule, and the striker fouls any ball,
including the cue-ball while preparing to play a stroke, a miss will not be called if a
stroke has not been played. In this case the appropriate penalty will be imposed; and the
ball on shall be the same as prior to the last stroke made ... (iv) the next player may
elect to play the stroke himself or ask the offender to play again from the position left;
or (v) ... ask the referee to replace all balls moved to their original position and have
the offender play again from there; and (vi) ... any warning concerning the possible
awarding of the frame to his opponent shall remain in effect."

The log says it with ``"before_stroke": true`` on the foul (docs/events.md).
"""

from __future__ import annotations

from tests.helpers.snooker import (
    NO_POT,
    PLAY_AGAIN,
    RED,
    REPLACE,
    colours,
    foul,
    new_match,
    play,
    reds_and_blacks,
    refused,
)

BEFORE = foul(4, before_stroke=True)
MISS = foul(4, miss=True)


def test_the_penalty_stands_no_miss_and_the_next_player_is_in_rule_14d() -> None:
    m = new_match()
    play(m, MISS, REPLACE)  # Bob asks for the balls back: Ann plays again from there
    s = play(m, BEFORE)  # Ann touches a ball while preparing her stroke
    assert s["sides"][1]["score"] == 8  # both penalties stand
    assert s["striker"] == 1 and s["ball_on"] == "red"
    assert s["misses"] == 1  # no miss called, and the count kept (14(d)(vi))


def test_the_next_player_may_have_the_balls_replaced_again_rule_14d_v() -> None:
    m = new_match()
    s = play(m, MISS, REPLACE, BEFORE, REPLACE)
    assert s["striker"] == 0 and s["ball_on"] == "red" and s["misses"] == 1
    s = play(m, MISS)  # the sequence of misses goes on from the replaced position
    assert s["misses"] == 2


def test_the_next_player_may_ask_the_offender_to_play_again_rule_14d_iv() -> None:
    m = new_match()
    s = play(m, MISS, REPLACE, BEFORE, PLAY_AGAIN)
    # From the position left, still before any stroke from the replaced position: the count
    # and its warning stay in effect (14(d)(vi)), the specific rule over 14(c)(iii).
    assert s["striker"] == 0 and s["misses"] == 1


def test_a_three_miss_warning_survives_play_again_after_a_foul_before_a_stroke_rule_14d_vi() -> None:
    """Section 3 Rule 14(d)(vi): "if the above situation arises during a sequence of miss calls,
    any warning concerning the possible awarding of the frame to his opponent shall remain in
    effect", whether the next player asks for the balls back (v) or for the offender to play
    again from the position left (iv). Miss, replace, miss, replace: Ann is warned (2); she
    touches a ball preparing her stroke, Bob asks her to play again, and she misses again: 3."""
    m = new_match()
    s = play(m, MISS, REPLACE, MISS, REPLACE, BEFORE, PLAY_AGAIN)
    assert (s["misses"], s["striker"], s["free_ball"]) == (2, 0, False)
    assert play(m, MISS)["misses"] == 3
    # A second foul before the stroke is still possible: no stroke was played from there.
    m = new_match()
    s = play(m, MISS, REPLACE, MISS, REPLACE, BEFORE, PLAY_AGAIN, BEFORE)
    assert (s["misses"], s["striker"]) == (2, 1)


def test_the_next_player_may_play_the_stroke_himself_rule_14d_iv() -> None:
    m = new_match()
    s = play(m, MISS, REPLACE, BEFORE, NO_POT)
    assert s["striker"] == 0 and s["misses"] == 0


def test_the_ball_on_stays_the_colour_after_a_red_rule_14d_iii() -> None:
    m = new_match()
    play(m, RED, MISS, REPLACE)  # Ann missed every colour after her red; the balls go back
    s = play(m, BEFORE)
    assert s["ball_on"] == "colour"  # a colour of the striker's choice, not red
    assert s["remaining"] == 8 * 14 + 27 + 7


def test_a_three_miss_warning_stays_in_force_rule_14d_vi() -> None:
    m = new_match()
    s = play(m, MISS, REPLACE, MISS, REPLACE)
    assert s["misses"] == 2  # the referee has warned Ann: a third failure loses the frame
    s = play(m, BEFORE, REPLACE)
    assert s["misses"] == 2 and s["striker"] == 0
    assert play(m, MISS)["misses"] == 3


def test_before_stroke_only_after_a_replace_rule_14d() -> None:
    m = new_match()
    refused(m, BEFORE, "Section 3 Rule 14(d)", "replace")
    play(m, MISS)
    refused(m, BEFORE, "Section 3 Rule 14(d)")  # the balls were not put back
    play(m, PLAY_AGAIN)
    refused(m, BEFORE, "Section 3 Rule 14(d)")  # played again from the position left


def test_no_miss_is_called_for_a_foul_before_a_stroke_rule_14d() -> None:
    m = new_match()
    play(m, MISS, REPLACE)
    refused(m, foul(4, before_stroke=True, miss=True), "no miss", "Section 3 Rule 14(d)")


def test_the_penalty_is_checked_against_the_ball_on_rule_10() -> None:
    m = new_match(reds=6)
    play(m, *reds_and_blacks(6), *colours("yellow", "blue"))  # pink on
    play(m, foul(6, miss=True), REPLACE)
    refused(m, BEFORE, "at least 6", "Section 3 Rule 10")
    s = play(m, foul(6, before_stroke=True))
    assert s["ball_on"] == "pink" and s["striker"] == 1


def test_undo_takes_a_foul_before_a_stroke_back_exactly() -> None:
    m = new_match()
    before = play(m, MISS, REPLACE)
    play(m, BEFORE)
    assert play(m, {"type": "undo"}) == before
