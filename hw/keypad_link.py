"""The marker's keypad on USB serial: presses in, exactly once and in order; verdicts out.

``KeypadLink`` opens the keypad by its stable path (``/dev/cueboard-keypad``) with
pyserial, and runs one reader thread that speaks the protocol of
``docs/keypad-protocol.md`` (``keyproto``, shared with the firmware). When the port
fails or vanishes it marks the keypad ``lost``, reopens with backoff and picks up where
it was: the keypad keeps every press the host has not acknowledged and sends it again.

``HostProtocol`` is the same thing without a port or a thread: bytes in, presses out,
frames to write out. The fuzz tests drive it directly.

Presses reach ``on_press`` on the reader thread; the daemon hands them to the thread
that owns the engine (the reader never waits on the engine).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from . import keyproto
from .keys import KeyPress

log = logging.getLogger(__name__)

DEFAULT_KEYS = 20  # 5 rows of 4 (examples/keymaps/keypad-4x5.toml)
FIRMWARE = 2
"""The keypad firmware this host ships (``FIRMWARE`` in firmware/keypad.py; a test keeps them
equal). A keypad reporting an older one works, but its health says to flash it again.
1: the first; 2: runs on MicroPython 1.20 to 1.23 too (issue 17)."""
BAUD = 115200  # ignored by USB CDC; right for a keypad on a USB-UART adapter
FEEDBACK_QUEUE = 4  # verdicts waiting for the keypad; more are dropped


class KeypadHealth(StrEnum):
    """The keypad as the MQTT devices topic reports it (``{"keypad": "lost"}``)."""

    OK = "ok"  # the keypad answers
    SILENT = "silent"  # the port is open but no keypad answers (no firmware running, REPL, wrong device)
    LOST = "lost"  # the port is missing or failed; reopening with backoff


@dataclass(frozen=True)
class KeypadInfo:
    """What the keypad says of itself in its heartbeats."""

    rows: int
    columns: int
    firmware: int

    @property
    def outdated(self) -> bool:
        """The keypad runs firmware older than this host's (:data:`FIRMWARE`)."""
        return self.firmware < FIRMWARE


@dataclass(frozen=True)
class LinkTiming:
    """The protocol's timers (milliseconds); see docs/keypad-protocol.md, "Timing"."""

    retransmit_ms: int = keyproto.RETRANSMIT_MS
    beat_ms: int = keyproto.BEAT_MS
    lost_ms: int = keyproto.LOST_MS


DEFAULT_TIMING = LinkTiming()


class SerialPort(Protocol):
    """What the link needs of a port: pyserial's ``Serial``, or a fake in tests.

    ``read`` returns what arrived within the port's timeout (``b""`` if nothing);
    a failed or vanished port raises ``OSError`` (pyserial's ``SerialException`` is one).
    """

    @property
    def in_waiting(self) -> int: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes, /) -> int | None: ...

    def close(self) -> None: ...


def open_serial(path: str, timeout: float = 0.02) -> SerialPort:
    """Open ``path`` with pyserial: raw, exclusive, reads returning within ``timeout``."""
    import serial  # pyserial; imported here so the package imports without it

    port: SerialPort = serial.Serial(path, BAUD, timeout=timeout, write_timeout=0.5, exclusive=True)
    return port


def random_epoch() -> int:
    return keyproto.new_epoch(os.urandom(4))


