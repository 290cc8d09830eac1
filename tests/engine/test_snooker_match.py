"""Matches: frames in turn, best-of and race-to, handicaps, aggregate scoring.

Section 3 Rules 1(g)-(h), 3(b) and 4(c), Section 4 Rules 2 and 5(b).
"""

from __future__ import annotations

import pytest

from cueboard.engine import IllegalEvent
from tests.helpers.snooker import (
    COLOURS,
    NEXT_FRAME,
    NO_POT,
    RED,
    Event,
    award,
    colours,
    concede,
    foul,
    new_match,
    play,
    pot,
    reds_and_blacks,
    refused,
    six_reds_to_black,
    state_after,
)

CLEARANCE = [*reds_and_blacks(6), *colours()]
"""A 75 with 6 reds by the player at the table."""


def test_breaker_alternates_section3_rule3b() -> None:
    """Section 3 Rule 3(b): the player to strike first alternates each frame."""
    m = new_match(best_of=5)
    s = play(m, award(0), NEXT_FRAME)
    assert (s["frame"], s["breaker"], s["striker"], s["player"]) == (2, 1, 1, "Bob")
    s = play(m, award(0), NEXT_FRAME)
    assert (s["frame"], s["breaker"], s["striker"], s["player"]) == (3, 0, 0, "Ann")
    s = play(m, award(1), NEXT_FRAME)
    assert (s["frame"], s["breaker"], s["striker"]) == (4, 1, 1)


def test_first_chooses_who_breaks_frame_one_section3_rule3() -> None:
    """Section 3 Rule 3: the order of play by lot; events.md 'first'; then it alternates."""
    m = new_match(best_of=3, first=1)
    s = m.state().to_json()
    assert (s["breaker"], s["striker"], s["player"]) == (1, 1, "Bob")
    s = play(m, award(1), NEXT_FRAME)
    assert (s["breaker"], s["striker"], s["player"]) == (0, 0, "Ann")


def test_next_frame_resets_the_table_and_keeps_frames_and_high_breaks_section3_rule2() -> None:
    """Section 3 Rule 2: every frame starts with all the balls set; frames won and the high
    break of the match carry over."""
    m = new_match(best_of=3, reds=6)
    s = play(m, *CLEARANCE)
    assert (s["break"], s["frame_over"]) == (75, True)
    s = play(m, NEXT_FRAME)
    assert [side["score"] for side in s["sides"]] == [0, 0]
    assert [side["frames"] for side in s["sides"]] == [1, 0]
    assert [side["high_break"] for side in s["sides"]] == [75, 0]
    assert (s["frame"], s["reds"], s["colours"], s["ball_on"], s["remaining"]) == (2, 6, COLOURS, "red", 75)
    assert (s["break"], s["frame_over"], s["frame_winner"], s["respotted_black"]) == (0, False, None, False)
    assert (s["seq"], s["match_over"]) == (19, False)


def test_next_frame_mid_frame_refused() -> None:
    """events.md: next_frame starts the next frame once the current one is over."""
    m = new_match(best_of=3)
    refused(m, NEXT_FRAME)
    play(m, RED)
    refused(m, NEXT_FRAME)


def test_best_of_three_ends_when_a_side_has_two_section3_rule1g_i() -> None:
    """Section 3 Rule 1(g)(i): the required number of frames (2 of 3)."""
    m = new_match(best_of=3)
    s = play(m, award(0), NEXT_FRAME, award(0))
    assert [side["frames"] for side in s["sides"]] == [2, 0]
    assert (s["frame"], s["match_over"], s["match_winner"]) == (2, True, 0)
    refused(m, NEXT_FRAME, "match is over")
    refused(m, RED, "match is over")


