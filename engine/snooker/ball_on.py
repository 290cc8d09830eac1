"""The ball on: Section 2 Rule 11, Section 3 Rule 3(f), 3(g)."""

from __future__ import annotations

from .balls import VALUE


def ball_on_at_turn_start(reds: int, colours: tuple[str, ...]) -> str | None:
    """Red while reds remain at the start of a turn (Rule 3(f)); once they are gone
    (and the colour after the last red played, or the last red gone in a foul) the
    lowest colour left (Rule 3(g)(iii)). The same after the colour that follows a red
    (Rule 3(g)(ii)): red again, or the colours in order."""
    if reds:
        return "red"
    return colours[0] if colours else None


def least_penalty(ball_on: str | None) -> int:
    """The lowest penalty a foul can carry with this ball on: its value, never below 4
    (Section 3 Rule 12). With "colour" (after a red) the nominated colour is not
    known, so 4."""
    if ball_on is None or ball_on in ("red", "colour"):
        return 4
    return max(4, VALUE[ball_on])
