"""``cueboard hwtest``: the installer's check of a table's hardware, with the daemon stopped:
each board lit in steps, the keypad's lights and beeps, every button and key echoed.
What it does and prints: docs/hardware.md, "Checking the hardware".
"""

from __future__ import annotations

import contextlib
import errno
import queue
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TextIO

from PIL import Image, ImageDraw

from cueboard.common.errors import DaemonRunning
from cueboard.hw.box_config import BoxConfig, Pin
from cueboard.hw.buttons import RefereeBox
from cueboard.hw.clock import Clock, MonotonicClock
from cueboard.hw.display_config import DisplayConfig
from cueboard.hw.display_devices import open_device
from cueboard.hw.keypad_link import (
    DEFAULT_KEYS,
    DEFAULT_TIMING,
    FIRMWARE,
    KeypadHealth,
    KeypadLink,
    LinkTiming,
    SerialPort,
    open_serial,
)
from cueboard.hw.keys import ButtonPress, KeyPress
from cueboard.hw.max7219 import Max7219Chain
from cueboard.hw.relay import Relay
from cueboard.table.config import Config
from cueboard.table.keymap import Keymap, load_keymap
from cueboard.tools.stop_signals import end_as_ctrl_c

__all__ = ["EXIT_DAEMON", "EXIT_FAILED", "EXIT_INTERRUPTED", "EXIT_OK", "STOP_DAEMON", "DaemonRunning",
           "EnterPacer", "HardwareCheck", "Pacer", "Step", "TimedPacer", "block_numbers", "run"]

EXIT_OK = 0
EXIT_FAILED = 1
"""A device did not open, or the keypad never answered."""
EXIT_DAEMON = 2
"""The daemon is running (or the configuration cannot be used: the CLI's status for that)."""
EXIT_INTERRUPTED = 130
"""Ctrl-C, as a shell reports a process ended by SIGINT."""

STOP_DAEMON = "sudo systemctl stop cueboard"

LINE_SECONDS = 0.15
"""How long each row or column of a walk stays lit while a step waits for Enter."""
COLOUR_SECONDS = 1.0
BEEP_SECONDS = 2.0
"""The keypad's beep is repeated this often while its step waits for Enter."""
ANSWER_WAIT = 5.0
"""Seconds the keypad has to answer once its port is open (it beats every 0.25 s)."""


@dataclass(frozen=True)
class Step:
    """One step of the check: ``frames`` (each draws, lights or beeps something) shown in
    turn, ``frame_seconds`` apart while the step lasts (a single frame with no
    ``frame_seconds`` is shown once)."""

    device: str
    what: str
    frames: tuple[Callable[[], None], ...]
    frame_seconds: float = 0.0
    after: Callable[[], None] | None = None
    """Run when the step ends, however it ends (a MAX7219's display test turned off)."""
    gone: Callable[[], bool] | None = None
    """True once the step's device has failed: the step is left out, or ends at once."""

    @property
    def failed(self) -> bool:
        return self.gone is not None and self.gone()


class Pacer(Protocol):
    """What moves the check on from one step to the next."""

    def prompt(self, last: bool) -> str:
        """What the step's line ends with ("" for nothing)."""

    def run(self, step: Step, shown: Callable[[], None]) -> bool:
        """Show the step's frames until it is time for the next step (calling ``shown`` once
        its first frame is out: the step's line is printed then; at once if the step
        ``failed``); False ends the check."""


class EnterPacer:
    """Each step lasts until a line (Enter) on ``stdin``; the end of input ends the check.
    ``stdin`` is read by a thread of its own, so that a walk goes on while it waits."""

    def __init__(self, stdin: TextIO) -> None:
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._ended = False
        threading.Thread(target=self._read, args=(stdin,), name="hwtest-stdin", daemon=True).start()

    def _read(self, stdin: TextIO) -> None:
        try:
            for line in stdin:
                self._lines.put(line)
        except (OSError, ValueError):  # closed under us
            pass
        self._lines.put(None)

    def prompt(self, last: bool) -> str:
        return "press Enter to end the check" if last else "press Enter for the next step"

    def run(self, step: Step, shown: Callable[[], None]) -> bool:
        if self._ended:
            return False
        count = 0
        while True:
            step.frames[count % len(step.frames)]()
            if step.failed:
                return True
            if not count:
                shown()
            count += 1
            moving = len(step.frames) > 1 or step.frame_seconds > 0
            try:
                # A lock's wait, which Ctrl-C interrupts.
                line = self._lines.get(timeout=step.frame_seconds if moving else None)
            except queue.Empty:
                continue
            if line is None:
                self._ended = True
                return False
            return True


