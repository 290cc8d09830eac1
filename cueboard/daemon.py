"""``cueboard run``: the daemon that keeps one table's score.

The shape (docs/layers.md)::

    inputs (buttons, keypad, MQTT command, control socket) --submit--> engine thread --> outputs
                                                                          |        (boards, MQTT)
                                                                       journal

One thread, the engine thread (:meth:`Table.run`), owns the match, the journal and the
outputs; every input thread only calls :meth:`Table.submit`, which puts the input on a
queue. For each event the engine thread checks it, appends it to the journal and fsyncs,
applies it, and only then shows and publishes the new state: a state nobody saw can be
lost in a power cut, a state somebody saw cannot. Nothing polls: the loop sleeps on the
queue until an input comes or the next deadline (the shot clock's next second, a key
sequence's timeout, an animation frame, the watchdog) is due.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import queue
import socket
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from . import systemd
from .config import Config
from .engine import IllegalEvent, Match, to_json
from .engine.shot_clock import ShotClock
from .inputs import Command, HealthChanged, Input, KeyInput, Refused, Reply
from .journal import Journal
from .keymap import Entry, Keymap, Refusal, load_keymap
from .seams import KeypadLike, Output, Publisher

log = logging.getLogger("cueboard")

__all__ = ["ControlServer", "Table", "ask_daemon"]


class Table:
    """One table: the match, its journal and its outputs, run by the engine thread."""

    def __init__(self, config: Config, *, feed: Publisher | None = None, boards: Iterable[Output] = (),
                 keypad: KeypadLike | None = None, wall: Callable[[], float] = time.time,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.feed = feed
        self.boards = list(boards)
        self.keypad = keypad
        self._wall = wall
        self._mono = monotonic
        self.journal = Journal(config.journal_dir)
        self.match: Match | None = None
        self._inbox: queue.SimpleQueue[Input | None] = queue.SimpleQueue()
        self._entries: dict[str, Entry] = {}
        self._keymaps: dict[str, Keymap] = {}
        self.clock: ShotClock | None = None
        self.devices: dict[str, str] = {}
        self._journal_health = "ok"
        self._last_ping = 0.0
        self.started = threading.Event()
        self.accepted = 0
        self.refused = 0

    # -- any thread -------------------------------------------------------------------

    def submit(self, item: Input) -> None:
        """Hand an input to the engine thread; safe from any thread, never blocks."""
        self._inbox.put(item)

    def refuse(self, reason: str, source: str) -> None:
        """Refuse an input its receiver could not read (safe from any thread): counted,
        flashed on the boards and published on ``rejected`` in order with the rest."""
        self.submit(Refused(source, reason))

    def health_changed(self, source: str) -> None:
        """A device's health changed (safe from any thread): the devices are published again."""
        self.submit(HealthChanged(source))

    def ask(self, obj: dict[str, Any], source: str, timeout: float) -> dict[str, Any]:
        """Submit ``obj`` and wait for the engine thread's answer (never from that thread)."""
        done = threading.Event()
        answer: dict[str, Any] = {}

        def reply(a: dict[str, Any]) -> None:
            answer.update(a)
            done.set()

        self.submit(Command(source, obj, reply))
        if not done.wait(timeout):
            return {"ok": False, "reason": "the daemon did not answer in time"}
        return answer

    def stop(self) -> None:
        self._inbox.put(None)

    # -- the engine thread ------------------------------------------------------------

    def start(self) -> None:
        """Recover the journal (or start the table's default match) and show it."""
        self._load_keymaps()
        try:
            recovered = self.journal.open()
        except OSError as exc:
            self._journal_health = f"failed: {exc.strerror or exc}"
            log.error("journal %s cannot be opened: %s", self.config.journal_dir, exc)
            recovered = None
        if recovered is not None and recovered.match is not None:
            self.match = recovered.match
            log.info("resumed %s at event %d", self.journal.path, self.match.seq)
        else:
            self._begin(self.config.match_setup().to_json())
        self._show()
        self._publish_state()
        self._publish_devices(force=True)
        self.started.set()
        systemd.ready()

    def run(self, stop: threading.Event | None = None) -> None:
        """The engine loop: until :meth:`stop` (or ``stop`` is set)."""
        if not self.started.is_set():
            self.start()
        interval = systemd.watchdog_interval()
        while stop is None or not stop.is_set():
            timeout = self._next_wake(interval)
            try:
                item = self._inbox.get(timeout=timeout)
            except queue.Empty:
                pass  # a deadline: the timers below
            else:
                if item is None:
                    break
                try:
                    self._handle(item)
                except Exception:  # a bug in one input must not stop the table
                    log.exception("input %r failed", item)
            self._timers(interval)
        systemd.stopping()

    def _next_wake(self, interval: float | None) -> float | None:
        now = self._mono()
        deadlines: list[float] = []
        if interval:
            deadlines.append(self._last_ping + interval / 2)
        if self.clock is not None:
            left = self.clock.left(now)
            # Wake when the shown second changes, at the call, and at expiry.
            step = left - math.floor(left) if left > 0 else 0.0
            deadlines.append(now + (step if step > 0 else 1.0))
        if any(e.pending.keys for e in self._entries.values()):
            deadlines.append(now + 1.0)
        for board in self.boards:
            at = board.next_deadline()
            if at is not None:
                deadlines.append(at)
        if not deadlines:
            return None
        return max(0.0, min(deadlines) - now)

    def _timers(self, interval: float | None) -> None:
        now = self._mono()
        if interval and now - self._last_ping >= interval / 2:
            systemd.watchdog_ping()
            self._last_ping = now
        for name, entry in self._entries.items():
            refusal = entry.expire(now)
            if refusal is not None:
                self._refuse(None, refusal.reason, name)
        for board in self.boards:
            self._guard(board.tick, now)
        if self.clock is not None:
            if self.clock.expired(now):
                self._clock_expired()
            else:
                self._show()

    # -- inputs -----------------------------------------------------------------------

    def _handle(self, item: Input) -> None:
        if isinstance(item, KeyInput):
            self._press(item.source, item)
        elif isinstance(item, Command):
            self.command(item.command, item.source, item.reply)
        elif isinstance(item, Refused):
            self._refuse(None, item.reason, item.source)
        elif isinstance(item, HealthChanged):
            self._publish_devices()
        else:
            item.run()

    def _press(self, source: str, key: KeyInput) -> None:
        entry = self._entry(source)
        if entry is None or self.match is None:
            self._refuse(None, f"{source}: no keymap is configured for it", source)
            return
        outcome = entry.feed(key.press, self.match.state(), now=self._mono())
        if isinstance(outcome, dict):
            self.command(outcome, source)
        elif isinstance(outcome, Refusal):
            self._refuse(None, outcome.reason, source)

    def command(self, obj: dict[str, Any], source: str, reply: Reply | None = None) -> None:
        """An event, a match line, or a daemon command (``new_match``, ``clock``, ``state``)."""
        kind = obj.get("type")
        if kind == "state":
            if reply:
                reply({"ok": True, "state": self.match.state() if self.match else None})
            return
        if kind == "new_match":
            self._new_match({}, source, reply)
            return
        if kind == "match":
            self._new_match({k: v for k, v in obj.items() if k != "type"}, source, reply)
            return
        if kind == "clock":
            self._start_clock()
            if reply:
                reply({"ok": True})
            return
        self._event(obj, source, reply)

    def _event(self, obj: dict[str, Any], source: str, reply: Reply | None) -> None:
        match = self.match
        assert match is not None
        try:
            event = match.parse({**obj, "t": obj.get("t", round(self._wall(), 3))})
            match.check(event)
        except IllegalEvent as exc:
            self._refuse(obj, str(exc), source, reply)
            return
        record = to_json(event)
        try:
            self.journal.append(record)
        except OSError as exc:
            self._journal_health = f"failed: {exc.strerror or exc}"
            self._publish_devices()
            self._refuse(obj, f"not saved: the journal cannot be written ({exc.strerror or exc}); "
                         "the input is refused", source, reply)
            return
        if self._journal_health != "ok":
            self._journal_health = "ok"
            self._publish_devices()
        match.apply(event)
        self.accepted += 1
        if match.new_shot(event):
            self._restart_clock()
        state = self._show()
        self._publish_state(state)
        if self.feed is not None:
            self._guard(self.feed.publish_event, match.seq, record)
        if source == "keypad" and self.keypad is not None:
            self.keypad.feedback(True)
        if reply:
            reply({"ok": True, "state": state})

    def _new_match(self, fields: dict[str, Any], source: str, reply: Reply | None) -> None:
        try:
            setup = self.config.match_setup(fields)
        except IllegalEvent as exc:
            self._refuse({"type": "match", **fields}, str(exc), source, reply)
            return
        try:
            self._begin(setup.to_json())
        except OSError as exc:
            self._journal_health = f"failed: {exc.strerror or exc}"
            self._publish_devices()
            self._refuse({"type": "match", **fields}, f"not saved: the journal cannot be written "
                         f"({exc.strerror or exc}); the match was not started", source, reply)
            return
        state = self._show()
        self._publish_state(state)
        if source == "keypad" and self.keypad is not None:
            self.keypad.feedback(True)
        if reply:
            reply({"ok": True, "state": state})

    def _begin(self, line: dict[str, Any]) -> None:
        """A new match: journalled first (a new file), then made current."""
        match = Match.from_json(line)
        self.journal.start(match.setup.to_json())
        self.match = match
        self.clock = None
        for entry in self._entries.values():
            entry.clear()
        self._load_keymaps()
        log.info("new match: %s", json.dumps(line, ensure_ascii=False))

    def _refuse(self, obj: dict[str, Any] | None, reason: str, source: str, reply: Reply | None = None) -> None:
        self.refused += 1
        log.info("refused from %s: %s", source, reason)
        for board in self.boards:
            self._guard(board.flash)
        if self.feed is not None:
            self._guard(self.feed.publish_rejected, obj, reason, source)
        if source == "keypad" and self.keypad is not None:
            self.keypad.feedback(False)
        if reply:
            reply({"ok": False, "reason": reason})

    # -- the shot clock: how long a shot may take is the game's to say ------------------------

    def _start_clock(self) -> None:
        shot = self.match.shot_time() if self.match is not None else None
        if shot is None:
            self.clock = None
            self._refuse(None, "no shot clock now (the match line's 'shot_clock', and a player at the "
                         "table)", "clock")
            return
        self.clock = shot.start(self._mono())
        self._show()

    def _restart_clock(self) -> None:
        shot = self.match.shot_time() if self.match is not None and self.config.shot_clock_auto else None
        self.clock = None if shot is None else shot.start(self._mono())

    def _clock_expired(self) -> None:
        """A shot not played in time: the game's time foul (blackball rule 8a), entered for the
        referee; where the game has none, the referee is told to enter what he rules."""
        self.clock = None
        assert self.match is not None
        foul = self.match.game.time_foul()
        if foul is not None:
            self._event(to_json(foul), "clock", None)
        else:
            self._refuse(None, "shot clock expired: the referee enters the foul", "clock")

    # -- outputs ------------------------------------------------------------------------

    def _show(self) -> dict[str, Any]:
        assert self.match is not None
        state = self.match.state()
        left = None if self.clock is None else max(0.0, self.clock.left(self._mono()))
        for board in self.boards:
            self._guard(board.show, state, left)
        self._publish_devices()
        return state

    def _publish_state(self, state: dict[str, Any] | None = None) -> None:
        if self.feed is not None and self.match is not None:
            self._guard(self.feed.publish_state, state or self.match.state())

    def device_health(self) -> dict[str, str]:
        devices: dict[str, str] = {"journal": self._journal_health}
        if self.config.referee_boxes:
            devices["buttons"] = "ok"
        if self.keypad is not None:
            devices["keypad"] = str(self.keypad.health)
        for i, board in enumerate(self.boards):
            devices["matrix" if i == 0 else f"matrix{i}"] = board.health
        if self.feed is not None:
            devices["mqtt"] = self.feed.health
        return devices

    def _publish_devices(self, force: bool = False) -> None:
        devices = self.device_health()
        if devices != self.devices or force:
            self.devices = devices
            if self.feed is not None:
                self._guard(self.feed.publish_devices, {k: v for k, v in devices.items() if k != "mqtt"})

    @staticmethod
    def _guard(method: Callable[..., Any], *args: Any) -> None:
        """An output that fails is logged and reported in its health; scoring goes on."""
        try:
            method(*args)
        except Exception:
            log.exception("%s failed", getattr(method, "__qualname__", method))

    # -- keymaps ---------------------------------------------------------------------------

    def _load_keymaps(self) -> None:
        for name, path in (("referee_box", self.config.referee_keymap), ("keypad", self.config.keypad_keymap)):
            if path is not None and name not in self._keymaps:
                self._keymaps[name] = load_keymap(path)

    def _entry(self, source: str) -> Entry | None:
        """The key sequence in progress on one device: each referee box (``referee_box:N``)
        and the keypad has its own, so a call begun on one is not finished on another. A
        keymap of the other game refuses its keys, saying so, until a match of its game."""
        entry = self._entries.get(source)
        if entry is None:
            keymap = self._keymaps.get(source.split(":")[0])
            if keymap is None:
                return None
            entry = self._entries[source] = Entry(keymap)
        return entry


