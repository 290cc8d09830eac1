"""How a frame ends: the last black, the re-spotted black, concession, claim, award, stalemate.

Section 2 Rule 1, Section 3 Rules 4 and 16, Section 4 Rules 2 and 5.
"""

from __future__ import annotations

import pytest

from tests.helpers.snooker import (
    CLAIM,
    COLOURS,
    NEXT_FRAME,
    NO_POT,
    RED,
    REPLACE,
    RERACK,
    Event,
    award,
    colours,
    concede,
    foul,
    new_match,
    play,
    pot,
    refused,
    respotted_black,
    six_reds_to_black,
    state_after,
)

# -- the last black ----------------------------------------------------------------------


def test_last_black_potted_ends_the_frame_section3_rule4a() -> None:
    """Section 3 Rule 4(a): with only the black left the first score ends the frame."""
    s = state_after([*six_reds_to_black(), pot("black")], reds=6, best_of=3)
    assert [side["score"] for side in s["sides"]] == [75, 0]
    assert (s["frame_over"], s["frame_winner"], s["striker"], s["player"]) == (True, 0, None, None)
    assert (s["ball_on"], s["remaining"], s["snookers_required"]) == (None, 0, None)
    assert [side["frames"] for side in s["sides"]] == [1, 0]
    assert (s["match_over"], s["respotted_black"]) == (False, False)


def test_foul_on_the_last_black_ends_the_frame_section3_rule4a() -> None:
    """Section 3 Rule 4(a): the first foul ends the frame too; the 7 go to the opponent."""
    s = state_after([*six_reds_to_black(), foul(7)], reds=6)
    assert [side["score"] for side in s["sides"]] == [68, 7]
    assert (s["frame_over"], s["frame_winner"], s["striker"]) == (True, 0, None)


def test_no_pot_on_the_last_black_does_not_end_the_frame_section3_rule4a() -> None:
    """Section 3 Rule 4(a): only a score or a foul ends it; the black is on for the opponent."""
    m = new_match(reds=6)
    s = play(m, *six_reds_to_black(), NO_POT)
    assert (s["frame_over"], s["striker"], s["ball_on"], s["remaining"]) == (False, 1, "black", 7)
    s = play(m, pot("black"))
    assert [side["score"] for side in s["sides"]] == [68, 7]
    assert (s["frame_over"], s["frame_winner"]) == (True, 0)


# -- the re-spotted black ----------------------------------------------------------------


def tied_on_the_black() -> list[Event]:
    """Ann (68) pots the last black against Bob's handicap of 75: 75 all."""
    return [*six_reds_to_black(), pot("black")]


def test_tie_on_the_last_black_respots_it_section3_rule4b() -> None:
    """Section 3 Rule 4(a)-(b): scores equal, not aggregate: the black is spotted, nobody is at
    the table until the lot is drawn; 7 points remain."""
    s = state_after(tied_on_the_black(), reds=6, handicap=[0, 75])
    assert [side["score"] for side in s["sides"]] == [75, 75]
    assert (s["respotted_black"], s["striker"], s["player"]) == (True, None, None)
    assert (s["reds"], s["colours"], s["ball_on"], s["remaining"]) == (0, ["black"], "black", 7)
    assert (s["frame_over"], s["frame_winner"], s["snookers_required"]) == (False, None, None)


def test_tie_by_a_foul_on_the_last_black_respots_it_section3_rule4a() -> None:
    """Section 3 Rule 4(a): a foul that leaves the scores equal also re-spots the black."""
    s = state_after([*six_reds_to_black(), foul(7)], reds=6, handicap=[0, 61])
    assert [side["score"] for side in s["sides"]] == [68, 68]
    assert (s["respotted_black"], s["striker"], s["frame_over"], s["remaining"]) == (True, None, False, 7)


def test_respotted_black_the_lot_then_the_next_score_ends_it_section3_rule4b_iv() -> None:
    """Section 3 Rule 4(b)(ii)-(iv): the lot gives Bob the stroke; his pot ends the frame."""
    m = new_match(reds=6, best_of=3, handicap=[0, 75])
    play(m, *tied_on_the_black())
    s = play(m, respotted_black(1))
    assert (s["striker"], s["player"], s["break"], s["ball_on"], s["remaining"]) == (1, "Bob", 0, "black", 7)
    s = play(m, pot("black"))
    assert [side["score"] for side in s["sides"]] == [75, 82]
    assert (s["frame_over"], s["frame_winner"], s["striker"]) == (True, 1, None)
    assert [side["frames"] for side in s["sides"]] == [0, 1]
    assert s["respotted_black"] is True  # docs/engine.md: kept until next_frame


