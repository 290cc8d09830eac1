"""A stand-in for MicroPython's ``machine`` module, for running the firmware on CPython.

``Pin`` objects are wired to one simulated board (``board``): a key matrix without
diodes, where a key joins a row line to a column line. An input pin with a pull-up
reads low when some path of keys (through other lines) joins it to a pin driving low,
so three keys at the corners of a rectangle really do make the fourth read as down.
Output pins keep their level, for the tests to read.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

PinId = int | str


class Board:
    """The wiring: which keys (row pin, column pin) are down, and every pin made."""

    def __init__(self) -> None:
        self.pins: dict[PinId, Pin] = {}
        self.down: set[tuple[PinId, PinId]] = set()
        self.resets = 0

    def press(self, row: PinId, column: PinId) -> None:
        self.down.add((row, column))

    def release(self, row: PinId, column: PinId) -> None:
        self.down.discard((row, column))

    def level(self, pin: Pin) -> int:
        """What an input pin reads: 0 if joined to a pin driving low, else its pull."""
        links: dict[PinId, list[PinId]] = {}
        for row, column in self.down:
            links.setdefault(row, []).append(column)
            links.setdefault(column, []).append(row)
        seen = {pin.id}
        todo = deque([pin.id])
        while todo:
            here = todo.popleft()
            other = self.pins.get(here)
            if other is not None and other.mode == Pin.OUT:
                return other.out
            for there in links.get(here, ()):
                if there not in seen:
                    seen.add(there)
                    todo.append(there)
        return 1 if pin.pull == Pin.PULL_UP else 0

    def outputs(self) -> dict[PinId, int]:
        return {pid: p.out for pid, p in self.pins.items() if p.mode == Pin.OUT}


board = Board()


def new_board() -> Board:
    """A fresh board for a test (pins made before it are forgotten)."""
    global board
    board = Board()
    return board


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, id: PinId, mode: int = -1, pull: int | None = -1, *, value: int | None = None) -> None:
        self.id = id
        self.mode = Pin.IN
        self.pull: int | None = None
        self.out = 0
        board.pins[id] = self
        self.init(mode, pull, value=value)

    def init(self, mode: int = -1, pull: int | None = -1, *, value: int | None = None) -> None:
        if mode != -1:
            self.mode = mode
        if pull != -1:
            self.pull = pull
        if value is not None:
            self.out = 1 if value else 0

    def value(self, value: int | bool | None = None) -> int | None:
        if value is None:
            return self.out if self.mode == Pin.OUT else board.level(self)
        self.out = 1 if value else 0
        return None

    __call__ = value

    def on(self) -> None:
        self.out = 1

    def off(self) -> None:
        self.out = 0

    def __repr__(self) -> str:
        return f"Pin({self.id!r})"


def reset() -> None:
    board.resets += 1
    raise SystemExit("machine.reset()")


def unique_id() -> bytes:
    return bytes.fromhex("e6614c311b7d2a2c")


def press_keys(keys: Iterable[int], rows: tuple[PinId, ...], columns: tuple[PinId, ...]) -> None:
    """Hold down exactly ``keys`` (indices row * len(columns) + column)."""
    board.down = {(rows[k // len(columns)], columns[k % len(columns)]) for k in keys}
