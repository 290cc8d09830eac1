"""A blackball position: everything the rules need to know, as an immutable value."""

from __future__ import annotations

from typing import NamedTuple

from .balls import GROUPS


class Position(NamedTuple):
    """Immutable and compared by value; a NamedTuple, as snooker's: cheap to build field by
    field (``Blackball._stroke``) or with ``_replace``."""

    frame: int
    order: tuple[tuple[int, str], ...]
    """The fixed order of play of the match, as (side, player); the sides alternate."""
    breaker_at: int
    """Index in ``order`` of the player who breaks this rack."""
    turn: int | None
    """Index in ``order`` of the player at the table; None once the frame is over."""
    frames: tuple[int, int]
    red: int
    yellow: int
    black: int
    groups: tuple[str, str] | None = None
    """Each side's group, or None while the table is open (rule 4e)."""
    visits: int = 1
    """Visits left to the striker in this turn: 2 after the opponent's foul (rule 6a)."""
    free_shot: bool = False
    """The next stroke is the free shot after a foul (rule 6b)."""
    break_shot: bool = True
    """The next stroke is the break of the rack (rule 4b)."""
    first_of_visit: bool = True
    """The next stroke is the first of a visit (for a clock that gives it more time)."""
    after_bad_break: bool = False
    """The last stroke was a break that was not valid, or a foul on the break: the incoming
    player may have the balls re-racked (rule 4b(b), 5q)."""
    touching: tuple[str, ...] = ()
    """The balls the referee called touching the cue ball (rule 4i), in the order called, until
    the next stroke: several may be ("Si deux billes ou plus sont touchantes"), each ball once."""
    held: str | None = None
    """Why the shot clock is held (rule 8a; "" when not said), until it is resumed or the stroke
    is played; None while it is not held."""
    frame_over: bool = False
    frame_winner: int | None = None
    match_over: bool = False
    match_winner: int | None = None

    @property
    def striker(self) -> int | None:
        return None if self.turn is None else self.order[self.turn][0]

    @property
    def player(self) -> str | None:
        return None if self.turn is None else self.order[self.turn][1]

    @property
    def breaker(self) -> int:
        return self.order[self.breaker_at][0]

    def left(self, group: str) -> int:
        """Balls of ``group`` on the table."""
        return self.red if group == GROUPS[0] else self.yellow

    def group_of(self, side: int) -> str | None:
        return None if self.groups is None else self.groups[side]

    @property
    def black_on(self) -> bool:
        """The striker's group is cleared, so the black is the ball on (rule 3)."""
        own = None if self.striker is None else self.group_of(self.striker)
        return own is not None and self.left(own) == 0