class HostProtocol:
    """The host's end of the keypad protocol, without I/O: feed it bytes, get presses.

    A key message for a key the host does not have (``index >= keys``) or a malformed
    one is acknowledged (so the stream goes on), counted in ``invalid_keys`` and answered
    with a "refused" verdict; it never becomes a press.
    """

    def __init__(self, keys: int = DEFAULT_KEYS, *, epoch: int | None = None, now_ms: int = 0,
                 timing: LinkTiming = DEFAULT_TIMING) -> None:
        self.keys = keys
        self.link = keyproto.Link(True, random_epoch() if epoch is None else epoch, now_ms,
                                  queue_limit=FEEDBACK_QUEUE, retransmit_ms=timing.retransmit_ms,
                                  beat_ms=timing.beat_ms, lost_ms=timing.lost_ms)
        self.presses = 0
        self.invalid_keys = 0
        self.stale_verdicts = 0
        self._told: KeypadInfo | None = None

    def feed(self, data: bytes, now_ms: int) -> list[KeyPress]:
        """Bytes from the keypad in; the presses they complete, in order, each once."""
        presses = []
        messages = self.link.feed(data, now_ms)
        info = self.info
        if info is not None and info != self._told:
            self._told = info
            if info.rows * info.columns != self.keys:
                log.warning("the keypad has %d x %d keys; the host expects %d", info.rows, info.columns,
                            self.keys)
            if info.outdated:
                log.warning("the keypad runs firmware %d, older than this host's %d: flash firmware/ again "
                            "(docs/firmware.md)", info.firmware, FIRMWARE)
        for message in messages:
            key = keyproto.parse_key_message(message)
            if key is None or key[0] >= self.keys:
                self.invalid_keys += 1
                log.warning("keypad sent an invalid key message %s", message.hex())
                self.feedback(False)
                continue
            self.presses += 1
            presses.append(KeyPress(key[0], key[1]))
        return presses

    def outgoing(self, now_ms: int) -> list[bytes]:
        """The frames to write to the keypad now."""
        return self.link.poll(now_ms)

    def feedback(self, accepted: bool) -> bool:
        """Queue a verdict for the keypad to beep or light; False if too many are waiting."""
        return self.link.send(keyproto.feedback_message(accepted))

    def reconnected(self, now_ms: int) -> None:
        """The port was (re)opened. Verdicts not yet acknowledged are dropped: they answer
        presses made before the link went down, and a keypad plugged in again (rebooted, or
        back after a while) would beep for a key nobody just pressed."""
        self.stale_verdicts += self.link.drop_pending()
        self.link.restart_transport(now_ms)

    def keypad_alive(self, now_ms: int) -> bool:
        return self.link.peer_alive(now_ms)

    @property
    def info(self) -> KeypadInfo | None:
        beat = keyproto.parse_keypad_beat(self.link.peer_beat)
        return None if beat is None else KeypadInfo(*beat)

    def counters(self) -> dict[str, int]:
        link = self.link
        return {
            "presses": self.presses,
            "invalid_keys": self.invalid_keys,
            "stale_verdicts": self.stale_verdicts,
            "duplicates": link.duplicates,
            "out_of_order": link.out_of_order,
            "lost_messages": link.gaps,
            "rejected_frames": link.decoder.rejected,
            "ignored_frames": link.ignored,
            "keypad_restarts": link.peer_restarts,
            "retransmissions": link.retransmissions,
        }


