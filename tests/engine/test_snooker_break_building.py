"""Pots, the ball on and breaks: Section 3 Rules 1-3 and 7, Section 2 Rules 5, 8 and 11."""

from __future__ import annotations

import pytest

from tests.helpers.snooker import (
    COLOURS,
    NO_POT,
    RED,
    colours,
    new_match,
    play,
    pot,
    reds_and_blacks,
    state_after,
)


def test_opening_position_section3_rule2() -> None:
    """Section 3 Rule 2(a), 3(c), 3(f): all balls set, the first player in hand, red on."""
    s = state_after([])
    assert s["schema"] == 1 and s["game"] == "snooker" and s["seq"] == 0
    assert [side["name"] for side in s["sides"]] == ["Ann", "Bob"]
    assert [side["players"] for side in s["sides"]] == [["Ann"], ["Bob"]]
    assert [side["score"] for side in s["sides"]] == [0, 0]
    assert [side["frames"] for side in s["sides"]] == [0, 0]
    assert [side["high_break"] for side in s["sides"]] == [0, 0]
    assert (s["frame"], s["best_of"], s["breaker"], s["striker"], s["player"]) == (1, 1, 0, 0, "Ann")
    assert (s["reds"], s["colours"], s["ball_on"]) == (15, COLOURS, "red")
    assert (s["break"], s["free_ball"], s["misses"], s["respotted_black"]) == (0, False, 0, False)
    assert (s["remaining"], s["snookers_required"]) == (147, None)
    assert (s["frame_over"], s["frame_winner"]) == (False, None)
    assert (s["match_over"], s["match_winner"]) == (False, None)


def test_red_then_any_colour_is_on_section3_rule3g_i() -> None:
    """Section 3 Rule 3(g)(i): after a red the same player plays a colour of his choice."""
    s = state_after([RED])
    assert s["sides"][0]["score"] == 1
    assert (s["reds"], s["ball_on"], s["striker"], s["break"], s["seq"]) == (14, "colour", 0, 1, 1)
    assert s["remaining"] == 8 * 14 + 27 + 7


def test_several_reds_in_one_stroke_each_score_section3_rule3f() -> None:
    """Section 3 Rule 3(f): the value of each red potted in the same stroke is scored."""
    s = state_after([pot("red", "red", "red")])
    assert s["sides"][0]["score"] == 3
    assert (s["reds"], s["ball_on"], s["break"]) == (12, "colour", 3)
    assert s["remaining"] == 8 * 12 + 34


def test_several_reds_later_in_a_break_section3_rule3f() -> None:
    """Section 3 Rule 3(f): red, pink, then two reds together: 1 + 6 + 2 = 9."""
    s = state_after([RED, pot("pink"), pot("red", "red")])
    assert (s["sides"][0]["score"], s["break"], s["reds"], s["ball_on"]) == (9, 9, 12, "colour")


@pytest.mark.parametrize(("colour", "value"), [("yellow", 2), ("green", 3), ("brown", 4),
                                                ("blue", 5), ("pink", 6), ("black", 7)])
def test_colour_after_red_scores_and_is_respotted_section3_rule3g_i(colour: str, value: int) -> None:
    """Section 3 Rule 1(a) values; Rule 3(g)(i): the colour is spotted and red is on again."""
    s = state_after([RED, pot(colour)])
    assert (s["sides"][0]["score"], s["break"]) == (1 + value, 1 + value)
    assert (s["reds"], s["colours"], s["ball_on"]) == (14, COLOURS, "red")
    assert s["remaining"] == 8 * 14 + 27


def test_no_pot_ends_the_turn_section2_rule5a() -> None:
    """Section 2 Rule 5(a): the turn ends when the striker fails to score; red is on for the
    next player (Section 3 Rule 3(f))."""
    s = state_after([RED, pot("black"), NO_POT])
    assert (s["striker"], s["player"], s["break"], s["ball_on"]) == (1, "Bob", 0, "red")
    assert [side["score"] for side in s["sides"]] == [8, 0]
    assert s["sides"][0]["high_break"] == 8


def test_missing_the_colour_after_a_red_gives_red_on_to_the_next_player_section3_rule3f() -> None:
    """Section 3 Rule 3(f): whoever comes to the table while reds remain is on a red."""
    s = state_after([RED, NO_POT])
    assert (s["striker"], s["ball_on"], s["reds"], s["remaining"]) == (1, "red", 14, 8 * 14 + 27)


def test_high_break_is_the_best_break_of_the_match_so_far() -> None:
    """Section 2 Rule 8: a break is the pots of one turn; state.md: high_break includes this turn's."""
    m = new_match()
    s = play(m, RED, pot("black"), NO_POT)  # Ann 8
    s = play(m, RED, pot("blue"), RED)  # Bob 1 + 5 + 1 = 7, still at the table
    assert [side["high_break"] for side in s["sides"]] == [8, 7]
    assert s["break"] == 7
    s = play(m, pot("pink"), NO_POT, RED, NO_POT)  # Bob's break is 13; Ann then makes 1
    assert [side["score"] for side in s["sides"]] == [9, 13]
    assert [side["high_break"] for side in s["sides"]] == [8, 13]


