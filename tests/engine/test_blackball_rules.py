"""Blackball frames played from the rules (``shared/rules/blackball-fr.txt``), rule by rule:
the break (4b, 4d), groups (4e, 4f), fair pots and combinations (4g, 4j), fouls and the
free shot (5, 6), loss of frame (7), and re-racks (4n, 4p, 8g)."""

from __future__ import annotations

import pytest

from tests.helpers.blackball import (
    BAD_BREAK,
    LOSS,
    NO_POT,
    UNDO,
    ann_clears_reds,
    ann_takes_red,
    foul,
    groups,
    match_after,
    new_match,
    play,
    pot,
    refused,
    rerack,
    state_after,
    turn,
)

# -- the opening position and the break: rules 4a, 4b, 4d ----------------------------------


def test_opening_position_rule_4a() -> None:
    """Rule 4a: fifteen balls racked, the black on its spot; Ann breaks (rule 4b); the table
    is open; 60 seconds a shot with the 30-second call (rule 8a)."""
    s = state_after([])
    assert s == {
        "schema": 1, "game": "blackball", "seq": 0,
        "sides": [
            {"name": "Ann", "players": ["Ann"], "frames": 0, "group": None, "balls_left": None},
            {"name": "Bob", "players": ["Bob"], "frames": 0, "group": None, "balls_left": None},
        ],
        "frame": 1, "best_of": 1, "race_to": 1, "breaker": 0,
        "striker": 0, "player": "Ann",
        "open_table": True, "balls": {"red": 7, "yellow": 7, "black": 1},
        "visits": 1, "free_shot": False, "black_on": False, "break_shot": True,
        "order": ["Ann", "Bob"], "shot_clock": 60, "shot_clock_call": 30,
        "frame_over": False, "frame_winner": None, "match_over": False, "match_winner": None,
    }


def test_valid_break_potting_nothing_ends_the_visit_rule_4b_a() -> None:
    """Rule 4b(a): a break is valid if two balls cross the middle line (entered as no_pot);
    rule 4g(a): nothing potted, the visit ends."""
    s = state_after([NO_POT])
    assert turn(s) == (1, 1, False)
    assert s["open_table"] and not s["break_shot"] and s["breaker"] == 0


def test_break_that_pots_keeps_the_table_open_rule_4e_a() -> None:
    """Rule 4b(a): a break that pots a ball is valid; rule 4e(a): groups are not decided on the
    break even when one group only went down; rule 4g: the breaker plays on."""
    s = state_after([pot("red", "red")])
    assert turn(s) == (0, 1, False)
    assert s["open_table"] and groups(s) == (None, None)
    assert s["balls"] == {"red": 5, "yellow": 7, "black": 1}
    # The next fair pot decides: yellow is Ann's (rule 4e).
    s = state_after([pot("red", "red"), pot("yellow")])
    assert groups(s) == ("yellow", "red")
    assert [side["balls_left"] for side in s["sides"]] == [6, 5]


def test_invalid_break_is_treated_as_a_foul_rule_4b_b() -> None:
    """Rule 4b(b): an invalid break gives the opponent a free shot followed by a visit; the
    table stays open (rule 4e(b))."""
    s = state_after([BAD_BREAK])
    assert turn(s) == (1, 2, True)
    assert s["open_table"] and not s["break_shot"]


def test_legal_false_is_only_for_the_break_rule_4b() -> None:
    m = new_match()
    play(m, NO_POT)
    refused(m, BAD_BREAK, "'legal': false is for the break (rule 4b)", "enter a foul (rule 5d)")


@pytest.mark.parametrize("stroke", [pot("black"), pot("red", "black", "yellow"), foul("black"),
                                    foul("black", "red", reason="cue ball potted")])
def test_black_potted_on_the_break_reracks_with_the_same_breaker_rule_4d(stroke: dict[str, object]) -> None:
    """Rule 4d: the black potted on the break is re-racked and the same player breaks again,
    with no penalty even when the stroke was a foul."""
    m = new_match()
    before = m.state().to_json()
    s = play(m, stroke)
    assert s == {**before, "seq": 1}
    assert turn(s) == (0, 1, False) and s["break_shot"]
    assert s["balls"] == {"red": 7, "yellow": 7, "black": 1}


