"""``remaining`` and ``snookers_required`` exactly as ``docs/state.md`` defines them.

remaining: 8 * reds + 27 with red on, 7 more on a colour after a red, the colours left in the
colours (27, 25, 22, 18, 13, 7), plus a free ball (8 with reds on, else the ball on's value);
7 on a re-spotted black; 0 when over.

snookers_required: when the side behind trails by more than the most points *it* can still
score (Section 3 Rule 1(e)): ``remaining`` when it is at the table; with the side ahead at the
table, 8 * reds + 27 with reds on, else the colours left (the colour after a red and a free
ball are the striker's alone). {"side", "count": ceil((deficit - available) / each), "each":
the least penalty on the ball on at the start of the leader's next turn (4 with reds on, else
the lowest colour's value, never below 4)}; count null with only the black left.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers.snooker import (
    NO_POT,
    RED,
    Event,
    colours,
    foul,
    new_match,
    play,
    pot,
    reds_and_blacks,
    respotted_black,
    six_reds_to_black,
    state_after,
)


def need(side: int, count: int | None, each: int) -> dict[str, Any]:
    return {"side": side, "count": count, "each": each}


SIX = {"reds": 6}
CLEARED = reds_and_blacks(6)  # Ann 48, yellow on

POSITIONS: list[tuple[str, dict[str, Any], list[Event], int, dict[str, Any] | None]] = [
    # id, match set-up, events, remaining, snookers_required
    ("start-15", {}, [], 147, None),
    ("start-10", {"reds": 10}, [], 107, None),
    ("start-6", SIX, [], 75, None),
    ("colour-after-red", {}, [RED], 8 * 14 + 27 + 7, None),
    ("red-and-black", {}, [RED, pot("black")], 8 * 14 + 27, None),
    ("two-reds-one-stroke", {}, [pot("red", "red")], 8 * 13 + 34, None),
    ("colour-missed", {}, [RED, NO_POT], 8 * 14 + 27, None),
    ("reds-off-in-foul", {}, [foul(4, reds_off=3)], 8 * 12 + 27, None),
    ("free-ball-with-reds", {}, [foul(4, free_ball=True)], 147 + 8, None),
    ("free-ball-reds-off", {}, [foul(4, reds_off=3, free_ball=True)], 8 * 12 + 27 + 8, None),
    ("free-ball-6-reds", SIX, [foul(4, free_ball=True)], 75 + 8, None),
    # Ann 40 to 0, one red left: 5 more than 35 on the table, two 4-point snookers.
    ("red-on-last-red", SIX, reds_and_blacks(5), 35, need(1, 2, 4)),
    # Ann 41 to 0 on the colour after the last red: remaining 34, but that colour is Ann's
    # alone; Bob can reach only the colours, 27: 41 - 27 = 14, four snookers of 4 (state.md).
    ("colour-after-last-red", SIX, [*reds_and_blacks(5), RED], 34, need(1, 4, 4)),
    # The colours: yellow 48 - 27 = 21 -> 6 of 4; green 25 -> 7 of 4; brown 31 -> 8 of 4;
    # blue 39 -> 8 of 5; pink 49 -> 9 of 6; black: no snooker can help.
    ("yellow", SIX, CLEARED, 27, need(1, 6, 4)),
    ("green", SIX, [*CLEARED, *colours("yellow", "yellow")], 25, need(1, 7, 4)),
    ("brown", SIX, [*CLEARED, *colours("yellow", "green")], 22, need(1, 8, 4)),
    ("blue", SIX, [*CLEARED, *colours("yellow", "brown")], 18, need(1, 8, 5)),
    ("pink-and-black", SIX, [*CLEARED, *colours("yellow", "blue")], 13, need(1, 9, 6)),
    ("only-black", SIX, six_reds_to_black(), 7, need(1, None, 7)),
    # Free ball in the colours: Ann 57, Bob 5 after a foul on the blue: 18 + 5 = 23, 29 short.
    ("free-ball-blue", SIX, [*CLEARED, *colours("yellow", "brown"), foul(5, free_ball=True)],
     23, need(1, 6, 5)),
    # Ann 62, Bob 6 after a foul on the pink: 13 + 6 = 19, 37 short: 7 of 6.
    ("free-ball-pink", SIX, [*CLEARED, *colours("yellow", "blue"), foul(6, free_ball=True)],
     19, need(1, 7, 6)),
    ("over", SIX, [*CLEARED, *colours()], 0, None),
    # Higgins v White, 1982: White 68, Higgins 0, White on a colour after a red, 4 reds left.
    # remaining is 66, but the colour is White's alone: Higgins can reach 59 (8 * 4 + 27), 9
    # short: 3 snookers of 4 (Section 3 Rule 1(e)).
    ("higgins-v-white", {}, [*reds_and_blacks(7), RED, pot("yellow"), RED, pot("yellow"), RED, pot("brown"),
                             RED], 66, need(1, 3, 4)),
    # The leader holds a free ball: Ann 152, Bob 0 after Bob's foul with 15 reds on. remaining is
    # 155 (the free ball 8 more), but Bob can reach only 147: 5 short, 2 snookers of 4.
    ("leader-free-ball", {"handicap": [148, 0]}, [NO_POT, foul(4, free_ball=True)], 155, need(1, 2, 4)),
    # The side behind holds the free ball: all of remaining is his. Ann 48, Bob 4 after Ann's
    # foul on the yellow: Bob can reach 27 + 2 = 29, 15 short: 4 snookers of 4.
    ("trailer-free-ball", SIX, [*CLEARED, foul(4, free_ball=True)], 29, need(1, 4, 4)),
    # Handicaps move the deficit: equal to remaining needs nothing, one more needs one snooker.
    ("deficit-equals-remaining", {"handicap": [0, 147]}, [], 147, None),
    ("deficit-one-more", {"handicap": [0, 148]}, [], 147, need(0, 1, 4)),
    ("deficit-eight-more", {"handicap": [0, 155]}, [], 147, need(0, 2, 4)),
    ("deficit-nine-more", {"handicap": [0, 156]}, [], 147, need(0, 3, 4)),
    ("side-1-behind", {"handicap": [160, 0]}, [], 147, need(1, 4, 4)),
    # Only the black: 7 behind is not more than 7; 8 behind is, and no snooker can help.
    ("black-seven-behind", {**SIX, "handicap": [0, 61]}, six_reds_to_black(), 7, None),
    ("black-eight-behind", {**SIX, "handicap": [0, 60]}, six_reds_to_black(), 7, need(1, None, 7)),
    ("black-striker-behind", SIX, [*six_reds_to_black(), NO_POT], 7, need(1, None, 7)),
    # The re-spotted black: 7 points, the scores level.
    ("respotted-black", {**SIX, "handicap": [0, 75]}, [*six_reds_to_black(), pot("black")], 7, None),
    ("respotted-black-drawn", {**SIX, "handicap": [0, 75]},
     [*six_reds_to_black(), pot("black"), respotted_black(1)], 7, None),
]


@pytest.mark.parametrize(("setup", "events", "points", "snookers"),
                         [p[1:] for p in POSITIONS], ids=[p[0] for p in POSITIONS])
def test_remaining_and_snookers_required_state_md(setup: dict[str, Any], events: list[Event], points: int,
                                                  snookers: dict[str, Any] | None) -> None:
    s = state_after(events, **setup)
    assert s["remaining"] == points
    assert s["snookers_required"] == snookers


def test_remaining_falls_pot_by_pot_in_a_maximum_state_md() -> None:
    """Each pot in a 147 takes exactly its value off remaining (one red: 147 -> 146 on the
    colour; the black with it: -> 139 = 8 * 14 + 27)."""
    m = new_match()
    left = 147
    for event in [*reds_and_blacks(15), *colours()]:
        before = m.state().to_json()["sides"][0]["score"]
        s = play(m, event)
        left -= s["sides"][0]["score"] - before
        assert s["remaining"] == left
    assert left == 0
