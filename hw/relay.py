"""The table light's relay and its wall switch on GPIO (docs/hardware.md, "The table's light").

The relay is a gpiozero ``DigitalOutputDevice`` opened *at the level it must keep*
(``initial_value``): a daemon restarted mid-match drives the pin on from the moment it opens
it, never off first. The wall switch is a ``DigitalInputDevice`` (a plain latching switch to
ground, the internal pull-up on); each of its edges calls ``on_switch`` with its new position.
gpiozero is imported here, when a relay opens, so that ``cueboard.hw`` imports without it.

>>> from gpiozero.pins.mock import MockFactory
>>> factory = MockFactory()
>>> relay = Relay(17, active_high=False, initial=True, pin_factory=factory)
>>> factory.pin(17).state            # active low: on is a low pin
False
>>> relay.set(False); factory.pin(17).state
True
>>> relay.close()
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .box_config import Pin

__all__ = ["Relay"]


class Relay:
    """The light's output, and the wall switch's input when there is one."""

    def __init__(self, pin: Pin, *, active_high: bool, initial: bool, pin_factory: Any = None,
                 switch: Pin | None = None, on_switch: Callable[[bool], None] | None = None) -> None:
        # gpiozero ships no type hints (no py.typed, no stubs)
        from gpiozero import DigitalInputDevice, DigitalOutputDevice  # type: ignore[import-untyped]

        self._output: Any = DigitalOutputDevice(pin, active_high=active_high, initial_value=initial,
                                                pin_factory=pin_factory)
        self._switch: Any = None
        if switch is not None:
            try:
                # A wall switch bounces for a few ms; 50 ms is far below a person's flick and
                # above any contact's bounce.
                self._switch = DigitalInputDevice(switch, pull_up=True, bounce_time=0.05, pin_factory=pin_factory)
            except BaseException:
                self._output.close()
                raise
            if on_switch is not None:
                self._switch.when_activated = lambda: on_switch(True)
                self._switch.when_deactivated = lambda: on_switch(False)

    @property
    def on(self) -> bool:
        return bool(self._output.value)

    @property
    def switch_on(self) -> bool | None:
        """The wall switch's position (closed: on), or None without one."""
        return None if self._switch is None else bool(self._switch.value)

    def set(self, on: bool) -> None:
        self._output.value = on

    def close(self) -> None:
        """Release the pins. The output is left as it is (gpiozero's close does not drive it);
        docs/hardware.md says what a Pi does with a released pin."""
        if self._switch is not None:
            self._switch.close()
        self._output.close()
