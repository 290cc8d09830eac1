"""``cueboard hwtest`` (issue 17): the installer's hardware check, against the devices' real
classes on stand-ins for what cannot run here. The MAX7219 chain is our real class over a
recording serial interface, read back by a model of the chips' registers; the colour board is
luma's ``dummy`` and ``capture`` devices; the referee box is gpiozero's ``MockFactory`` on a
``ManualClock``; the keypad is the simulator on a real pseudo-terminal, opened by pyserial.

The steps are driven by a pacer of the test's (:class:`Script`): it shows each frame once,
looks at the device after each, and does what the test asks at a step (press buttons, press
Ctrl-C). One test runs the command itself in a process of its own and sends it SIGINT.
Every wait is for an event, with a 30 s or longer safety net.
"""

from __future__ import annotations

import fcntl
import io
import os
import re
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from gpiozero import DigitalInputDevice
from gpiozero.pins.mock import MockFactory
from PIL import Image

from cueboard.hw.clock import ManualClock
from cueboard.hw.display_config import DisplayConfig
from cueboard.hw.display_devices import open_device
from cueboard.hw.keypad_link import FIRMWARE, LinkTiming, open_serial
from cueboard.hw.pixels import pixel_values
from cueboard.table.config import Config, load_config
from cueboard.tools.hwtest import (
    DIGITS,
    EXIT_DAEMON,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EnterPacer,
    Step,
    TimedPacer,
    block_numbers,
    run,
)
from cueboard.tools.keypad_sim import KeypadSimulator
from tests.helpers.boards import SerialRecorder
from tests.helpers.keypad import PtyPort

ROOT = Path(__file__).resolve().parents[2]
KEYMAPS = ROOT / "examples" / "keymaps"
PINS = [5, 6, 13, 19, 26, 12, 16, 20, 21, 4, 17, 27]  # examples/snooker-table.toml
WAIT = 30.0  # a safety net for events; never a measure of speed
STEADY = LinkTiming(lost_ms=60_000)
"""The keypad's link in the tests whose output is compared whole: a heartbeat late on a busy
machine must not print a health change (tests/hw/test_keypad_link.py tests those)."""

DIGIT, SHUTDOWN, TEST = range(1, 9), 0x0C, 0x0F


# -- stand-ins and helpers ------------------------------------------------------------------


class Output(io.StringIO):
    """The check's standard output, waited on line by line."""

    def __init__(self) -> None:
        super().__init__()
        self._changed = threading.Condition()

    def write(self, text: str) -> int:
        with self._changed:
            n = super().write(text)
            self._changed.notify_all()
            return n

    @property
    def lines(self) -> list[str]:
        return self.getvalue().splitlines()

    def wait_for(self, line: str, timeout: float = WAIT) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: line in self.lines, timeout)


class ChainModel:
    """What a chain of MAX7219s shows, from the bytes shifted into it: each write is one
    (register, value) pair a chip; a chip lights its digit registers' bits unless shut down,
    and every LED in display-test mode whatever else it holds (the datasheet's table 10)."""

    def __init__(self, chips: int) -> None:
        self.chips = chips
        self.digits = [[0] * 8 for _ in range(chips)]
        self.test = [False] * chips
        self.running = [False] * chips  # shutdown mode at power-on

    def feed(self, writes: list[list[int]]) -> None:
        for write in writes:
            assert len(write) == 2 * self.chips, write
            for chip, (register, value) in enumerate(zip(write[0::2], write[1::2], strict=True)):
                if register in DIGIT:
                    self.digits[chip][register - 1] = value
                elif register == TEST:
                    self.test[chip] = bool(value & 1)
                elif register == SHUTDOWN:
                    self.running[chip] = bool(value & 1)

    def lit(self) -> int:
        """How many LEDs are lit."""
        return sum(64 if self.test[c] else sum(bin(d).count("1") for d in self.digits[c]) if self.running[c] else 0
                   for c in range(self.chips))


