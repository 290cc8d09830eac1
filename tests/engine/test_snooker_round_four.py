"""Snooker rulings no test reached before issue 39, each worked from the rule text it quotes:
Section 3 Rule 14(b)(ii), 14(e) (misses when the points are level with what is left, or when
snookers are required), Section 2 Rule 6(e) (a stroke before the balls stopped), Rule 17(e)
(conferring), a non-striker's foul before the lot (Rule 4(b)(iv)), amends across a ``rerack``,
an ``order`` and a ``t``, and the ``safety`` of a ``no_pot``."""

from __future__ import annotations

from typing import Any

from cueboard.engine import Match, to_json
from tests.helpers.snooker import (
    NO_POT,
    PLAY_AGAIN,
    RED,
    REPLACE,
    RERACK,
    foul,
    new_match,
    order,
    play,
    pot,
    reds_and_blacks,
    refused,
    respotted_black,
)

PAIRS = [["A1", "A2"], ["B1", "B2"]]


def scores(s: dict[str, Any]) -> list[int]:
    return [side["score"] for side in s["sides"]]


def without_seq(s: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in s.items() if k != "seq"}


def keyed_as(events: list[dict[str, Any]], **setup: Any) -> dict[str, Any]:
    """The state of a match keyed straight through ``events``: what an amend must give."""
    return play(new_match(**setup), *events)


# -- Section 3 Rule 14(b), 14(e): misses and the scores ------------------------------------------


def test_a_miss_may_be_called_when_the_points_left_equal_the_difference_rule_14b_ii_14e() -> None:
    """Rule 14(b): FOUL AND A MISS is called unless "(ii) before or after the stroke, the points
    available on the table are equal to the points difference excluding the value of the
    re-spotted black; and the referee is satisfied that the miss was not intentional"; 14(e): other
    misses are at his discretion "unless ... the points available on the table are equal to the
    points difference". Intention is the referee's to judge: a miss he calls there is taken; a
    plain foul starts no sequence. Six reds, Bob starts on 21: Ann 48, Bob 35, pink and black (13)
    left, Ann at the table."""
    m = new_match(reds=6, handicap=[0, 21])
    s = play(m, *reds_and_blacks(6), NO_POT, *[pot(c) for c in ("yellow", "green", "brown", "blue")], NO_POT)
    assert (scores(s), s["striker"], s["ball_on"], s["remaining"]) == ([48, 35], 0, "pink", 13)
    assert s["snookers_required"] is None  # 13 behind with 13 left: level at best, not "more behind"
    plain = play(new_match(reds=6, handicap=[0, 21]), *m.log()[1:], foul(6))
    assert (plain["misses"], plain["missed_by"], plain["striker"]) == (0, None, 1)
    s = play(m, foul(6, miss=True))  # the referee judged it intentional
    assert (s["misses"], s["missed_by"], scores(s)) == (1, 0, [48, 41])
    assert play(m, REPLACE)["striker"] == 0


def test_a_miss_when_snookers_are_required_is_the_referees_call_rule_14b_i_14e() -> None:
    """Rule 14(b): no miss need be called when "(i) any player needed penalty points before, or as a
    result of, the stroke being played"; 14(e) leaves it to the referee. Ann 62 up, pink and black
    left: Bob needs snookers. A miss called is taken and may be replaced; a plain foul starts
    nothing."""
    m = new_match(reds=6)
    s = play(m, *reds_and_blacks(6), *[pot(c) for c in ("yellow", "green", "brown", "blue")], NO_POT)
    assert s["snookers_required"] == {"side": 1, "count": 9, "each": 6}
    s = play(m, foul(6, miss=True))
    assert (s["misses"], s["missed_by"], scores(s)) == (1, 1, [68, 0])
    s = play(m, REPLACE)
    assert (s["striker"], s["misses"], s["ball_on"]) == (1, 1, "pink")
    s = play(m, foul(6))
    assert (s["misses"], s["missed_by"], s["striker"]) == (0, None, 0)


def test_after_the_stroke_snookers_required_a_further_failure_is_still_a_miss_rule_14c_i() -> None:
    """Rule 14(c)(i): from the same position "a further failure to first hit a ball on ... shall
    be called as a FOUL AND A MISS regardless of the difference in scores": Ann's first miss puts
    her behind by more than is left (snookers required after the stroke, 14(b)(i)); the second and
    third still count, and the award follows the third (14(c)(ii))."""
    m = new_match(reds=6, handicap=[40, 0])  # Ann 40 up; she plays at the pink, 13 left
    play(m, *[NO_POT] * 2)
    s = play(m, foul(4, miss=True), REPLACE, foul(4, miss=True), REPLACE, foul(4, miss=True))
    assert (s["misses"], scores(s)) == (3, [40, 12])
    assert play(m, {"type": "award", "side": 1, "reason": "miss"})["frame_winner"] == 1