def test_black_on_a_rebreak_also_reracks_rule_4d() -> None:
    """Rule 4d: "à la casse ou sur une recasse": on the break of a re-rack too."""
    s = state_after([pot("red"), pot("red"), rerack(), pot("black")])
    assert s["balls"] == {"red": 7, "yellow": 7, "black": 1}
    assert turn(s) == (0, 1, False) and s["break_shot"] and not s["frame_over"]


def test_black_after_the_break_is_no_longer_a_rerack_rule_7b() -> None:
    """Once the break is played the black is not on until the group is cleared (rule 7b)."""
    s = state_after([pot("red"), pot("black")])
    assert s["frame_over"] and s["frame_winner"] == 1


def test_foul_on_the_break_gives_the_free_shot_rule_5q() -> None:
    """Rule 5q, 5a: potting the cue ball on the break is a foul; the red that went down stays
    down (rule 4f) and decides nothing."""
    s = state_after([foul("red", reason="cue ball potted")])
    assert turn(s) == (1, 2, True)
    assert s["balls"]["red"] == 6 and s["open_table"]


def test_rerack_after_an_invalid_break_rule_4b_b() -> None:
    """Rule 4b(b): after an invalid break the incoming player may have the balls re-racked;
    he breaks, keeping his free shot and visit (our reading; docs/blackball.md)."""
    s = state_after([BAD_BREAK, rerack()])
    assert s["breaker"] == 1 and s["break_shot"]
    assert turn(s) == (1, 2, True)
    assert s["balls"] == {"red": 7, "yellow": 7, "black": 1}
    # His break pots nothing: the first visit ends, the second begins.
    s = state_after([BAD_BREAK, rerack(), NO_POT])
    assert turn(s) == (1, 1, False)


def test_rerack_after_an_invalid_break_naming_the_first_breaker_is_a_plain_rerack_rule_4p() -> None:
    s = state_after([BAD_BREAK, rerack(breaker=0)])
    assert s["breaker"] == 0 and turn(s) == (0, 1, False)


# -- groups: rules 4e, 4f ------------------------------------------------------------------


def test_fair_pot_of_one_group_on_an_open_table_gives_it_to_the_striker_rule_4e() -> None:
    s = state_after(ann_takes_red())
    assert groups(s) == ("red", "yellow") and not s["open_table"]
    assert [side["balls_left"] for side in s["sides"]] == [6, 7]
    assert turn(s) == (0, 1, False)


def test_several_balls_of_one_group_give_it_too_rule_4e() -> None:
    s = state_after([NO_POT, pot("yellow", "yellow")])
    assert groups(s) == ("red", "yellow")
    assert s["sides"][1]["balls_left"] == 5 and s["striker"] == 1


def test_pot_of_both_groups_keeps_the_table_open_rule_4e_d() -> None:
    s = state_after([NO_POT, NO_POT, pot("red", "yellow")])
    assert s["open_table"] and groups(s) == (None, None)
    assert s["striker"] == 0  # a fair pot: play on (rule 4g)
    s = state_after([NO_POT, NO_POT, pot("red", "yellow"), pot("yellow")])
    assert groups(s) == ("yellow", "red")


def test_balls_potted_in_a_foul_decide_no_group_rule_4f() -> None:
    """Rule 4f, 4e(b): a foul on an open table decides nothing; the next player plays an open
    table with a free shot."""
    s = state_after([NO_POT, foul("yellow", "yellow")])
    assert s["open_table"] and s["balls"]["yellow"] == 5
    assert turn(s) == (0, 2, True)


def test_free_shot_keeps_the_table_open_rule_4e_c() -> None:
    """Rule 4e(c), 4f: "la table reste libre" on the free shot, whatever it pots; the pot is
    fair, so the striker plays on, and his next fair pot decides the groups."""
    s = state_after([NO_POT, foul(), pot("red")])
    assert s["open_table"] and turn(s) == (0, 2, False)
    s = state_after([NO_POT, foul(), pot("red"), pot("yellow")])
    assert groups(s) == ("yellow", "red")


