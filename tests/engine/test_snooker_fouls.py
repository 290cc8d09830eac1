"""Fouls and penalties, reds off the table, free ball and play again.

Section 3 Rule 10 (Penalties), Rule 11 (Fouls), Rule 12 (Snookered After a Foul = free ball),
numbered as the table of contents gives them.
"""

from __future__ import annotations

import pytest

from tests.helpers.snooker import (
    COLOURS,
    NO_POT,
    PLAY_AGAIN,
    RED,
    Event,
    colours,
    foul,
    new_match,
    play,
    pot,
    reds_and_blacks,
    refused,
    state_after,
)


def to_ball_on(on: str) -> list[Event]:
    """Events of a 6-red frame, all played by Ann, that leave her at the table with ``on`` the
    ball on: "red", "colour" (after a red) or a colour in sequence."""
    if on == "red":
        return []
    if on == "colour":
        return [RED]
    i = COLOURS.index(on)
    return reds_and_blacks(6) + (colours("yellow", COLOURS[i - 1]) if i else [])


LEAST_PENALTY = [("red", 4), ("colour", 4), ("yellow", 4), ("green", 4), ("brown", 4),
                 ("blue", 5), ("pink", 6), ("black", 7)]


def test_penalty_goes_to_the_opponent_and_the_turn_passes_section3_rule1d_rule11e() -> None:
    """Section 3 Rule 1(d): penalty points go to the opponent; Rule 11(e): points scored in
    the break before the foul are allowed; Section 2 Rule 5(b): the turn ends."""
    s = state_after([RED, pot("black"), foul(4)])
    assert [side["score"] for side in s["sides"]] == [8, 4]
    assert (s["striker"], s["player"], s["break"], s["ball_on"], s["reds"]) == (1, "Bob", 0, "red", 14)
    assert [side["high_break"] for side in s["sides"]] == [8, 0]


@pytest.mark.parametrize(("on", "least"), LEAST_PENALTY)
def test_least_penalty_is_the_ball_on_value_at_least_4_accepted_section3_rule10(on: str, least: int) -> None:
    """Section 3 Rule 10: four points, or the value of the ball on when higher (a colour after
    a red is not named, so 4)."""
    m = new_match(reds=6)
    before = play(m, *to_ball_on(on))
    assert before["ball_on"] == on
    s = play(m, foul(least))
    assert s["sides"][1]["score"] == least
    assert s["sides"][0]["score"] == before["sides"][0]["score"]


@pytest.mark.parametrize(("on", "least"), [(on, least) for on, least in LEAST_PENALTY if least > 4])
def test_penalty_below_the_ball_on_value_refused_section3_rule10(on: str, least: int) -> None:
    """Section 3 Rule 10: blue on is at least 5, pink 6, black 7; one less is refused."""
    m = new_match(reds=6)
    play(m, *to_ball_on(on))
    refused(m, foul(least - 1), on, "Section 3 Rule 10")


@pytest.mark.parametrize("points", [4, 5, 6, 7])
def test_any_penalty_from_4_to_7_with_red_on_section3_rule10(points: int) -> None:
    """Section 3 Rule 10(a)-(d): fouls on a red carry 4 to 7 points (e.g. 7 under 10(d))."""
    s = state_after([foul(points)])
    assert [side["score"] for side in s["sides"]] == [0, points]


@pytest.mark.parametrize("points", [0, 3, 8, 147])
def test_penalty_outside_4_to_7_refused_section3_rule10(points: int) -> None:
    """Section 3 Rule 10: a penalty is four points at least and seven at most."""
    refused(new_match(), foul(points), "Section 3 Rule 10")


# -- reds that leave the table in a foul ------------------------------------------------


def test_reds_off_in_a_foul_stay_off_section3_rule3h() -> None:
    """Section 3 Rule 3(h): reds are not replaced once pocketed or forced off, even in a foul."""
    s = state_after([foul(4, reds_off=2)])
    assert (s["reds"], s["ball_on"], s["striker"]) == (13, "red", 1)
    assert [side["score"] for side in s["sides"]] == [0, 4]
    assert s["remaining"] == 8 * 13 + 27


def test_reds_off_in_a_foul_on_the_colour_section3_rule3h() -> None:
    """Section 3 Rule 3(h): after a red, a foul sends two more reds off; they stay off."""
    s = state_after([RED, foul(4, reds_off=2)])
    assert (s["reds"], s["ball_on"], s["striker"]) == (12, "red", 1)
    assert [side["score"] for side in s["sides"]] == [1, 4]


def test_last_red_off_in_a_foul_makes_yellow_on_section3_rule3h() -> None:
    """Section 3 Rule 3(h), 3(g)(iii); events.md: the last red left the table in a foul, so the
    next player is on the yellow with all six colours left (27)."""
    s = state_after([*reds_and_blacks(5), foul(4, reds_off=1)], reds=6)
    assert (s["reds"], s["colours"], s["striker"]) == (0, COLOURS, 1)
    assert (s["ball_on"], s["remaining"]) == ("yellow", 27)
    assert [side["score"] for side in s["sides"]] == [40, 4]


