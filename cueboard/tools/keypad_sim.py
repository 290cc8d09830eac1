"""``cueboard keypad-sim``: a marker's keypad in a terminal, speaking the real protocol over a
pseudo-terminal or a serial port; it can drop, corrupt or repeat frames for tests.
How it behaves and what it prints: docs/keypad-protocol.md, "The simulator".
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import select
import termios
import threading
import time
import tty
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from cueboard.contract.topics import ANY, REJECTED, TableTopics
from cueboard.hw import keyproto
from cueboard.hw.keypad_link import DEFAULT_TIMING, FIRMWARE, LinkTiming, random_epoch

if TYPE_CHECKING:
    from cueboard.table.keymap import Keymap

DATA_KIND_HEX = b"%02x" % keyproto.KEYPAD_DATA


class KeypadSimulator:
    """A keypad on file descriptor ``fd`` (which it then owns), served by one thread."""

    def __init__(self, fd: int | None = None, *, rows: int = 5, columns: int = 4,
                 clock: Callable[[], float] = time.monotonic, epoch: int | None = None,
                 on_feedback: Callable[[bool], None] | None = None,
                 on_host: Callable[[bool], None] | None = None,
                 timing: LinkTiming = DEFAULT_TIMING, tick: float = 0.02, firmware: int = FIRMWARE) -> None:
        self.rows = rows
        self.columns = columns
        self.firmware = firmware  # the version it reports: this host's own unless told
        self._clock = clock
        self._timing = timing
        self._tick = tick
        self._on_feedback = on_feedback
        self._on_host = on_host
        self._lock = threading.Condition()
        self.link = self._new_link(random_epoch() if epoch is None else epoch)
        self._fd: int | None = None
        self._to_close: list[int] = []  # closed by the thread, which may be reading them
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._drop = 0
        self._corrupt = 0
        self._duplicate = 0
        self._host_alive = False
        self.feedback: list[bool] = []  # every verdict the host sent, in order
        if fd is not None:
            self.plug(fd)

    def _new_link(self, epoch: int) -> keyproto.Link:
        t = self._timing
        return keyproto.Link(False, epoch, self._now_ms(), retransmit_ms=t.retransmit_ms, beat_ms=t.beat_ms,
                             lost_ms=t.lost_ms,
                             beat_payload=keyproto.keypad_beat(self.rows, self.columns, self.firmware))

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    # -- driving it ---------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="keypad-sim", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._wake()
        if self._thread is not None:
            self._thread.join(2.0)
        self.unplug()
        os.close(self._wake_r)
        os.close(self._wake_w)

    def __enter__(self) -> KeypadSimulator:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def press(self, index: int, held: bool = False) -> bool:
        """Send one report of key ``index``: pressed, or (``held``) still down after the
        hold time. False if the keypad's queue is full (it would beep "refused")."""
        if not 0 <= index < self.rows * self.columns:
            raise ValueError(f"no key {index} on a {self.rows} x {self.columns} keypad")
        with self._lock:
            queued = self.link.send(keyproto.key_message(index, held))
        self._wake()
        return queued

    def hold(self, index: int) -> bool:
        """A long press of key ``index``, as the keypad reports it: pressed, then held."""
        return self.press(index) and self.press(index, held=True)

    def plug(self, fd: int) -> None:
        """Connect to ``fd`` (the simulator closes it on ``unplug``)."""
        os.set_blocking(fd, False)
        with self._lock:
            self._fd = fd
            self.link.restart_transport(self._now_ms())
        self._wake()

    def unplug(self) -> None:
        """Close the descriptor (closed when this returns); presses wait in the queue
        until ``plug``."""
        with self._lock:
            fd, self._fd = self._fd, None
            if fd is None:
                return
            running = self._thread is not None and self._thread.is_alive()
            if running and threading.current_thread() is not self._thread:
                self._to_close.append(fd)
                self._wake()
                if self._lock.wait_for(lambda: fd not in self._to_close, 2.0):
                    return
                self._to_close.remove(fd)
        os.close(fd)

    def reboot(self, epoch: int | None = None) -> None:
        """Power-cycle: a new epoch, and the presses not yet acknowledged are gone."""
        with self._lock:
            self.link = self._new_link(random_epoch() if epoch is None else epoch)
            self._host_alive = False
        self._wake()

    def drop_next(self, frames: int = 1) -> None:
        """Lose the next ``frames`` data frames on the way out."""
        with self._lock:
            self._drop += frames

    def corrupt_next(self, frames: int = 1) -> None:
        """Flip a hex digit in each of the next ``frames`` data frames (the CRC fails)."""
        with self._lock:
            self._corrupt += frames

    def duplicate_next(self, frames: int = 1) -> None:
        """Write each of the next ``frames`` data frames twice."""
        with self._lock:
            self._duplicate += frames

    def inject(self, raw: bytes) -> None:
        """Write raw bytes (noise, a replayed frame) as they are."""
        with self._lock:
            self._write([raw])

    @property
    def pending(self) -> int:
        """Presses not yet acknowledged by the host."""
        with self._lock:
            return self.link.pending()

    @property
    def host_alive(self) -> bool:
        return self._host_alive

    def wait_for(self, predicate: Callable[[KeypadSimulator], bool], timeout: float) -> bool:
        """Wait until ``predicate(self)`` holds (checked whenever the link moves); its last value."""
        with self._lock:
            return self._lock.wait_for(lambda: predicate(self), timeout)

    # -- the thread ---------------------------------------------------------------------

    def _wake(self) -> None:
        with contextlib.suppress(OSError):  # full (a wake-up is pending anyway) or closed
            os.write(self._wake_w, b"w")

    def _write(self, frames: Iterable[bytes]) -> None:
        """Write frames as the keypad's USB would: if no host reads them, they are lost."""
        if self._fd is None:
            return
        for frame in frames:
            try:
                os.write(self._fd, frame)
            except BlockingIOError:
                pass
            except OSError as exc:
                if exc.errno != errno.EIO:
                    raise

    def _faulty(self, frames: list[bytes]) -> list[bytes]:
        out = []
        for frame in frames:
            if frame[3:5] != DATA_KIND_HEX:
                out.append(frame)
            elif self._drop:
                self._drop -= 1
            elif self._corrupt:
                self._corrupt -= 1
                i = len(frame) // 2
                digit = b"1" if frame[i:i + 1] == b"0" else b"0"
                out.append(frame[:i] + digit + frame[i + 1:])
            elif self._duplicate:
                self._duplicate -= 1
                out += [frame, frame]
            else:
                out.append(frame)
        return out

    def _run(self) -> None:
        while not self._stopping.is_set():
            with self._lock:
                if self._to_close:
                    for dead in self._to_close:
                        os.close(dead)
                    self._to_close.clear()
                    self._lock.notify_all()
                fd = self._fd
                if fd is not None:
                    self._write(self._faulty(self.link.poll(self._now_ms())))
            watch = [self._wake_r] if fd is None else [self._wake_r, fd]
            try:
                readable, _, _ = select.select(watch, [], [], self._tick)
            except (OSError, ValueError):  # fd closed by unplug() meanwhile
                continue
            if self._wake_r in readable:
                os.read(self._wake_r, 512)
            data = b""
            if fd is not None and fd in readable:
                try:
                    data = os.read(fd, 4096)
                except BlockingIOError:
                    pass
                except OSError:
                    # EIO: no one has the other end open (a pty with no host): wait a tick.
                    self._stopping.wait(self._tick)
            self._receive(data)

    def _receive(self, data: bytes) -> None:
        verdicts = []
        with self._lock:
            now = self._now_ms()
            for message in self.link.feed(data, now) if data else ():
                verdict = keyproto.parse_feedback_message(message)
                if verdict is not None:
                    verdicts.append(verdict)
                    self.feedback.append(verdict)
            alive = self.link.peer_alive(now)
            changed = alive != self._host_alive
            self._host_alive = alive
            self._lock.notify_all()
        for verdict in verdicts:
            if self._on_feedback is not None:
                self._on_feedback(verdict)
        if changed and self._on_host is not None:
            self._on_host(alive)


