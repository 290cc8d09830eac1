"""Points remaining and snookers required, exactly as ``docs/state.md`` defines them."""

from __future__ import annotations

from functools import cache

from .ball_on import ball_on_at_turn_start, least_penalty
from .balls import VALUE
from .position import Position
from .state import SnookersRequired


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


def available_to_trailer(p: Position, trailer: int, points_left: int) -> int:
    """The most points the side ``trailer`` (the side behind) can still score (``state.md``).

    At the table, that is ``remaining``. With the side ahead at the table, it is what is
    left once the striker's present chance is gone: the colour after a red and a free ball
    are the striker's alone, so ``8 * reds + 27`` with reds on, else the colours left
    (Section 3 Rule 1(e): "more points behind than are available")."""
    turn = p.turn
    # The striker, read from the rotation rather than through Position.striker: a property costs
    # some 1,300 instructions a read on CPython 3.11, and the state asks after every event.
    if turn is not None and p.rotation[turn][0] == trailer:
        return points_left
    return 8 * p.reds + 27 if p.reds else colours_value(p.colours)


def snookers_required(p: Position, points_left: int, before: tuple[int, int] = (0, 0)) -> SnookersRequired | None:
    """``SnookersRequired(side, count, each)`` when the side behind trails by more than it can still
    score (:func:`available_to_trailer`); None otherwise, once the frame is over, and on a
    re-spotted black (the scores, or in aggregate play the totals, are level there).

    ``each`` is the least penalty the side ahead would pay on the ball on at the start of
    its next turn: 4 with reds on, else the lowest colour's value, never below 4 (Section 3
    Rule 10). ``count = ceil((deficit - available) / each)``: the snookers that bring the
    side behind level, the re-spotted black then deciding. With only the black left no
    snooker can help (its first score or foul ends the frame, Section 3 Rule 4(a)): ``count``
    is None.

    ``before``: points each side carries into the frame that count with its scores: in the
    last frame of an aggregate match the totals of the frames before (``state.md``).

    Higgins v White, 1982: 68-0, White on a colour after a red, 4 reds left. ``remaining`` is
    66, but Higgins can reach only 59, so he needs 3 snookers of 4:

    >>> from .balls import COLOURS
    >>> white = Position(frame=1, breaker=0, rotation=((0, "White"), (1, "Higgins")), turn=0,
    ...                  scores=(68, 0), frames=(0, 0), totals=(0, 0), high_breaks=(68, 0), brk=68,
    ...                  reds=4, colours=COLOURS, ball_on="colour")
    >>> remaining(white), snookers_required(white, remaining(white))
    (66, SnookersRequired(side=1, count=3, each=4))
    """
    if p.frame_over or p.respotted_black:
        return None
    a, b = p.scores[0] + before[0], p.scores[1] + before[1]
    if a == b:
        return None
    trailer = 0 if a < b else 1
    deficit = abs(a - b)
    available = available_to_trailer(p, trailer, points_left)
    if deficit <= available:
        return None
    on_next_turn = ball_on_at_turn_start(p.reds, p.colours)
    each = least_penalty(on_next_turn)
    only_black = p.reds == 0 and p.colours == ("black",)
    count = None if only_black else -(-(deficit - available) // each)
    return SnookersRequired(side=trailer, count=count, each=each)