# -- Section 2 Rule 6(e), Section 3 Rule 17(e) -------------------------------------------------


def test_a_stroke_before_the_balls_stopped_is_the_incoming_players_foul_section2_rule_6e() -> None:
    """Section 2 Rule 6(e): "if an incoming player plays a stroke/strikes the cue-ball before the
    balls have come to rest, he shall be penalised as if he were the striker, and his visit to the
    table shall end"; Section 3 Rule 10(a)(iv): the value of the ball on. Ann's safety is keyed,
    then Bob's foul: 4 to Ann, back at the table, who may ask Bob to play again (Rule 11)."""
    m = new_match()
    s = play(m, RED, pot("black"), NO_POT, foul(4))
    assert (scores(s), s["striker"], s["break"], s["ball_on"]) == ([12, 0], 0, 0, "red")
    assert play(m, PLAY_AGAIN)["player"] == "Bob"
    # Keyed before Ann's stroke was, as a stroke out of turn: the same position (Rule 10(a)(iv)).
    other = play(new_match(), RED, pot("black"), foul(4, out_of_turn="Bob"))
    assert without_seq(other) == without_seq(play(new_match(), RED, pot("black"), NO_POT, foul(4)))


def test_conferring_is_a_foul_by_the_striker_the_order_of_play_kept_rule_17e() -> None:
    """Rule 17(e): "Partners may confer during a frame but not whilst one is the striker and has
    approached the table until the break has ended"; Rule 10(a)(xi): a foul, the value of the ball
    on (a colour after a red: 4 unless the referee names a higher ball). A1, at the table on a break
    of 9, confers with A2: his turn ends (Rule 11(a)), 4 to B; B1 plays, or asks A1 to play again
    (17(c): "the player who committed the foul plays the next stroke and the order of play is
    unchanged")."""
    m = new_match(PAIRS)
    s = play(m, RED, pot("black"), RED, foul(4))
    assert (scores(s), s["player"]) == ([9, 4], "B1")
    s = play(m, PLAY_AGAIN)
    assert (s["player"], s["break"]) == ("A1", 0)
    assert play(m, NO_POT)["player"] == "B1"


# -- Section 3 Rule 4(b)(iv): a foul before the lot --------------------------------------------


def respotted() -> Match:
    """Six reds, Bob starts on 75; Ann clears all the balls: 75-75, the black re-spotted."""
    m = new_match(reds=6, handicap=[0, 75])
    s = play(m, *reds_and_blacks(6), *[pot(c) for c in ("yellow", "green", "brown", "blue", "pink", "black")])
    assert (s["respotted_black"], s["striker"], scores(s)) == (True, None, [75, 75])
    return m


def test_a_non_strikers_foul_before_the_lot_ends_the_frame_rule_4b_iv() -> None:
    """Rule 4(b): "(ii) the players draw lots for choice of playing ... (iv) the next score or foul
    ends the frame". Before the lot nobody is the striker; Bob touches the black: he is penalised
    as if he were the striker (Rule 2(b)(ii), 14(h)), 7 on the black (Rule 10), and the frame is
    Ann's."""
    m = respotted()
    refused(m, foul(4, non_striker="Bob"), "at least 7")
    refused(m, foul(7, non_striker="Bob", free_ball=True), "no free ball", "Rule 4(b)")
    refused(m, foul(7), "drawn by lot")  # a striker's foul needs a striker
    s = play(m, foul(7, non_striker="Bob"))
    assert (scores(s), s["frame_winner"], s["frame_over"]) == ([82, 75], 0, True)


def test_a_stroke_before_the_lot_is_a_foul_out_of_turn_rule_4b_iv() -> None:
    """Section 2 Rule 5: one who plays out of turn "shall be considered as the striker for any foul
    he may commit": Ann plays the black before the lot is drawn: 7 to Bob, Bob's frame."""
    m = respotted()
    s = play(m, foul(7, out_of_turn="Ann"))
    assert (scores(s), s["frame_winner"]) == ([75, 82], 1)
    m = respotted()
    play(m, respotted_black(1))  # after the lot a non-striker's foul ends it the same way
    assert play(m, foul(7, non_striker="Ann"))["frame_winner"] == 1


# -- amends across a rerack, an order, a t ------------------------------------------------------


def test_an_amend_across_a_rerack_reads_the_log_as_corrected_rule_16() -> None:
    """Rule 16: a re-rack nullifies the scores, not the breaks made (state.md, high_break). Event 2
    was the pink, not the black: after the rerack the scores are nil either way, the high break 7."""
    log = [RED, pot("black"), NO_POT, NO_POT, RERACK, RED]
    m = new_match()
    play(m, *log)
    s = play(m, {"type": "amend", "seq": 2, "event": pot("pink")})
    corrected = [RED, pot("pink"), NO_POT, NO_POT, RERACK, RED]
    assert s == keyed_as(corrected)
    assert (scores(s), s["sides"][0]["high_break"], s["seq"]) == ([1, 0], 7, 6)


