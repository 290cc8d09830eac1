"""The object balls and their values: Section 3 Rule 1(a)."""

from __future__ import annotations

COLOURS: tuple[str, ...] = ("yellow", "green", "brown", "blue", "pink", "black")
"""In the ascending order they are taken once the reds are gone (Rule 3(g)(iii))."""

VALUE: dict[str, int] = {"red": 1, "yellow": 2, "green": 3, "brown": 4, "blue": 5, "pink": 6, "black": 7}

BY_VALUE: tuple[str, ...] = ("red", *COLOURS)
"""Every ball by its value, 1 to 7: how a keypad's digit keys name them."""

FREE = "free"
"""The name of the nominated free ball in a ``pot`` event (Rule 10)."""

BALL_NAMES = frozenset(VALUE) | {FREE}

REDS_ALLOWED = (15, 10, 6)