class TimedPacer:
    """Each step lasts ``seconds``, its frames sharing them (0: every frame shown once, at
    once): for a run nobody attends (``--step-seconds``)."""

    def __init__(self, seconds: float, sleep: Callable[[float], None] = time.sleep) -> None:
        if not seconds >= 0:
            raise ValueError(f"a step lasts 0 seconds or more, not {seconds}")
        self.seconds = seconds
        self._sleep = sleep

    def prompt(self, last: bool) -> str:
        return f"({self.seconds:g} s)" if self.seconds else ""

    def run(self, step: Step, shown: Callable[[], None]) -> bool:
        each = self.seconds / len(step.frames)
        for n, frame in enumerate(step.frames):
            frame()
            if step.failed:
                return True
            if not n:
                shown()
            if each > 0:
                self._sleep(each)
        return True


# -- what is drawn ------------------------------------------------------------------------


def _lit(size: tuple[int, int], mode: str, colour: str = "white") -> Image.Image:
    return Image.new(mode, size, colour if mode == "RGB" else 1)


def _lines(size: tuple[int, int], mode: str, rows: bool) -> list[Image.Image]:
    """A frame for each row (top first) or column (left first), that line alone lit."""
    width, height = size
    frames = []
    for n in range(height if rows else width):
        image = Image.new(mode, size)
        ImageDraw.Draw(image).line([(0, n), (width - 1, n)] if rows else [(n, 0), (n, height - 1)],
                                   fill="white" if mode == "RGB" else 1)
        frames.append(image)
    return frames


DIGITS = ("###|#.#|#.#|#.#|###", ".#.|##.|.#.|.#.|###", "###|..#|###|#..|###", "###|..#|###|..#|###",
          "#.#|#.#|###|..#|..#", "###|#..|###|..#|###", "###|#..|###|#.#|###", "###|..#|..#|..#|..#",
          "###|#.#|###|#.#|###", "###|#.#|###|..#|###")
"""3x5 digits, row by row, that read at a glance on an 8x8 block (and show how it is turned)."""