class KeypadLink:
    """The keypad on a serial port, served by one reader thread.

    ``on_press`` gets each ``KeyPress`` once, in order, on the reader thread; ``on_health``
    gets each change of ``health``. ``feedback(accepted)`` is safe from any thread. The
    port is opened by ``open_port(path)`` (pyserial by default), retried with a backoff
    that doubles from ``backoff[0]`` to ``backoff[1]`` seconds; a port that stays open but
    silent for ``reopen_silent_after`` seconds is closed and opened again.
    """

    def __init__(self, path: str, on_press: Callable[[KeyPress], None], *, keys: int = DEFAULT_KEYS,
                 on_health: Callable[[KeypadHealth], None] | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 open_port: Callable[[str], SerialPort] = open_serial,
                 backoff: tuple[float, float] = (0.05, 0.5), reopen_silent_after: float = 5.0,
                 timing: LinkTiming = DEFAULT_TIMING, epoch: int | None = None) -> None:
        self.path = path
        self._on_press = on_press
        self._on_health = on_health
        self._clock = clock
        self._open_port = open_port
        self._backoff = backoff
        self._reopen_silent_ms = int(reopen_silent_after * 1000)
        self.protocol = HostProtocol(keys, epoch=epoch, now_ms=self._now_ms(), timing=timing)
        self._health = KeypadHealth.LOST
        self._open_error: str | None = None
        """Why the port did not open, the last time it did not (None once it opened)."""
        self._feedback: deque[bool] = deque()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._port: SerialPort | None = None
        self.opens = 0

    # -- the daemon's side -------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("keypad link already started")
        self._thread = threading.Thread(target=self._run, name="keypad-link", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stopping.set()
        self._wake()
        if self._thread is not None:
            self._thread.join(timeout)

    def __enter__(self) -> KeypadLink:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def health(self) -> KeypadHealth:
        return self._health

    def feedback(self, accepted: bool) -> None:
        """Tell the keypad the last input was accepted (a short beep, green) or refused."""
        self._feedback.append(accepted)
        self._wake()

    def health_report(self) -> str:
        """The keypad's health as the devices topic gives it: ``ok``, ``silent`` or ``lost``,
        with the reason to flash it again when its firmware is older than this host's, as in
        ``ok: firmware 1 is older than this host's 2; flash firmware/ again (docs/firmware.md)``."""
        info = self.protocol.info
        if self._health is KeypadHealth.LOST and self._open_error is not None:
            # Which path was tried and why it did not open: the one thing to check first.
            return (f"lost: {self.path} cannot be opened ({self._open_error}): plug the keypad in (a Pico with "
                    "firmware/, docs/firmware.md), or set keypad.port to where it is")
        if info is None or not info.outdated:
            return self._health.value
        return (f"{self._health.value}: firmware {info.firmware} is older than this host's {FIRMWARE}; "
                "flash firmware/ again (docs/firmware.md)")

    def status(self) -> dict[str, Any]:
        """Health and counters, for the devices topic and diagnostics."""
        info = self.protocol.info
        return {
            "keypad": self._health.value,
            "path": self.path,
            "firmware": None if info is None else info.firmware,
            "firmware_expected": FIRMWARE,
            "matrix": None if info is None else [info.rows, info.columns],
            "opens": self.opens,
            **self.protocol.counters(),
        }

    # -- the reader thread -------------------------------------------------------------

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    def _wake(self) -> None:
        port = self._port
        cancel = getattr(port, "cancel_read", None)
        if cancel is not None:
            with contextlib.suppress(OSError, ValueError):  # closing meanwhile
                cancel()

    def _set_health(self, health: KeypadHealth, error: str | None = None) -> None:
        changed = error != self._open_error
        self._open_error = error
        if health is self._health and not changed:
            return
        self._health = health
        (log.warning if health is KeypadHealth.LOST else log.info)(
            "keypad %s (%s)", health.value, self.path if error is None else f"{self.path}: {error}")
        if self._on_health is not None:
            try:
                self._on_health(health)
            except Exception:
                log.exception("keypad health callback failed")

    def _run(self) -> None:
        delay = self._backoff[0]
        while not self._stopping.is_set():
            try:
                port = self._open_port(self.path)
            except (OSError, ValueError) as exc:
                log.debug("cannot open keypad %s: %s", self.path, exc)
                self._set_health(KeypadHealth.LOST, getattr(exc, "strerror", None) or str(exc))
                self._stopping.wait(delay)
                delay = min(delay * 2, self._backoff[1])
                continue
            self.opens += 1
            self._port = port
            heard = False
            try:
                heard = self._serve(port)
            except OSError as exc:
                log.info("keypad port %s failed: %s", self.path, exc)
            except Exception:  # a bug must not leave the keypad dead: log it, reopen
                log.exception("keypad link failed on %s", self.path)
            finally:
                self._port = None
                with contextlib.suppress(OSError):
                    port.close()
                self._set_health(KeypadHealth.LOST)
            if heard:
                delay = self._backoff[0]
            else:  # a port that opens but fails at once must not spin
                self._stopping.wait(delay)
                delay = min(delay * 2, self._backoff[1])

    def _serve(self, port: SerialPort) -> bool:
        """Talk to the keypad until the port fails, stays silent too long or we stop.
        Whether the keypad was heard at all."""
        protocol = self.protocol
        now = self._now_ms()
        # Verdicts queued while the port was down answer presses from before it: dropped
        # (HostProtocol.reconnected drops those sent and not acknowledged).
        while self._feedback:
            self._feedback.popleft()
            protocol.stale_verdicts += 1
        protocol.reconnected(now)
        self._set_health(KeypadHealth.SILENT)
        heard = False
        quiet_since = now
        while not self._stopping.is_set():
            while self._feedback:
                if not protocol.feedback(self._feedback.popleft()):
                    log.warning("keypad feedback dropped: %d verdicts waiting", FEEDBACK_QUEUE)
            for frame in protocol.outgoing(self._now_ms()):
                port.write(frame)
            data = port.read(1)
            if data:
                waiting = port.in_waiting
                if waiting:
                    data += port.read(waiting)
            now = self._now_ms()
            for press in protocol.feed(data, now) if data else ():
                try:
                    self._on_press(press)
                except Exception:
                    log.exception("keypad press handler failed on %s", press)
            if protocol.keypad_alive(now):
                heard = True
                quiet_since = now
                self._set_health(KeypadHealth.OK)
            else:
                self._set_health(KeypadHealth.SILENT)
                if now - quiet_since >= self._reopen_silent_ms:
                    log.info("keypad %s silent for %d ms: reopening", self.path, now - quiet_since)
                    break
        return heard