class Script:
    """The test's pacer: each frame of a step shown once, ``look()`` after each (what the
    device shows), then ``at[step.what]`` if there is one (pressing buttons, Ctrl-C). Its
    prompts are :class:`EnterPacer`'s, so the output reads as a person sees it."""

    def __init__(self, look: Callable[[], Any] = lambda: None,
                 at: dict[str, Callable[[], None]] | None = None) -> None:
        self.look = look
        self.at = at or {}
        self.seen: list[tuple[str, str, list[Any]]] = []

    def prompt(self, last: bool) -> str:
        return "press Enter to end the check" if last else "press Enter for the next step"

    def run(self, step: Step, shown: Callable[[], None]) -> bool:
        looks: list[Any] = []
        for frame in step.frames:
            frame()
            if step.failed:
                break
            if not looks:
                shown()
            looks.append(self.look())
        self.seen.append((step.device, step.what, looks))
        action = self.at.get(step.what)
        if action is not None:
            action()
        return True

    def looks(self, what: str) -> list[Any]:
        return next(looks for _, w, looks in self.seen if w.startswith(what))


def write_config(tmp_path: Path, body: str, *, socket_path: Path | None = None) -> Config:
    path = tmp_path / "cueboard.toml"
    path.write_text(f"""
[table]
venue = "riley-hall"
name = "table-1"

[journal]
dir = "{tmp_path / 'journal'}"

[control]
socket = "{socket_path or tmp_path / 'control.sock'}"
{body}""", encoding="utf-8")
    return load_config(path)


BOX = f"""
[[referee_box]]
pins = {PINS}
keymap = "{KEYMAPS / 'referee-box-12.toml'}"
"""


def keypad(port: Path | str) -> str:
    return f"""
[keypad]
port = "{port}"
keymap = "{KEYMAPS / 'keypad-4x5.toml'}"
"""


def tap(factory: MockFactory, clock: ManualClock, gpio: int, seconds: float = 0.1) -> None:
    """A button pressed for ``seconds`` (pulled to ground), then let go."""
    pin = factory.pin(gpio)
    pin.drive_low()
    clock.advance(seconds)
    pin.drive_high()
    clock.advance(0.1)


def pins_free(factory: MockFactory) -> bool:
    """Every pin of the box can be had again (the check released them)."""
    devices = []
    try:
        devices = [DigitalInputDevice(p, pin_factory=factory) for p in PINS]
        return True
    finally:
        for d in devices:
            d.close()


def port_free(path: Path) -> bool:
    """The keypad's port can be opened exclusively again (the check closed it)."""
    open_serial(str(path)).close()
    return True


def lit_pixels(image: Image.Image) -> set[tuple[int, int]]:
    gray = image.convert("L")
    return {(x, y) for y in range(image.height) for x in range(image.width) if gray.getpixel((x, y))}


@pytest.fixture
def port(tmp_path: Path) -> Iterator[PtyPort]:
    p = PtyPort(tmp_path)
    yield p
    p.close()


@pytest.fixture
def sim(port: PtyPort) -> Iterator[KeypadSimulator]:
    with KeypadSimulator(port.master) as s:
        yield s


# -- the boards -----------------------------------------------------------------------------


def test_a_max7219_chain_lights_every_led_walks_and_numbers_its_chips(tmp_path: Path) -> None:
    config = write_config(tmp_path, """
[[display]]
name = "hall"
device = "max7219"
cascaded = 4
block_orientation = -90
""")
    serial = SerialRecorder()
    model = ChainModel(4)
    shown: list[Image.Image] = []

    def factory(c: DisplayConfig) -> Any:
        chain = open_device(c, serial=serial)
        real = chain.display

        def display(image: Image.Image) -> None:  # the frames drawn, as well as the bytes sent
            shown.append(image.copy())
            real(image)

        chain.display = display
        return chain

    def look() -> tuple[int, set[tuple[int, int]] | None]:
        model.feed(serial.take())
        return model.lit(), lit_pixels(shown[-1]) if shown else None

    out, err = Output(), io.StringIO()
    script = Script(look)
    assert run(config, out, err, script, device_factory=factory) == EXIT_OK
    assert [what for _, what, _ in script.seen] == [
        "all LEDs on (display test)", "all LEDs on (every pixel drawn)", "one row lit at a time, top to bottom",
        "one column lit at a time, left to right",
        "the 4 8x8 blocks (the chips) numbered 0 to 3, 4 a row, top left first"]
    # The display-test register, written to every chip, lights all 256 LEDs (nothing drawn).
    assert script.looks("all LEDs on (display test)") == [(256, None)]
    assert model.test == [False] * 4  # and it is turned off when the step ends
    # Then every pixel drawn, sent as eight digit rows of 0xFF to every chip.
    assert script.looks("all LEDs on (every pixel")[0][0] == 256
    rows = script.looks("one row")
    assert [lit for lit, _ in rows] == [32] * 8  # each frame lights a whole row on the chips
    assert [pixels for _, pixels in rows] == [{(x, y) for x in range(32)} for y in range(8)]
    columns = script.looks("one column")
    assert [lit for lit, _ in columns] == [8] * 32
    assert [pixels for _, pixels in columns] == [{(x, y) for y in range(8)} for x in range(32)]
    (blocks,) = script.looks("the 4 8x8 blocks")
    assert blocks[1] == lit_pixels(block_numbers((32, 8), "1")) and blocks[0] == len(blocks[1])
    # The board is left blank, then closed: shut down, display test off, the bus released.
    model.feed(serial.take())
    assert model.lit() == 0 and model.running == [False] * 4 and serial.closed == 1
    assert "board 'hall' max7219 32x8: open, 4 chips, brightness 112" in out.lines
    assert "  board 'hall' max7219 32x8: 5 steps shown" in out.lines
    assert err.getvalue() == ""