def test_black_cannot_be_potted_on_an_open_table_rule_7b() -> None:
    """With no group yet, balls of his group are on the table whichever it becomes (7b)."""
    s = state_after([NO_POT, NO_POT, pot("black")])
    assert s["frame_over"] and s["frame_winner"] == 1 and s["balls"]["black"] == 0


# -- fair pots once groups are set: rules 4g, 4j, 5c ------------------------------------------


def test_potting_own_balls_plays_on_rule_4g() -> None:
    s = state_after([*ann_takes_red(), pot("red"), pot("red", "red")])
    assert s["sides"][0]["balls_left"] == 3 and turn(s) == (0, 1, False)


def test_only_opponent_balls_is_refused_as_a_foul_rule_5c() -> None:
    m = new_match()
    play(m, *ann_takes_red())
    refused(m, pot("yellow"), "yellow is not your group: enter a foul (rule 5c)")
    refused(m, pot("yellow", "yellow"), "yellow is not your group")
    # As the foul it is:
    s = play(m, foul("yellow"))
    assert s["sides"][1]["balls_left"] == 6 and turn(s) == (1, 2, True)


def test_own_and_opponent_balls_in_one_stroke_rule_4j_a() -> None:
    s = state_after([*ann_takes_red(), pot("yellow", "red")])
    assert [side["balls_left"] for side in s["sides"]] == [5, 6]
    assert turn(s) == (0, 1, False)


def test_last_ball_of_the_group_puts_the_black_on_rule_3() -> None:
    s = state_after(ann_clears_reds())
    assert s["black_on"] and s["sides"][0]["balls_left"] == 0 and turn(s) == (0, 1, False)
    refused(match_after(ann_clears_reds()), pot("yellow"), "yellow is not your group")


def test_black_on_wins_the_frame_rule_3() -> None:
    s = state_after([*ann_clears_reds(), pot("black")])
    assert s["frame_over"] and s["frame_winner"] == 0 and s["match_over"] and s["match_winner"] == 0
    assert s["sides"][0]["frames"] == 1 and s["striker"] is None and s["player"] is None
    assert s["balls"] == {"red": 0, "yellow": 7, "black": 0}
    assert s["visits"] == 0 and not s["free_shot"] and not s["black_on"]


def test_last_balls_and_the_black_together_win_rule_4j_b() -> None:
    """Rule 4j(b): the last ball(s) of the group and the black in one stroke, in any order."""
    events = [NO_POT, NO_POT, *[pot("red")] * 5]
    s = state_after([*events, pot("black", "red", "red")])
    assert s["frame_winner"] == 0
    # One of his balls left after the stroke: rule 7b, the frame is lost.
    s = state_after([*events, pot("red", "black")])
    assert s["frame_winner"] == 1 and s["balls"] == {"red": 1, "yellow": 7, "black": 0}


def test_black_and_an_opponent_ball_when_the_black_is_on_rule_4j_c() -> None:
    s = state_after([*ann_clears_reds(), pot("yellow", "black")])
    assert s["frame_winner"] == 0


def test_black_potted_with_own_balls_left_loses_rule_7b() -> None:
    s = state_after([*ann_takes_red(), pot("black")])
    assert s["frame_over"] and s["frame_winner"] == 1 and s["sides"][1]["frames"] == 1


# -- fouls and the free shot: rules 5, 6 -----------------------------------------------------


def test_foul_gives_a_free_shot_followed_by_a_visit_rule_6a() -> None:
    """Rule 6a: the offender loses his next visit; the opponent has a free shot followed by
    a visit. The free shot misses: his second visit (free_shot off); it misses: back to Ann."""
    m = new_match()
    s = play(m, *ann_takes_red(), foul())
    assert turn(s) == (1, 2, True)
    s = play(m, NO_POT)
    assert turn(s) == (1, 1, False)
    s = play(m, NO_POT)
    assert turn(s) == (0, 1, False)


def test_pot_on_the_free_shot_keeps_both_visits_rule_6a_4g() -> None:
    """The free shot is the first stroke of the first visit: a fair pot continues that visit,
    and the second visit is still to come when it ends (docs/blackball.md)."""
    m = new_match()
    play(m, *ann_takes_red(), foul())
    s = play(m, pot("yellow"))
    assert turn(s) == (1, 2, False)
    s = play(m, pot("yellow"))
    assert turn(s) == (1, 2, False)
    s = play(m, NO_POT)
    assert turn(s) == (1, 1, False)
    s = play(m, pot("yellow"), NO_POT)
    assert turn(s) == (0, 1, False) and s["sides"][1]["balls_left"] == 4


