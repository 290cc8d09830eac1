"""Events only snooker speaks (``docs/events.md``, Snooker events)."""

from __future__ import annotations

from typing import ClassVar

from ..events import Event, Pot, event_types
from ..value import value


@value(kw_only=True)
class NoPot(Event):
    """A fair stroke that potted nothing: the turn passes (Section 2 Rule 5(a)). ``safety``: True
    for a safety, False for a missed pot, where the marker keys the difference (statistics);
    None says nothing. The rules read neither: both are fair strokes."""

    TYPE: ClassVar[str] = "no_pot"
    safety: bool | None = None


@value(kw_only=True)
class Foul(Event):
    """The striker fouled; ``points`` go to the other side (Section 3 Rule 10).
    ``before_stroke``: while preparing to play from a position replaced after a FOUL AND A
    MISS, before any stroke from it (Rule 14(d)): no miss, the ball on stays as it was."""

    TYPE: ClassVar[str] = "foul"
    points: int
    reds_off: int = 0
    miss: bool = False
    free_ball: bool = False
    before_stroke: bool = False
    non_striker: str | None = None
    """The player, not the striker, who fouled (touched a ball or a ball marker, Section 3 Rule
    2(b)(ii), 14(h)): penalised as if he were the striker, the order of play unchanged."""
    out_of_turn: str | None = None
    """The player who played a stroke out of turn (Section 3 Rule 10(a)(iv)): the player whose
    turn it was plays next or asks him to play again; his partner loses a turn (Rule 17(c))."""


@value(kw_only=True)
class PlayAgain(Event):
    """The next player asks the offender to play again from where the balls lie (Rule 11(h))."""

    TYPE: ClassVar[str] = "play_again"


@value(kw_only=True)
class Replace(Event):
    """After a FOUL AND A MISS, balls back and the offender plays again (Rule 14(a))."""

    TYPE: ClassVar[str] = "replace"


@value(kw_only=True)
class Claim(Event):
    """The striker claims the frame: Section 2 Rule 1(b)."""

    TYPE: ClassVar[str] = "claim"


@value(kw_only=True)
class RespottedBlack(Event):
    """Who plays the re-spotted black (Rule 4(b)). ``player``: in four-handed snooker,
    which player of that side makes the stroke (Rule 17(d)); by default the one
    of that side next in the order of play."""

    TYPE: ClassVar[str] = "respotted_black"
    striker: int
    player: str | None = None


@value(kw_only=True)
class Rerack(Event):
    """Stalemate: scores nullified, balls re-set, the same player breaks (Rule 16)."""

    TYPE: ClassVar[str] = "rerack"


@value(kw_only=True)
class StartedBy(Event):
    """The frame was started by ``side``, the wrong side (Section 3 Rule 3(d)(ii)): it goes on
    as played, the correct order resumed in the next frame. Keyed before the frame's first
    stroke, or put there later with ``amend`` (an insert before it)."""

    TYPE: ClassVar[str] = "started_by"
    side: int


@value(kw_only=True)
class Order(Event):
    """Four-handed snooker: the order of play for this frame (Rule 17(a), (b))."""

    TYPE: ClassVar[str] = "order"
    players: tuple[str, ...]


SNOOKER_EVENTS = event_types(Pot, NoPot, Foul, PlayAgain, Replace, Claim, RespottedBlack, Rerack, Order,
                             StartedBy)
