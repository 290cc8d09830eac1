"""``cueboard demo``: the whole table on a laptop with no hardware: the real daemon with a
keyboard for the referee box, a simulated keypad, the board drawn in the terminal and MQTT
to a broker of its own. What it runs and prints: :func:`run_demo`, and README.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import os
import random
import select
import sys
import tempfile
import termios
import threading
import time
import tty
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from cueboard.common.resources import examples_dir
from cueboard.contract.topics import ALL
from cueboard.engine.state import SnookerSide
from cueboard.games.kits import kit
from cueboard.table.config import parse_config
from cueboard.table.daemon import Table
from cueboard.tools.local_broker import free_port, mosquitto_binary, mosquitto_broker
from cueboard.tools.stop_signals import end_as_ctrl_c

EXAMPLES = examples_dir()
ROWS = ("1234", "qwer", "asdf")
HELD = ("!\"£$", "QWER", "ASDF")
PINS = list(range(4, 16))


@contextlib.contextmanager
def embedded_broker(port: int, ws_port: int) -> Iterator[None]:
    """An amqtt broker on loopback in a thread of its own, for as long as the demo runs: the
    fallback where Debian's mosquitto cannot be had (amqtt, the demo extra, imported here
    because a plain install does not have it)."""
    from amqtt.broker import Broker  # type: ignore[import-untyped]  # amqtt ships no type hints (no py.typed, no stubs)

    config = {"listeners": {"default": {"type": "tcp", "bind": f"127.0.0.1:{port}"},
                            "ws": {"type": "ws", "bind": f"127.0.0.1:{ws_port}"}},
              "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}}}
    loop = asyncio.new_event_loop()
    started = threading.Event()
    stop: asyncio.Future[None] | None = None
    failure: list[BaseException] = []

    async def serve() -> None:
        nonlocal stop
        broker = Broker(config)
        await broker.start()
        stop = loop.create_future()
        started.set()
        await stop
        await broker.shutdown()

    def run() -> None:
        try:
            loop.run_until_complete(serve())
        except BaseException as exc:  # reported to the caller below
            failure.append(exc)
            started.set()

    thread = threading.Thread(target=run, name="broker", daemon=True)
    thread.start()
    started.wait(10)
    if failure:
        raise RuntimeError(f"the embedded broker did not start: {failure[0]}")
    try:
        yield
    finally:
        if stop is not None:
            loop.call_soon_threadsafe(stop.set_result, None)
        thread.join(5)


class TerminalDevice:
    """luma's dummy device, echoed to the terminal as coloured half blocks."""

    def __init__(self, device: Any, out: TextIO) -> None:
        self._device = device
        self._out = out
        self.frames = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._device, name)

    def display(self, image: Any) -> None:
        self._device.display(image)
        self.frames += 1
        rgb = image.convert("RGB")
        w, h = rgb.size
        px = rgb.load()
        lines = ["\x1b[H"]
        for y in range(0, h, 2):
            row: list[str] = []
            last: tuple[Any, Any] | None = None
            for x in range(w):
                colours = (px[x, y], px[x, y + 1] if y + 1 < h else (0, 0, 0))
                if colours != last:  # colour codes only where the colour changes
                    (r, g, b), (r2, g2, b2) = colours
                    row.append(f"\x1b[38;2;{r};{g};{b}m\x1b[48;2;{r2};{g2};{b2}m")
                    last = colours
                row.append("▀")
            lines.append("".join(row) + "\x1b[0m\x1b[K")
        self._out.write("\n".join(lines) + "\n")
        self._out.flush()


def _broker(work: Path, port: int, ws: int) -> contextlib.AbstractContextManager[Any]:
    """Debian's mosquitto when it is installed; else amqtt (the demo extra); else why not."""
    if mosquitto_binary() is not None:
        return mosquitto_broker(work, port, ws)
    if importlib.util.find_spec("amqtt") is None:
        raise SystemExit("cueboard demo: no MQTT broker: install Debian's mosquitto (apt-get install mosquitto; "
                         "scripts/demo does), or pip install 'cueboard[demo]', or pass --broker HOST:PORT")
    return embedded_broker(port, ws)


LAYOUTS = {"32x8": (32, 8), "64x16": (64, 16), "128x32": (128, 32)}
BOARDS = {"hub75-64x32": (64, 32), "hub75-128x64": (128, 64), "hub75-192x96": (192, 96)}
"""``--board``: hall boards of HUB75 panels, drawn by RGBMatrixEmulator."""


def keymap_names(game: str) -> tuple[str, str]:
    """The shipped keymaps of the referee box and the keypad for ``game`` (its kit's demo)."""
    demo = kit(game).demo
    return demo.referee_box, demo.keypad