def test_free_shot_may_pot_an_opponent_ball_rule_6b_a() -> None:
    """Rule 6b(a): on the free shot potting an opponent's ball is no foul; with none of his
    own, the visit ends (4g(a)) and his second visit begins; the red stays down."""
    s = state_after([*ann_takes_red(), foul(), pot("red")])
    assert turn(s) == (1, 1, False) and s["sides"][0]["balls_left"] == 5
    # Only on the free shot (rule 6b: "Sur le premier coup seulement").
    m = match_after([*ann_takes_red(), foul(), NO_POT])
    refused(m, pot("red"), "red is not your group: enter a foul (rule 5c)")


def test_free_shot_own_and_opponent_balls_rule_6b_b() -> None:
    s = state_after([*ann_takes_red(), foul(), pot("red", "yellow")])
    assert turn(s) == (1, 2, False)


def test_free_shot_onto_the_black_when_it_is_on_wins_rule_4j() -> None:
    """Rule 4j, last paragraph: on the free shot, an opponent ball played onto the black wins
    when the black is on; the opponent ball need not go down."""
    ann_on_black = [*ann_clears_reds(), foul()]  # Ann fouls; Bob's free shot ...
    m = match_after([*ann_on_black, foul()])  # ... and Bob fouls: Ann's free shot
    assert m.state().to_json()["black_on"] and turn(m.state().to_json()) == (0, 2, True)
    assert play(m, pot("black"))["frame_winner"] == 0


def test_black_not_on_the_free_shot_loses_rule_6b_d() -> None:
    """Rule 6b(d): the black may be played on the free shot, not potted, until it is on."""
    s = state_after([*ann_takes_red(), foul(), pot("black")])
    assert s["frame_winner"] == 0  # Bob potted it: Ann wins


def test_foul_during_the_first_of_two_visits_loses_both_rule_6a() -> None:
    s = state_after([*ann_takes_red(), foul(), foul()])
    assert turn(s) == (0, 2, True)


def test_balls_potted_in_a_foul_stay_down_rule_4f() -> None:
    s = state_after([*ann_takes_red(), foul("red", "yellow", "yellow")])
    assert s["balls"] == {"red": 5, "yellow": 5, "black": 1}
    assert [side["balls_left"] for side in s["sides"]] == [5, 5]


def test_foul_may_leave_the_incoming_player_on_the_black() -> None:
    """Ann's foul pots Bob's last yellow: Bob's group is cleared, so his free shot is at the
    black (rule 3)."""
    m = new_match()
    play(m, NO_POT, pot("yellow"), *[pot("yellow")] * 5, NO_POT)  # Bob has one yellow left
    s = play(m, foul("yellow"))
    assert turn(s) == (1, 2, True) and s["black_on"]


# -- loss of frame: rule 7 -------------------------------------------------------------------


def test_foul_that_pots_the_black_loses_rule_7a() -> None:
    s = state_after([*ann_takes_red(), foul("black")])
    assert s["frame_winner"] == 1


def test_foul_potting_the_black_when_it_is_on_still_loses_rule_7a() -> None:
    s = state_after([*ann_clears_reds(), foul("black", reason="cue ball potted")])
    assert s["frame_winner"] == 1


def test_loss_for_what_the_engine_cannot_see_rule_7() -> None:
    """Rule 7c-7f: a deliberate foul, touching a ball, stopping a ball... entered as loss."""
    s = state_after([*ann_takes_red(), LOSS])
    assert s["frame_winner"] == 1 and s["frame_over"]
    s = state_after([*ann_takes_red(), NO_POT, {"type": "loss"}])
    assert s["frame_winner"] == 0


def test_nothing_is_played_once_the_frame_is_over_rule_4q() -> None:
    m = new_match(race_to=2)
    play(m, *ann_takes_red(), pot("black"))
    refused(m, pot("red"), "the frame is over: enter next_frame to start frame 2")
    refused(m, NO_POT, "the frame is over")
    refused(m, foul(), "the frame is over")
    refused(m, LOSS, "the frame is over")
    refused(m, rerack(), "the frame is over: nothing to re-rack")


