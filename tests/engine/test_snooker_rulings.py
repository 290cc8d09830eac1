"""What a referee can rule that the log could not say before (docs/events.md): a foul by the
non-striker, a stroke out of turn (and in four-handed snooker the lost turn), a frame started
by the wrong side. Each test quotes the rule it is worked from."""

from __future__ import annotations

from cueboard.engine.record import record_of
from tests.helpers.snooker import (
    NEXT_FRAME,
    NO_POT,
    PLAY_AGAIN,
    RED,
    REPLACE,
    RERACK,
    foul,
    new_match,
    play,
    pot,
    reds_and_blacks,
    refused,
)

PAIRS = [["A1", "A2"], ["B1", "B2"]]


def scores(s: dict[str, object]) -> list[int]:
    return [side["score"] for side in s["sides"]]  # type: ignore[attr-defined, index]


# -- a foul by the non-striker: Section 3 Rule 2(b)(ii), 14(h) ----------------------------------


def test_a_non_striker_touching_a_ball_is_penalised_the_order_of_play_unchanged_rule_14h() -> None:
    """Rule 14(h): "During such consultation, if either player should touch any ball in play, he
    shall be penalised as if he were the striker, without affecting the order of play." Bob
    misses, Ann has the balls replaced; while they agree the position Ann touches a red: 4 to
    Bob, who still plays from the replaced position, his count of misses as it was."""
    m = new_match()
    s = play(m, NO_POT, foul(4, miss=True), REPLACE)
    assert (s["striker"], s["misses"]) == (1, 1)
    s = play(m, foul(4, non_striker="Ann"))
    assert scores(s) == [4, 4]  # Bob's miss gave Ann 4; Ann's touch gives Bob 4
    assert (s["striker"], s["player"], s["misses"], s["ball_on"], s["seq"]) == (1, "Bob", 1, "red", 4)
    assert play(m, foul(4, miss=True))["misses"] == 2  # still from the replaced position


def test_a_non_strikers_foul_leaves_the_strikers_break_going_rule_2b_ii() -> None:
    """Rule 2(b)(ii): "If any player other than the striker should touch or disturb the device, he
    shall be penalised as if he were the striker, without affecting the order of play." Ann is
    on a break of 8; Bob disturbs a ball marker: 4 to Ann, not part of her break."""
    m = new_match()
    play(m, RED, pot("black"))
    s = play(m, foul(4, non_striker="Bob"))
    assert scores(s) == [12, 0] and (s["striker"], s["break"], s["ball_on"]) == (0, 8, "red")
    s = play(m, RED, pot("black"))
    assert s["break"] == 16 and s["sides"][0]["high_break"] == 16


def test_a_non_strikers_foul_is_checked_rule_10() -> None:
    m = new_match(reds=6)
    play(m, *reds_and_blacks(6), pot("yellow"), pot("green"), pot("brown"), pot("blue"))  # pink on
    refused(m, foul(4, non_striker="Bob"), "at least 6", "Section 3 Rule 10")
    refused(m, foul(6, non_striker="Ann"), "Ann is the striker")
    refused(m, foul(6, non_striker="Cy"), "'non_striker' names a player of the match (Ann, Bob)")
    refused(m, foul(6, non_striker="Bob", reds_off=1), "replaced by the referee", "14(h)")
    refused(m, foul(6, non_striker="Bob", miss=True), "not a miss")
    refused(m, foul(6, non_striker="Bob", out_of_turn="Bob"), "not both")


def test_a_non_strikers_foul_with_only_the_black_left_ends_the_frame_rule_4a() -> None:
    """Rule 4(a): "When only the Black is left, the first score or foul ends the frame"."""
    m = new_match(reds=6)
    s = play(m, *reds_and_blacks(6), pot("yellow"), pot("green"), pot("brown"), pot("blue"), pot("pink"))
    s = play(m, foul(7, non_striker="Bob"))
    assert (s["frame_over"], s["frame_winner"], scores(s)) == (True, 0, [75, 0])


# -- a stroke out of turn: Section 2 Rule 5, Section 3 Rule 10(a)(iv), 17(c) ----------------------


def test_a_stroke_out_of_turn_the_player_whose_turn_it_was_comes_in_rule_10a_iv() -> None:
    """Section 2 Rule 5: "If a non-striker comes to the table, out of turn, he shall be considered
    as the striker for any foul he may commit"; Rule 10(a)(iv): playing out of turn is a foul
    (value of the ball on, at least 4). Ann is at the table; Bob plays: 4 to Ann, Ann to play,
    or she asks Bob to play again (Rule 11, 17(c))."""
    m = new_match()
    s = play(m, RED, pot("black"), foul(4, out_of_turn="Bob"))
    assert scores(s) == [12, 0] and (s["striker"], s["break"]) == (0, 0)
    s = play(m, PLAY_AGAIN)
    assert (s["striker"], s["player"]) == (1, "Bob")