# -- the control socket: `cueboard match new` and friends on the Pi ------------------------


class ControlServer:
    """A unix socket taking one JSON object a connection and answering with one line."""

    def __init__(self, path: Path, table: Table, timeout: float = 5.0) -> None:
        self.path = path
        self.table = table
        self.timeout = timeout
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(str(self.path))
        os.chmod(self.path, 0o660)
        sock.listen(8)
        self._sock = sock
        self._thread = threading.Thread(target=self._serve, name="control", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)
            self._sock.close()
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()

    def _serve(self) -> None:
        assert self._sock is not None
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._client, args=(conn,), daemon=True).start()

    def _client(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(self.timeout)
            try:
                data = b""
                while not data.endswith(b"\n") and len(data) < 65536:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                answer = self.ask(data)
            except OSError:
                return
            with contextlib.suppress(OSError):
                conn.sendall((json.dumps(answer, ensure_ascii=False) + "\n").encode())

    def ask(self, data: bytes) -> dict[str, Any]:
        try:
            obj = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            return {"ok": False, "reason": f"not JSON: {exc}"}
        if not isinstance(obj, dict):
            return {"ok": False, "reason": "send one JSON object: an event or a match line"}
        return self.table.ask(obj, "control", self.timeout)


def ask_daemon(path: Path, obj: dict[str, Any], timeout: float = 5.0) -> dict[str, Any]:
    """Send one object to a running daemon's control socket and return its answer."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(str(path))
        sock.sendall((json.dumps(obj, ensure_ascii=False) + "\n").encode())
        data = b""
        while not data.endswith(b"\n"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    answer: dict[str, Any] = json.loads(data.decode("utf-8"))
    return answer
