"""Referee button boxes on GPIO: one or two per table, each a grid of push buttons.

Each button is a real gpiozero ``DigitalInputDevice`` on an injected pin factory
(``lgpio`` on the Pi, ``MockFactory`` in tests; by default whatever
``GPIOZERO_PIN_FACTORY`` names), with gpiozero's ``bounce_time`` left off: the
debounce and the hold are ours (:mod:`.debounce`), on an injected clock. A box
reports each press as a :class:`~.keys.ButtonPress` to one callback, on the press's
first edge, and once more with ``held=True`` if the button is held. Nothing polls:
the pins call us on each edge, the clock on each deadline.

>>> from gpiozero.pins.mock import MockFactory
>>> from .clock import ManualClock
>>> factory, clock, presses = MockFactory(), ManualClock(), []
>>> box = RefereeBox([5, 6], presses.append, box=1, clock=clock, pin_factory=factory)
>>> factory.pin(6).drive_low()            # buttons pull the pin to ground
>>> presses
[ButtonPress(box=1, button=1, held=False)]
>>> box.close()
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any

from .box_config import BoxConfig, BoxConfigError, Pin, parse_boxes

__all__ = ["BoxConfig", "BoxConfigError", "Pin", "RefereeBox", "open_boxes", "parse_boxes"]
from .clock import Clock, MonotonicClock
from .debounce import DEBOUNCE, HOLD_TIME, ButtonContact
from .keys import ButtonPress


class RefereeBox:
    """The buttons of one referee box; ``pins[n]`` is button ``n``.

    ``on_press`` is called from the pin library's callback thread or the clock's thread,
    one call at a time for a box; it must only hand the press on (to the thread that
    owns the engine, e.g. with ``loop.call_soon_threadsafe``).
    """

    def __init__(self, pins: Sequence[Pin], on_press: Callable[[ButtonPress], None], *, box: int = 0,
                 clock: Clock | None = None, pin_factory: Any = None, pull_up: bool = True,
                 debounce: float = DEBOUNCE, hold_time: float = HOLD_TIME) -> None:
        config = BoxConfig(pins=tuple(pins), pull_up=pull_up, debounce=debounce, hold_time=hold_time)
        config.check(f"referee_box[{box}]")
        # Imported here so that cueboard.hw imports on a machine without gpiozero.
        # the ignore below: gpiozero ships no type hints (no py.typed, no stubs)
        from gpiozero import DigitalInputDevice  # type: ignore[import-untyped]  # gpiozero ships no type hints (no py.typed, no stubs)

        self.box = box
        self._on_press = on_press
        self._own_clock = clock is None
        self._clock: Clock = MonotonicClock() if clock is None else clock
        # One lock for the box: its presses reach on_press one at a time and in order.
        self._lock = threading.RLock()
        self._devices: list[Any] = []
        self._contacts: list[ButtonContact] = []
        try:
            for button, pin in enumerate(config.pins):
                device = DigitalInputDevice(pin, pull_up=pull_up, bounce_time=None, pin_factory=pin_factory)
                self._devices.append(device)
                contact = ButtonContact(self._clock, partial(self._report, button),
                                        partial(_is_active, device), debounce=debounce,
                                        hold_time=hold_time, lock=self._lock)
                self._contacts.append(contact)
                device.when_activated = partial(contact.edge, True)
                device.when_deactivated = partial(contact.edge, False)
        except BaseException:
            self.close()
            raise

    @property
    def buttons(self) -> int:
        return len(self._contacts)

    @property
    def pressed(self) -> frozenset[int]:
        """The buttons down now, debounced."""
        with self._lock:
            return frozenset(n for n, c in enumerate(self._contacts) if c.down)

    def close(self) -> None:
        """Release the pins and cancel the timers; no press is reported after this."""
        with self._lock:
            for contact in self._contacts:
                contact.close()
            self._contacts.clear()
            devices, self._devices = self._devices, []
        # Outside the lock: closing a pin may wait for its callback thread, which may be
        # waiting for the lock (it will find the contact closed and return).
        for device in devices:
            device.close()
        if self._own_clock and isinstance(self._clock, MonotonicClock):
            self._clock.close()

    def __enter__(self) -> RefereeBox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _report(self, button: int, held: bool) -> None:
        self._on_press(ButtonPress(self.box, button, held))


def _is_active(device: Any) -> bool:
    return bool(device.is_active)


def open_boxes(configs: Iterable[BoxConfig], on_press: Callable[[ButtonPress], None], *,
               clock: Clock | None = None, pin_factory: Any = None) -> list[RefereeBox]:
    """A :class:`RefereeBox` for each configuration, numbered 0, 1 in order, sharing one clock
    (without ``clock``, a :class:`MonotonicClock` whose thread lives as long as the process)."""
    shared: Clock = MonotonicClock() if clock is None else clock
    boxes: list[RefereeBox] = []
    try:
        for n, c in enumerate(configs):
            boxes.append(RefereeBox(c.pins, on_press, box=n, clock=shared, pin_factory=pin_factory,
                                    pull_up=c.pull_up, debounce=c.debounce, hold_time=c.hold_time))
    except BaseException:
        for b in boxes:
            b.close()
        raise
    return boxes
