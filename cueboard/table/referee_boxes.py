"""The table's referee boxes, kept open whatever the GPIO chip does.

``cueboard.hw.buttons.open_boxes`` raises when the pins cannot be had: no GPIO chip, no
permission (the unit's device allow-list), another process holding them, gpiozero finding no
pin library at all. None of that may stop the scoring (the keypad, the boards and the network
go on): :class:`RefereeBoxes` reports ``failed: <reason>`` as the buttons' health, tries again
1, 2, 4 ... up to 30 seconds later on the boxes' own clock, and reports ``ok`` once they open.
"""

from __future__ import annotations

import logging
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from cueboard.hw.box_config import BoxConfig
from cueboard.hw.buttons import RefereeBox, open_boxes
from cueboard.hw.clock import Clock, MonotonicClock, Timer
from cueboard.hw.keys import ButtonPress

__all__ = ["RETRY_FIRST", "RETRY_MAX", "RefereeBoxes"]

log = logging.getLogger("cueboard")

RETRY_FIRST = 1.0
RETRY_MAX = 30.0


NO_GPIO = ("no GPIO here: gpiozero found no pin library that works ({tried}); not a Raspberry Pi? "
           "On a Pi, install python3-lgpio (systemd/install.sh does). To run without the referee boxes' "
           "GPIO (a laptop, a demo), start with GPIOZERO_PIN_FACTORY=mock (gpiozero's mock pins) or take "
           "[[referee_box]] out of the configuration")


def _reason(exc: BaseException, fallbacks: Sequence[str] = ()) -> str:
    """What failed, in words that say what to do where they can."""
    if type(exc).__name__ == "BadPinFactory" and fallbacks:
        return NO_GPIO.format(tried="; ".join(fallbacks))
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    reason = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    if "Permission denied" in text:
        reason += "; the service's user must be in the group gpio (systemd/install.sh puts it there)"
    return reason


class RefereeBoxes:
    """The referee boxes of a table, opened now or as soon as they can be (see the module)."""

    def __init__(self, configs: Sequence[BoxConfig], on_press: Callable[[ButtonPress], None], *,
                 pin_factory: Any = None, clock: Clock | None = None,
                 on_health: Callable[[str], None] | None = None) -> None:
        self._configs = tuple(configs)
        self._on_press = on_press
        self._pin_factory = pin_factory
        self._clock: Clock = MonotonicClock() if clock is None else clock
        self._on_health = on_health
        self._lock = threading.Lock()
        self._boxes: list[RefereeBox] = []
        self._health = "connecting"
        self._backoff = RETRY_FIRST
        self._timer: Timer | None = None
        self._closed = False
        self.attempts = 0

    @property
    def health(self) -> str:
        """``ok``, or ``failed: <reason>`` while the pins are being tried again."""
        return self._health

    def start(self) -> None:
        self._open()

    def _open(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._timer = None
            self.attempts += 1
            # gpiozero warns once for each pin library it falls back from: those reasons go
            # into the one message below, not onto the console beside it.
            # (Only the reason is kept, not the exception: its traceback would keep the pins of
            # the half-opened box reserved, and the next try would find them in use.)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    self._boxes = open_boxes(self._configs, self._on_press, clock=self._clock,
                                             pin_factory=self._pin_factory)
                    failure: str | None = None
                except Exception as exc:  # any failure of the pins: the scoring goes on without them
                    failure = _reason(exc, [str(w.message).replace("Falling back from ", "") for w in caught
                                            if type(w.message).__name__ == "PinFactoryFallback"])
            for other in caught:
                if type(other.message).__name__ != "PinFactoryFallback":
                    warnings.warn_explicit(other.message, other.category, other.filename, other.lineno)
            if failure is not None:
                health = f"failed: {failure}"
                if self._health != health:
                    log.error("referee boxes: %s; trying again in %.0f s", health, self._backoff)
                self._timer = self._clock.call_at(self._clock.now() + self._backoff, self._open)
                self._backoff = min(self._backoff * 2, RETRY_MAX)
            else:
                if self._health.startswith("failed"):
                    log.warning("referee boxes: working again")
                health = "ok"
                self._backoff = RETRY_FIRST
            changed, self._health = self._health != health, health
        if changed and self._on_health is not None:
            self._on_health(health)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            boxes, self._boxes = self._boxes, []
        for box in boxes:
            box.close()
