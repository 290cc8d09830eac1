"""What reaches the table's engine thread: one of a few kinds of input, each a frozen value.

Input threads (GPIO callbacks, the keypad link, the MQTT client, the control socket) make
one and hand it to :meth:`cueboard.table.daemon.Table.submit`; the engine thread tells them apart
by their type.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from cueboard.engine.json_value import JsonObject

__all__ = ["Call", "Command", "HealthChanged", "Input", "KeyInput", "Press", "Refused", "Reply"]

Reply = Callable[[JsonObject], None]
"""Called once on the engine thread with the answer: ``{"ok": true, "state": ...}`` or
``{"ok": false, "reason": ...}``."""


class Press(Protocol):
    """A key press of ``cueboard.hw.keys`` (a KeyPress or a ButtonPress)."""

    @property
    def index(self) -> int: ...

    @property
    def held(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class KeyInput:
    """A key of a referee box (``source`` ``referee_box:N``) or of the keypad (``keypad``)."""

    source: str
    press: Press


@dataclass(frozen=True, slots=True)
class Command:
    """An event, a match line or a daemon command (``new_match``, ``clock``, ``state``) as a
    decoded JSON object, from the control socket, the MQTT command topic or a key sequence.
    ``user``: who sent it on ``<prefix>/command/<user>`` (kept with its event in the journal)."""

    source: str
    command: JsonObject
    reply: Reply | None = None
    user: str | None = None


@dataclass(frozen=True, slots=True)
class Refused:
    """An input its receiver could not read (not JSON, not an object): refused on the engine
    thread like any other, so the refusal is counted, flashed and published in order."""

    source: str
    reason: str


@dataclass(frozen=True, slots=True)
class HealthChanged:
    """A device's health changed (the keypad was unplugged ...): publish the devices again."""

    source: str


@dataclass(frozen=True, slots=True)
class Call:
    """Run ``run`` on the engine thread, between two inputs (tests and benches wait on it)."""

    source: str
    run: Callable[[], None]


Input = KeyInput | Command | Refused | HealthChanged | Call