def test_a_colour_board_on_lumas_emulators_lights_every_led_in_each_colour(tmp_path: Path) -> None:
    config = write_config(tmp_path, f"""
[[display]]
name = "marker"
device = "dummy"
width = 64
height = 16

[[display]]
device = "capture"
width = 16
height = 8
scale = 1
transform = "none"
file = "{tmp_path / 'capture-{0:04}.png'}"
""")
    devices: list[Any] = []

    def factory(c: DisplayConfig) -> Any:
        devices.append(open_device(c))
        return devices[-1]

    script = Script(lambda: devices[0].image.copy())
    out = Output()
    assert run(config, out, io.StringIO(), script, device_factory=factory) == EXIT_OK
    marker = [(what, looks) for device, what, looks in script.seen if device == "board 'marker' dummy 64x16"]
    assert [what for what, _ in marker] == [
        "all LEDs on, white", "all LEDs red, green, blue in turn", "one row lit at a time, top to bottom",
        "one column lit at a time, left to right", "the 16 8x8 blocks numbered 0 to 15, 8 a row, top left first"]
    (white,), colours = marker[0][1], marker[1][1]
    assert set(pixel_values(white)) == {(255, 255, 255)}
    assert [set(pixel_values(image)) for image in colours] == [{(255, 0, 0)}, {(0, 255, 0)}, {(0, 0, 255)}]
    assert [lit_pixels(image) for image in marker[2][1]] == [{(x, y) for x in range(64)} for y in range(16)]
    assert [lit_pixels(image) for image in marker[3][1]] == [{(x, y) for y in range(16)} for x in range(64)]
    # The unnamed board is named by its place; luma's capture device wrote each frame as a PNG.
    assert any(line.startswith("board 1 capture 16x8: the 2 8x8 blocks") for line in out.lines)
    frames = sorted(tmp_path.glob("capture-*.png"))
    pictures = [Image.open(f).convert("RGB") for f in frames]
    assert any(set(pixel_values(p)) == {(255, 255, 255)} for p in pictures)  # all on, white
    assert any(set(pixel_values(p)) == {(0, 0, 255)} for p in pictures)
    assert set(pixel_values(pictures[-1])) == {(0, 0, 0)}  # left blank
    assert devices[0].image.getbbox() is None


def expected_block(label: str, lit: bool) -> list[str]:
    """An 8x8 block showing ``label`` as the check draws it, "#" for a lit LED."""
    glyphs = [DIGITS[int(d)].split("|") for d in label]
    at = 2 if len(label) == 1 else 1 if lit else 0
    rows = ["." * 8]
    for r in range(5):
        row = "." * at + ".".join(g[r] for g in glyphs)
        rows.append(row + "." * (8 - len(row)))
    rows += ["." * 8] * 2
    return [r.translate(str.maketrans(".#", "#.")) for r in rows] if lit else rows


def test_the_blocks_are_numbered_in_reading_order_with_alternate_blocks_lit() -> None:
    image = block_numbers((128, 16), "1")

    def block(n: int) -> list[str]:
        x, y = n % 16 * 8, n // 16 * 8
        return ["".join("#" if image.getpixel((x + i, y + j)) else "." for i in range(8)) for j in range(8)]

    assert block(0) == expected_block("0", lit=False)
    assert block(0)[1:6] == ["..###...", "..#.#...", "..#.#...", "..#.#...", "..###..."]
    assert block(1) == expected_block("1", lit=True)  # lit, the digit dark
    assert block(12) == expected_block("12", lit=False)
    assert block(12)[1:6] == [".#..###.", "##....#.", ".#..###.", ".#..#...", "###.###."]
    # Lit, two digits leave the block's left column lit: its edge shows beside a dark block.
    assert block(13) == expected_block("13", lit=True) and {row[0] for row in block(13)} == {"#"}
    assert block(16) == expected_block("16", lit=True)  # the second row of blocks starts lit
    assert block(31) == expected_block("31", lit=False)
    assert block_numbers((32, 8), "RGB").getpixel((8, 0)) == (255, 255, 255)