def test_four_handed_out_of_turn_the_offenders_partner_loses_a_turn_rule_17c() -> None:
    """Rule 17(c): "If the foul was called for playing out of turn, the offender's partner will
    lose a turn, whether or not the offender is asked to play again." Order A1 B1 A2 B2: A1 is at
    the table and B2 plays: 4 to A; A1 plays on (misses), B1 (the offender's partner) loses his
    turn, so A2 follows... then B2, A1, and B1 again in the order."""
    m = new_match(sides=PAIRS)
    s = play(m, foul(4, out_of_turn="B2"))
    assert scores(s) == [4, 0] and s["player"] == "A1"
    assert [play(m, NO_POT)["player"] for _ in range(4)] == ["A2", "B2", "A1", "B1"]


def test_four_handed_out_of_turn_asked_to_play_again_the_partner_still_loses_a_turn_rule_17c() -> None:
    m = new_match(sides=PAIRS)
    s = play(m, foul(4, out_of_turn="B2"), PLAY_AGAIN)
    assert s["player"] == "B2"
    assert [play(m, NO_POT)["player"] for _ in range(3)] == ["A1", "A2", "B2"]  # B1's turn lost


def test_four_handed_a_partners_stroke_out_of_turn_rule_17c() -> None:
    """A2 plays A1's stroke: 4 to B; A1, the partner, loses his turn, which was this one: B1 in."""
    m = new_match(sides=PAIRS)
    s = play(m, foul(4, out_of_turn="A2"))
    assert scores(s) == [0, 4] and s["player"] == "B1"
    assert play(m, NO_POT)["player"] == "A2"


# -- a frame started by the wrong side: Section 3 Rule 3(d) -------------------------------------


def test_a_frame_started_by_the_wrong_side_goes_on_and_the_order_resumes_rule_3d_ii() -> None:
    """Rule 3(d)(ii): it "shall continue in the normal way if another stroke has been played ...
    with the correct order of starting being resumed in the following frame such that one player
    or side will have started in three consecutive frames". Best of 5, Ann breaks frames 1 and 3
    and Bob frame 2; Bob wrongly breaks frame 3 too."""
    m = new_match(best_of=5, reds=6)
    play(m, {"type": "concede"}, NEXT_FRAME, {"type": "concede"}, NEXT_FRAME)
    assert m.state().to_json()["breaker"] == 0
    s = play(m, {"type": "started_by", "side": 1})
    assert (s["breaker"], s["striker"], s["player"]) == (1, 1, "Bob")
    s = play(m, RED, pot("black"), NO_POT, {"type": "concede"}, NEXT_FRAME)
    assert s["breaker"] == 1  # frame 4 is Bob's as it always was: he starts three running
    assert [f["breaker"] for f in record_of(m)["frames"]] == [0, 1, 1]


def test_a_frame_started_by_the_wrong_side_inserted_later_with_amend_rule_3d_ii() -> None:
    """The marker notices after three strokes: the strokes were Bob's, not Ann's."""
    m = new_match(reds=6)
    play(m, RED, pot("pink"), NO_POT)
    s = play(m, {"type": "amend", "seq": 1, "insert": {"type": "started_by", "side": 1}})
    assert scores(s) == [0, 7] and s["striker"] == 0


def test_restarted_correctly_after_one_stroke_rule_3d_i_and_by_the_correct_side_on_a_stalemate_3d_iii() -> None:
    """Rule 3(d)(i): restarted correctly, without penalty, after one stroke and no foul; (iii) on
    a stalemate, re-started by the correct side: a rerack gives the frame back to its breaker."""
    m = new_match(reds=6)
    s = play(m, {"type": "started_by", "side": 1}, NO_POT, RERACK)
    assert (s["breaker"], s["striker"], scores(s)) == (0, 0, [0, 0])


def test_started_by_is_refused_after_the_first_stroke_and_for_the_right_side() -> None:
    m = new_match(reds=6)
    refused(m, {"type": "started_by", "side": 0}, "Ann break this frame already")
    play(m, NO_POT)
    refused(m, {"type": "started_by", "side": 1}, "before the frame's first stroke", "Section 3 Rule 3(d)")