def test_best_of_five_goes_to_the_deciding_frame_section3_rule1g_i() -> None:
    """Section 3 Rule 1(g)(i): 2-2 after four frames, the fifth decides."""
    m = new_match(best_of=5)
    for side in (0, 1, 0, 1):
        s = play(m, award(side))
        assert not s["match_over"]
        play(m, NEXT_FRAME)
    s = play(m, concede())  # Ann breaks frame 5 and concedes it
    assert [side["frames"] for side in s["sides"]] == [2, 3]
    assert (s["frame"], s["match_over"], s["match_winner"]) == (5, True, 1)


def test_race_to_three_section3_rule1g_i() -> None:
    """events.md race_to: frames needed to win; state.md best_of is the most it can last."""
    m = new_match(race_to=3)
    s = m.state().to_json()
    assert (s["best_of"], s["race_to"]) == (5, 3)
    for frame in (1, 2):
        s = play(m, award(1))
        assert (s["frame"], s["match_over"]) == (frame, False)
        play(m, NEXT_FRAME)
    s = play(m, award(1))
    assert [side["frames"] for side in s["sides"]] == [0, 3]
    assert (s["frame"], s["match_over"], s["match_winner"]) == (3, True, 1)


def test_one_frame_match_by_default() -> None:
    """events.md: best_of defaults to 1; the frame decides the match."""
    s = state_after([concede()])
    assert (s["best_of"], s["frame_winner"], s["match_over"], s["match_winner"]) == (1, 1, True, 1)


# -- handicap ----------------------------------------------------------------------------


def test_handicap_is_the_start_of_every_frame() -> None:
    """events.md handicap: the points each side starts every frame with."""
    m = new_match(best_of=3, handicap=[20, 0])
    assert [side["score"] for side in m.state().to_json()["sides"]] == [20, 0]
    s = play(m, RED, pot("black"), NO_POT)
    assert [side["score"] for side in s["sides"]] == [28, 0]
    assert s["sides"][0]["high_break"] == 8
    s = play(m, award(1), NEXT_FRAME)
    assert [side["score"] for side in s["sides"]] == [20, 0]


def test_handicap_can_need_snookers_from_the_start() -> None:
    """state.md: Ann starts 150 behind with 147 on the table: one 4-point snooker needed."""
    s = state_after([], handicap=[0, 150])
    assert s["snookers_required"] == {"side": 0, "count": 1, "each": 4}


def test_handicap_decides_a_close_frame_section3_rule1f_i() -> None:
    """Section 3 Rule 1(f)(i): the highest score, handicap included (75 against 80)."""
    s = state_after(CLEARANCE, reds=6, handicap=[0, 80])
    assert [side["score"] for side in s["sides"]] == [75, 80]
    assert (s["frame_winner"], s["match_winner"]) == (1, 1)


# -- aggregate ---------------------------------------------------------------------------


def test_aggregate_totals_and_every_frame_is_played_section3_rule1g_ii() -> None:
    """Section 3 Rule 1(g)(ii): the greatest total decides, over all the frames: two frames up
    in a best of 3 is not yet a win."""
    m = new_match(best_of=3, reds=6, aggregate=True)
    s = play(m, *CLEARANCE, NEXT_FRAME, NO_POT, *CLEARANCE)
    assert [side["frames"] for side in s["sides"]] == [2, 0]
    assert [side["total"] for side in s["sides"]] == [150, 0]
    assert (s["race_to"], s["aggregate"], s["match_over"]) == (None, True, False)
    s = play(m, NEXT_FRAME)
    assert [side["total"] for side in s["sides"]] == [150, 0]
    s = play(m, RED, NO_POT, *reds_and_blacks(5), *colours())  # Ann 1, Bob 40 + 27
    assert [side["score"] for side in s["sides"]] == [1, 67]
    assert [side["total"] for side in s["sides"]] == [151, 67]
    assert [side["frames"] for side in s["sides"]] == [2, 1]
    assert (s["frame"], s["frame_winner"], s["match_over"], s["match_winner"]) == (3, 1, True, 0)


