"""The ``[[referee_box]]`` configuration: which GPIO pins a box's buttons are on, and how they
are read. Apart from :mod:`cueboard.hw.buttons`, which opens them, so that checking a
configuration never touches a pin.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cueboard.common.errors import BoxConfigError
from cueboard.common.settings import Required, Section, key_path, refusal

from .debounce import DEBOUNCE, HOLD_TIME
from .pins import gpio_number

__all__ = ["BoxConfig", "BoxConfigError", "Pin", "parse_boxes"]

Pin = int | str
"""A GPIO pin as gpiozero names it: 17, "GPIO17", "BOARD11"."""


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
        seen: set[int] = set()
        for n, pin in enumerate(pins):
            number = isinstance(pin, int) and not isinstance(pin, bool) and pin >= 0
            if not (number or (isinstance(pin, str) and pin)):
                raise s.fail(f"pins[{n}]", f"must be a GPIO number (from 0) or a gpiozero pin name such as "
                             f"\"GPIO17\", not {pin!r}")
            try:
                # A pin the Pi does not have is refused here, at start-up, not retried for ever.
                gpio = gpio_number(pin)
            except ValueError as exc:
                raise s.fail(f"pins[{n}]", str(exc)) from None
            if gpio in seen:
                raise s.fail(f"pins[{n}]", f"pin {pin!r}{_gpio(pin, gpio)} is listed twice")
            seen.add(gpio)
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


def _gpio(pin: Pin, gpio: int) -> str:
    """`` (GPIO 17)`` after a pin given by name, nothing after a GPIO number."""
    return "" if pin == gpio else f" (GPIO {gpio})"


def parse_boxes(value: Any, where: str = "referee_box") -> tuple[BoxConfig, ...]:
    """The ``[[referee_box]]`` array of tables (or a single table): one or two boxes a table."""
    tables = [value] if isinstance(value, Mapping) else value
    if not isinstance(tables, list) or not tables:
        raise BoxConfigError(refusal(where, f"list one or two referee boxes as [[{where}]] tables"))
    configs = tuple(BoxConfig.from_toml(t, f"{where}[{i}]") for i, t in enumerate(tables))
    owner: dict[int, int] = {}
    for i, config in enumerate(configs):
        for n, pin in enumerate(config.pins):
            gpio = gpio_number(pin)
            if gpio in owner:
                raise BoxConfigError(refusal(key_path(f"{where}[{i}]", f"pins[{n}]"),
                                             f"pin {pin!r}{_gpio(pin, gpio)} is also a pin of {where}[{owner[gpio]}]"))
            owner[gpio] = i
    return configs