def demo_config(work: Path, game: str, host: str, port: int, layout: str = "64x16", board: str | None = None,
                window: bool = False, language: str = "en") -> Any:
    box, pad = keymap_names(game)
    width, height = BOARDS[board] if board else LAYOUTS[layout]
    display: dict[str, Any] = {"device": "dummy", "width": width, "height": height, "mode": "RGB"}
    if board:
        # On a laptop the emulator; headless when the demo draws it in the terminal itself.
        display = {"device": "hub75", "width": width, "height": height, "backend": "emulator",
                   "emulator": "window" if window else "headless"}
    display["language"] = language
    match = {"game": game, **kit(game).demo.match}
    raw = {
        "table": {"venue": "demo", "name": "table-1"},
        "match": match,
        "journal": {"dir": str(work / "journal")},
        "control": {"socket": str(work / "control.sock")},
        "mqtt": {"host": host, "port": port},
        "referee_box": [{"pins": PINS, "keymap": str(EXAMPLES / "keymaps" / box)}],
        "keypad": {"port": str(work / "keypad"), "keymap": str(EXAMPLES / "keymaps" / pad)},
        "display": [display],
    }
    return parse_config(raw, work / "cueboard.toml")


def status_lines(config: Any, *, work: Path, host: str, port: int, ws: int | None, game: str,
                 interactive: bool, language: str = "en") -> list[str]:
    """What to run beside the demo, and where things are: printed in both modes."""
    from cueboard.table.keymap import load_keymap
    from cueboard.tools.key_legend import legend_lines

    prefix = config.mqtt.prefix
    every = config.mqtt.topics.under(ALL)
    box_name, pad_name = keymap_names(game)
    socket = config.control_socket
    if ws:
        lang = "" if language == "en" else f" --lang {language}"
        screen = (f"screen:  cueboard screen --broker-ws ws://{host}:{ws} --venue demo{lang}   "
                  "(then http://127.0.0.1:8080/)")
    else:
        screen = (f"screen:  cueboard screen --broker-ws ws://{host}:WS_PORT --venue demo   (WS_PORT: the "
                  f"WebSockets listener of the broker at {host}:{port}, if it has one)")
    lines = [
        f"MQTT     {host}:{port}  topics {every}" + (f"  (WebSockets :{ws})" if ws else ""),
        f"         mosquitto_sub -h {host} -p {port} -t '{every}' -v",
        screen,
        f"send:    cueboard send --socket {socket} '{{\"type\": \"no_pot\"}}'",
        f"         cueboard match state --socket {socket}",
        f"journal: {work / 'journal'}   (kept after the demo: a file a match, match-NNNNNN.jsonl, for "
        f"cueboard replay; delete {work} when done)",
        f"keypad:  cueboard keypad-sim --create {work / 'keypad'} --keymap {pad_name} --broker {host}:{port} "
        f"--topic {prefix}   (in another terminal)",
        f"keypad keys ({pad_name}):",
        *(f"  {line}" for line in legend_lines(load_keymap(config.keypad_keymap))),
    ]
    if interactive:
        keymap = load_keymap(config.referee_keymap)
        labels = [k for row in ROWS for k in row][:keymap.size]
        lines += [
            f"referee box ({box_name}): press the letter; a capital (or !\"£$ for 1234) holds the button down",
            *(f"  {line}" for line in legend_lines(keymap, labels)),
            "Ctrl-C or Ctrl-D quits",
        ]
    return lines


