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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..errors import ConfigError
from ..settings import Required, Section, key_path, refusal
from .clock import Clock, MonotonicClock
from .debounce import DEBOUNCE, HOLD_TIME, ButtonContact
from .keys import ButtonPress

Pin = int | str
"""A GPIO pin as gpiozero names it: 17, "GPIO17", "BOARD11"."""


class BoxConfigError(ConfigError):
    """A referee box's configuration is wrong; the message names the key (``referee_box[0].pins: ...``)."""


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
        from gpiozero import DigitalInputDevice  # type: ignore[import-untyped]

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


# -- configuration ----------------------------------------------------------------------


@dataclass(frozen=True)
class BoxConfig:
    """One ``[[referee_box]]`` table of the configuration::

        [[referee_box]]
        pins = [5, 6, 13, 19, 26, 12, 16, 20, 21, 4, 17, 27]   # button 0, 1, ... (BCM numbers)
        pull_up = true        # the buttons connect the pin to ground
        debounce = 0.02       # seconds released before a release counts
        hold_time = 0.8       # seconds down before a press is held
    """

    pins: tuple[Pin, ...]
    pull_up: bool = True
    debounce: float = DEBOUNCE
    hold_time: float = HOLD_TIME

    KEYS = ("pins", "pull_up", "debounce", "hold_time")

    def check(self, where: str) -> None:
        """BoxConfigError naming the key if this box cannot work."""
        s = Section({key: getattr(self, key) for key in self.KEYS}, where, error=BoxConfigError,
                    kind="a referee box")
        pins = s.getlist("pins", of="GPIO pins")
        if not pins:
            raise s.fail("pins", "lists no pin (one a button, button 0 first)")
        seen: set[Pin] = set()
        for n, pin in enumerate(pins):
            number = isinstance(pin, int) and not isinstance(pin, bool) and pin >= 0
            if not (number or (isinstance(pin, str) and pin)):
                raise s.fail(f"pins[{n}]", f"must be a GPIO number (from 0) or a gpiozero pin name such as "
                             f"\"GPIO17\", not {pin!r}")
            if pin in seen:
                raise s.fail(f"pins[{n}]", f"pin {pin!r} is listed twice")
            seen.add(pin)
        s.getbool("pull_up")
        debounce = s.getfloat("debounce", above=0, unit="seconds")
        hold_time = s.getfloat("hold_time", above=0, unit="seconds")
        if not hold_time > debounce:
            raise s.fail("hold_time", f"must be longer than debounce ({debounce:g} s), not {hold_time:g}")

    @classmethod
    def from_toml(cls, table: Any, where: str = "referee_box") -> BoxConfig:
        """A box from its decoded TOML table; BoxConfigError naming the key if it is wrong."""
        s = Section(table, where, error=BoxConfigError, kind="a referee box")
        pins = s.getlist("pins", Required("one GPIO pin a button, button 0 first"), of="GPIO pins")
        config = cls(pins=tuple(pins), pull_up=s.get("pull_up", True), debounce=s.get("debounce", DEBOUNCE),
                     hold_time=s.get("hold_time", HOLD_TIME))
        s.check_unused()
        config.check(where)
        return config


def parse_boxes(value: Any, where: str = "referee_box") -> tuple[BoxConfig, ...]:
    """The ``[[referee_box]]`` array of tables (or a single table): one or two boxes a table."""
    tables = [value] if isinstance(value, Mapping) else value
    if not isinstance(tables, list) or not tables:
        raise BoxConfigError(refusal(where, f"list one or two referee boxes as [[{where}]] tables"))
    configs = tuple(BoxConfig.from_toml(t, f"{where}[{i}]") for i, t in enumerate(tables))
    owner: dict[Pin, int] = {}
    for i, config in enumerate(configs):
        for n, pin in enumerate(config.pins):
            if pin in owner:
                raise BoxConfigError(refusal(key_path(f"{where}[{i}]", f"pins[{n}]"),
                                             f"pin {pin!r} is also a pin of {where}[{owner[pin]}]"))
            owner[pin] = i
    return configs


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
