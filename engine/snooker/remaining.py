"""Points remaining and snookers required, exactly as ``state.md`` defines them."""

from __future__ import annotations

from functools import cache
from typing import Any

from .ball_on import least_penalty
from .balls import VALUE
from .position import Position


@cache
def colours_value(colours: tuple[str, ...]) -> int:
    """The points of these colours. Remembered: the colours on the table are always the last
    few of ``COLOURS`` (taken in order, Rule 3(g)(iii)), or the re-spotted black, and the
    state asks after every event."""
    return sum(VALUE[c] for c in colours)


def table_value(p: Position) -> int:
    """The value of the balls on the table, each red counting eight: what Section 4
    Rule 2(a)(ii) and Rule 5(b) add to the other side's score in aggregate play."""
    return 8 * p.reds + colours_value(p.colours)


def remaining(p: Position) -> int:
    """The most points still available to the striker.

    ``8 * reds + 27`` with red on; 7 more on the colour after a red; the colours
    left in the colours; plus the free ball when one is available (8 with reds
    on: it scores as a red and a colour follows; else the ball on's value,
    Section 3 Rule 10(c)). 7 on a re-spotted black, 0 once the frame is over.
    """
    if p.frame_over or p.ball_on is None:
        return 0
    if p.respotted_black:
        return 7
    if p.ball_on == "red":
        points = 8 * p.reds + 27
        free = 8
    elif p.ball_on == "colour":
        points = 8 * p.reds + 27 + 7
        free = 0  # a free ball is only ever the first stroke of a turn
    else:
        points = colours_value(p.colours)
        free = VALUE[p.ball_on]
    return points + free if p.free_ball else points


def snookers_required(p: Position, points_left: int) -> dict[str, Any] | None:
    """``{"side", "count", "each"}`` when the side behind trails by more than
    ``points_left``; None otherwise or once the frame is over.

    ``each`` is the least penalty for the ball on; ``count`` is how many such
    fouls the side behind needs, or None with only the black left: its first
    score or foul ends the frame (Section 3 Rule 4(a)), so no snooker can help.
    """
    if p.frame_over or p.respotted_black:
        # On a re-spotted black the scores (or in aggregate play the totals) are level:
        # nobody needs snookers.
        return None
    a, b = p.scores
    deficit = abs(a - b)
    if deficit <= points_left:
        return None
    each = least_penalty(p.ball_on)
    count = None if p.only_black else -(-(deficit - points_left) // each)
    return {"side": 0 if a < b else 1, "count": count, "each": each}
