"""What the contract left open, settled in docs/state.md and checked here: blackball's
``visits`` through a free shot, the doubles order and ``first``, snooker's ``high_break``
across a re-rack and ``break`` while a re-spotted black waits for the lot."""

from __future__ import annotations

from cueboard.engine.record import record_of
from tests.helpers.blackball import new_match as blackball
from tests.helpers.blackball import play as bplay
from tests.helpers.snooker import NO_POT, RERACK, colours, new_match, play, reds_and_blacks


def test_visits_through_a_free_shot_rule_6a() -> None:
    m = blackball()
    s = bplay(m, {"type": "no_pot"}, {"type": "foul"})  # Bob fouls: Ann's free shot and a visit
    assert (s["player"], s["visits"], s["free_shot"]) == ("Ann", 2, True)
    s = bplay(m, {"type": "pot", "balls": ["red"]})  # a fair pot on the free shot: the first visit goes on
    assert (s["player"], s["visits"], s["free_shot"]) == ("Ann", 2, False)
    s = bplay(m, {"type": "pot", "balls": ["red"]})
    assert (s["player"], s["visits"]) == ("Ann", 2)
    s = bplay(m, {"type": "no_pot"})  # the first visit ends: the second, same player
    assert (s["player"], s["visits"], s["free_shot"]) == ("Ann", 1, False)
    s = bplay(m, {"type": "no_pot"})
    assert (s["player"], s["visits"]) == ("Bob", 1)


def test_blackball_doubles_order_and_first() -> None:
    pairs = [["A1", "A2"], ["B1", "B2"]]
    m = blackball(sides=pairs, first=1, race_to=5)
    s = m.state().to_json()
    assert (s["order"], s["breaker"], s["player"]) == (["B1", "A1", "B2", "A2"], 1, "B1")
    assert [bplay(m, {"type": "no_pot"})["player"] for _ in range(4)] == ["A1", "B2", "A2", "B1"]
    breakers = []
    for _ in range(4):
        bplay(m, {"type": "concede"}, {"type": "next_frame"})
        s = m.state().to_json()
        breakers.append((s["player"], s["breaker"]))
    assert breakers == [("A1", 0), ("B2", 1), ("A2", 0), ("B1", 1)]


def test_high_break_survives_a_rerack_but_the_record_leaves_it_out() -> None:
    m = new_match(reds=6, best_of=3)
    s = play(m, *reds_and_blacks(3), NO_POT, RERACK)
    assert (s["sides"][0]["high_break"], s["sides"][0]["score"], s["break"]) == (24, 0, 0)
    play(m, {"type": "concede"})
    record = record_of(m)
    assert record["frames"][0]["high_break"] == [0, 0] and record["frames"][0]["reracks"] == 1


def test_break_is_zero_while_the_re_spotted_black_waits_for_the_lot() -> None:
    """Bob starts 75 ahead on handicap; Ann clears with 75: level, the black re-spotted (Section 3
    Rule 4(b)). Her 75 is her high break; `break` is 0 until the lot's winner plays."""
    m = new_match(reds=6, handicap=[0, 75])
    s = play(m, *reds_and_blacks(6), *colours("yellow", "black"))
    assert [side["score"] for side in s["sides"]] == [75, 75]
    assert (s["respotted_black"], s["striker"], s["break"], s["sides"][0]["high_break"]) == (True, None, 0, 75)
    s = play(m, {"type": "respotted_black", "striker": 0})
    assert (s["striker"], s["break"]) == (0, 0)
