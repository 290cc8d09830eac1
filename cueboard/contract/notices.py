"""What the table tells its boards besides the state: a notice of an undo, a redo or a
correction, and the call being keyed in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from cueboard.engine.events import Event

__all__ = ["Notice", "Prompt"]


@dataclass(frozen=True, slots=True)
class Notice:
    """What the table acknowledges on the boards in words: an ``undo`` or a ``redo`` and the
    engine's event it took back or put back (``Pot(balls=("black",))``; an undo or a redo of a
    correction names the :class:`~cueboard.engine.events.Amend`), or ``corrected`` and the amend
    made (``Amend(seq=14, event=Pot(balls=("pink",)))``): the scores may change by more than a
    stroke, and the hall should see why."""

    kind: Literal["undo", "redo", "corrected"]
    event: Event


@dataclass(frozen=True, slots=True)
class Prompt:
    """A call being keyed in on one device, as the people at the table must see it: the keys
    so far and what the call waits for; or, with ``lapsed``, a call that was not finished in
    time and is gone (its keys, so the referee sees which)."""

    source: str
    """Where it is keyed: ``referee_box:0``, ``referee_box:1`` or ``keypad``."""
    keys: tuple[str, ...]
    """The legends of the keys so far, e.g. ``("FOUL", "MISS")``."""
    needs: str = ""
    """What comes next, in the referee's words, e.g. ``"the ball that sets the penalty (4 to 7)"``."""
    lapsed: bool = False