# -- the referee box and the keypad ---------------------------------------------------------


def test_every_button_and_key_is_echoed_with_its_number_pin_and_action(tmp_path: Path, port: PtyPort,
                                                                       sim: KeypadSimulator) -> None:
    config = write_config(tmp_path, BOX + keypad(port.path))
    factory, clock, out = MockFactory(), ManualClock(), Output()

    def press_things() -> None:
        tap(factory, clock, 19)            # button 3
        tap(factory, clock, 21, seconds=1.0)  # button 8, held past 0.8 s
        sim.press(5)
        assert out.wait_for("keypad key 5 (row 1, column 1): 2")
        sim.hold(3)
        assert out.wait_for("keypad key 3 (row 0, column 3): UNDO, held")

    script = Script(at={"press each one: it is echoed with its number and action": press_things})
    status = run(config, out, io.StringIO(), script, pin_factory=factory, clock=clock, keypad_timing=STEADY,
                 answer_wait=WAIT)
    assert status == EXIT_OK
    lines = out.lines
    echoed = lines[lines.index("buttons and keys: press each one: it is echoed with its number and action "
                               "... press Enter to end the check") + 1:lines.index("summary:")]
    assert echoed == [
        "referee box 0, button 3 (GPIO 19): BROWN",
        "referee box 0, button 8 (GPIO 21): FOUL",
        "referee box 0, button 8 (GPIO 21): FOUL, held: MISS",
        "keypad key 5 (row 1, column 1): 2",
        "keypad key 3 (row 0, column 3): UNDO",
        "keypad key 3 (row 0, column 3): UNDO, held",
    ]
    assert f"keypad {port.path}: ok, firmware {FIRMWARE}, 5 x 4 keys" in lines
    assert "referee box 0: open, 12 buttons on GPIO 5, 6, 13, 19, 26, 12, 16, 20, 21, 4, 17, 27" in lines
    assert ("  referee box 0: 2 of 12 buttons pressed; not pressed: 0 (RED, GPIO 5), 1 (YELLOW, GPIO 6), "
            "2 (GREEN, GPIO 13), 4 (BLUE, GPIO 26), 5 (PINK, GPIO 12), 6 (BLACK, GPIO 16), 7 (FREE_BALL, GPIO 20), "
            "9 (NO_POT, GPIO 4), 10 (SHIFT, GPIO 17), 11 (UNDO, GPIO 27)") in lines
    assert any(line.startswith(f"  keypad {port.path}: ok; 2 of 20 keys pressed; not pressed: 0 (SHIFT), 1 (FOUL), "
                               "2 (MISS), 4 (1), 6 (3),") for line in lines)
    # The keypad's two steps lit and beeped it (accepted, refused); each key press was answered
    # (accepted: both keys have an action), the held report not again.
    assert sim.wait_for(lambda s: len(s.feedback) >= 4, WAIT)
    assert sim.feedback == [True, False, True, True]
    # Everything released: the pins can be had again, the port opened exclusively again.
    assert pins_free(factory) and port_free(port.path)


def test_the_keypad_beeps_are_steps_of_their_own(tmp_path: Path, port: PtyPort, sim: KeypadSimulator) -> None:
    config = write_config(tmp_path, keypad(port.path))
    seen: list[list[bool]] = []

    def heard(n: int) -> Callable[[], None]:
        def wait() -> None:
            assert sim.wait_for(lambda s: len(s.feedback) >= n, WAIT)
            seen.append(list(sim.feedback))
        return wait

    script = Script(at={"green light and one short beep (accepted)": heard(1),
                        "red light and two beeps (refused)": heard(2)})
    out = Output()
    assert run(config, out, io.StringIO(), script, keypad_timing=STEADY, answer_wait=WAIT) == EXIT_OK
    assert seen == [[True], [True, False]]
    assert [w for _, w, _ in script.seen] == ["green light and one short beep (accepted)",
                                              "red light and two beeps (refused)",
                                              "press each one: it is echoed with its number and action"]