def test_aggregate_total_counts_the_frame_in_progress() -> None:
    """state.md extension: sides[i].total is the finished frames plus this one."""
    m = new_match(best_of=2, reds=6, aggregate=True)
    s = play(m, *CLEARANCE, NEXT_FRAME, RED, pot("pink"))  # Bob breaks frame 2 with 7
    assert [side["total"] for side in s["sides"]] == [75, 7]


def test_aggregate_even_number_of_frames_allowed() -> None:
    """events.md: best_of is odd except with aggregate."""
    assert new_match(best_of=4, aggregate=True).state().to_json()["best_of"] == 4
    with pytest.raises(IllegalEvent, match="odd"):
        new_match(best_of=4)


def test_aggregate_tied_frame_before_the_last_has_no_winner_section3_rule4a_ii() -> None:
    """Section 3 Rule 4(a)(ii): aggregate scores are relevant, so a tie on the last black of
    frame 1 of 2 ends the frame with nobody winning it, and no re-spotted black."""
    m = new_match(best_of=2, reds=6, aggregate=True, handicap=[0, 61])
    s = play(m, *six_reds_to_black(), foul(7))
    assert [side["score"] for side in s["sides"]] == [68, 68]
    assert (s["frame_over"], s["frame_winner"], s["respotted_black"]) == (True, None, False)
    assert s["match_over"] is False
    assert [side["frames"] for side in s["sides"]] == [0, 0]
    assert [side["total"] for side in s["sides"]] == [68, 68]


def test_aggregate_level_after_the_last_frame_respots_the_black_section3_rule4c() -> None:
    """Section 3 Rule 4(c): Ann made 75 in frame 1, Bob 75 in frame 2: level on aggregate at
    the end of the last frame, so the black is re-spotted. Ann wins the lot and pots it: Bob
    won frame 2 (75-7, Rule 1(f)(i)), Ann the match (82-75, Rule 1(g)(ii))."""
    m = new_match(best_of=2, reds=6, aggregate=True)
    s = play(m, *CLEARANCE, NEXT_FRAME, *CLEARANCE)
    assert [side["score"] for side in s["sides"]] == [0, 75]
    assert (s["respotted_black"], s["striker"], s["frame_over"], s["remaining"]) == (True, None, False, 7)
    s = play(m, {"type": "respotted_black", "striker": 0}, pot("black"))
    assert [side["score"] for side in s["sides"]] == [7, 75]
    assert [side["total"] for side in s["sides"]] == [82, 75]
    assert [side["frames"] for side in s["sides"]] == [1, 1]
    assert (s["frame_over"], s["frame_winner"], s["match_over"], s["match_winner"]) == (True, 1, True, 0)


def test_aggregate_last_frame_tied_but_totals_not_level_no_respot_section3_rule4a_4c() -> None:
    """Section 3 Rule 4(a)(ii), 4(c): the last frame ends 68-68 but the totals are not level:
    the frame ends, the match goes to the greater total."""
    m = new_match(best_of=2, reds=6, aggregate=True, handicap=[0, 61])
    play(m, *CLEARANCE, NEXT_FRAME)  # 75-61
    s = play(m, NO_POT, *six_reds_to_black(), foul(7))
    assert [side["score"] for side in s["sides"]] == [68, 68]
    assert (s["respotted_black"], s["frame_over"], s["frame_winner"]) == (False, True, None)
    assert [side["total"] for side in s["sides"]] == [143, 129]
    assert (s["match_over"], s["match_winner"]) == (True, 0)


def test_aggregate_award_frame_forfeits_points_section4_rule2a_ii() -> None:
    """Section 4 Rule 2(a)(ii): Ann (9) forfeits her points; Bob (7) receives the balls left,
    12 reds at 8 and the colours (27): 7 + 96 + 27 = 130."""
    m = new_match(best_of=2, aggregate=True)
    s = play(m, RED, pot("black"), RED, NO_POT, RED, pot("pink"), NO_POT)
    assert ([side["score"] for side in s["sides"]], s["reds"]) == ([9, 7], 12)
    s = play(m, award(1))
    assert [side["score"] for side in s["sides"]] == [0, 130]
    assert [side["total"] for side in s["sides"]] == [0, 130]
    assert (s["frame_winner"], s["match_over"]) == (1, False)


