"""A snooker position: everything the rules need to know, as a frozen value."""

from __future__ import annotations

from typing import NamedTuple


class Position(NamedTuple):
    """Immutable, compared by value. A NamedTuple: a tuple is the cheapest immutable value
    to build on the path every event takes (``Snooker._stroke`` builds one field by field),
    and ``_replace`` is four times cheaper than ``dataclasses.replace`` for the rarer events."""

    frame: int
    breaker: int
    rotation: tuple[tuple[int, str], ...]
    """The order of play this frame, as (side, player); the breaking side first."""
    turn: int | None
    """Index in ``rotation`` of the player at the table; None while nobody is."""
    scores: tuple[int, int]
    frames: tuple[int, int]
    totals: tuple[int, int]
    """Points of the frames already finished (aggregate play)."""
    high_breaks: tuple[int, int]
    brk: int
    reds: int
    colours: tuple[str, ...]
    """Colours on the table, in the order they are taken."""
    ball_on: str | None
    """"red", "colour" (any colour, after a red), a colour's name, or None."""
    free_ball: bool = False
    misses: int = 0
    from_replaced: bool = False
    """The striker plays from a position replaced after a FOUL AND A MISS."""
    respotted_black: bool = False
    frame_over: bool = False
    frame_winner: int | None = None
    match_over: bool = False
    match_winner: int | None = None
    strokes: int = 0
    """Strokes played this frame (a rerack does not reset it: Rule 16 keeps the order)."""
    offender: int | None = None
    """Rotation index of the player whose foul was the last stroke: may be asked to play again."""
    before_miss: Position | None = None
    """The position before the last stroke, when it was a FOUL AND A MISS."""
    loses_turn: int | None = None
    """Rotation index of a player who loses his next turn: the partner of one who played out of
    turn in four-handed snooker (Section 3 Rule 17(c))."""
    last_turn: int | None = None
    """Who played the stroke that re-spotted the black: the order of play continues from
    there (Section 3 Rule 17(d))."""

    @property
    def striker(self) -> int | None:
        return None if self.turn is None else self.rotation[self.turn][0]

    @property
    def player(self) -> str | None:
        return None if self.turn is None else self.rotation[self.turn][1]

    @property
    def fouled_before_stroke(self) -> bool:
        """The last event was a foul before a stroke from a replaced position (Section 3 Rule
        14(d)): it keeps the position to replace (``before_miss``) and, no stroke being played,
        the count of strokes; every foul that is a stroke counts one."""
        before = self.before_miss
        return before is not None and before.strokes == self.strokes

    @property
    def only_black(self) -> bool:
        """Only the black is left (Section 3 Rule 4): the next score or foul ends the frame."""
        return self.reds == 0 and self.colours == ("black",) and self.ball_on == "black"