def test_a_keypad_unlike_its_keymap_is_named(tmp_path: Path, port: PtyPort) -> None:
    config = write_config(tmp_path, keypad(port.path))
    out = Output()
    with KeypadSimulator(port.master, rows=4, columns=3, firmware=FIRMWARE - 1):
        assert run(config, out, io.StringIO(), Script(), keypad_timing=STEADY, answer_wait=WAIT) == EXIT_OK
    assert out.lines[2:5] == [
        f"keypad {port.path}: ok, firmware {FIRMWARE - 1}, 4 x 3 keys",
        f"keypad {port.path}: its firmware {FIRMWARE - 1} is older than this host's {FIRMWARE}: flash firmware/ "
        "again (docs/firmware.md)",
        f"keypad {port.path}: it has 4 x 3 keys; its keymap {KEYMAPS / 'keypad-4x5.toml'} has 5 x 4"]


# -- Ctrl-C, the daemon, devices that fail --------------------------------------------------


def test_ctrl_c_closes_every_device_and_exits_130(tmp_path: Path, port: PtyPort, sim: KeypadSimulator) -> None:
    config = write_config(tmp_path, BOX + keypad(port.path) + """
[[display]]
device = "max7219"
cascaded = 4
""")
    serial, model = SerialRecorder(), ChainModel(4)
    factory = MockFactory()

    def ctrl_c() -> None:
        model.feed(serial.take())
        assert model.lit() == 256  # the display test is on: all LEDs lit when Ctrl-C comes
        raise KeyboardInterrupt

    out, err = Output(), io.StringIO()
    status = run(config, out, err, Script(at={"all LEDs on (display test)": ctrl_c}),
                 device_factory=lambda c: open_device(c, serial=serial), pin_factory=factory,
                 clock=ManualClock(), keypad_timing=STEADY, answer_wait=WAIT)
    assert status == EXIT_INTERRUPTED
    model.feed(serial.take())
    # Display test off (it would outlast the shutdown), the chips shut down, the bus closed.
    assert model.test == [False] * 4 and model.lit() == 0 and serial.closed == 1
    assert pins_free(factory) and port_free(port.path)
    assert "interrupted: every device closed" in out.lines
    assert "summary:" in out.lines
    assert err.getvalue() == ""


@pytest.mark.system
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_to_the_command_itself(tmp_path: Path, port: PtyPort, sim: KeypadSimulator, signum: int) -> None:
    """The command in a process of its own (gpiozero's mock pins, a luma capture board, the
    keypad on a pseudo-terminal), sent SIGINT (Ctrl-C) or SIGTERM while a step waits for Enter."""
    config = write_config(tmp_path, BOX + keypad(port.path) + f"""
[[display]]
device = "capture"
width = 32
height = 8
scale = 1
transform = "none"
file = "{tmp_path / 'board-{0:04}.png'}"
""")
    env = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock", "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen([sys.executable, "-m", "cueboard.cli", "hwtest", "--config", str(config.path)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env, cwd=tmp_path)
    lines: list[str] = []
    prompt = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line.rstrip("\n"))
            if line.endswith("... press Enter for the next step\n"):
                prompt.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert prompt.wait(60), lines
        assert lines[-1] == "board 0 capture 32x8: all LEDs on, white ... press Enter for the next step"
        process.send_signal(signum)
        process.wait(60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    reader.join(WAIT)
    assert process.stderr is not None
    err = process.stderr.read()
    process.stdin.close()  # type: ignore[union-attr]
    process.stderr.close()
    assert process.returncode == EXIT_INTERRUPTED, err
    frames = sorted(tmp_path.glob("board-*.png"))
    assert frames, (lines, err)
    assert "Traceback" not in err
    assert "interrupted: every device closed" in lines
    assert Image.open(frames[-1]).getbbox() is None  # the board was left blank
    assert port_free(port.path)


def test_a_board_that_fails_during_the_check_is_reported_and_the_check_goes_on(tmp_path: Path) -> None:
    config = write_config(tmp_path, BOX + """
[[display]]
name = "hall"
device = "max7219"
cascaded = 4
""")
    serial, factory, clock = SerialRecorder(), MockFactory(), ManualClock()

    def unplugged() -> None:  # the chain's cable pulled during the walk
        serial.failing = OSError(121, "Remote I/O error")

    out = Output()
    script = Script(at={"one row lit at a time, top to bottom": unplugged,
                        "press each one: it is echoed with its number and action": lambda: tap(factory, clock, 5)})
    status = run(config, out, io.StringIO(), script, device_factory=lambda c: open_device(c, serial=serial),
                 pin_factory=factory, clock=clock)
    assert status == EXIT_FAILED
    lines = out.lines
    walk = lines.index("board 'hall' max7219 32x8: one row lit at a time, top to bottom ... press Enter for the next "
                       "step")
    # The failure is on the next step's first frame: said once, that step ended, the board's
    # other steps left out; the buttons go on.
    assert lines[walk + 1:walk + 3] == [
        "board 'hall' max7219 32x8: failed: OSError: [Errno 121] Remote I/O error",
        "buttons and keys: press each one: it is echoed with its number and action ... press Enter to end the check"]
    assert "referee box 0, button 0 (GPIO 5): RED" in lines
    assert "  board 'hall' max7219 32x8: failed: OSError: [Errno 121] Remote I/O error" in lines
    assert any(line.startswith("board 'hall' max7219 32x8: closing: OSError") for line in lines)
    assert pins_free(factory)


def test_a_running_daemon_is_named_with_how_to_stop_it_and_nothing_is_lit(tmp_path: Path) -> None:
    sock_path = tmp_path / "control.sock"
    opened: list[Any] = []
    config = write_config(tmp_path, """
[[display]]
device = "dummy"
width = 32
height = 8
""", socket_path=sock_path)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(sock_path))
        server.listen(1)
        err = io.StringIO()
        status = run(config, Output(), err, Script(), device_factory=lambda c: opened.append(c))
    assert status == EXIT_DAEMON and opened == []
    assert err.getvalue() == (f"cueboard hwtest: the daemon is running: its control socket {sock_path} answers. "
                              "Stop it first: sudo systemctl stop cueboard (and sudo systemctl start cueboard "
                              "after the check)\n")
    # A socket file left behind by a daemon that is gone is no daemon.
    out = Output()
    assert run(config, out, io.StringIO(), Script(), device_factory=open_device) == EXIT_OK
    assert f"control socket {sock_path}: no daemon answers" in out.lines