def test_colour_after_the_last_red_is_respotted_then_yellow_section3_rule3g_ii_iii() -> None:
    """Section 3 Rule 3(g)(ii)-(iii): the colour after the last red is played, re-spotted, and
    the colours are then on in ascending order, starting with the yellow."""
    s = state_after(reds_and_blacks(6), reds=6)
    assert (s["reds"], s["colours"], s["ball_on"], s["sides"][0]["score"]) == (0, COLOURS, "yellow", 48)
    assert s["remaining"] == 27


def test_colour_on_after_the_last_red_section3_rule3g_ii() -> None:
    """Section 3 Rule 3(g)(ii): after the last red the striker is on any colour (34 points left)."""
    s = state_after([*reds_and_blacks(5), RED], reds=6)
    assert (s["reds"], s["ball_on"], s["remaining"]) == (0, "colour", 34)


def test_missing_the_colour_after_the_last_red_leaves_yellow_on_section3_rule3g_ii() -> None:
    """Section 3 Rule 3(g)(ii): the colour after the last red has been played at, so the next
    player is on the yellow."""
    s = state_after([*reds_and_blacks(5), RED, NO_POT], reds=6)
    assert (s["striker"], s["reds"], s["colours"]) == (1, 0, COLOURS)
    assert (s["ball_on"], s["remaining"]) == ("yellow", 27)


def test_colours_in_ascending_order_stay_off_section3_rule3g_iii() -> None:
    """Section 3 Rule 3(g)(iii): yellow, green, brown, blue, pink, black, each staying off."""
    m = new_match(reds=6)
    play(m, *reds_and_blacks(6))
    expected = [("green", 25), ("brown", 22), ("blue", 18), ("pink", 13), ("black", 7)]
    for potted, (on, left) in zip(COLOURS, expected, strict=False):
        s = play(m, pot(potted))
        assert (s["ball_on"], s["remaining"], s["colours"][0]) == (on, left, on)
        assert s["colours"] == COLOURS[COLOURS.index(on):]


def test_no_pot_in_the_colours_keeps_the_colour_on_section3_rule3g_iii() -> None:
    """Section 3 Rule 3(g)(iii): the next player is on the lowest colour left."""
    s = state_after([*reds_and_blacks(6), *colours("yellow", "green"), NO_POT], reds=6)
    assert (s["striker"], s["ball_on"], s["remaining"]) == (1, "brown", 22)


def test_maximum_147_with_15_reds() -> None:
    """Section 3 Rule 1(a): 15 reds with 15 blacks (120) and the colours (27) make 147."""
    s = state_after([*reds_and_blacks(15), *colours()])
    assert s["sides"][0]["score"] == 147 and s["sides"][1]["score"] == 0
    assert (s["break"], s["sides"][0]["high_break"]) == (147, 147)
    assert (s["reds"], s["ball_on"], s["striker"], s["player"]) == (0, None, None, None)
    assert (s["remaining"], s["snookers_required"]) == (0, None)
    assert (s["frame_over"], s["frame_winner"], s["match_over"], s["match_winner"]) == (True, 0, True, 0)
    assert s["sides"][0]["frames"] == 1
    assert s["seq"] == 36


def test_final_black_potted_leaves_no_colours_section3_rule3g_iii() -> None:
    """Section 3 Rule 3(g)(iii): the colours, when potted in order, remain off the table; state.md:
    'colours' are the object balls on the table, so none once the last black is potted."""
    s = state_after([*reds_and_blacks(6), *colours()], reds=6)
    assert (s["reds"], s["colours"]) == (0, [])


def test_maximum_107_with_10_reds() -> None:
    """10 reds with 10 blacks (80) and the colours (27) make 107."""
    s = state_after([*reds_and_blacks(10), *colours()], reds=10)
    assert (s["sides"][0]["score"], s["break"], s["frame_over"], s["frame_winner"]) == (107, 107, True, 0)


def test_maximum_75_with_6_reds() -> None:
    """6 reds with 6 blacks (48) and the colours (27) make 75."""
    s = state_after([*reds_and_blacks(6), *colours()], reds=6)
    assert (s["sides"][0]["score"], s["break"], s["frame_over"], s["frame_winner"]) == (75, 75, True, 0)
    assert s["sides"][0]["high_break"] == 75


@pytest.mark.parametrize(("reds", "points"), [(15, 147), (10, 107), (6, 75)])
def test_points_available_at_the_start_by_number_of_reds(reds: int, points: int) -> None:
    """state.md: remaining = 8 * reds + 27 with red on."""
    s = state_after([], reds=reds)
    assert (s["reds"], s["remaining"]) == (reds, points)


def test_clearance_split_between_the_players() -> None:
    """Section 3 Rule 1(c): points for pots go to the striker; a 6-red frame shared out."""
    s = state_after([
        RED, pot("black"), RED, pot("pink"), NO_POT,   # Ann 8 + 7 = 15
        RED, pot("blue"), RED, pot("black"), NO_POT,   # Bob 6 + 8 = 14
        pot("red", "red"), NO_POT,                     # Ann takes the last two reds (17), no colour
        *colours("yellow", "blue"), NO_POT,            # Bob 2 + 3 + 4 + 5 = 14, 28 in all
        pot("pink"), pot("black"),                     # Ann 17 + 13 = 30
    ], reds=6)
    assert [side["score"] for side in s["sides"]] == [30, 28]
    assert (s["frame_over"], s["frame_winner"], s["break"]) == (True, 0, 13)
    assert [side["high_break"] for side in s["sides"]] == [15, 14]