def test_aggregate_award_match_adds_147_for_each_unplayed_frame_section4_rule2b_iii() -> None:
    """Section 4 Rule 2(b)(iii): best of 3, awarded in frame 1: 130 for frame 1 as above and
    147 for each of frames 2 and 3."""
    m = new_match(best_of=3, aggregate=True)
    s = play(m, RED, pot("black"), RED, NO_POT, RED, pot("pink"), NO_POT, award(1, match=True))
    assert [side["total"] for side in s["sides"]] == [0, 130 + 2 * 147]
    assert (s["match_over"], s["match_winner"]) == (True, 1)


def test_aggregate_concession_adds_the_balls_left_section4_rule5b() -> None:
    """Section 4 Rule 5(b): Bob concedes at 8-0 with 14 reds and the colours left:
    8 + 14 * 8 + 27 = 147 to Ann."""
    s = state_after([RED, pot("black"), NO_POT, concede()], best_of=2, aggregate=True)
    assert [side["score"] for side in s["sides"]] == [147, 0]
    assert [side["total"] for side in s["sides"]] == [147, 0]
    assert (s["frame_winner"], s["match_over"]) == (0, False)


def test_aggregate_concession_in_the_colours_section4_rule5b() -> None:
    """Section 4 Rule 5(b): Bob concedes at 62-0 with pink and black left: 62 + 13 = 75."""
    s = state_after([*six_reds_to_black()[:-1], NO_POT, concede()], best_of=2, reds=6, aggregate=True)
    assert [side["score"] for side in s["sides"]] == [62 + 13, 0]


def test_no_claim_in_aggregate_play_section2_rule1b() -> None:
    """Section 2 Rule 1(b): a claim only where aggregate points are not relevant."""
    m = new_match(best_of=2, reds=6, aggregate=True)
    play(m, *six_reds_to_black())
    refused(m, {"type": "claim"}, "Section 2 Rule 1(b)")


def ann_leads_the_aggregate_but_needs_snookers_in_the_last_frame() -> list[Event]:
    """Best of 2 on aggregate, 6 reds. Frame 1: Bob fouls (7) and Ann clears (75): 82-0.
    Frame 2: Bob makes 48 and the yellow (50) and misses the green: Ann is 50 behind in the
    frame with 25 left, but the match totals count (state.md): 82-50, so it is Bob who needs
    snookers, 32 behind with 25 left."""
    return [NO_POT, foul(7), *CLEARANCE, NEXT_FRAME, *reds_and_blacks(6), pot("yellow"), NO_POT]


def test_aggregate_conceding_the_last_frame_the_greater_total_still_wins_section3_rule1g_ii() -> None:
    """Section 4 Rule 5(b): a frame conceded in aggregate play gives the other side the balls
    left (25: Bob 75 in frame 2); Section 3 Rule 1(g)(ii), 1(h): the match goes to the greater
    total, 82 to 75. Only a match conceded (or forfeited, Section 4 Rule 2(b)) is lost outright."""
    m = new_match(best_of=2, reds=6, aggregate=True)
    s = play(m, *ann_leads_the_aggregate_but_needs_snookers_in_the_last_frame())
    assert (s["striker"], s["snookers_required"]) == (0, {"side": 1, "count": 2, "each": 4})
    s = play(m, concede())
    assert [side["score"] for side in s["sides"]] == [0, 75]
    assert [side["total"] for side in s["sides"]] == [82, 75]
    assert (s["frame_winner"], s["match_over"], s["match_winner"]) == (1, True, 0)