def test_respotted_black_a_foul_ends_it_section3_rule4b_iv() -> None:
    """Section 3 Rule 4(b)(iv): the next foul ends the frame; the black is on, so 7."""
    m = new_match(reds=6, handicap=[0, 75])
    play(m, *tied_on_the_black(), respotted_black(1))
    refused(m, foul(4), "Section 3 Rule 10")
    s = play(m, foul(7))
    assert [side["score"] for side in s["sides"]] == [82, 75]
    assert (s["frame_over"], s["frame_winner"]) == (True, 0)


def test_respotted_black_missed_passes_the_turn_section3_rule4b_iv() -> None:
    """Section 3 Rule 4(b)(iv): a stroke that does not score or foul does not end the frame."""
    m = new_match(reds=6, handicap=[0, 75])
    play(m, *tied_on_the_black(), respotted_black(0))
    s = play(m, NO_POT)
    assert (s["striker"], s["frame_over"], s["respotted_black"], s["remaining"]) == (1, False, True, 7)
    s = play(m, NO_POT, pot("black"))
    assert [side["score"] for side in s["sides"]] == [82, 75]
    assert s["frame_winner"] == 0


@pytest.mark.parametrize("event", [pot("black"), NO_POT, foul(7), concede(), CLAIM],
                         ids=["pot", "no_pot", "foul", "concede", "claim"])
def test_nothing_is_played_before_the_lot_section3_rule4b_ii(event: Event) -> None:
    """Section 3 Rule 4(b)(ii): the players draw lots first; nobody is the striker."""
    m = new_match(reds=6, handicap=[0, 75])
    play(m, *tied_on_the_black())
    refused(m, event, "Section 3 Rule 4(b)")


def test_respotted_black_event_without_a_tie_refused_section3_rule4b() -> None:
    """Section 3 Rule 4(b): the lot is drawn only when the black has been re-spotted."""
    refused(new_match(), respotted_black(0), "Section 3 Rule 4(b)")
    m = new_match(reds=6, handicap=[0, 75])
    play(m, *tied_on_the_black())
    refused(m, respotted_black(2))


# -- concession --------------------------------------------------------------------------


def test_concede_the_frame_section4_rule5a() -> None:
    """Section 4 Rule 5(a), Section 2 Rule 1(a), Section 3 Rule 1(f)(ii): the striker concedes,
    the frame goes to the opponent (scores as they stand when not aggregate)."""
    s = state_after([RED, NO_POT, concede()], best_of=3)
    assert (s["frame_over"], s["frame_winner"], s["striker"]) == (True, 0, None)
    assert (s["ball_on"], s["remaining"]) == (None, 0)
    assert [side["score"] for side in s["sides"]] == [1, 0]
    assert [side["frames"] for side in s["sides"]] == [1, 0]
    assert (s["match_over"], s["match_winner"]) == (False, None)


def test_concede_the_match_section4_rule5_rule2b_ii() -> None:
    """Best of 7: Bob takes frame 1 (Ann concedes), then concedes the match in frame 2: Ann is
    given the frames she needed (4)."""
    m = new_match(best_of=7)
    s = play(m, concede())
    assert [side["frames"] for side in s["sides"]] == [0, 1]
    s = play(m, NEXT_FRAME, concede(match=True))
    assert [side["frames"] for side in s["sides"]] == [4, 1]
    assert (s["frame_winner"], s["match_over"], s["match_winner"]) == (0, True, 0)


def test_concede_once_the_frame_is_over_refused_section4_rule5a() -> None:
    """Section 4 Rule 5(a): only the striker may concede; nobody is once the frame is over."""
    m = new_match(best_of=3)
    play(m, concede())
    refused(m, concede(), "frame is over")


# -- claim -------------------------------------------------------------------------------


@pytest.mark.parametrize(("bob", "allowed"), [(0, True), (60, True), (61, False), (68, False)])
def test_claim_needs_a_lead_of_more_than_seven_section2_rule1b(bob: int, allowed: bool) -> None:
    """Section 2 Rule 1(b): only the black left and a difference of more than seven points in
    the striker's favour (Ann has 68: Bob on 60 is 8 behind, on 61 only 7)."""
    m = new_match(reds=6, best_of=3, handicap=[0, bob])
    play(m, *six_reds_to_black())
    if allowed:
        s = play(m, CLAIM)
        assert [side["score"] for side in s["sides"]] == [68, bob]
        assert (s["frame_over"], s["frame_winner"], s["striker"]) == (True, 0, None)
        assert [side["frames"] for side in s["sides"]] == [1, 0]
    else:
        refused(m, CLAIM, "Section 2 Rule 1(b)")


def test_claim_with_the_pink_still_on_refused_section2_rule1b() -> None:
    """Section 2 Rule 1(b): black must be the only object ball left (Ann leads 62-0, 13 left)."""
    m = new_match(reds=6)
    play(m, *six_reds_to_black()[:-1])
    refused(m, CLAIM, "Section 2 Rule 1(b)")
    m = new_match()
    play(m, RED)
    refused(m, CLAIM, "Section 2 Rule 1(b)")


