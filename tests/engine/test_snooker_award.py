"""Why a frame is awarded: ``award``'s ``reason`` (docs/events.md).

Section 3 Rule 14(c)(ii): after two misses from the replaced position "the offender shall be
warned by the referee that a third failure will result in the frame being awarded to his
opponent": the frame, the scores standing. Section 4 Rule 2(a): a frame forfeited for conduct
costs the offender "all points scored and the non-offender shall receive a number of points
equivalent to the value of the balls remaining on the table, with each Red counting as eight
points". An award without a reason (logs written before it existed) keeps its old meaning.
"""

from __future__ import annotations

import pytest

from cueboard.engine import Match
from cueboard.engine.record import record_of
from tests.helpers.snooker import NO_POT, RED, REPLACE, foul, new_match, play, pot, refused

MISS = foul(4, miss=True)


def award(side: int, reason: str | None = None, **extra: object) -> dict[str, object]:
    event: dict[str, object] = {"type": "award", "side": side, **extra}
    if reason is not None:
        event["reason"] = reason
    return event


def warned() -> Match:
    """Ann 8, then Bob misses twice from the replaced position: he is warned (Rule 14(c)(ii))."""
    m = new_match()
    play(m, RED, pot("black"), NO_POT, MISS, REPLACE, MISS, REPLACE)
    return m


def test_a_third_miss_award_leaves_the_scores_standing_section3_rule14c_ii() -> None:
    m = warned()
    s = play(m, MISS, award(0, "miss"))  # the third failure, keyed, then the award
    assert [side["score"] for side in s["sides"]] == [20, 0]
    assert (s["frame_winner"], s["match_winner"]) == (0, 0)
    frame = record_of(m)["frames"][0]
    assert (frame["how"], frame["rule"], frame["scores"]) == ("awarded", "Section 3 Rule 14(c)(ii)", [20, 0])


def test_a_third_miss_award_also_stands_in_aggregate_play_section3_rule14c_ii() -> None:
    """The old engine forfeited the offender's points in aggregate play for any award."""
    m = new_match(best_of=2, aggregate=True)
    play(m, NO_POT, RED, pot("black"), NO_POT, MISS, REPLACE, MISS, REPLACE)  # Bob 8, Ann warned
    s = play(m, MISS, award(1, "miss"))  # the third failure keyed, then the award
    assert [side["score"] for side in s["sides"]] == [0, 8 + 4 + 4 + 4]  # Bob's break and three penalties
    assert [side["total"] for side in s["sides"]] == [0, 20]


def test_a_third_miss_award_needs_the_warning_and_goes_to_the_opponent_section3_rule14c_ii() -> None:
    m = new_match()
    play(m, MISS, REPLACE)
    refused(m, award(1, "miss"), "third failure", "Section 3 Rule 14(c)(ii)")
    m = warned()
    refused(m, award(1, "miss"), "third failure", "Section 3 Rule 14(c)(ii)")  # warned, no third failure yet
    play(m, MISS)
    refused(m, award(1, "miss"), "Bob made the misses", "Section 3 Rule 14(c)(ii)")
    refused(m, award(0, "miss", match=True), "not the match", "Section 3 Rule 14(c)(ii)")


def test_a_conduct_award_forfeits_the_offenders_points_in_any_play_section4_rule2a_ii() -> None:
    """Ann 9, Bob 7, 12 reds left: Bob forfeits for conduct; Ann receives 12 x 8 + 27 = 123."""
    m = new_match()
    play(m, RED, pot("black"), RED, NO_POT, RED, pot("pink"), NO_POT)
    s = play(m, award(0, "conduct"))
    assert [side["score"] for side in s["sides"]] == [9 + 96 + 27, 0]
    assert s["frame_winner"] == 0
    assert record_of(m)["frames"][0]["rule"] == "Section 4 Rule 2(a)"


def test_an_award_without_a_reason_keeps_its_old_meaning() -> None:
    """Old logs replay the same: scores stand outside aggregate play, forfeited in it."""
    m = new_match()
    play(m, RED, pot("black"), NO_POT)
    assert [side["score"] for side in play(m, award(1))["sides"]] == [8, 0]
    m = new_match(best_of=2, aggregate=True)
    play(m, RED, pot("black"), NO_POT)
    assert [side["score"] for side in play(m, award(1))["sides"]] == [0, 14 * 8 + 27]


def test_an_award_reason_is_checked() -> None:
    refused(new_match(), award(1, "rudeness"), "'reason' is \"miss\"", "\"conduct\"")


@pytest.mark.parametrize("reason", ["conduct", None])
def test_blackball_awards_for_conduct_rule_8b(reason: str | None) -> None:
    m = Match.from_json({"type": "match", "game": "blackball", "sides": ["Ann", "Bob"]})
    m.apply(m.parse(award(1, reason)))
    assert m.state().to_json()["frame_winner"] == 1


def test_blackball_has_no_third_miss_award() -> None:
    m = Match.from_json({"type": "match", "game": "blackball", "sides": ["Ann", "Bob"]})
    refused(m, award(1, "miss"), "rules 8b, 8c")  # type: ignore[arg-type]