def test_a_keypad_port_the_daemon_holds_is_busy(tmp_path: Path, port: PtyPort) -> None:
    config = write_config(tmp_path, keypad(port.path))
    held = os.open(port.path, os.O_RDWR | os.O_NOCTTY)
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as pyserial's exclusive=True in the daemon
        err = io.StringIO()
        assert run(config, Output(), err, Script()) == EXIT_DAEMON
    finally:
        os.close(held)
    assert re.fullmatch(rf"cueboard hwtest: keypad {re.escape(str(port.path))} is busy \(SerialException: .*Could not "
                        r"exclusively lock port .*\): the daemon \(or another program, such as mpremote\) has it\. "
                        r"Stop it first: sudo systemctl stop cueboard .*\n", err.getvalue())


class LgpioError(Exception):
    """What lgpio raises (its ``error``, the message its ``error_text``)."""


class HeldPins(MockFactory):  # type: ignore[misc]
    """gpiozero's mock pins, claimed by another process: lgpio's answer to ``gpio_claim_input``."""

    def pin(self, spec: Any, **kwargs: Any) -> Any:
        raise LgpioError("GPIO busy")


def test_pins_the_daemon_holds_are_busy(tmp_path: Path) -> None:
    config = write_config(tmp_path, BOX)
    err = io.StringIO()
    assert run(config, Output(), err, Script(), pin_factory=HeldPins(), clock=ManualClock()) == EXIT_DAEMON
    assert err.getvalue().startswith("cueboard hwtest: referee box 0's pins are busy (LgpioError: GPIO busy): the "
                                     "daemon (or another program) has them. Stop it first: sudo systemctl stop "
                                     "cueboard")