def test_last_red_off_in_a_foul_on_the_colour_makes_yellow_on_section3_rule3h() -> None:
    """Section 3 Rule 3(h): two reds left, one potted, the other forced off in a foul on the
    colour: no colour follows, the yellow is on."""
    s = state_after([*reds_and_blacks(4), RED, foul(4, reds_off=1)], reds=6)
    assert (s["reds"], s["ball_on"], s["striker"], s["remaining"]) == (0, "yellow", 1, 27)
    assert [side["score"] for side in s["sides"]] == [33, 4]


def test_more_reds_off_than_on_the_table_refused() -> None:
    """events.md: reds_off counts reds that left the table; only 1 is left, so 2 is impossible."""
    m = new_match(reds=6)
    play(m, *reds_and_blacks(5))
    refused(m, foul(4, reds_off=2))
    refused(m, foul(4, reds_off=-1))


# -- free ball -------------------------------------------------------------------------


def test_free_ball_as_a_red_scores_one_then_a_colour_section3_rule3f_rule12a() -> None:
    """Section 3 Rule 12(a)(ii), 3(f), 3(g)(i): a free ball nominated as a red is worth 1 and a
    colour follows; the free ball is spotted, so the reds are still 15."""
    m = new_match()
    s = play(m, foul(4, free_ball=True))
    assert (s["striker"], s["free_ball"], s["ball_on"], s["remaining"]) == (1, True, "red", 147 + 8)
    s = play(m, pot("free"))
    assert (s["sides"][1]["score"], s["break"], s["reds"], s["colours"]) == (5, 1, 15, COLOURS)
    assert (s["ball_on"], s["free_ball"], s["remaining"]) == ("colour", False, 8 * 15 + 27 + 7)
    s = play(m, pot("black"))
    assert (s["sides"][1]["score"], s["break"], s["ball_on"], s["reds"]) == (12, 8, "red", 15)


def test_free_ball_potted_with_reds_each_scores_section3_rule12e() -> None:
    """Section 3 Rule 12(e): free ball and reds together, red the ball on: each ball scores."""
    s = state_after([foul(4, free_ball=True), pot("free", "red", "red")])
    assert (s["sides"][1]["score"], s["reds"], s["ball_on"], s["break"]) == (4 + 3, 13, "colour", 3)


def test_free_ball_in_the_colours_scores_the_ball_on_value_and_it_stays_on_section3_rule12c() -> None:
    """Section 3 Rule 12(c): the free ball is spotted and the ball on's value is scored; the
    ball on (blue, 5) is still on."""
    m = new_match(reds=6)
    play(m, *to_ball_on("blue"))  # Ann 48 + 2 + 3 + 4 = 57
    s = play(m, foul(5, free_ball=True))
    assert (s["striker"], s["free_ball"], s["ball_on"], s["remaining"]) == (1, True, "blue", 18 + 5)
    s = play(m, pot("free"))
    assert [side["score"] for side in s["sides"]] == [57, 10]
    assert (s["ball_on"], s["colours"], s["free_ball"], s["remaining"]) == ("blue", COLOURS[3:], False, 18)
    s = play(m, pot("blue"))
    assert (s["sides"][1]["score"], s["ball_on"], s["break"]) == (15, "pink", 10)


def test_free_ball_and_ball_on_potted_together_only_ball_on_scores_section3_rule12e() -> None:
    """Section 3 Rule 12(e): in the colours only the ball on scores; it stays off, the free
    ball is spotted."""
    m = new_match(reds=6)
    play(m, *to_ball_on("blue"), foul(5, free_ball=True))
    s = play(m, pot("free", "blue"))
    assert [side["score"] for side in s["sides"]] == [57, 10]
    assert (s["ball_on"], s["colours"], s["remaining"]) == ("pink", ["pink", "black"], 13)


def test_free_ball_with_pink_and_black_left_section3_rule12c() -> None:
    """Section 3 Rule 12(c): with pink on, the black nominated and potted scores 6 and is spotted."""
    m = new_match(reds=6)
    play(m, *to_ball_on("pink"), foul(6, free_ball=True))  # Ann 62, Bob 6
    s = play(m, pot("free"))
    assert [side["score"] for side in s["sides"]] == [62, 12]
    assert (s["ball_on"], s["colours"], s["frame_over"]) == ("pink", ["pink", "black"], False)


def test_free_ball_not_taken_lapses_after_the_stroke_section3_rule12() -> None:
    """Section 3 Rule 12: the free ball is for the next stroke of the player next in turn only."""
    m = new_match()
    s = play(m, foul(4, free_ball=True), NO_POT)
    assert (s["striker"], s["free_ball"], s["remaining"]) == (0, False, 147)
    refused(m, pot("free"), "Section 3 Rule 12")