def test_aggregate_frame_awarded_in_the_last_frame_the_greater_total_still_wins_section4_rule2a() -> None:
    """Section 4 Rule 2(a): a forfeited frame costs the offender that frame and its points (Bob
    receives 25: 75 in frame 2); the game is lost outright only under Rule 2(b). Section 3
    Rule 1(g)(ii): the greater total (Ann 82 to 75) wins."""
    m = new_match(best_of=2, reds=6, aggregate=True)
    s = play(m, *ann_leads_the_aggregate_but_needs_snookers_in_the_last_frame(), award(1))
    assert [side["total"] for side in s["sides"]] == [82, 75]
    assert (s["frame_winner"], s["match_over"], s["match_winner"]) == (1, True, 0)


def test_aggregate_totals_level_after_concessions_respot_the_black_section3_rule4c() -> None:
    """Section 3 Rule 4(c): "the aggregate scores are equal at the end of the last frame" however
    the frame ended. Six reds, best of 2 on aggregate: Ann concedes frame 1 at once (Bob gets
    the 75 on the table, Section 4 Rule 5(b)), Bob concedes frame 2 at once (Ann gets 75):
    75-75, so the black is re-spotted and the lot decides, not the conceded frame."""
    m = new_match(best_of=2, reds=6, aggregate=True)
    s = play(m, concede(), NEXT_FRAME)
    assert [side["total"] for side in s["sides"]] == [0, 75]
    s = play(m, concede())
    assert [side["score"] for side in s["sides"]] == [75, 0]
    assert [side["total"] for side in s["sides"]] == [75, 75]
    assert (s["respotted_black"], s["striker"], s["frame_over"], s["match_over"]) == (True, None, False, False)
    assert (s["reds"], s["colours"], s["ball_on"], s["remaining"]) == (0, ["black"], "black", 7)
    s = play(m, {"type": "respotted_black", "striker": 1}, pot("black"))
    assert [side["total"] for side in s["sides"]] == [75, 82]
    assert (s["frame_winner"], s["match_over"], s["match_winner"]) == (0, True, 1)


def test_aggregate_totals_level_after_an_award_in_the_last_frame_respot_the_black_section3_rule4c() -> None:
    """The same path for an award: Ann concedes frame 1 (Bob 75); in frame 2 the referee awards
    the frame to Ann for Bob's conduct (Section 4 Rule 2(a)(ii): Bob forfeits his points, Ann
    receives the 75 on the table): 75-75, the black is re-spotted (Section 3 Rule 4(c))."""
    m = new_match(best_of=2, reds=6, aggregate=True)
    s = play(m, concede(), NEXT_FRAME, {"type": "award", "side": 0, "reason": "conduct"})
    assert [side["total"] for side in s["sides"]] == [75, 75]
    assert (s["respotted_black"], s["frame_over"], s["match_over"]) == (True, False, False)


def test_aggregate_snookers_required_only_in_the_last_frame_on_the_match_totals() -> None:
    """state.md: in aggregate play the frame's own scores decide nothing (Section 3 Rule
    1(g)(ii)): no snookers required in frame 1, however far behind; in the last frame the
    deficit is that of the match totals."""
    m = new_match(best_of=2, reds=6, aggregate=True)
    s = play(m, *reds_and_blacks(6), *colours("yellow", "blue"), NO_POT)  # 62-0, 13 left
    assert s["snookers_required"] is None
    s = play(m, concede(), NEXT_FRAME)  # Bob concedes: Ann 75 on aggregate
    assert [side["total"] for side in s["sides"]] == [75, 0]
    s = play(m, *reds_and_blacks(5))  # Bob 40 in frame 2, Ann still 35 ahead overall
    assert (s["striker"], s["snookers_required"]) == (1, None)
    s = play(m, RED, pot("black"), *colours("yellow", "green"), NO_POT)  # Bob 53: totals 75-53, 22 left
    assert [side["total"] for side in s["sides"]] == [75, 53]
    # Ann at the table, 22 ahead overall with 22 left: Bob can still draw level (no snookers).
    assert s["snookers_required"] is None
    s = play(m, pot("brown"), NO_POT)  # Ann 4: totals 79-53, 18 left, Bob to play
    assert s["snookers_required"] == {"side": 1, "count": 2, "each": 5}