def test_a_device_that_fails_to_open_is_reported_and_the_rest_goes_on(tmp_path: Path) -> None:
    keypad_path = tmp_path / "keypad"  # nothing there yet: plugged in during the check
    config = write_config(tmp_path, BOX + keypad(keypad_path) + """
[[display]]
name = "hall"
device = "max7219"
cascaded = 4

[[display]]
name = "marker"
device = "dummy"
width = 32
height = 8
""")
    factory, clock = MockFactory(), ManualClock()
    squatter = DigitalInputDevice(5, pin_factory=factory)  # button 0's pin, taken in this process
    out = Output()
    plugged: list[tuple[PtyPort, KeypadSimulator]] = []

    def plug_the_keypad_in() -> None:
        pty = PtyPort(tmp_path)
        os.symlink(pty.path, keypad_path)
        sim = KeypadSimulator(pty.master)
        sim.start()
        plugged.append((pty, sim))
        assert out.wait_for(f"keypad {keypad_path}: ok")
        sim.press(14)
        assert out.wait_for("keypad key 14 (row 3, column 2): OK")

    try:
        status = run(config, out, io.StringIO(), Script(at={
            "press each one: it is echoed with its number and action": plug_the_keypad_in}),
            pin_factory=factory, clock=clock, answer_wait=WAIT)
    finally:
        squatter.close()
        for pty, sim in plugged:
            sim.stop()
            pty.close()
    lines = out.lines
    # The MAX7219 opens luma's real spi here, where there is no spidev: reported, and the rest goes on.
    hall = next(line for line in lines if line.startswith("board 'hall' max7219 32x8: "))
    assert hall.startswith("board 'hall' max7219 32x8: cannot open: ")
    assert any(line.startswith("referee box 0: cannot open: GPIOPinInUse: ") for line in lines)
    assert any(line.startswith(f"keypad {keypad_path}: cannot open: ") and "No such file or directory" in line
               and line.endswith("still looking for it") for line in lines)
    # Plugged in during the check: found, and its keys echoed.
    assert lines[lines.index(f"keypad {keypad_path}: ok") + 1] == "keypad key 14 (row 3, column 2): OK"
    assert "board 'marker' dummy 32x8: the 4 8x8 blocks numbered 0 to 3, 4 a row, top left first ... press Enter " \
           "for the next step" in lines
    assert f"keypad {keypad_path}: not answering (lost): its beeps are left out" in lines
    assert "  board 'marker' dummy 32x8: 5 steps shown" in lines
    assert status == EXIT_FAILED  # a device did not open


def test_a_configuration_with_no_devices_says_so(tmp_path: Path) -> None:
    out = Output()
    assert run(write_config(tmp_path, ""), out, io.StringIO(), Script()) == EXIT_OK
    assert "the configuration has no [[display]], [[referee_box]], [keypad] or [light]: nothing to check" in out.lines


# -- the pacers -----------------------------------------------------------------------------


def test_enter_moves_on_while_a_walk_goes_round_and_the_end_of_input_ends_the_check() -> None:
    read, write = os.pipe()
    with os.fdopen(read, "r") as stdin, os.fdopen(write, "w") as typed:
        pacer = EnterPacer(stdin)
        shown = 0
        went_round = threading.Event()

        def frame() -> None:
            nonlocal shown
            shown += 1
            if shown == 7:  # the 3-frame walk went round twice, waiting for Enter
                typed.write("\n")
                typed.flush()
                went_round.set()

        announced: list[int] = []
        assert pacer.run(Step("board", "walk", (frame, frame, frame), 0.001), lambda: announced.append(shown))
        assert went_round.is_set() and shown >= 7  # (the line may come a frame or two later)
        assert announced == [1]  # once, after the first frame
        typed.close()
        assert not pacer.run(Step("board", "still", (lambda: None,)), lambda: None)  # end of input
        assert not pacer.run(Step("board", "still", (lambda: None,)), lambda: None)


def test_timed_steps_share_their_seconds_among_their_frames() -> None:
    slept: list[float] = []
    pacer = TimedPacer(2.0, sleep=slept.append)
    shown: list[int] = []
    announced: list[list[int]] = []
    assert pacer.run(Step("board", "walk", tuple((lambda n=n: shown.append(n)) for n in range(4)), 0.15),
                     lambda: announced.append(list(shown)))
    assert shown == [0, 1, 2, 3] and slept == [0.5] * 4 and announced == [[0]]
    assert pacer.prompt(False) == "(2 s)" and TimedPacer(0).prompt(True) == ""
    with pytest.raises(ValueError, match="0 seconds or more"):
        TimedPacer(-1)


def test_the_command_refuses_a_negative_step_time(capsys: pytest.CaptureFixture[str]) -> None:
    from cueboard.cli import main

    assert main(["hwtest", "--config", "/nonexistent.toml", "--step-seconds", "-1"]) == 2
    assert capsys.readouterr().err == "cueboard hwtest: --step-seconds: 0 or more, not -1\n"


# -- the run docs/hardware.md shows ---------------------------------------------------------