def test_free_ball_without_a_call_refused_section3_rule12() -> None:
    """Section 3 Rule 12: only the referee's FREE BALL call lets the striker pot a free ball."""
    refused(new_match(), pot("free"), "Section 3 Rule 12")
    m = new_match()
    play(m, foul(4))
    refused(m, pot("free"), "Section 3 Rule 12")


def test_two_free_balls_in_one_stroke_refused_section3_rule12a() -> None:
    """Section 3 Rule 12(a): the striker nominates one ball."""
    m = new_match()
    play(m, foul(4, free_ball=True))
    refused(m, pot("free", "free"), "Section 3 Rule 12")


def test_no_free_ball_with_only_the_black_left_section2_rule17() -> None:
    """Section 2 Rule 17: snookered means obstructed by a ball not on; with only the black left
    there is none, so no free ball can be called."""
    m = new_match(reds=6)
    play(m, *to_ball_on("black"))
    refused(m, foul(7, free_ball=True), "Section 2 Rule 17")


# -- play again ------------------------------------------------------------------------


def test_play_again_the_offender_plays_and_the_free_ball_is_void_section3_rule11h_rule12f() -> None:
    """Section 3 Rule 11(h)(ii): the offender plays the next stroke if requested; Rule 12(f):
    the free ball call becomes void; Rule 13: the penalty stands."""
    m = new_match()
    s = play(m, RED, foul(4, free_ball=True))
    assert (s["striker"], s["free_ball"], s["ball_on"]) == (1, True, "red")
    s = play(m, PLAY_AGAIN)
    assert (s["striker"], s["player"], s["free_ball"]) == (0, "Ann", False)
    assert (s["ball_on"], s["break"]) == ("red", 0)
    assert [side["score"] for side in s["sides"]] == [1, 4]
    assert (s["reds"], s["remaining"], s["seq"]) == (14, 8 * 14 + 27, 3)
    refused(m, pot("free"), "Section 3 Rule 12")
    s = play(m, RED)
    assert (s["sides"][0]["score"], s["break"], s["ball_on"]) == (2, 1, "colour")


def test_play_again_in_the_colours_keeps_the_ball_on_section3_rule13() -> None:
    """Section 3 Rule 13: the offender plays again from where the balls lie; the ball on is
    still the lowest colour."""
    m = new_match(reds=6)
    play(m, *to_ball_on("brown"))  # Ann 53
    s = play(m, foul(4), PLAY_AGAIN)
    assert (s["striker"], s["ball_on"], s["remaining"]) == (0, "brown", 22)
    assert [side["score"] for side in s["sides"]] == [53, 4]


def test_play_again_without_a_foul_refused_section3_rule11h() -> None:
    """Section 3 Rule 11(h): only after a foul may the next player ask the offender to play again."""
    refused(new_match(), PLAY_AGAIN, "Section 3 Rule 11(h)")
    m = new_match()
    play(m, NO_POT)
    refused(m, PLAY_AGAIN, "Section 3 Rule 11(h)")


def test_play_again_only_once_and_only_before_the_next_stroke_section3_rule11h() -> None:
    """Section 3 Rule 11(h), Rule 13: one request per foul, made before the next stroke."""
    m = new_match()
    play(m, foul(4), PLAY_AGAIN)
    refused(m, PLAY_AGAIN, "Section 3 Rule 11(h)")
    m = new_match()
    play(m, foul(4), NO_POT)
    refused(m, PLAY_AGAIN, "Section 3 Rule 11(h)")


def test_foul_on_the_colour_after_the_last_red_makes_yellow_on_section3_rule3g_ii() -> None:
    """Section 3 Rule 3(g)(ii): a colour has been played at after the last red (and fouled), so
    the colours are on in order from the yellow."""
    s = state_after([*reds_and_blacks(5), RED, foul(4)], reds=6)
    assert (s["reds"], s["colours"], s["striker"]) == (0, COLOURS, 1)
    assert (s["ball_on"], s["remaining"]) == ("yellow", 27)


def test_free_ball_with_the_last_red_then_a_colour_then_yellow_section3_rule12e_rule3g_ii() -> None:
    """Section 3 Rule 12(e): the free ball and the last red both score (2); Rule 3(g)(ii): a
    colour follows, then the colours in order."""
    m = new_match(reds=6)
    play(m, *reds_and_blacks(5), foul(4, free_ball=True))  # Ann 40, Bob 4, one red left
    s = play(m, pot("free", "red"))
    assert (s["sides"][1]["score"], s["reds"], s["ball_on"], s["remaining"]) == (6, 0, "colour", 34)
    s = play(m, pot("black"))
    assert (s["sides"][1]["score"], s["ball_on"], s["colours"], s["remaining"]) == (13, "yellow", COLOURS, 27)
