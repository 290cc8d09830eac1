"""Opening the table's hardware: the one place above ``cueboard.hw`` that does.

The daemon and the boards see devices only through their interfaces
(:class:`~cueboard.boards.board.Device`, the daemon's seams); the service, the demo,
``cueboard render`` and the hardware check open the real ones here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from cueboard.boards.board import Board, DeviceFactory
from cueboard.hw.clock import Clock
from cueboard.hw.display_config import DisplayConfig
from cueboard.hw.display_devices import open_device
from cueboard.hw.relay import Relay
from cueboard.table.light_config import LightConfig

__all__ = ["open_board", "open_boards", "open_relay"]


def open_board(config: DisplayConfig, *, time_source: Clock | None = None,
               device_factory: DeviceFactory = open_device, schedule: bool | None = None) -> Board:
    """The board ``config`` describes, its device open (or failed and being retried: see
    :attr:`Board.health`). Without ``time_source`` the caller drives :meth:`Board.tick` at
    :meth:`Board.next_deadline`; with one, the board schedules its ticks on it (see
    :mod:`cueboard.boards.board`; ``schedule=False`` to drive them yourself all the same)."""
    return Board(config, time_source=time_source, device_factory=device_factory, schedule=schedule)


def open_boards(configs: Iterable[DisplayConfig], *, time_source: Clock | None = None) -> list[Board]:
    """A board for each configuration (several boards on one table), sharing ``time_source``."""
    return [open_board(c, time_source=time_source) for c in configs]


def open_relay(config: LightConfig, initial: bool, on_switch: Callable[[bool], None], *,
               pin_factory: Any = None) -> Relay:
    """The table light's relay, driven at ``initial`` from the moment it opens, and its wall
    switch calling ``on_switch`` (:class:`cueboard.table.light.TableLight` opens it at start)."""
    return Relay(config.pin, active_high=config.active_high, initial=initial, pin_factory=pin_factory,
                 switch=config.switch, on_switch=on_switch)
