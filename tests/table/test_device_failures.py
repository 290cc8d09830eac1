"""No device stops the scoring (issue 17, finding 3): a GPIO chip that cannot be had, an SPI
device that fails, a serial port that is not there. Each is reported ``failed: <reason>`` (or
``lost``) on the devices topic and on the boards, retried, and the table keeps scoring.

Before, a failing GPIO chip raised gpiozero's ``BadPinFactory`` out of ``open_table`` and
``cueboard run`` exited: under systemd, a restart every 3 s with the keypad and boards down.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from gpiozero.exc import BadPinFactory
from gpiozero.pins.mock import MockFactory

from cueboard.boards import Board
from cueboard.hw.clock import ManualClock
from cueboard.hw.display_config import parse_display
from cueboard.hw.display_devices import open_device
from cueboard.table.referee_boxes import RETRY_FIRST
from tests.helpers.daemon import StillOutput, table_config
from tests.table.test_reliability import KEYMAP, PINS, Daemon

BLACK = 6  # referee-box-12.toml: button 6 is BLACK


class NoChip(MockFactory):  # type: ignore[misc]
    """gpiozero's mock pins, but the chip cannot be opened until ``fixed``: what lgpio says when
    /dev/gpiochip0 is missing or not allowed."""

    def __init__(self) -> None:
        super().__init__()
        self.fixed = False
        self.tries = 0

    def pin(self, spec: Any, **kwargs: Any) -> Any:
        self.tries += 1
        if not self.fixed:
            raise BadPinFactory("Unable to load any default pin factory! (gpiochip_open: Permission denied)")
        return super().pin(spec, **kwargs)


class Flashes(StillOutput):
    def __init__(self) -> None:
        self.reasons: list[str | None] = []

    def show(self, state: Any, clock: float | None = None, now: float | None = None) -> bool:
        return True

    def flash(self, now: float | None = None, reason: str | None = None) -> None:
        self.reasons.append(reason)


def press(pins: MockFactory, clock: ManualClock, button: int) -> None:
    pin = pins.pin(PINS[0][button])
    pin.drive_low()
    clock.advance(0.05)
    pin.drive_high()
    clock.advance(0.05)


def test_a_gpio_chip_that_cannot_be_had_is_reported_and_retried_while_scoring_goes_on(tmp_path: Path) -> None:
    config = table_config(tmp_path, referee_box=[{"pins": PINS[0], "keymap": str(KEYMAP)}])
    pins = NoChip()
    clock = ManualClock(start=1000.0)
    board = Flashes()
    with Daemon(config, boards=[board], pin_factory=pins, button_clock=clock, control=False) as daemon:
        health = daemon.on_engine(daemon.table.device_health)
        assert health["buttons"].startswith("failed: BadPinFactory") and "Permission denied" in health["buttons"]
        assert any(r and r.startswith("buttons: failed") for r in board.reasons)  # on the board too
        assert daemon.send({"type": "pot", "balls": ["red"]})["ok"]  # the desk still scores
        tries = pins.tries
        clock.advance(RETRY_FIRST)  # the first retry, still failing: the next one twice as late
        assert pins.tries > tries
        pins.fixed = True
        clock.advance(RETRY_FIRST)
        assert daemon.on_engine(daemon.table.device_health)["buttons"] == "failed: BadPinFactory: Unable to load any " \
            "default pin factory! (gpiochip_open: Permission denied); the service's user must be in the group " \
            "gpio (systemd/install.sh puts it there)"
        clock.advance(RETRY_FIRST)  # 2 s after the last try: open now
        assert daemon.on_engine(daemon.table.device_health)["buttons"] == "ok"
        press(pins, clock, BLACK)  # the referee's black after the desk's red
        daemon.on_engine(lambda: None)
        assert daemon.state()["sides"][0]["score"] == 8


def test_an_spi_device_that_fails_is_reported_and_retried_while_scoring_goes_on(tmp_path: Path) -> None:
    config = table_config(tmp_path)
    failing = [True]

    def device(display: Any) -> Any:
        if failing[0]:
            raise FileNotFoundError(2, "No such file or directory", "/dev/spidev0.0")
        return open_device(display)

    # The daemon's loop drives the board's retries (at its next_deadline, on time.monotonic).
    board = Board(parse_display({"device": "dummy", "width": 64, "height": 16}), device_factory=device)
    with Daemon(config, boards=[board], control=False) as daemon:
        assert daemon.on_engine(daemon.table.device_health)["matrix"].startswith(
            "failed: FileNotFoundError") and "/dev/spidev0.0" in board.health
        assert daemon.send({"type": "pot", "balls": ["red"]})["ok"]
        failing[0] = False
        deadline = time.monotonic() + 30  # the board tries again 1 s after it failed
        while daemon.on_engine(lambda: board.health) != "ok" and time.monotonic() < deadline:
            threading.Event().wait(0.05)  # not a wall-clock limit: a poll step
        assert board.health == "ok"
        assert daemon.send({"type": "no_pot"})["ok"]
        assert daemon.on_engine(daemon.table.device_health)["matrix"] == "ok"


def test_a_keypad_port_that_is_not_there_is_lost_while_scoring_goes_on(tmp_path: Path) -> None:
    keymap = Path(__file__).resolve().parents[2] / "examples" / "keymaps" / "keypad-4x5.toml"
    config = table_config(tmp_path, keypad={"port": str(tmp_path / "no-such-port"), "keymap": str(keymap)})
    with Daemon(config, boards=[], control=False) as daemon:
        assert daemon.send({"type": "pot", "balls": ["red"]})["ok"]
        # The link's thread tries the port once it runs: wait for its first try (its health
        # callback republishes the devices), as the other tests here wait for a retry.
        deadline = time.monotonic() + 30
        while daemon.on_engine(daemon.table.device_health)["keypad"] == "lost" and time.monotonic() < deadline:
            threading.Event().wait(0.05)  # not a wall-clock limit: a poll step
        health = daemon.on_engine(daemon.table.device_health)["keypad"]
        # Which path was tried, and what to do (issue 24: a missing keypad was never said).
        assert health.startswith(f"lost: {tmp_path / 'no-such-port'} cannot be opened (") and \
            "plug the keypad in" in health and "keypad.port" in health, health
        assert daemon.state()["seq"] == 1