# -- the command ------------------------------------------------------------------------

HELP = """\
keys:     black  foul  free ball  award  (the key's label, any case; a shifted one presses SHIFT first)
          7  (key number)   2,3  (row, column)   add h to hold it down: 7h, 2,3h
faults:   drop  corrupt  dup  (the next press's frame)   noise  (random bytes)
keypad:   legend  reboot  status  help  quit   (end of input: wait for the host, then quit)"""

DEFAULT_PREFIX = TableTopics.of(ANY, ANY).prefix
"""The daemons' topics the simulator listens to without ``--topic``: every table's."""


def parse_key(text: str, rows: int, columns: int) -> tuple[int, bool] | None:
    """(index, held) from ``7``, ``7h``, ``2,3`` or ``2,3h``; None if it is none of them."""
    text = text.replace(" ", "").lower()
    held = text.endswith("h")
    text = text.removesuffix("h")
    try:
        if "," in text:
            row, column = (int(part) for part in text.split(","))
            if not (0 <= row < rows and 0 <= column < columns):
                return None
            return row * columns + column, held
        index = int(text)
    except ValueError:
        return None
    return (index, held) if 0 <= index < rows * columns else None


def _label(text: str) -> str:
    """A label as typed or as written: ``FREE_BALL``, ``free ball`` and ``Free-Ball`` alike."""
    return " ".join(text.lower().replace("_", " ").replace("-", " ").split())


