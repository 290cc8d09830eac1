"""The balls (rule 2) and the racks (rule 4a, and the nine-ball rack of rule 8g).

>>> tally("pot", ("red", "black", "red"), (7, 7, 1))
(2, 0, 1)
>>> tally("pot", ("red", "red"), (1, 7, 1))
Traceback (most recent call last):
...
cueboard.engine.errors.IllegalEvent: pot: only 1 red on the table
"""

from __future__ import annotations

from ..errors import IllegalEvent

GROUPS: tuple[str, str] = ("red", "yellow")
"""The two groups of seven (rule 2(b)); the names the events and the state use."""

BLACK = "black"

FULL_RACK: tuple[int, int, int] = (7, 7, 1)
"""Red, yellow, black: rule 2(b), (c)."""

NINE_BALL_RACK: tuple[int, int, int] = (4, 4, 1)
"""Rule 8g: the full triangle without its head ball and its five back balls, eight colours
and the black on its spot. The text does not say how the colours fall; we take four of each."""


def _count(n: int, ball: str) -> str:
    if n == 0:
        return f"no {ball}s"
    return f"only {n} {ball}" + ("s" if n > 1 else "")


BALLS: tuple[str, str, str] = (*GROUPS, BLACK)
"""The object balls in the order of a rack's counts (red, yellow, black)."""


def tally(what: str, balls: tuple[str, ...], on_table: tuple[int, int, int]) -> tuple[int, int, int]:
    """How many reds, yellows and blacks ``balls`` names, checked against those on the table."""
    for b in balls:
        if b not in BALLS:
            raise IllegalEvent(f"{what}: {b!r} is not a blackball ball (red, yellow, black)", short="invalid")
    red, yellow, black = counts = (balls.count("red"), balls.count("yellow"), balls.count(BLACK))
    if red > on_table[0] or yellow > on_table[1] or black > on_table[2]:
        for ball, n, there in zip(BALLS, counts, on_table, strict=True):
            if n > there:
                raise IllegalEvent(f"{what}: {_count(there, ball)} on the table", short="not_on_table", ball=ball)
    return counts