def run_demo(*, broker: str | None, game: str, autoplay: bool | None, events: int | None,
             journal: str | None, layout: str = "64x16", board: str | None = None, window: bool = False,
             language: str = "en", out: TextIO = sys.stdout) -> int:
    """Run ``cueboard demo``.

    The real daemon (``cueboard.table.service.open_table``) with:

    - the referee box on gpiozero's mock pins, pressed from the keyboard: the box's three rows
      of four buttons are the keys ``1234``, ``qwer``, ``asdf``; a capital letter (or ``!"£$``)
      holds the button down past its hold time;
    - the marker's keypad on a pseudo-terminal: run ``cueboard keypad-sim --create PATH`` in
      another terminal (the path is printed) and key in on it;
    - the LED board drawn in this terminal (64x16, or ``--layout 32x8`` / ``128x32``, on luma's
      dummy device), or a hall board of HUB75 panels (``--board hub75-128x64``, 64x32 or 192x96,
      on RGBMatrixEmulator) in the terminal or, with ``--window``, in a window;
    - MQTT to the broker given with ``--broker``, else an embedded one (amqtt, MQTT 3.1.1, with
      a WebSockets listener for a venue screen page), so a screen can subscribe at once:
      ``mosquitto_sub -h 127.0.0.1 -p PORT -t 'cueboard/#' -v``.

    With no terminal on standard input (or with ``--autoplay``) it plays a realistic match by
    itself through the same daemon, two events a second (``--events`` stops it).

    It prints, in either mode, what to run beside it: the keypad simulator (with the keypad's
    legend), ``cueboard send`` to its control socket, the venue screen and an MQTT subscriber;
    and where its journal is. The journal is kept (in a new folder under the temporary
    directory, or ``--journal``): a demo match can be replayed or rendered afterwards.
    """
    # the ignore below: gpiozero ships no type hints (no py.typed, no stubs)
    from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]  # gpiozero ships no type hints (no py.typed, no stubs)

    from cueboard.hw.display_devices import open_device
    from cueboard.table.devices import open_board
    from cueboard.table.keymap import load_keymap
    from cueboard.table.service import open_table

    interactive = sys.stdin.isatty() if autoplay is None else not autoplay
    # A kill or a closed terminal ends the demo as Ctrl-C does: its broker is stopped on the way out.
    end_as_ctrl_c()
    with contextlib.ExitStack() as stack:
        # The journal is kept: a folder of its own under the temporary directory (printed),
        # or --journal.
        work = Path(journal) if journal else Path(tempfile.mkdtemp(prefix="cueboard-demo-"))
        work.mkdir(parents=True, exist_ok=True)
        if broker:
            host, _, port_text = broker.partition(":")
            port, ws = int(port_text or 1883), None
        else:
            host, port, ws = "127.0.0.1", free_port(1883), free_port(9001)
            stack.enter_context(_broker(work, port, ws))
        config = demo_config(work, game, host, port, layout, board, window, language)
        rows = (BOARDS[board] if board else LAYOUTS[layout])[1] // 2 + 2  # the terminal's lines the board takes
        screens: list[TerminalDevice] = []

        def device_factory(display: Any) -> Any:
            if not interactive or window:  # no terminal to draw on: in memory, or the emulator's window
                return open_device(display)
            screens.append(TerminalDevice(open_device(display), out))
            return screens[-1]

        boards = [open_board(d, device_factory=device_factory) for d in config.displays]
        factory = MockFactory()
        if interactive:
            out.write("\x1b[2J")
        table: Table = stack.enter_context(open_table(config, pin_factory=factory, boards=boards))
        keymap = load_keymap(config.referee_keymap)
        status = status_lines(config, work=work, host=host, port=port, ws=ws, game=game, interactive=interactive,
                              language=language)
        engine = threading.Thread(target=table.run, name="engine", daemon=True)
        engine.start()
        try:
            if interactive:
                _keyboard(factory, keymap, out, status, below=2 if window else rows)
            else:
                with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C, a kill or a closed terminal: it ends
                    for line in status:
                        print(line, file=sys.stderr, flush=True)
                    _autoplay(table, config, events)
        finally:
            table.stop()
            engine.join(5)
        state = table.match.state() if table.match else None
        report = sys.stderr if not interactive else out
        if interactive:  # below the board and the status lines, which the board's frames overwrite
            out.write(f"\x1b[{(2 if window else rows) + len(status)};1H\n")
        if not interactive:
            sides = () if state is None else state.sides
            print(f"demo: {table.accepted} events applied, {table.refused} refused; frame "
                  f"{None if state is None else state.frame}, frames won {[s.frames for s in sides]}, "
                  f"score {[s.score if isinstance(s, SnookerSide) else s.frames for s in sides]}", file=sys.stderr)
        print(f"demo: the journal is kept in {work / 'journal'}", file=report, flush=True)
    return 0


def _press(factory: Any, pin: int, hold: float | None) -> None:
    p = factory.pin(pin)
    p.drive_low()  # the buttons pull the pin to ground
    if hold is None:
        p.drive_high()
    else:
        threading.Timer(hold, p.drive_high).start()


def _keyboard(factory: Any, keymap: Any, out: TextIO, status: list[str], below: int = 10) -> None:
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd)
    try:
        out.write(f"\x1b[{below};1H" + "\n".join(status) + "\n")
        out.flush()
        while True:
            ready, _, _ = select.select([fd], [], [])
            if not ready:
                continue
            typed = os.read(fd, 64).decode("utf-8", "replace")  # whole characters: "£" is two bytes
            if not typed or "\x03" in typed or "\x04" in typed:
                return
            for ch in typed:
                for r, (keys, held) in enumerate(zip(ROWS, HELD, strict=True)):
                    if ch in keys or ch in held:
                        column = keys.index(ch) if ch in keys else held.index(ch)
                        n = r * 4 + column
                        if n < keymap.size:
                            _press(factory, PINS[n], 1.0 if ch in held else None)
    except KeyboardInterrupt:
        return
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def _autoplay(table: Table, config: Any, events: int | None) -> None:
    """A realistic match, two events a second, through the daemon as if keyed in."""
    from cueboard.games.simulate import realistic_log

    log = realistic_log(config.match_setup().to_json(), random.Random(7))
    for n, obj in enumerate(log[1:]):
        if events is not None and n >= events:
            break
        table.ask(obj, "demo", 30.0)
        time.sleep(0.5 if events is None else 0.0)