Presses = tuple[tuple[int, bool], ...]
"""Key presses in order: (index, held)."""


def key_labels(keymap: Keymap) -> dict[str, Presses]:
    """Each label a marker may type for a key of ``keymap``, and the presses it makes: the key's
    own action by its legend or name (``free ball``, ``no pot``; a ball key also by its ball,
    ``black``, and as the legend shows it, ``7 black``), then its shifted action (SHIFT, then
    the key) and its held one (the key held). A key's own action wins a label two keys share."""
    from cueboard.games.key_sequences import legend
    from cueboard.tools.key_legend import key_text

    def names(action: str) -> list[str]:
        out = [_label(legend(action)), _label(action), _label(key_text(keymap, action))]
        if action.isdigit():
            ball = keymap.grammar.ball(action)
            if ball:
                out.append(_label(ball))
            out.remove(_label(action))  # a number is a key's index, as it always was
            out.remove(_label(legend(action)))
        return out

    labels: dict[str, Presses] = {}
    shift = next((i for i in range(keymap.size) if keymap.action(i) == "SHIFT"), None)
    for index in range(keymap.size):
        action = keymap.action(index)
        for name in names(action) if action else ():
            labels.setdefault(name, ((index, False),))
    for index in range(keymap.size):
        action = keymap.action(index)
        shifted, held = keymap.shift.get(action), keymap.hold.get(action)
        if shifted and shift is not None:
            for name in names(shifted):
                labels.setdefault(name, ((shift, False), (index, False)))
        if held:
            for name in names(held):
                labels.setdefault(name, ((index, True),))
    return labels


def open_port(path: str, create: bool) -> tuple[int, int | None]:
    """(fd, slave fd to keep open) for PORT: a new pseudo-terminal linked at ``path`` if
    ``create``, else the serial port or pseudo-terminal at ``path``, raw, 115200 baud."""
    if create:
        master, slave = os.openpty()
        tty.setraw(slave)
        if os.path.islink(path):
            os.unlink(path)
        os.symlink(os.ttyname(slave), path)
        return master, slave
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    try:
        tty.setraw(fd)
        attrs = termios.tcgetattr(fd)
        attrs[4] = attrs[5] = termios.B115200
        termios.tcsetattr(fd, termios.TCSANOW, attrs)
    except termios.error:
        pass  # not a terminal (a FIFO, say): use it as it is
    return fd, None


def host_messages(payload: bytes | bytearray, topic: str) -> str | None:
    """What a marker should read of one message of the daemon's ``rejected`` or ``input``
    topic, if it is the keypad's: ``host refused: <reason>``, ``host reads: FOUL MISS; next:
    ...``, ``host: FREE BALL lapsed``; None for another device's or an unreadable one."""
    try:
        message = json.loads(payload)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(message, dict) or message.get("source") != "keypad":
        return None
    if topic.endswith(f"/{REJECTED}"):
        return f"host refused: {message.get('reason')}"
    keys = " ".join(str(k) for k in message.get("keys") or [])
    if message.get("expired") or message.get("lapsed"):
        return f"host: {keys + ' ' if keys else ''}lapsed (not finished in time)"
    if keys:
        wanted = message.get("next") or message.get("needs")
        return f"host reads: {keys}" + (f"; next: {wanted}" if wanted else "")
    return None