def test_an_amend_across_an_order_of_play_rule_17a() -> None:
    """Rule 17(a): the order "shall be determined at the start of each frame". A stroke put in
    before the order makes the order come after a stroke: refused, naming it (by its number in the
    log as it stands); a stroke corrected
    after it keeps the order, and the strokes keyed since are played by whoever it names."""
    m = new_match(PAIRS)
    play(m, order("A2", "B1", "A1", "B2"), RED, NO_POT, NO_POT)
    refused(m, {"type": "amend", "seq": 1, "insert": RED}, "event 1 (order", "Section 3 Rule 17(a)")
    s = play(m, {"type": "amend", "seq": 2, "event": NO_POT})
    assert s == keyed_as([order("A2", "B1", "A1", "B2"), NO_POT, NO_POT, NO_POT], sides=PAIRS)
    assert (s["player"], scores(s)) == ("B2", [0, 0])


def test_an_amend_keeps_the_time_the_event_was_keyed_at() -> None:
    """events.md: an amended event "without a t of its own keeps the time the 14th was keyed";
    the events after it keep theirs; one with its own t takes it."""
    m = new_match()
    play(m, {**RED, "t": 100.0}, {**pot("black"), "t": 110.0}, {**NO_POT, "t": 130.0})
    play(m, {"type": "amend", "seq": 2, "event": pot("pink"), "t": 500.0})
    assert [e.t for e in m.events] == [100.0, 110.0, 130.0]
    assert to_json(m.events[1]) == {"type": "pot", "balls": ["pink"], "t": 110.0}
    play(m, {"type": "amend", "seq": 1, "event": {**RED, "t": 90.0}})
    assert [e.t for e in m.events] == [90.0, 110.0, 130.0]
    assert scores(m.state().to_json()) == [7, 0]


# -- no_pot: a safety or a missed pot ---------------------------------------------------------


def test_a_no_pot_may_say_safety_or_missed_pot_and_the_rules_read_neither() -> None:
    """events.md: `"safety": true` (a safety) or `false` (a missed pot); absent, nothing is said.
    Both are fair strokes that pot nothing (Section 2 Rule 5(a)): the turn passes the same way."""
    plain = keyed_as([RED, pot("black"), NO_POT])
    for safety in (True, False):
        m = new_match()
        s = play(m, RED, pot("black"), {"type": "no_pot", "safety": safety})
        assert s == plain
        assert to_json(m.events[-1]) == {"type": "no_pot", "safety": safety}
    refused(new_match(), {"type": "no_pot", "safety": "yes"}, "'safety' must be true or false")
    assert to_json(new_match().parse(NO_POT)) == NO_POT  # an old log's no_pot writes back unchanged


# -- awards: the warning through a foul before the stroke; conduct and the handicap ----------------


def test_the_warning_stands_through_a_foul_before_the_stroke_and_the_award_follows_the_third_failure_14d_vi(
) -> None:
    """Rule 14(d)(vi): "if the above situation arises during a sequence of miss calls, any warning
    concerning the possible awarding of the frame to his opponent shall remain in effect". Bob is
    warned, fouls while preparing his stroke (no miss: 14(d)), Ann has the balls replaced again;
    the award is not yet due, and follows the third failure once it is keyed."""
    m = new_match()
    play(m, NO_POT, foul(4, miss=True), REPLACE, foul(4, miss=True), REPLACE)
    s = play(m, foul(4, before_stroke=True))
    assert (s["misses"], s["missed_by"]) == (2, 1)
    refused(m, {"type": "award", "side": 0, "reason": "miss"}, "third failure", "Section 3 Rule 14(c)(ii)")
    play(m, REPLACE)
    refused(m, {"type": "award", "side": 0, "reason": "miss"}, "third failure")
    s = play(m, foul(4, miss=True), {"type": "award", "side": 0, "reason": "miss"})
    assert (s["frame_winner"], scores(s)) == (0, [16, 0])


def test_a_conduct_award_takes_the_points_scored_not_the_handicap_start_section4_rule2a_ii() -> None:
    """Section 4 Rule 2(a)(ii): the offender shall "forfeit all points scored": Ann starts on 10 and
    scores 9; forfeiting for conduct she is back to her 10, not to 0; Bob receives the balls left
    (13 reds x 8 + 27 = 131) on top of his 0."""
    m = new_match(handicap=[10, 0])
    play(m, RED, pot("black"), RED, NO_POT)
    s = play(m, {"type": "award", "side": 1, "reason": "conduct"})
    assert (scores(s), s["frame_winner"]) == ([10, 131], 1)