# -- re-racks: rules 4n, 4p, 8g --------------------------------------------------------------


def test_rerack_replays_the_frame_with_the_same_breaker_rule_4p_a() -> None:
    """Rule 4p(a), 4n(c): the frame is replayed without penalty; the player who broke breaks."""
    m = new_match(race_to=2)
    play(m, *ann_takes_red(), foul())
    s = play(m, rerack())
    assert s["balls"] == {"red": 7, "yellow": 7, "black": 1}
    assert s["open_table"] and s["break_shot"] and turn(s) == (0, 1, False)
    assert s["frame"] == 1 and [side["frames"] for side in s["sides"]] == [0, 0]


def test_rerack_after_a_lag_rule_4p_b() -> None:
    s = state_after([NO_POT, NO_POT, rerack(breaker=1)])
    assert s["breaker"] == 1 and turn(s) == (1, 1, False)
    assert state_after([rerack(breaker=0)])["breaker"] == 0


def test_nine_ball_rack_rule_8g() -> None:
    """Rule 8g: the triangle without its head ball and its five back balls: nine balls."""
    s = state_after([NO_POT, NO_POT, rerack(nine_ball=True, breaker=1)])
    assert s["balls"] == {"red": 4, "yellow": 4, "black": 1}
    assert s["breaker"] == 1
    # A frame on the nine-ball rack is won as any other.
    s = state_after([rerack(nine_ball=True), NO_POT, NO_POT, *[pot("yellow")] * 4, pot("black")])
    assert s["frame_winner"] == 0
    # The black on the break of the nine-ball rack: re-racked as it was (rule 4d).
    s = state_after([rerack(nine_ball=True), pot("black")])
    assert s["balls"] == {"red": 4, "yellow": 4, "black": 1}
    # The next frame is a full rack again.
    s = state_after([rerack(nine_ball=True), NO_POT, NO_POT, *[pot("yellow")] * 4, pot("black"),
                     {"type": "next_frame"}], race_to=2)
    assert s["balls"] == {"red": 7, "yellow": 7, "black": 1} and s["breaker"] == 1


def test_rerack_breaker_must_be_a_side() -> None:
    refused(new_match(), rerack(breaker=2), "rerack: 'breaker' is side 0 or 1, not 2")


# -- bad input names the rule and changes nothing ----------------------------------------------


@pytest.mark.parametrize(("event", "fragments"), [
    (pot(), ["pot: list the balls potted"]),
    (pot("blue"), ["'blue' is not a blackball ball (red, yellow, black)"]),
    (pot("free"), ["'free' is not a blackball ball"]),
    (pot(*["red"] * 8), ["pot: only 7 reds on the table"]),
    (pot("black", "black"), ["pot: only 1 black on the table"]),
    (foul("cue"), ["foul: 'cue' is not a blackball ball"]),
    ({"type": "foul", "points": 4}, ["foul: unknown field 'points'"]),
    ({"type": "pot", "balls": "red"}, ["pot: 'balls' must be a list"]),
    ({"type": "claim"}, ["unknown event type 'claim'"]),
    ({"type": "respotted_black", "striker": 0}, ["unknown event type 'respotted_black'"]),
    ({"type": "no_pot", "legal": "no"}, ["'legal' must be true or false"]),
    ({"type": "next_frame"}, ["the frame is not over"]),
    ({"type": "award", "side": 2}, ["award: 'side' is 0 or 1, not 2"]),
    (UNDO, ["nothing to undo"]),
])
def test_bad_input_is_refused_and_changes_nothing(event: dict[str, object], fragments: list[str]) -> None:
    refused(new_match(), event, *fragments)


def test_pot_counts_are_checked_against_the_table() -> None:
    m = new_match()
    play(m, NO_POT, pot("yellow"), *[pot("yellow")] * 5)
    refused(m, pot("yellow", "yellow"), "pot: only 1 yellow on the table")
    play(m, pot("yellow"))
    refused(m, pot("yellow"), "pot: no yellows on the table")
    refused(m, foul("yellow"), "foul: no yellows on the table")