@contextlib.contextmanager
def watch_host(broker: str, prefix: str, say: Callable[[str], None]) -> Iterator[None]:
    """Print the keypad's refusals and prompts from the daemon's MQTT topics while inside."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    host, _, port_text = broker.rpartition(":") if ":" in broker else (broker, "", "")
    port = int(port_text) if port_text else 1883
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"cueboard-keypad-sim-{os.getpid()}")
    topics = [TableTopics(prefix).rejected, TableTopics(prefix).input]

    def connected(c: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            say(f"MQTT {host}:{port}: {reason}")
            return
        c.subscribe([(t, 1) for t in topics])

    def subscribed(c: mqtt.Client, userdata: Any, mid: int, reasons: Any, properties: Any) -> None:
        say(f"MQTT {host}:{port}: the host's reasons from {topics[0]}")

    def received(c: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        text = host_messages(message.payload, message.topic)
        if text is not None:
            say(text)

    client.on_connect = connected
    client.on_subscribe = subscribed
    client.on_message = received
    client.connect_async(host, port)
    client.loop_start()
    try:
        yield
    finally:
        client.disconnect()
        client.loop_stop()


def run_terminal(path: str, *, create: bool, rows: int, columns: int, stdin: TextIO, stdout: TextIO,
                 drain_timeout: float = 5.0, keymap: str | Path | None = None, broker: str | None = None,
                 prefix: str = DEFAULT_PREFIX) -> int:
    """The command: ``keymap`` (a file) is printed as a legend and names each key pressed;
    with ``broker`` the host's reasons and prompts are printed (:func:`watch_host`)."""
    from cueboard.table.keymap import KeymapError, load_keymap
    from cueboard.tools.key_legend import key_text, legend_lines

    def say(text: str) -> None:
        print(text, file=stdout, flush=True)

    km: Keymap | None = None
    if keymap is not None:
        try:
            km = load_keymap(keymap)
        except KeymapError as exc:
            say(f"cueboard keypad-sim: {exc}")
            return 2
        if km.size != rows * columns or km.columns != columns:
            say(f"cueboard keypad-sim: {keymap}: a keymap of {len(km.layout)} x {km.columns} keys for a "
                f"keypad of {rows} x {columns} (--rows, --columns)")
            return 2
    try:
        fd, slave = open_port(path, create)
    except OSError as exc:
        say(f"cueboard keypad-sim: cannot open {path}: {exc.strerror or exc}")
        return 1
    sim = KeypadSimulator(fd, rows=rows, columns=columns,
                          on_feedback=lambda ok: say("host: accepted" if ok else "host: refused"),
                          on_host=lambda alive: say("host connected" if alive else "host lost"))
    where = f"{path} -> {os.ttyname(slave)}" if slave is not None else path
    say(f"keypad {rows} x {columns} on {where}; epoch {sim.link.epoch:08x}. Type 'help'.")

    def show_legend() -> None:
        if km is None or keymap is None:
            say("no keymap: --keymap FILE names the keys")
            return
        say(f"keys of {Path(keymap).name}" + (f" ({km.description})" if km.description else "") + ":")
        say("the key's number, then what it is; shift X: X after SHIFT; hold X: X held down (type 7h);")
        say("type a key by its label (black, foul, free ball, award: SHIFT then FOUL) or its number")
        for line in legend_lines(km):
            say(line)

    def name(index: int) -> str:
        return "" if km is None else f" {key_text(km, km.action(index))}"

    labels = {} if km is None else key_labels(km)

    show_legend()
    if broker is None:
        say("the host's reasons for a refusal: --broker HOST[:PORT] (its MQTT 'rejected' topic)")
    status = 0
    with contextlib.ExitStack() as stack, sim:
        if broker is not None:
            stack.enter_context(watch_host(broker, prefix, say))
        try:
            for line in stdin:
                command = line.strip().lower()
                if not command:
                    continue
                if command in ("quit", "exit", "q"):
                    break
                if command == "legend":
                    show_legend()
                    continue
                if not _command(sim, command, say, name, labels):
                    known = "" if km is not None else "; labels need a keymap (--keymap)"
                    say(f"? {command!r}: not a key's label, number or row,column, nor a command "
                        f"(type 'legend' for the keys, 'help'){known}")
            else:  # end of input: let the host take what is queued
                if not sim.wait_for(lambda s: s.pending == 0, drain_timeout):
                    say(f"{sim.pending} presses not acknowledged by the host")
                    status = 1
        except KeyboardInterrupt:
            pass
        finally:
            if slave is not None:
                os.close(slave)
                if os.path.islink(path):
                    os.unlink(path)
    return status


def _command(sim: KeypadSimulator, command: str, say: Callable[[str], None],
             name: Callable[[int], str] = lambda index: "", labels: Mapping[str, Presses] | None = None) -> bool:
    key = parse_key(command, sim.rows, sim.columns)
    presses: Presses | None = (key,) if key is not None else (labels or {}).get(_label(command))
    if presses is not None:
        for index, held in presses:
            row, column = divmod(index, sim.columns)
            what = "held" if held else "pressed"
            if (sim.hold if held else sim.press)(index):
                say(f"key {index}{name(index)} (row {row}, column {column}) {what}")
            else:
                say(f"key {index}: queue full, refused")
                break
        return True
    if command == "drop":
        sim.drop_next()
    elif command == "corrupt":
        sim.corrupt_next()
    elif command == "dup":
        sim.duplicate_next()
    elif command == "noise":
        sim.inject(os.urandom(64))
    elif command == "reboot":
        sim.reboot()
        say(f"rebooted: epoch {sim.link.epoch:08x}")
    elif command == "status":
        link = sim.link
        say(f"host {'connected' if sim.host_alive else 'lost'}; {sim.pending} pending; "
            f"{link.retransmissions} retransmitted; {link.decoder.rejected} bad frames from the host")
    elif command == "help":
        say(HELP)
    else:
        return False
    return True