def block_numbers(size: tuple[int, int], mode: str) -> Image.Image:
    """Every 8x8 block with its number (from 0 at the top left, along each row of blocks;
    past 99 the last two digits), alternate blocks lit with the number dark, so that the
    edges of each show. On a MAX7219 board a block is a chip, so a block's number shows
    where the chain puts it and its digits how it is turned (``block_orientation``)."""
    width, height = size
    image = Image.new(mode, size)
    draw = ImageDraw.Draw(image)
    on, off = ("white", "black") if mode == "RGB" else (1, 0)
    across = (width + 7) // 8
    for by in range((height + 7) // 8):
        for bx in range(across):
            x, y = bx * 8, by * 8
            lit = (bx + by) % 2 == 1
            if lit:
                draw.rectangle([x, y, min(x + 7, width - 1), min(y + 7, height - 1)], fill=on)
            label = str((by * across + bx) % 100)
            # One digit in the middle; two fill the block but for a column on the side where
            # the block's own background shows its edge (left when lit, right when dark).
            left = x + (2 if len(label) == 1 else 1 if lit else 0)
            for n, digit in enumerate(label):
                for row, bits in enumerate(DIGITS[int(digit)].split("|")):
                    for column, bit in enumerate(bits):
                        if bit == "#":
                            draw.point((left + 4 * n + column, y + 1 + row), fill=off if lit else on)
    return image


def hub75_panels(size: tuple[int, int], panel: tuple[int, int]) -> Image.Image:
    """Each HUB75 panel outlined in its own colour with its number in the middle (0 at the
    top left, then along the chain's row; a second row is the second parallel chain): a
    panel in the wrong place, turned, or one whose half rows are swapped shows at once."""
    width, height = size
    pw, ph = panel
    image = Image.new("RGB", size)
    draw = ImageDraw.Draw(image)
    colours = ("red", "lime", "blue", "yellow", "cyan", "magenta", "orange", "white")
    across = max(1, width // pw)
    for py in range(max(1, height // ph)):
        for px in range(across):
            n = py * across + px
            x, y = px * pw, py * ph
            colour = colours[n % len(colours)]
            draw.rectangle([x, y, x + pw - 1, y + ph - 1], outline=colour)
            draw.line([(x, y), (x + 5, y + 5)], fill=colour)  # the panel's top left corner
            label = str(n % 100)
            left = x + (pw - (4 * len(label) - 1) * 2) // 2
            for k, digit in enumerate(label):
                for row, bits in enumerate(DIGITS[int(digit)].split("|")):
                    for column, bit in enumerate(bits):
                        if bit == "#":
                            cx, cy = left + 2 * (4 * k + column), y + (ph - 10) // 2 + 2 * row
                            draw.rectangle([cx, cy, cx + 1, cy + 1], fill="white")
    return image


def test_pattern(size: tuple[int, int]) -> Image.Image:
    """Colour bars over the top half, and below them grey, red, green and blue ramps from
    dark to full: a missing colour, a swapped R/G/B order (``led_rgb_sequence``) or too few
    PWM bits (steps in a ramp) shows at once."""
    width, height = size
    image = Image.new("RGB", size)
    draw = ImageDraw.Draw(image)
    bars = ("white", "yellow", "cyan", "lime", "magenta", "red", "blue", "black")
    half = height // 2
    for n, colour in enumerate(bars):
        draw.rectangle([n * width // 8, 0, (n + 1) * width // 8 - 1, half - 1], fill=colour)
    ramps = ((1, 1, 1), (1, 0, 0), (0, 1, 0), (0, 0, 1))
    band = max(1, (height - half) // len(ramps))
    for n, (r, g, b) in enumerate(ramps):
        for x in range(width):
            v = round(255 * x / max(1, width - 1))
            bottom = min(height - 1, half + (n + 1) * band - 1)
            draw.line([(x, half + n * band), (x, bottom)], fill=(r * v, g * v, b * v))
    return image


# -- naming things as the installer sees them ---------------------------------------------


def _pin_label(pin: Pin) -> str:
    return f"GPIO {pin}" if isinstance(pin, int) else str(pin)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    reason = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    number = getattr(exc, "errno", None)
    if number in (errno.EACCES, errno.EPERM):
        reason += " (run it as root: sudo cueboard hwtest)"
    elif "spidev" in text and number == errno.ENOENT:
        reason += " (is SPI on? docs/install.md)"
    return reason


def _busy(exc: BaseException) -> bool:
    """Whether a device would not open because another process has it: lgpio's "GPIO busy"
    for a pin, pyserial's "Could not exclusively lock port" (EAGAIN) for the keypad's port."""
    number = getattr(exc, "errno", None)
    text = str(exc).lower()
    return number in (errno.EBUSY, errno.EAGAIN) or "busy" in text or "exclusively lock" in text


def _board_name(n: int, config: DisplayConfig) -> str:
    what = f"{config.device} {config.width}x{config.height}"
    return f"board '{config.name}' {what}" if config.name else f"board {n} {what}"


@dataclass
class _Board:
    name: str
    config: DisplayConfig
    device: Any = None
    failure: str = ""
    steps: int = 0


@dataclass
class _Box:
    number: int
    config: BoxConfig
    box: RefereeBox | None = None
    failure: str = ""
    pressed: set[int] = field(default_factory=set)


ENDING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def _signals_ignored() -> Iterator[None]:
    """While the devices close: a second Ctrl-C must not leave a board lit or a pin held."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, signal.SIG_IGN) for signum in ENDING_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


class HardwareCheck:
    """The check of one table's configured devices (see the module's doc). ``open``, then
    ``steps``, ``summary`` and ``close`` (always: whatever ``open`` opened is closed).

    The lowest levels are injectable as in the daemon: ``device_factory`` opens a board's
    luma device (``open_device``), ``pin_factory`` and ``clock`` are the referee boxes'
    (gpiozero's default factory and a :class:`MonotonicClock`), ``open_port`` the keypad's
    serial port (pyserial)."""

    def __init__(self, config: Config, out: TextIO, *,
                 device_factory: Callable[[DisplayConfig], Any] = open_device, pin_factory: Any = None,
                 clock: Clock | None = None, open_port: Callable[[str], SerialPort] = open_serial,
                 keypad_timing: LinkTiming = DEFAULT_TIMING, answer_wait: float = ANSWER_WAIT) -> None:
        self.config = config
        self._out = out
        self._say_lock = threading.Lock()
        self._device_factory = device_factory
        self._pin_factory = pin_factory
        self._own_clock = clock is None
        self._clock: Clock = MonotonicClock() if clock is None else clock
        self._open_port = open_port
        self._keypad_timing = keypad_timing
        self._answer_wait = answer_wait
        self.boards = [_Board(_board_name(n, c), c) for n, c in enumerate(config.displays)]
        self.boxes = [_Box(n, c) for n, c in enumerate(config.referee_boxes)]
        self._box_keymap: Keymap | None = None
        self._keypad_keymap: Keymap | None = None
        self.keypad: KeypadLink | None = None
        self._keypad_failure = ""
        self._keypad_answered = threading.Condition()
        self._handed: list[SerialPort] = []
        """The keypad's port as first opened, until the link takes it."""
        self._keypad_reported = False
        self.keys_pressed: set[int] = set()
        self._keypad_last: tuple[bool, str] | None = None
        """Whether the keypad answered, and its health, as it was when the check closed it."""
        self._closing = False
        self.relay: Relay | None = None
        """The table light's relay ([light]), opened off; None without one or when it failed."""
        self._relay_failure = ""

    # -- output --------------------------------------------------------------------------

    def say(self, line: str) -> None:
        """One line of the check's output (from any thread: the pins' and the keypad's too)."""
        with self._say_lock, contextlib.suppress(OSError):  # the terminal gone (SIGHUP): close all the same
            print(line, file=self._out, flush=True)

    @property
    def keypad_name(self) -> str:
        return f"keypad {self.config.keypad_port}"

    # -- opening -------------------------------------------------------------------------

    def open(self) -> None:
        """Open every configured device; DaemonRunning if the daemon has them. A device that
        does not open is reported and left out."""
        config = self.config
        self.say(f"cueboard hwtest: table {config.venue}/{config.table}, configuration {config.path}")
        self._check_control_socket()
        if config.referee_keymap is not None:
            self._box_keymap = load_keymap(config.referee_keymap)
        if config.keypad_keymap is not None:
            self._keypad_keymap = load_keymap(config.keypad_keymap)
        # The daemon's devices first: a busy one means the daemon runs, before a board is lit.
        if config.keypad_port is not None:
            self._open_keypad(config.keypad_port)
        for box in self.boxes:
            self._open_box(box)
        for board in self.boards:
            self._open_board(board)
        if config.light is not None:
            self._open_relay()
        if self.keypad is not None:
            self._report_keypad()
        if self.boxes or self.keypad is not None:
            self.say("every button and key is echoed as it is pressed, from now on; Ctrl-C ends the check")
        if not (self.boards or self.boxes or config.keypad_port or config.light):
            self.say("the configuration has no [[display]], [[referee_box]], [keypad] or [light]: nothing to check")

    def _check_control_socket(self) -> None:
        path = self.config.control_socket
        if path is None:
            return
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(5.0)
            try:
                sock.connect(str(path))
            except (FileNotFoundError, ConnectionRefusedError):
                self.say(f"control socket {path}: no daemon answers")
                return
            except OSError as exc:
                # Cannot tell (no permission): a busy device will say it if the daemon runs.
                self.say(f"control socket {path}: cannot tell whether the daemon runs ({_reason(exc)})")
                return
        raise DaemonRunning(f"the daemon is running: its control socket {path} answers")

    def _open_keypad(self, path: str) -> None:
        handed = self._handed
        try:
            # Opened once here, exclusively as the daemon opens it, to know at once whether
            # the daemon has it; the link then takes this port and reopens it if it fails.
            handed.append(self._open_port(path))
        except Exception as exc:
            if _busy(exc):
                raise DaemonRunning(f"{self.keypad_name} is busy ({_reason(exc)}): the daemon (or another "
                                    "program, such as mpremote) has it") from None
            self._keypad_failure = f"cannot open: {_reason(exc)}"

        def open_port(p: str) -> SerialPort:
            return handed.pop() if handed else self._open_port(p)

        keys = self._keypad_keymap.size if self._keypad_keymap is not None else DEFAULT_KEYS
        self.keypad = KeypadLink(path, self._on_key, keys=keys, on_health=self._on_keypad_health,
                                 open_port=open_port, timing=self._keypad_timing)
        self.keypad.start()

    def _open_box(self, box: _Box) -> None:
        try:
            box.box = RefereeBox(box.config.pins, self._on_button, box=box.number, clock=self._clock,
                                 pin_factory=self._pin_factory, pull_up=box.config.pull_up,
                                 debounce=box.config.debounce, hold_time=box.config.hold_time)
        except Exception as exc:
            if _busy(exc):
                raise DaemonRunning(f"referee box {box.number}'s pins are busy ({_reason(exc)}): the daemon "
                                    "(or another program) has them") from None
            box.failure = f"cannot open: {_reason(exc)}"
            self.say(f"referee box {box.number}: {box.failure}")
            return
        pins = box.config.pins
        where = (f"GPIO {', '.join(str(p) for p in pins)}" if all(isinstance(p, int) for p in pins)
                 else ", ".join(_pin_label(p) for p in pins))
        self.say(f"referee box {box.number}: open, {len(pins)} buttons on {where}")

    def _open_relay(self) -> None:
        """The light's relay, off, and its wall switch echoed (docs/hardware.md, "The table's light")."""
        light = self.config.light
        assert light is not None
        try:
            self.relay = Relay(light.pin, active_high=light.active_high, initial=False,
                               pin_factory=self._pin_factory, switch=light.switch,
                               on_switch=lambda on: self.say(f"light: wall switch {'on' if on else 'off'}"))
        except Exception as exc:
            if _busy(exc):
                raise DaemonRunning(f"the light's relay (GPIO {light.pin}) is busy ({_reason(exc)}): the daemon "
                                    "(or another program) has it") from None
            self._relay_failure = f"cannot open: {_reason(exc)}"
            self.say(f"light: {self._relay_failure}")
            return
        switch = f", wall switch on GPIO {light.switch}" if light.switch is not None else ""
        self.say(f"light: relay open on GPIO {light.pin} (active {'high' if light.active_high else 'low'}){switch}")

    def _open_board(self, board: _Board) -> None:
        try:
            board.device = self._device_factory(board.config)
        except Exception as exc:
            board.failure = f"cannot open: {_reason(exc)}"
            self.say(f"{board.name}: {board.failure}")
            return
        extra = f", {board.device.cascaded} chips" if isinstance(board.device, Max7219Chain) else ""
        self.say(f"{board.name}: open{extra}, brightness {board.config.brightness}")

    def _report_keypad(self) -> None:
        keypad = self.keypad
        assert keypad is not None
        if not self._keypad_failure:
            with self._keypad_answered:
                self._keypad_answered.wait_for(lambda: keypad.health is KeypadHealth.OK, self._answer_wait)
        with self._keypad_answered:
            self._keypad_reported = True
            health = keypad.health
        if health is KeypadHealth.OK:
            info = keypad.protocol.info
            matrix = f", {info.rows} x {info.columns} keys" if info is not None else ""
            firmware = f", firmware {info.firmware}" if info is not None else ""
            self.say(f"{self.keypad_name}: {health.value}{firmware}{matrix}")
            if info is not None and info.outdated:
                self.say(f"{self.keypad_name}: its firmware {info.firmware} is older than this host's {FIRMWARE}: "
                         "flash firmware/ again (docs/firmware.md)")
            keymap = self._keypad_keymap
            if info is not None and keymap is not None and (info.rows * info.columns, info.columns) != (
                    keymap.size, keymap.columns):
                self.say(f"{self.keypad_name}: it has {info.rows} x {info.columns} keys; its keymap "
                         f"{self.config.keypad_keymap} has {len(keymap.layout)} x {keymap.columns}")
        elif self._keypad_failure:
            self.say(f"{self.keypad_name}: {self._keypad_failure} (plugged in? the udev rule names it: "
                     "docs/install.md); still looking for it")
        else:
            self._keypad_failure = (f"{health.value}: no answer in {self._answer_wait:g} s (is its firmware "
                                    "running? docs/firmware.md)")
            self.say(f"{self.keypad_name}: {self._keypad_failure}; still listening")

    # -- the inputs, echoed (on the pins' and the keypad's threads) ----------------------

    def _on_button(self, press: ButtonPress) -> None:
        box = self.boxes[press.box]
        box.pressed.add(press.button)
        pin = _pin_label(box.config.pins[press.button])
        self.say(f"referee box {press.box}, button {press.button} ({pin}): "
                 f"{_action(self._box_keymap, press.button, press.held)}")

    def _on_key(self, press: KeyPress) -> None:
        self.keys_pressed.add(press.index)
        keymap = self._keypad_keymap
        columns = keymap.columns if keymap is not None else self._keypad_columns()
        where = f" (row {press.index // columns}, column {press.index % columns})" if columns else ""
        action = _action(keymap, press.index, press.held)
        self.say(f"keypad key {press.index}{where}: {action}")
        if not press.held and self.keypad is not None:
            # Each key answered as the daemon would: a beep and green, or red for a key with no action.
            self.keypad.feedback(keymap is not None and press.index < keymap.size and bool(keymap.action(press.index)))

    def _keypad_columns(self) -> int:
        info = self.keypad.protocol.info if self.keypad is not None else None
        return info.columns if info is not None else 0

    def _on_keypad_health(self, health: KeypadHealth) -> None:
        with self._keypad_answered:
            self._keypad_answered.notify_all()
            report = self._keypad_reported and not self._closing
        if report:
            self.say(f"{self.keypad_name}: {health.value}")

    # -- the steps -----------------------------------------------------------------------

    def steps(self) -> list[Step]:
        """The steps of the check, in order: each open board's, the keypad's (when it
        answers), then the last, listening to the buttons and keys. Building them shows
        nothing; each step's frames do, when it runs."""
        steps = []
        for board in self.boards:
            if board.device is not None:
                steps += self._board_steps(board)
        keypad = self.keypad
        if keypad is not None:
            if keypad.health is KeypadHealth.OK:
                steps.append(Step(self.keypad_name, "green light and one short beep (accepted)",
                                  (lambda: keypad.feedback(True),), BEEP_SECONDS))
                steps.append(Step(self.keypad_name, "red light and two beeps (refused)",
                                  (lambda: keypad.feedback(False),), BEEP_SECONDS))
            else:
                self.say(f"{self.keypad_name}: not answering ({keypad.health.value}): its beeps are left out")
        relay = self.relay
        if relay is not None:
            steps.append(Step("light", "the relay on: it clicks and the table's lamp lights (off again after)",
                              (lambda: relay.set(True),), after=lambda: relay.set(False)))
        if self.boxes or keypad is not None:
            steps.append(Step("buttons and keys", "press each one: it is echoed with its number and action",
                              (lambda: None,)))
        return steps

    def _board_steps(self, board: _Board) -> list[Step]:
        device = board.device
        size, mode = device.size, device.mode
        chain = isinstance(device, Max7219Chain)

        def guarded(action: Callable[[], None]) -> Callable[[], None]:
            # A board that fails mid-check (an SPI error) is reported; the check goes on without it.
            def run() -> None:
                if board.failure:
                    return
                try:
                    action()
                except Exception as exc:
                    board.failure = f"failed: {_reason(exc)}"
                    self.say(f"{board.name}: {board.failure}")
            return run

        def frame(image: Image.Image) -> Callable[[], None]:
            return lambda: device.display(image)

        steps = []
        if chain:
            steps.append(Step(board.name, "all LEDs on (display test)", (lambda: device.display_test(True),),
                              after=lambda: device.display_test(False)))
        if mode == "RGB":
            steps.append(Step(board.name, "all LEDs on, white", (frame(_lit(size, mode)),)))
            steps.append(Step(board.name, "all LEDs red, green, blue in turn",
                              tuple(frame(_lit(size, mode, c)) for c in ("red", "lime", "blue")), COLOUR_SECONDS))
        else:
            steps.append(Step(board.name, "all LEDs on (every pixel drawn)", (frame(_lit(size, mode)),)))
        steps.append(Step(board.name, "one row lit at a time, top to bottom",
                          tuple(frame(i) for i in _lines(size, mode, rows=True)), LINE_SECONDS))
        steps.append(Step(board.name, "one column lit at a time, left to right",
                          tuple(frame(i) for i in _lines(size, mode, rows=False)), LINE_SECONDS))
        if board.config.device == "hub75":
            # Panels, not 8x8 blocks: each outlined and numbered, then the test pattern.
            pw, ph = (int(n) for n in board.config.panel.split("x"))
            if board.config.rotate % 2:
                pw, ph = ph, pw
            count = (size[0] // pw) * (size[1] // ph)
            steps.append(Step(board.name, f"the {count} HUB75 panel(s) of {pw}x{ph} outlined and numbered 0 to "
                              f"{count - 1}, {size[0] // pw} a row, top left first",
                              (frame(hub75_panels(size, (pw, ph))),)))
            steps.append(Step(board.name, "test pattern: colour bars, then grey, red, green and blue ramps "
                              "(smooth, in this order)", (frame(test_pattern(size)),),
                              after=lambda: self._blank(board)))
        else:
            across, down = (size[0] + 7) // 8, (size[1] + 7) // 8
            chips = " (the chips)" if chain else ""
            steps.append(Step(board.name, f"the {across * down} 8x8 blocks{chips} numbered 0 to "
                              f"{across * down - 1}, {across} a row, top left first",
                              (frame(block_numbers(size, mode)),), after=lambda: self._blank(board)))

        def counted(step: Step) -> Step:
            def after() -> None:
                if not board.failure:
                    board.steps += 1
                if step.after is not None:
                    guarded(step.after)()
            return replace(step, frames=tuple(guarded(f) for f in step.frames), after=after,
                           gone=lambda: bool(board.failure))

        return [counted(s) for s in steps]

    def _blank(self, board: _Board) -> None:
        device = board.device
        if device is None:
            return
        try:
            device.display(Image.new(device.mode, device.size))
        except Exception as exc:
            self.say(f"{board.name}: failed: {_reason(exc)}")

    def run_step(self, step: Step, pacer: Pacer, last: bool) -> bool:
        """Show one step with ``pacer``; False: the check is to end."""
        prompt = pacer.prompt(last)
        line = f"{step.device}: {step.what}" + (f" ... {prompt}" if prompt else "")
        try:
            # The line once the step shows: a person reading it sees what it says.
            return pacer.run(step, lambda: self.say(line))
        finally:
            if step.after is not None:
                step.after()

    # -- the end -------------------------------------------------------------------------

    def summary(self) -> bool:
        """Print what worked and what was not pressed; True if every device opened (and the
        keypad answered)."""
        ok = True
        self.say("summary:")
        for board in self.boards:
            ok = ok and not board.failure
            self.say(f"  {board.name}: {board.failure or f'{board.steps} steps shown'}")
        for box in self.boxes:
            if box.failure:
                ok = False
                self.say(f"  referee box {box.number}: {box.failure}")
                continue
            count = len(box.config.pins)
            left = [f"{n} ({_action(self._box_keymap, n, False)}, {_pin_label(p)})"
                    for n, p in enumerate(box.config.pins) if n not in box.pressed]
            self.say(f"  referee box {box.number}: {count - len(left)} of {count} buttons pressed"
                     + (f"; not pressed: {', '.join(left)}" if left else ""))
        if self.config.light is not None:
            ok = ok and not self._relay_failure
            self.say(f"  light: {self._relay_failure or 'relay switched on and off'}")
        if self.keypad is not None:
            answered, state = self._keypad_last or self._keypad_state()
            ok = ok and answered
            keymap = self._keypad_keymap
            line = f"  {self.keypad_name}: {state}"
            if keymap is not None:
                left = [f"{n} ({_action(keymap, n, False)})" for n in range(keymap.size) if n not in self.keys_pressed]
                pressed = keymap.size - len(left)
                line += f"; {pressed} of {keymap.size} keys pressed" + (f"; not pressed: {', '.join(left)}"
                                                                       if left else "")
            self.say(line)
        return ok

    def _keypad_state(self) -> tuple[bool, str]:
        keypad = self.keypad
        assert keypad is not None
        if keypad.health is KeypadHealth.OK or self.keys_pressed:
            return True, keypad.health_report()
        return False, self._keypad_failure or keypad.health.value

    def close(self) -> None:
        """Close every device, whatever happened: boards blank (a MAX7219's display test off)
        and released, pins released, the keypad's port closed."""
        with self._keypad_answered:
            self._closing = True
        for board in self.boards:
            device, board.device = board.device, None
            if device is None:
                continue
            try:
                if isinstance(device, Max7219Chain):
                    device.display_test(False)  # it outlasts the shutdown register
                device.display(Image.new(device.mode, device.size))  # luma's emulators blank nothing
                device.cleanup()  # luma's: off, and the bus released
            except Exception as exc:
                self.say(f"{board.name}: closing: {_reason(exc)}")
        for box in self.boxes:
            if box.box is not None:
                box.box.close()
                box.box = None
        if self.relay is not None:
            with contextlib.suppress(Exception):
                self.relay.set(False)  # the check leaves the lamp as it found it: off
            self.relay.close()
            self.relay = None
        if self.keypad is not None and self._keypad_last is None:
            self._keypad_last = self._keypad_state()
            self.keypad.stop()
        while self._handed:  # stopped before its thread took it
            with contextlib.suppress(OSError):
                self._handed.pop().close()
        if self._own_clock and isinstance(self._clock, MonotonicClock):
            self._clock.close()


def _action(keymap: Keymap | None, index: int, held: bool) -> str:
    """A key's action as the keymap gives it: ``FOUL``; held, ``FOUL, held: MISS``."""
    if keymap is None:
        action = "(no keymap)"
    elif index >= keymap.size:
        action = f"(not in the keymap, which has {keymap.size} keys)"
    else:
        action = keymap.action(index) or "(no action in the keymap)"
    if held:
        hold = keymap.hold.get(action) if keymap is not None else None
        action += f", held: {hold}" if hold else ", held"
    return action


def run(config: Config, out: TextIO, err: TextIO, pacer: Pacer, **devices: Any) -> int:
    """``cueboard hwtest``: the check, start to end; the exit status. ``devices``: the
    lowest levels, for tests (see :class:`HardwareCheck`)."""
    check = HardwareCheck(config, out, **devices)
    status = EXIT_OK
    try:
        try:
            check.open()
            steps = check.steps()
            for n, step in enumerate(steps):
                if step.failed:
                    continue
                if not check.run_step(step, pacer, last=n == len(steps) - 1):
                    check.say("end of input: the check ends")
                    break
        except DaemonRunning as exc:
            print(f"cueboard hwtest: {exc}. Stop it first: {STOP_DAEMON} (and {STOP_DAEMON.replace('stop', 'start')} "
                  "after the check)", file=err, flush=True)
            status = EXIT_DAEMON
        except KeyboardInterrupt:
            status = EXIT_INTERRUPTED
    except KeyboardInterrupt:  # a Ctrl-C while the first was being handled
        status = EXIT_INTERRUPTED
    finally:
        with _signals_ignored():
            check.close()
            if status != EXIT_DAEMON:
                if status == EXIT_INTERRUPTED:
                    check.say("interrupted: every device closed")
                ok = check.summary()
                if status == EXIT_OK and not ok:
                    status = EXIT_FAILED
    return status


def command(config: Config, *, step_seconds: float | None, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    """The command line's entry: steps paced by Enter, or ``step_seconds`` each."""
    pacer: Pacer = EnterPacer(stdin) if step_seconds is None else TimedPacer(step_seconds)
    # A closed SSH session or a kill ends the check as Ctrl-C does, the devices closed; Ctrl-C
    # works even if SIGINT was inherited ignored (the check then waited for Enter, devices held).
    end_as_ctrl_c()
    return run(config, stdout, stderr, pacer)
