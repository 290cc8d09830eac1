"""Four-handed snooker: Section 3 Rule 17 (and Rule 3(a), Rule 16 on the order of play)."""

from __future__ import annotations

import pytest

from cueboard.engine import Match
from tests.helpers.snooker import (
    NEXT_FRAME,
    NO_POT,
    PLAY_AGAIN,
    RED,
    RERACK,
    award,
    foul,
    new_match,
    order,
    play,
    pot,
    refused,
    respotted_black,
    six_reds_to_black,
)

PAIRS = [["A1", "A2"], ["B1", "B2"]]


def doubles(**setup: object) -> Match:
    return new_match(sides=PAIRS, **setup)


def players_in_turn(m: Match, strokes: int) -> list[str]:
    """Who comes to the table after each of ``strokes`` strokes that fail to score."""
    return [play(m, NO_POT)["player"] for _ in range(strokes)]


def test_sides_of_two_players_and_the_default_order_section3_rule17a() -> None:
    """Section 3 Rule 17(a); docs/engine.md: until an order is given, the breaking side's first
    player, the other side's first, then the second players."""
    m = doubles()
    s = m.state().to_json()
    assert [side["name"] for side in s["sides"]] == ["A1 & A2", "B1 & B2"]
    assert [side["players"] for side in s["sides"]] == PAIRS
    assert (s["order"], s["player"], s["striker"]) == (["A1", "B1", "A2", "B2"], "A1", 0)
    assert players_in_turn(m, 4) == ["B1", "A2", "B2", "A1"]


def test_order_of_play_is_kept_throughout_the_frame_section3_rule17a() -> None:
    """Section 3 Rule 17(a): the order determined at the start of the frame is maintained."""
    m = doubles()
    s = play(m, order("A2", "B2", "A1", "B1"))
    assert (s["order"], s["player"], s["striker"], s["seq"]) == (["A2", "B2", "A1", "B1"], "A2", 0, 1)
    assert players_in_turn(m, 5) == ["B2", "A1", "B1", "A2", "B2"]


def test_a_break_keeps_the_player_at_the_table_section2_rule5() -> None:
    """Section 2 Rule 5: the striker stays until he fails to score; then the next in order."""
    m = doubles()
    s = play(m, order("A2", "B1", "A1", "B2"), RED, pot("pink"), RED)
    assert (s["player"], s["break"], s["sides"][0]["score"]) == ("A2", 8, 8)
    s = play(m, NO_POT)
    assert (s["player"], s["striker"]) == ("B1", 1)


def test_play_again_keeps_the_order_section3_rule17c() -> None:
    """Section 3 Rule 17(c): asked to play again, the offender plays the next stroke and the
    order of play is unchanged."""
    m = doubles()
    s = play(m, NO_POT, foul(4))  # A1 misses, B1 fouls
    assert (s["player"], s["sides"][0]["score"]) == ("A2", 4)
    s = play(m, PLAY_AGAIN)
    assert (s["player"], s["striker"]) == ("B1", 1)
    assert players_in_turn(m, 3) == ["A2", "B2", "A1"]


def test_after_a_foul_the_next_in_order_plays_section3_rule17a() -> None:
    """Section 3 Rule 17(a), Rule 11(h): the next player takes the stroke; the order goes on."""
    m = doubles()
    play(m, NO_POT, foul(4))
    assert players_in_turn(m, 2) == ["B2", "A1"]


@pytest.mark.parametrize("players", [
    ("B1", "A1", "B2", "A2"),   # side B does not break frame 1
    ("A1", "A2", "B1", "B2"),   # partners in succession
    ("A1", "B1", "A1", "B2"),   # A2 left out
    ("A1", "B1", "A2"),         # a player missing
    ("A1", "B1", "A2", "C2"),   # not in the match
])
def test_order_alternates_the_sides_breaking_side_first_section3_rule17a(players: tuple[str, ...]) -> None:
    """Section 3 Rule 17(a): each side opens alternate frames; everyone plays, sides in turn."""
    refused(doubles(), order(*players), "Section 3 Rule 17")


def test_order_after_the_first_stroke_refused_section3_rule17a() -> None:
    """Section 3 Rule 17(a): once determined the order must be maintained throughout the frame."""
    m = doubles()
    play(m, RED)
    refused(m, order("A2", "B1", "A1", "B2"), "Section 3 Rule 17")


def test_order_after_a_rerack_refused_section3_rule16() -> None:
    """Section 3 Rule 16: after a stalemate the same established order of play is maintained,
    and the same player breaks."""
    m = doubles()
    play(m, order("A2", "B2", "A1", "B1"), NO_POT, NO_POT)
    s = play(m, RERACK)
    assert (s["player"], s["order"]) == ("A2", ["A2", "B2", "A1", "B1"])
    refused(m, order("A1", "B1", "A2", "B2"), "Section 3 Rule 17")


def test_order_in_singles_refused_section3_rule17() -> None:
    refused(new_match(), order("Ann", "Bob"), "Section 3 Rule 17")


def test_other_side_opens_the_next_frame_and_may_change_the_order_section3_rule17a_17b() -> None:
    """Section 3 Rule 17(a): each side opens alternate frames; 17(b): the order may change at
    the start of each new frame."""
    m = doubles(best_of=3)
    s = play(m, order("A2", "B2", "A1", "B1"), award(0), NEXT_FRAME)
    assert (s["breaker"], s["striker"], s["player"], s["order"]) == (1, 1, "B1", ["B1", "A1", "B2", "A2"])
    s = play(m, order("B2", "A2", "B1", "A1"))
    assert (s["player"], s["striker"]) == ("B2", 1)
    assert players_in_turn(m, 2) == ["A2", "B1"]


def test_respotted_black_the_pair_chooses_the_player_section3_rule17d() -> None:
    """Section 3 Rule 17(d): the pair who play first choose which player makes the stroke, and
    the order of play then continues as in the frame."""
    m = doubles(reds=6, handicap=[0, 75])
    s = play(m, *six_reds_to_black(), pot("black"))  # A1 makes 75: 75 all
    assert (s["respotted_black"], s["player"]) == (True, None)
    refused(m, respotted_black(1, "A1"))
    s = play(m, respotted_black(1, "B2"))
    assert (s["player"], s["striker"]) == ("B2", 1)
    s = play(m, NO_POT)
    assert (s["player"], s["striker"], s["frame_over"]) == ("A1", 0, False)
    s = play(m, pot("black"))
    assert [side["score"] for side in s["sides"]] == [82, 75]
    assert (s["frame_winner"], s["player"]) == (0, None)


def test_respotted_black_default_player_is_next_in_order_section3_rule17d() -> None:
    """docs/engine.md: without a name, the side's next player in the order of play (A1 played
    the black that tied, so B1 for side B)."""
    m = doubles(reds=6, handicap=[0, 75])
    s = play(m, *six_reds_to_black(), pot("black"), respotted_black(1))
    assert (s["player"], s["striker"]) == ("B1", 1)
