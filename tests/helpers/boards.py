"""Stand-ins at the lowest levels of the LED boards: what luma's devices write to.

- :class:`SerialRecorder`: a serial interface as luma's ``spi`` is one (``data``,
  ``command``, ``cleanup``), recording every write; it can be told to fail like spidev.
- :class:`FakeSpidev`: a ``spidev.SpiDev`` for luma's real ``spi`` class to open and write.
- :class:`FakeWs281x`: the ``_rpi_ws281x`` module luma's ``ws2812`` drives.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from cueboard.boards import Board
from cueboard.boards.shown import Shown
from cueboard.engine import Match
from cueboard.hw.clock import ManualClock
from cueboard.hw.display_config import parse_display
from cueboard.hw.display_devices import open_device
from cueboard.table.devices import open_board

GOLDEN_STATES: dict[str, list[dict[str, Any]]] = json.loads(
    (Path(__file__).parents[1] / "golden" / "states.json").read_text(encoding="utf-8"))
"""``tests/golden/states.json``: each game's named states (``{"name", "state", "clock"}``)."""


def golden_state(game: str, name: str) -> dict[str, Any]:
    """A copy of the golden state ``name`` of ``game``, as JSON (to change before reading)."""
    return copy.deepcopy(next(c["state"] for c in GOLDEN_STATES[game] if c["name"] == name))


def shown(state: dict[str, Any], **changes: Any) -> Shown:
    """What a board draws of the JSON ``state`` with ``changes`` to its fields, read strictly."""
    return Shown.from_json({**state, **changes})


def simple_state(a: int = 1, b: int = 2) -> dict[str, Any]:
    """A snooker state of two short names, A and B, scoring ``a`` and ``b``, nobody at the table."""
    state = Match.from_json({"type": "match", "game": "snooker", "sides": ["A", "B"]}).state().to_json()
    sides = state["sides"]
    assert isinstance(sides, list) and isinstance(sides[0], dict) and isinstance(sides[1], dict)
    sides[0]["score"], sides[1]["score"] = a, b
    return {**state, "striker": None, "player": None}


def golden(game: str, name: str, **changes: Any) -> Shown:
    """What a board draws of the golden state ``name`` of ``game``, with ``changes``."""
    return shown(golden_state(game, name), **changes)


class SerialRecorder:
    def __init__(self) -> None:
        self.writes: list[list[int]] = []
        self.commands: list[tuple[int, ...]] = []
        self.failing: OSError | None = None
        self.closed = 0

    def data(self, data: Any) -> None:
        if self.failing is not None:
            raise self.failing
        self.writes.append(list(data))

    def command(self, *cmd: int) -> None:
        if self.failing is not None:
            raise self.failing
        self.commands.append(cmd)

    def cleanup(self) -> None:
        self.closed += 1

    def take(self) -> list[list[int]]:
        """The writes since the last ``take``."""
        out, self.writes = self.writes, []
        return out

    @property
    def sent(self) -> int:
        return sum(len(w) for w in self.writes)


class FakeSpidev:
    """What luma's ``spi`` needs of ``spidev.SpiDev``."""

    def __init__(self) -> None:
        self.opened: tuple[int, int] | None = None
        self.max_speed_hz = 0
        self.mode = 0
        self.written: list[list[int]] = []
        self.closed = False

    def open(self, port: int, device: int) -> None:
        self.opened = (port, device)

    def writebytes(self, data: list[int]) -> None:
        self.written.append(list(data))

    def close(self) -> None:
        self.closed = True


class FakeWs281x:
    """The functions of ``_rpi_ws281x`` that luma's ``ws2812`` calls, keeping the LEDs' colours."""

    WS2811_STRIP_GRB = 0x00081000

    def __init__(self) -> None:
        self.leds: dict[int, int] = {}
        self.renders = 0
        self.brightness = 0
        self.count = 0

    def new_ws2811_t(self) -> object:
        return object()

    def ws2811_channel_get(self, leds: object, channel: int) -> int:
        return channel

    def ws2811_channel_t_count_set(self, channel: int, count: int) -> None:
        if channel == 0:
            self.count = count

    def ws2811_channel_t_gpionum_set(self, channel: int, pin: int) -> None:
        pass

    def ws2811_channel_t_invert_set(self, channel: int, invert: int) -> None:
        pass

    def ws2811_channel_t_brightness_set(self, channel: int, value: int) -> None:
        if channel == 0:
            self.brightness = value

    def ws2811_channel_t_strip_type_set(self, channel: int, strip: int) -> None:
        pass

    def ws2811_t_freq_set(self, leds: object, freq: int) -> None:
        pass

    def ws2811_t_dmanum_set(self, leds: object, dma: int) -> None:
        pass

    def ws2811_init(self, leds: object) -> int:
        return 0

    def ws2811_led_set(self, channel: int, index: int, colour: int) -> None:
        self.leds[index] = colour

    def ws2811_render(self, leds: object) -> int:
        self.renders += 1
        return 0

    def ws2811_fini(self, leds: object) -> None:
        pass

    def delete_ws2811_t(self, leds: object) -> None:
        pass


def max7219_board(table: dict[str, Any], serial: SerialRecorder, clock: ManualClock, **kwargs: Any) -> Board:
    """A board on a real luma MAX7219 device class writing to ``serial``."""
    config = parse_display({"device": "max7219", **table})
    return open_board(config, time_source=clock, device_factory=lambda c: open_device(c, serial=serial),
                      **kwargs)
