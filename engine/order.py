"""The order of play both games keep: (side, player) pairs, the sides alternating.

>>> next_of_side(((0, "A1"), (1, "B1"), (0, "A2"), (1, "B2")), 0, 0)
2
"""

from __future__ import annotations

Rotation = tuple[tuple[int, str], ...]
"""The order of play as (side, player); the sides alternate."""


def next_of_side(rotation: Rotation, after: int, side: int) -> int:
    """The index of ``side``'s next player after index ``after`` (``after`` itself when no
    other player of that side comes first): snooker Section 3 Rule 17(d), blackball's
    doubles order."""
    n = len(rotation)
    for step in range(1, n + 1):
        i = (after + step) % n
        if rotation[i][0] == side:
            return i
    raise AssertionError("every side has a player")


def order_names(rotation: Rotation) -> tuple[str, ...]:
    """The players in the order of play (the state's ``order``)."""
    return tuple(name for _, name in rotation)
