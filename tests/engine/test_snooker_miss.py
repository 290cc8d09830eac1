"""FOUL AND A MISS, the replaced position and the count of misses: Section 3 Rule 14."""

from __future__ import annotations

import pytest

from tests.helpers.snooker import (
    NO_POT,
    PLAY_AGAIN,
    RED,
    REPLACE,
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

MISS = foul(4, miss=True)


def bob_misses_twice_replaced() -> list[Event]:
    """Ann makes 8 and lets Bob in; Bob's FOUL AND A MISS (two reds off), Ann asks for the
    position back; Bob misses again, Ann asks again."""
    return [RED, pot("black"), NO_POT, foul(4, miss=True, reds_off=2), REPLACE, MISS, REPLACE]


def test_foul_and_a_miss_counts_one_section3_rule14() -> None:
    """Section 3 Rule 14: the referee calls FOUL AND A MISS; the penalty goes to the opponent."""
    s = play(new_match(), MISS)
    assert (s["misses"], s["striker"], s["ball_on"]) == (1, 1, "red")
    assert [side["score"] for side in s["sides"]] == [0, 4]


def test_replace_restores_the_position_and_the_penalty_stands_section3_rule14a() -> None:
    """Section 3 Rule 14(a): the offender plays again from the original position; the reds
    forced off in that stroke come back (Rule 3(h) names 14(f) as an exception); the penalty
    stands (Rule 13)."""
    m = new_match()
    s = play(m, RED, pot("black"), NO_POT, foul(4, miss=True, reds_off=2))
    assert (s["reds"], s["striker"], s["misses"]) == (12, 0, 1)
    assert [side["score"] for side in s["sides"]] == [12, 0]
    s = play(m, REPLACE)
    assert (s["reds"], s["ball_on"], s["striker"], s["player"]) == (14, "red", 1, "Bob")
    assert [side["score"] for side in s["sides"]] == [12, 0]
    assert (s["misses"], s["free_ball"], s["break"], s["seq"]) == (1, False, 0, 5)
    assert s["remaining"] == 8 * 14 + 27
    assert [side["high_break"] for side in s["sides"]] == [8, 0]


def test_replace_after_a_miss_on_the_colour_after_a_red_section3_rule14a_iii() -> None:
    """Section 3 Rule 14(a)(iii): the ball on is a colour of the striker's choice again."""
    m = new_match()
    s = play(m, RED, MISS)
    assert (s["ball_on"], s["striker"], s["misses"]) == ("red", 1, 1)
    s = play(m, REPLACE)
    assert (s["ball_on"], s["striker"], s["reds"], s["remaining"]) == ("colour", 0, 14, 8 * 14 + 34)
    assert [side["score"] for side in s["sides"]] == [1, 4]
    s = play(m, pot("pink"))
    assert (s["sides"][0]["score"], s["ball_on"], s["misses"], s["break"]) == (7, "red", 0, 6)


def test_replace_brings_back_the_last_red_section3_rule14a_i() -> None:
    """Section 3 Rule 14(a)(i): the last red went off in the miss and the yellow was on; after
    the replace the red is back and on again."""
    m = new_match(reds=6)
    s = play(m, *reds_and_blacks(5), NO_POT, foul(4, miss=True, reds_off=1))
    assert (s["reds"], s["ball_on"], s["striker"]) == (0, "yellow", 0)
    s = play(m, REPLACE)
    assert (s["reds"], s["ball_on"], s["striker"], s["misses"], s["remaining"]) == (1, "red", 1, 1, 35)
    assert [side["score"] for side in s["sides"]] == [44, 0]


def test_replace_in_the_colours_section3_rule14a_ii() -> None:
    """Section 3 Rule 14(a)(ii): the colour on, where all reds were off the table."""
    m = new_match(reds=6)
    s = play(m, *reds_and_blacks(6), *colours("yellow", "green"), NO_POT, MISS, REPLACE)
    assert (s["ball_on"], s["striker"], s["colours"][0]) == ("brown", 1, "brown")
    assert (s["remaining"], s["misses"]) == (22, 1)
    assert [side["score"] for side in s["sides"]] == [57, 0]


def test_second_miss_after_a_replace_counts_two_section3_rule14c() -> None:
    """Section 3 Rule 14(c)(i)-(ii): a further failure from the same position is a second miss
    (the referee warns that a third gives the frame away)."""
    s = play(new_match(), *bob_misses_twice_replaced())
    assert (s["misses"], s["striker"], s["reds"], s["ball_on"]) == (2, 1, 14, "red")
    assert [side["score"] for side in s["sides"]] == [16, 0]


def test_third_miss_and_the_frame_is_awarded_section3_rule14c_ii() -> None:
    """Section 3 Rule 14(c)(ii), Section 2 Rule 1(d): the third failure and the referee
    awards the frame to the opponent."""
    m = new_match(best_of=3)
    s = play(m, *bob_misses_twice_replaced(), MISS)
    assert (s["misses"], s["sides"][0]["score"]) == (3, 20)
    s = play(m, award(0))
    assert (s["frame_over"], s["frame_winner"], s["match_over"]) == (True, 0, False)
    assert [side["frames"] for side in s["sides"]] == [1, 0]


@pytest.mark.parametrize("stroke", [RED, NO_POT, foul(4)], ids=["pot", "no_pot", "foul"])
def test_misses_back_to_zero_after_any_other_stroke_state_md(stroke: Event) -> None:
    """state.md: misses is 0 once any other stroke is played (Section 3 Rule 14(c): a new
    position ends the sequence)."""
    s = play(new_match(), *bob_misses_twice_replaced(), stroke)
    assert s["misses"] == 0


def test_play_again_after_a_miss_starts_the_count_again_section3_rule14c_iii() -> None:
    """Section 3 Rule 14(c)(iii): asked to play again from a different position (where the
    balls lie), the Foul and a Miss situation starts again."""
    m = new_match()
    s = play(m, MISS, PLAY_AGAIN)
    assert (s["misses"], s["striker"]) == (0, 0)
    s = play(m, MISS)
    assert (s["misses"], s["sides"][1]["score"]) == (1, 8)


def test_a_miss_played_on_from_where_the_balls_lie_starts_again_section3_rule14c_iii() -> None:
    """Section 3 Rule 14(a), 14(c)(iii): the next player plays on instead; a later miss is a
    new sequence."""
    m = new_match()
    s = play(m, MISS, NO_POT)
    assert (s["misses"], s["striker"]) == (0, 0)
    s = play(m, MISS)
    assert s["misses"] == 1


def test_replace_voids_the_free_ball_section3_rule12f() -> None:
    """Section 3 Rule 12(f): the offender is asked to play again, so the free ball call is void."""
    m = new_match()
    s = play(m, foul(4, miss=True, free_ball=True))
    assert (s["free_ball"], s["remaining"]) == (True, 155)
    s = play(m, REPLACE)
    assert (s["free_ball"], s["striker"], s["remaining"]) == (False, 0, 147)
    refused(m, pot("free"), "Section 3 Rule 12")


def test_replace_without_a_miss_refused_section3_rule14a() -> None:
    """Section 3 Rule 14(a): the balls are put back only after a FOUL AND A MISS."""
    refused(new_match(), REPLACE, "Section 3 Rule 14")
    m = new_match()
    play(m, foul(4))
    refused(m, REPLACE, "Section 3 Rule 14")


@pytest.mark.parametrize("after", [[PLAY_AGAIN], [NO_POT], [REPLACE]],
                         ids=["play_again", "stroke", "replace"])
def test_replace_refused_once_the_choice_is_made_section3_rule13_rule14a(after: list[Event]) -> None:
    """Section 3 Rule 13: a request cannot be withdrawn; Rule 14(a): the choice is the next
    player's, before his stroke."""
    m = new_match()
    play(m, MISS, *after)
    refused(m, REPLACE, "Section 3 Rule 14")


def test_no_miss_with_only_the_black_left_section3_rule14() -> None:
    """Section 3 Rule 14: FOUL AND A MISS is not called when only the black remains."""
    m = new_match(reds=6)
    play(m, *reds_and_blacks(6), *colours("yellow", "pink"))
    refused(m, foul(7, miss=True), "Section 3 Rule 14")


def test_replace_after_a_miss_on_the_colour_after_the_last_red_section3_rule14a_iii() -> None:
    """Section 3 Rule 14(a)(iii): the last red was potted, the colour missed: after the replace
    the striker is on any colour again (27 + 7 = 34 left), not on the yellow."""
    m = new_match(reds=6)
    s = play(m, *reds_and_blacks(5), RED, MISS)
    assert (s["reds"], s["ball_on"], s["striker"]) == (0, "yellow", 1)
    s = play(m, REPLACE)
    assert (s["reds"], s["ball_on"], s["striker"], s["remaining"]) == (0, "colour", 0, 34)
    s = play(m, pot("pink"))
    assert (s["sides"][0]["score"], s["ball_on"], s["colours"][-2:]) == (47, "yellow", ["pink", "black"])


def test_the_misses_belong_to_the_offender_not_the_next_player() -> None:
    """The count is the offender's (Section 3 Rule 14(c): its third miss forfeits the frame):
    ``missed_by`` names that side while the next player decides, and while the offender plays
    again from the replaced position; after PLAY AGAIN the sequence starts again (none)."""
    s = play(new_match(), MISS)  # Ann (side 0) misses: Bob is to decide
    assert (s["misses"], s["missed_by"], s["striker"]) == (1, 0, 1)
    s = play(new_match(), MISS, REPLACE)  # Ann plays again from the replaced position
    assert (s["misses"], s["missed_by"], s["striker"]) == (1, 0, 0)
    s = play(new_match(), *bob_misses_twice_replaced())
    assert (s["misses"], s["missed_by"], s["striker"]) == (2, 1, 1)
    s = play(new_match(), MISS, PLAY_AGAIN)
    assert (s["misses"], s["missed_by"]) == (0, None)
    assert play(new_match(), NO_POT)["missed_by"] is None
