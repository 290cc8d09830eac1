"""What the daemon drives and is driven by: small interfaces, in the manner of luma's
``serial_interface`` and gpiozero's ``pin_factory``.

The table (:class:`cueboard.daemon.Table`) knows its outputs and its keypad only through
these Protocols; :mod:`cueboard.service` opens the real ones (a
:class:`~cueboard.boards.board.Board`, a :class:`~cueboard.feed.Feed`, a
:class:`~cueboard.hw.keypad_link.KeypadLink`) and tests pass their own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:  # types only: the seams are a leaf, the boards above them
    from .boards.shown import Shown
    from .engine.events import Event

__all__ = ["TABLE_SHORTS", "Healthy", "KeypadLike", "Notice", "Output", "Prompt", "Publisher", "Reason",
           "at_the_table"]

TABLE_SHORTS: dict[str, str] = {
    # code: when (the table's own refusals; the engine's are cueboard.engine.errors.SHORTS)
    "wrong_key": "a key the call being keyed in does not take there (the bar says again what it waits for)",
    "nothing_to_finish": "OK or + with no call to finish",
    "wrong_keymap": "a keymap of the other game",
    "lapsed": "a key just after a call lapsed",
    "no_keymap": "a device with no keymap configured",
    "unreadable": "an input its receiver could not read",
    "not_saved": "the journal cannot be written: nothing is applied",
    "no_clock_now": "CLOCK with no shot to time",
    "clock_not_running": "hold with the shot clock not running",
    "clock_not_held": "resume with the shot clock not held",
    "time_up": "the shot clock ran out where the game has no time foul: the referee enters the foul",
    "device_failed": "a device of the table failed (``name``: which)",
}
"""Short forms of the refusals the table makes itself (the key grammar, the daemon)."""


def at_the_table(source: str) -> bool:
    """Whether an input from ``source`` was made at the table (a referee box, the keypad, the
    table's own shot clock), so that its refusal is shown on the table's boards; a line from
    the desk (the control socket, the MQTT command topic) is answered there and on
    ``rejected``, never on the boards the hall reads."""
    return source == "keypad" or source == "clock" or source.startswith("referee_box")


class Reason(str):
    """A refusal's whole reason (for MQTT, the log and ``keypad-sim``), carrying its short
    form for the boards: ``short``, a code whose words are the board word
    ``refusal.<short>`` (:data:`TABLE_SHORTS`, ``cueboard.engine.errors.SHORTS``), with the
    ``ball`` (a ball's name), ``n`` (a number) or ``name`` it says. A plain ``str`` where
    a reason is expected, so anything that only reads or passes the reason is unchanged."""

    short: str
    ball: str | None
    n: int | None
    name: str | None

    def __new__(cls, text: str, short: str, *, ball: str | None = None, n: int | None = None,
                name: str | None = None) -> Reason:
        reason = super().__new__(cls, text)
        reason.short, reason.ball, reason.n, reason.name = short, ball, n, name
        return reason


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


class Output(Protocol):
    """An LED board: shows every state, blinks on a refusal, moves by itself when ticked."""

    @property
    def health(self) -> str:
        """``"ok"`` or ``"failed: <reason>"``."""
        ...

    def show(self, shown: Shown | None, clock: float | None = None, now: float | None = None) -> bool:
        """Show ``shown`` (:class:`~cueboard.boards.shown.Shown`: the match's state and what the
        table adds to it); ``clock``: seconds left on a running shot clock."""
        ...

    def flash(self, now: float | None = None, reason: str | None = None) -> None:
        """An input was refused: blink, and show ``reason`` long enough to read it."""
        ...

    def prompt(self, prompt: Prompt | None, now: float | None = None) -> None:
        """Show the call being keyed in (or that it lapsed); None: no call any more."""
        ...

    def notice(self, notice: Notice, now: float | None = None) -> None:
        """Acknowledge an undo, a redo or a correction in words, with what it took back, put
        back or corrected."""
        ...

    def tick(self, now: float | None = None) -> bool:
        """Draw what time changed."""
        ...

    def next_deadline(self, now: float | None = None) -> float | None:
        """When :meth:`tick` next has something to do, or None."""
        ...

    def close(self) -> None: ...


class Publisher(Protocol):
    """The MQTT feed of ``docs/mqtt.md``: never blocks, never raises for the network."""

    @property
    def health(self) -> str: ...

    def publish_state(self, state: Mapping[str, Any]) -> None: ...

    def publish_event(self, seq: int, event: Mapping[str, Any], *, logged: bool = True) -> None:
        """An applied event on ``<prefix>/event``; ``logged=False``: a command's answer that is in no
        log (``clock``)."""
        ...

    def publish_rejected(self, event: Mapping[str, Any] | None, reason: str, source: str, *,
                         user: str | None = None, raw: bytes | None = None) -> None: ...

    def publish_devices(self, devices: Mapping[str, str], last_seen: Mapping[str, str] | None = None) -> None: ...

    def publish_input(self, source: str, keys: Sequence[str], next_: str = "", *, expires_at: float | None = None,
                      expired: bool = False) -> None: ...
    def publish_record(self, record: Mapping[str, Any]) -> None:
        """The match record (``docs/record.md``), retained: when a frame or the match ends."""
        ...


class Healthy(Protocol):
    """A device the table reports on: ``ok``, or what is wrong (``failed: <reason>``)."""

    @property
    def health(self) -> str: ...


class KeypadLike(Protocol):
    """The marker's keypad link: its health, and the verdict on its last key (a light and
    a beep on the keypad)."""

    @property
    def health(self) -> str: ...

    def health_report(self) -> str:
        """The health as the devices topic says it (with a word on outdated firmware)."""
        ...

    def feedback(self, accepted: bool) -> None: ...
