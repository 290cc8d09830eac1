"""What the daemon drives and is driven by: small interfaces, in the manner of luma's
``serial_interface`` and gpiozero's ``pin_factory``. The table knows its outputs and keypad only
through these; :mod:`cueboard.table.service` opens the real ones and tests pass their own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from cueboard.boards.shown import Shown
    from cueboard.contract.codes import Reason
    from cueboard.contract.notices import Notice, Prompt
    from cueboard.engine.json_value import Json

__all__ = ["Healthy", "KeypadLike", "Output", "Publisher"]


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

    def publish_state(self, state: Mapping[str, Json]) -> None: ...

    def publish_event(self, seq: int, event: Mapping[str, Json], *, logged: bool = True) -> None:
        """An applied event on ``<prefix>/event``; ``logged=False``: a command's answer that is in no
        log (``clock``)."""
        ...

    def publish_rejected(self, event: Mapping[str, Json] | None, reason: Reason, source: str, *,
                         user: str | None = None, raw: bytes | None = None) -> None: ...

    def publish_devices(self, devices: Mapping[str, str], last_seen: Mapping[str, str] | None = None) -> None: ...

    def publish_input(self, source: str, keys: Sequence[str], next_: str = "", *, expires_at: float | None = None,
                      expired: bool = False) -> None: ...
    def publish_record(self, record: Mapping[str, Json]) -> None:
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