DOC = ROOT / "docs" / "hardware.md"
DOC_MARK = "<!-- a run of cueboard hwtest: tests/tools/test_hwtest.py checks that it is this code's -->"


def doc_run(tmp_path: Path) -> str:
    """The check of the example table's devices (a MAX7219 chain of 4, its referee box, the
    keypad), with a button pressed, one held, a key pressed and one held; the paths as on a Pi."""
    port = PtyPort(tmp_path)
    config = write_config(tmp_path, BOX + keypad(port.path) + """
[[display]]
name = "hall"
device = "max7219"
cascaded = 4
block_orientation = -90
""")
    factory, clock, out = MockFactory(), ManualClock(), Output()
    serial = SerialRecorder()
    try:
        with KeypadSimulator(port.master) as sim:
            def press_things() -> None:
                tap(factory, clock, 19)
                tap(factory, clock, 21, seconds=1.0)
                sim.press(5)
                assert out.wait_for("keypad key 5 (row 1, column 1): 2")
                sim.hold(0)
                assert out.wait_for("keypad key 0 (row 0, column 0): SHIFT, held")

            script = Script(at={"press each one: it is echoed with its number and action": press_things})
            run(config, out, io.StringIO(), script, device_factory=lambda c: open_device(c, serial=serial),
                pin_factory=factory, clock=clock, keypad_timing=STEADY, answer_wait=WAIT)
    finally:
        port.close()
    text = out.getvalue()
    for path, on_a_pi in ((config.path, "/etc/cueboard/cueboard.toml"),
                          (config.control_socket, "/run/cueboard/control.sock"), (port.path, "/dev/cueboard-keypad")):
        text = text.replace(str(path), on_a_pi)
    return text


def test_the_run_in_the_docs_is_what_the_check_prints(tmp_path: Path) -> None:
    doc = DOC.read_text(encoding="utf-8")
    assert DOC_MARK in doc, f"{DOC} has lost its run of cueboard hwtest"
    shown = doc.split(DOC_MARK, 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    printed = doc_run(tmp_path)
    assert shown == printed, f"docs/hardware.md shows an old run; this code prints:\n{printed}"


def test_a_hub75_board_on_the_emulator_lights_every_led_in_each_colour_numbers_its_panels_and_shows_the_pattern(
        tmp_path: Path) -> None:
    from cueboard.hw.hub75 import last_frame
    from cueboard.tools.hwtest import hub75_panels, test_pattern

    config = write_config(tmp_path, """
[display]
name = "hall"
device = "hub75"
width = 128
height = 64
panel = "64x32"
""")
    devices: list[Any] = []

    def factory(c: DisplayConfig) -> Any:
        devices.append(open_device(c))
        return devices[-1]

    script = Script(lambda: last_frame(devices[0]))  # what the emulated panels were handed
    out = Output()
    assert run(config, out, io.StringIO(), script, device_factory=factory) == EXIT_OK
    hall = [(what, looks) for _, what, looks in script.seen]
    assert [what for what, _ in hall] == [
        "all LEDs on, white", "all LEDs red, green, blue in turn", "one row lit at a time, top to bottom",
        "one column lit at a time, left to right",
        "the 4 HUB75 panel(s) of 64x32 outlined and numbered 0 to 3, 2 a row, top left first",
        "test pattern: colour bars, then grey, red, green and blue ramps (smooth, in this order)"]
    assert set(pixel_values(hall[0][1][0])) == {(255, 255, 255)}
    assert [set(pixel_values(image)) for image in hall[1][1]] == [{(255, 0, 0)}, {(0, 255, 0)}, {(0, 0, 255)}]
    assert len(hall[2][1]) == 64 and len(hall[3][1]) == 128
    panels, pattern = hall[4][1][0], hall[5][1][0]
    assert panels.tobytes() == hub75_panels((128, 64), (64, 32)).tobytes()
    # Each panel's outline in its own colour: 0 red at the top left, 3 yellow at the bottom right.
    assert panels.getpixel((0, 10)) == (255, 0, 0) and panels.getpixel((127, 40)) == (255, 255, 0)
    assert pattern.tobytes() == test_pattern((128, 64)).tobytes()
    assert pattern.getpixel((0, 0)) == (255, 255, 255) and pattern.getpixel((127, 36)) == (255, 255, 255)
    assert pattern.getpixel((127, 44)) == (255, 0, 0) and pattern.getpixel((0, 44)) == (0, 0, 0)
    assert last_frame(devices[0]).getbbox() is None  # left blank