def test_claim_by_the_striker_who_trails_refused_section2_rule1b() -> None:
    """Section 2 Rule 1(b): the difference must be in the striker's favour."""
    m = new_match(reds=6)
    play(m, *six_reds_to_black(), NO_POT)
    refused(m, CLAIM, "Section 2 Rule 1(b)")


# -- award (frames only; aggregate points are in test_snooker_match.py) -------------------


def test_award_the_frame_section4_rule2a() -> None:
    """Section 4 Rule 2(a)(i), Section 3 Rule 1(f)(iii): the offender loses the frame."""
    s = state_after([RED, award(1)], best_of=3)
    assert (s["frame_over"], s["frame_winner"], s["striker"], s["match_over"]) == (True, 1, None, False)
    assert [side["frames"] for side in s["sides"]] == [0, 1]


def test_award_the_match_gives_the_frames_needed_section4_rule2b_ii() -> None:
    """Section 4 Rule 2(b)(ii): best of 7, 1-0 to Ann; Bob is awarded the match in frame 2 and
    with it the frames he needed: 4."""
    m = new_match(best_of=7)
    play(m, award(0), NEXT_FRAME)
    s = play(m, award(1, match=True))
    assert [side["frames"] for side in s["sides"]] == [1, 4]
    assert (s["frame_over"], s["frame_winner"], s["match_over"], s["match_winner"]) == (True, 1, True, 1)


def test_award_the_match_between_frames_section4_rule2b() -> None:
    """Section 4 Rule 1(c), 2(b): after frame 1 (Ann's), the match is awarded to Bob: 1-3."""
    m = new_match(best_of=5)
    play(m, award(0))
    refused(m, award(1))
    s = play(m, award(1, match=True))
    assert [side["frames"] for side in s["sides"]] == [1, 3]
    assert (s["match_over"], s["match_winner"]) == (True, 1)


def test_award_to_no_such_side_refused() -> None:
    refused(new_match(), award(2))
    refused(new_match(), award(-1))


# -- stalemate ---------------------------------------------------------------------------


def test_rerack_nullifies_the_scores_and_the_same_player_breaks_section3_rule16() -> None:
    """Section 3 Rule 16: all scores nullified, balls re-set as at the start of a frame, the
    same player makes the opening stroke."""
    m = new_match(best_of=3)
    s = play(m, RED, pot("black"), NO_POT, RED, pot("pink"), foul(4, reds_off=3))
    assert ([side["score"] for side in s["sides"]], s["reds"], s["striker"]) == ([12, 7], 10, 0)
    s = play(m, RERACK)
    assert [side["score"] for side in s["sides"]] == [0, 0]
    assert (s["reds"], s["colours"], s["ball_on"], s["remaining"]) == (15, COLOURS, "red", 147)
    assert (s["striker"], s["player"], s["breaker"], s["frame"], s["break"]) == (0, "Ann", 0, 1, 0)
    assert (s["free_ball"], s["misses"], s["frame_over"], s["seq"]) == (False, 0, False, 7)
    assert [side["frames"] for side in s["sides"]] == [0, 0]


def test_rerack_in_the_second_frame_bob_breaks_again_section3_rule16() -> None:
    """Section 3 Rule 16 with Rule 3(b): Bob broke frame 2, so he breaks it again."""
    m = new_match(best_of=3)
    play(m, award(0), NEXT_FRAME, NO_POT, RED)
    s = play(m, RERACK)
    assert (s["striker"], s["player"], s["breaker"], s["frame"]) == (1, "Bob", 1, 2)
    assert [side["score"] for side in s["sides"]] == [0, 0]
    assert [side["frames"] for side in s["sides"]] == [1, 0]


def test_rerack_goes_back_to_the_handicap_section3_rule16() -> None:
    """Section 3 Rule 16: the scores go back to where the frame started (the handicap)."""
    s = state_after([RED, pot("black"), NO_POT, RERACK], handicap=[7, 0])
    assert [side["score"] for side in s["sides"]] == [7, 0]


def test_rerack_clears_a_free_ball_and_a_miss_section3_rule16() -> None:
    """Section 3 Rule 16: the frame restarts; no call from before it carries over."""
    m = new_match()
    s = play(m, foul(4, miss=True, free_ball=True), RERACK)
    assert (s["free_ball"], s["misses"], s["striker"], s["remaining"]) == (False, 0, 0, 147)
    refused(m, REPLACE, "Section 3 Rule 14")


def test_rerack_once_the_frame_is_over_refused() -> None:
    m = new_match(best_of=3)
    play(m, *[RED, pot("black")] * 15, *colours())
    refused(m, RERACK)
