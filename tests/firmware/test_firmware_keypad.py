"""The keypad firmware on CPython with a fake ``machine`` (tests/firmware/fake_machine.py): matrix
scanning and ghosting, debounce and holds on the test's clock, the buzzer and LEDs, and
the whole keypad talking to the host's link over a real pseudo-terminal."""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import select
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

from tests.firmware import fake_machine
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.helpers.keypad import FIRMWARE, WAIT, HostRecorder, PtyPort, fresh_firmware_module

from cueboard.hw.keys import KeyPress

MATRIX = fresh_firmware_module("matrix")  # pure logic: no machine needed
MODULES = ("keyproto", "matrix", "indicator", "keypad", "keypad_config", "main")


@pytest.fixture
def fw(monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The firmware's modules, imported as on the board (by their plain names) against a
    fresh fake board."""
    fake_machine.new_board()
    monkeypatch.setitem(sys.modules, "machine", fake_machine)
    for name in MODULES:
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.syspath_prepend(str(FIRMWARE))
    modules = {name: importlib.import_module(name) for name in MODULES if name != "main"}
    yield SimpleNamespace(**modules)
    for name in MODULES:
        sys.modules.pop(name, None)


def press(fw: SimpleNamespace, *keys: int) -> None:
    """Hold down exactly ``keys`` on the board wired as keypad_config says."""
    config = fw.keypad_config
    fake_machine.press_keys(keys, config.ROWS, config.COLUMNS)


# -- scanning ---------------------------------------------------------------------------

def test_each_key_reads_as_itself(fw: SimpleNamespace) -> None:
    config = fw.keypad_config
    matrix = fw.matrix.Matrix(fake_machine.Pin, config.ROWS, config.COLUMNS)
    assert matrix.size == 20
    assert matrix.scan() == [False] * 20
    for key in range(20):
        press(fw, key)
        assert matrix.scan() == [k == key for k in range(20)]


def test_two_keys_read_as_two(fw: SimpleNamespace) -> None:
    matrix = fw.matrix.Matrix(fake_machine.Pin, fw.keypad_config.ROWS, fw.keypad_config.COLUMNS)
    for pair in ((0, 1), (0, 4), (5, 18), (3, 19)):
        press(fw, *pair)
        down = matrix.scan()
        assert down is not None and [k for k in range(20) if down[k]] == sorted(pair)


def test_three_corners_of_a_rectangle_are_not_believed(fw: SimpleNamespace) -> None:
    # Keys 0, 1 and 4 (rows 0-1, columns 0-1): without diodes key 5 reads down too.
    matrix = fw.matrix.Matrix(fake_machine.Pin, fw.keypad_config.ROWS, fw.keypad_config.COLUMNS)
    press(fw, 0, 1, 4)
    assert matrix.scan() is None
    press(fw, 0, 1, 4, 5)
    assert matrix.scan() is None
    press(fw, 0, 5)  # a diagonal is no rectangle
    assert matrix.scan() is not None


def test_only_the_driven_row_is_an_output(fw: SimpleNamespace) -> None:
    config = fw.keypad_config
    matrix = fw.matrix.Matrix(fake_machine.Pin, config.ROWS, config.COLUMNS)
    matrix.scan()
    assert all(fake_machine.board.pins[row].mode == fake_machine.Pin.IN for row in config.ROWS)


# -- debounce and holds ---------------------------------------------------------------

def keys(now: int = 0, down: list[bool] | None = None) -> Any:
    """Four keys: press_ms 5, debounce_ms 20, hold_ms 800."""
    return MATRIX.Keys(4, 5, 20, 800, now, down)


def reading(*down: int) -> list[bool]:
    return [k in down for k in range(4)]


def play(k: Any, script: Sequence[tuple[int, list[bool] | None]]) -> list[tuple[int, int, bool]]:
    """Feed readings at the given times; (time, key, held) for each report."""
    return [(t, i, held) for t, down in script for i, held in k.update(down, t)]


def test_a_press_is_reported_once_it_has_read_down_for_press_ms() -> None:
    k = keys()
    assert play(k, [(t, reading(2)) for t in range(0, 10)] + [(t, reading()) for t in range(10, 60)]) == [
        (5, 2, False)]


def test_glitches_shorter_than_press_ms_are_nothing() -> None:
    k = keys()
    script = []
    for t in range(0, 1000):
        script.append((t, reading(1) if t % 7 < 4 else reading()))  # down 4 ms, up 3 ms, forever
    assert play(k, script) == []


def test_bounce_on_press_and_release_makes_one_press() -> None:
    k = keys()
    bounce_in = [(t, reading(0) if t % 2 else reading()) for t in range(0, 8)]
    held = [(t, reading(0)) for t in range(8, 200)]
    bounce_out = [(t, reading() if t % 3 else reading(0)) for t in range(200, 260)]
    quiet = [(t, reading()) for t in range(260, 400)]
    assert play(k, bounce_in + held + bounce_out + quiet) == [(12, 0, False)]
    assert not k.is_down(0)


def test_a_hold_is_reported_once_more_after_hold_ms() -> None:
    k = keys()
    script = [(t, reading(3)) for t in range(0, 2000, 10)] + [(t, reading()) for t in range(2000, 2100, 10)]
    assert play(k, script) == [(10, 3, False), (800, 3, True)]


def test_jostled_while_held_is_still_one_press() -> None:
    k = keys()
    script = [(t, reading() if t in (300, 301, 302, 600) else reading(1)) for t in range(0, 1000)]
    assert play(k, script) == [(5, 1, False), (800, 1, True)]


def test_a_release_pending_at_hold_time_is_not_held_unless_it_was_a_bounce() -> None:
    k = keys()
    script = [(t, reading(2) if t < 795 or t >= 810 else reading()) for t in range(0, 900)]
    assert play(k, script) == [(5, 2, False), (810, 2, True)]
    k = keys()
    script = [(t, reading(2) if t < 795 else reading()) for t in range(0, 900)]
    assert play(k, script) == [(5, 2, False)]


def test_a_key_down_at_start_is_nothing_until_released() -> None:
    k = keys(down=reading(0))
    assert play(k, [(t, reading(0)) for t in range(0, 2000, 10)]) == []
    released = [(t, reading()) for t in range(2000, 2100, 10)]
    assert play(k, released + [(t, reading(0)) for t in range(2100, 2200)]) == [(2105, 0, False)]


def test_an_ambiguous_scan_changes_nothing() -> None:
    k = keys()
    script = [(t, None if t % 3 == 0 else reading(1)) for t in range(0, 100)]
    assert play(k, script) == []


@settings(max_examples=300)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(1, 4)), max_size=200))
def test_a_bounce_storm_never_makes_a_press(storm: list[tuple[int, int]]) -> None:
    # Any key flickering down for less than press_ms at a time, however often.
    k = keys()
    t = 0
    events = []
    for key, ms in storm:
        events += k.update(reading(key), t)
        t += ms
        events += k.update(reading(key), t - 1) if ms > 1 else []
        events += k.update(reading(), t)
        t += 1
    events += k.update(reading(), t + 1000)
    assert events == []


@settings(max_examples=300)
@given(st.lists(st.tuples(st.integers(0, 3), st.booleans(), st.integers(1, 50)), max_size=150))
def test_reports_always_make_sense(script: list[tuple[int, bool, int]]) -> None:
    # Whatever the readings: a held report follows a press of the same key, at most once.
    k = keys()
    down: set[int] = set()
    t = 0
    last: dict[int, bool] = {}
    for key, is_down, ms in script:
        (down.add if is_down else down.discard)(key)
        for now in range(t, t + ms):
            for index, held in k.update(reading(*down), now):
                if held:
                    assert last.get(index) is False
                last[index] = held
        t += ms


# -- buzzer and LEDs --------------------------------------------------------------------

def outputs_at(fw: SimpleNamespace, indicator: Any, now: int, alive: bool = True) -> dict[str, int]:
    indicator.update(now, alive)
    config = fw.keypad_config
    pins = fake_machine.board.pins
    return {"buzzer": pins[config.BUZZER].out, "green": pins[config.LED_ACCEPTED].out,
            "red": pins[config.LED_REFUSED].out, "status": pins[config.LED_STATUS].out}


def all_lights(fw: SimpleNamespace) -> Any:
    c = fw.keypad_config
    return fw.indicator.Indicator(fake_machine.Pin, c.BUZZER, c.LED_ACCEPTED, c.LED_REFUSED, c.LED_STATUS)


def test_accepted_is_a_short_beep_and_green(fw: SimpleNamespace) -> None:
    indicator = all_lights(fw)
    indicator.show(True, 1000)
    assert outputs_at(fw, indicator, 1000) == {"buzzer": 1, "green": 1, "red": 0, "status": 1}
    assert outputs_at(fw, indicator, 1060) == {"buzzer": 0, "green": 1, "red": 0, "status": 1}
    assert outputs_at(fw, indicator, 1300) == {"buzzer": 0, "green": 0, "red": 0, "status": 1}


def test_refused_is_two_beeps_and_red(fw: SimpleNamespace) -> None:
    indicator = all_lights(fw)
    indicator.show(False, 0)
    beeps = [outputs_at(fw, indicator, t)["buzzer"] for t in range(0, 500, 50)]
    assert beeps == [1, 1, 1, 0, 0, 1, 1, 1, 0, 0]
    assert outputs_at(fw, indicator, 599)["red"] == 1 and outputs_at(fw, indicator, 600)["red"] == 0


def test_the_status_led_blinks_while_the_host_is_away(fw: SimpleNamespace) -> None:
    c = fw.keypad_config
    indicator = fw.indicator.Indicator(fake_machine.Pin, None, None, None, c.LED_STATUS)
    status = fake_machine.board.pins[c.LED_STATUS]
    seen = []
    for t in (0, 499, 500, 999, 1000):
        indicator.update(t, False)
        seen.append(status.out)
    assert seen == [1, 1, 0, 0, 1]
    indicator.update(500, True)
    assert status.out == 1


# -- the whole keypad -------------------------------------------------------------------

class MemoryPort:
    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.incoming = b""

    def read(self) -> bytes:
        data, self.incoming = self.incoming, b""
        return data

    def write(self, frame: bytes) -> None:
        self.written.append(frame)


def test_a_full_queue_refuses_at_the_keypad(fw: SimpleNamespace) -> None:
    port = MemoryPort()
    keypad = fw.keypad.build(fake_machine.Pin, fw.keypad_config, port, 0, 0x1234)
    now = 0
    for _ in range(fw.keyproto.QUEUE_LIMIT + 1):  # no host takes them
        press(fw, 6)
        for _ in range(10):
            now += 1
            keypad.step(now)
        press(fw)
        for _ in range(30):
            now += 1
            keypad.step(now)
    assert keypad.link.pending() == fw.keyproto.QUEUE_LIMIT
    assert keypad.refused_locally == 1
    assert fake_machine.board.pins[fw.keypad_config.LED_REFUSED].out == 1


def test_the_heartbeat_tells_the_matrix_and_firmware(fw: SimpleNamespace) -> None:
    port = MemoryPort()
    keypad = fw.keypad.build(fake_machine.Pin, fw.keypad_config, port, 0, 0x1234)
    keypad.step(0)
    (frame,) = fw.keyproto.FrameDecoder().feed(port.written[0])
    assert frame.kind == fw.keyproto.KEYPAD_BEAT
    assert fw.keyproto.parse_keypad_beat(frame.payload) == (5, 4, fw.keypad.FIRMWARE)


def test_the_clock_does_not_wrap(fw: SimpleNamespace) -> None:
    period = 1 << 30
    ticks = [period - 30]
    clock = fw.keypad.Clock(lambda: ticks[0], lambda a, b: ((a - b + period // 2) % period) - period // 2)
    seen = []
    for _ in range(10):
        ticks[0] = (ticks[0] + 7) % period
        seen.append(clock.now())
    assert seen == [7 * n for n in range(1, 11)]


def test_usb_serial_reads_what_is_waiting(fw: SimpleNamespace) -> None:
    class Stdin:
        buffer = io.BytesIO(b":0102\n")

    class Poll:
        def register(self, stream: object, events: int) -> None:
            pass

        def poll(self, timeout: int) -> list[int]:
            return [1] if Stdin.buffer.tell() < 6 else []

    select_module = SimpleNamespace(poll=Poll, POLLIN=1)
    out = SimpleNamespace(buffer=io.BytesIO())
    port = fw.keypad.UsbSerial(Stdin, out, select_module)
    assert port.read() == b":0102\n" and port.read() == b""
    port.write(b":00\n")
    assert out.buffer.getvalue() == b":00\n"


def run_main(fw: SimpleNamespace, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    started: list[str] = []
    monkeypatch.setattr(fw.keypad, "run", lambda: started.append("run"))
    sys.modules.pop("main", None)
    importlib.import_module("main")
    return started


def test_main_runs_the_keypad(fw: SimpleNamespace, monkeypatch: pytest.MonkeyPatch) -> None:
    assert run_main(fw, monkeypatch) == ["run"]


def test_main_stops_at_the_repl_when_the_safe_mode_key_is_held(fw: SimpleNamespace,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    press(fw, fw.keypad_config.SAFE_MODE_KEY)
    assert run_main(fw, monkeypatch) == []
    assert "safe mode" in capsys.readouterr().out


class MasterPort:
    """The keypad's USB serial, as the master side of a pseudo-terminal."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        os.set_blocking(fd, False)

    def read(self) -> bytes:
        try:
            return os.read(self.fd, 4096)
        except (BlockingIOError, OSError):
            return b""

    def write(self, frame: bytes) -> None:
        with contextlib.suppress(BlockingIOError):
            os.write(self.fd, frame)


class Board:
    """The firmware running on the test's clock, its port a pseudo-terminal the host has."""

    def __init__(self, fw: SimpleNamespace, port: PtyPort) -> None:
        self.fw = fw
        self.fd = port.master
        self.now = 0
        self.keypad = fw.keypad.build(fake_machine.Pin, fw.keypad_config, MasterPort(port.master), 0, 0x5EED)

    def step(self, ms: int = 2) -> None:
        self.now += ms
        self.keypad.step(self.now)
        select.select([self.fd], [], [], 0.002)  # at most 2 ms for the host's frames

    def run_until(self, done: Callable[[], bool], timeout: float = WAIT) -> bool:
        """Step the board until ``done()``; ``timeout`` (wall clock) is only a safety net: the
        host runs on the board's clock (linked_board), so no timer of either end races it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.step()
            if done():
                return True
        return False

    def run_for(self, ms: int) -> None:
        for _ in range(ms // 2):
            self.step()

    def tap(self, *keys: int, ms: int = 60) -> None:
        press(self.fw, *keys)
        self.run_for(ms)
        press(self.fw)
        self.run_for(40)


@pytest.fixture
def linked_board(fw: SimpleNamespace, tmp_path: Path) -> Iterator[tuple[Board, HostRecorder]]:
    port = PtyPort(tmp_path)
    board = Board(fw, port)
    # The host's timers (heartbeats, retransmissions, "keypad silent") run on the board's
    # clock too, which moves only when the test steps the board: a busy machine slows the
    # test down, it never makes one end give up on the other.
    host = HostRecorder(port.path, clock=lambda: board.now / 1000)
    try:
        with host.link:
            assert board.run_until(lambda: board.keypad.link.peer_alive(board.now)
                                   and host.link.health == "ok")
            yield board, host
    finally:
        os.close(port.master)
        port.close()


def test_a_key_pressed_on_the_board_reaches_the_host(linked_board: tuple[Board, HostRecorder]) -> None:
    board, host = linked_board
    board.tap(6)
    board.tap(19)
    assert board.run_until(lambda: host.presses.qsize() >= 2)
    assert host.take(2) == [KeyPress(6), KeyPress(19)]
    assert board.run_until(lambda: board.keypad.link.pending() == 0)
    assert host.left() == []


def test_a_held_key_reaches_the_host_twice(linked_board: tuple[Board, HostRecorder]) -> None:
    board, host = linked_board
    board.tap(0, ms=900)
    assert board.run_until(lambda: host.presses.qsize() >= 2)
    assert host.take(2) == [KeyPress(0), KeyPress(0, True)]


def test_a_bounce_storm_on_the_board_sends_nothing(linked_board: tuple[Board, HostRecorder]) -> None:
    board, host = linked_board
    for i in range(150):
        press(board.fw, 7) if i % 3 else press(board.fw)  # down 4 ms, up 2 ms, for 300 ms
        board.step()
    press(board.fw)
    board.run_for(100)
    link = board.keypad.link
    assert link.base + link.pending() == 0  # not one message
    board.tap(8)
    assert board.run_until(lambda: host.presses.qsize() >= 1)
    assert host.take(1) == [KeyPress(8)] and host.left() == []


def test_the_hosts_verdicts_beep_and_light(linked_board: tuple[Board, HostRecorder]) -> None:
    board, host = linked_board
    pins = fake_machine.board.pins
    config = board.fw.keypad_config
    host.link.feedback(True)
    assert board.run_until(lambda: pins[config.LED_ACCEPTED].out == 1 and pins[config.BUZZER].out == 1)
    host.link.feedback(False)
    assert board.run_until(lambda: pins[config.LED_REFUSED].out == 1)
    assert pins[config.LED_ACCEPTED].out == 0


def firmware_module(fw: SimpleNamespace, name: str) -> ModuleType:
    module = getattr(fw, name)
    assert isinstance(module, ModuleType)
    return module


def test_the_board_runs_the_hosts_codec(fw: SimpleNamespace) -> None:
    # The firmware's own file (a generated copy, not a link), holding the host's code.
    board_copy = Path(firmware_module(fw, "keyproto").__file__ or "")
    assert board_copy == FIRMWARE / "keyproto.py" and not board_copy.is_symlink()
    assert board_copy.read_bytes().endswith((FIRMWARE.parent / "hw" / "keyproto.py").read_bytes())
