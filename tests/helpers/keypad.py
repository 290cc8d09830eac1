"""Shared by the keypad and firmware tests: the test vectors of docs/keypad-protocol.md,
and the scripted session it shows."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL_DOC = ROOT / "docs" / "keypad-protocol.md"
FIRMWARE = ROOT / "firmware"


def doc_blocks(info: str, doc: Path = PROTOCOL_DOC) -> list[str]:
    """The fenced blocks of ``doc`` whose info string is ``info``."""
    pattern = re.compile(r"^```" + re.escape(info) + r"\n(.*?)^```", re.S | re.M)
    return pattern.findall(doc.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class FrameVector:
    name: str
    fields: tuple[int, int, int, int, int, int, bytes]
    line: bytes  # as on the wire, newline included


@dataclass(frozen=True)
class RejectVector:
    name: str
    line: bytes


def vectors() -> tuple[list[FrameVector], list[RejectVector]]:
    frames: list[FrameVector] = []
    rejects: list[RejectVector] = []
    for block in doc_blocks("keypad-vectors"):
        for group in re.split(r"\n\s*\n", block.strip()):
            lines = group.strip().splitlines()
            what, _, name = lines[0].partition(" ")
            if what == "frame":
                words = lines[1].split()
                values = dict(zip(words[::2], words[1::2], strict=True))
                payload = b"" if values["payload"] == "-" else bytes.fromhex(values["payload"])
                fields = (int(values["kind"], 16), int(values["epoch"], 16), int(values["seq"]),
                          int(values["base"]), int(values["ack_epoch"], 16), int(values["ack"]), payload)
                frames.append(FrameVector(name.strip(), fields, lines[2].encode() + b"\n"))
            elif what == "reject":
                rejects.append(RejectVector(name.strip(), lines[1].encode() + b"\n"))
            else:
                raise AssertionError(f"unknown vector {lines[0]!r}")
    return frames, rejects


# The session of docs/keypad-protocol.md, "A session": keypad epoch 12345678, host
# epoch 0badcafe, both starting at t = 0. At each (t, sender) the sender does the
# action, then polls; its frames reach the other end, unless lost.
KEYPAD_EPOCH = 0x12345678
HOST_EPOCH = 0x0BADCAFE
SESSION_ACTIONS: dict[tuple[int, str], tuple[str, Any]] = {
    (400, "keypad"): ("press", 7),
    (410, "host"): ("feedback", True),
    (500, "keypad"): ("press", 3),
}
SESSION_LOST = {(500, "keypad")}


def session_lines() -> list[tuple[int, str, bytes]]:
    """(t, sender, frame) of each line of the doc's session block, comments removed."""
    (block,) = doc_blocks("keypad-session")
    lines = []
    for raw in block.splitlines():
        text = raw.split("#", 1)[0].strip()
        if text:
            t, sender, frame = text.split()
            lines.append((int(t), sender, frame.encode() + b"\n"))
    return lines


def play_session(proto: ModuleType, steps: list[tuple[int, str]]) -> tuple[list[tuple[int, str, bytes]],
                                                                          list[bytes], list[bytes]]:
    """Run the scripted session with module ``proto`` (keyproto): the frames each step
    wrote, and the messages each end received."""
    keypad = proto.Link(False, KEYPAD_EPOCH, 0, beat_payload=proto.keypad_beat(5, 4, 1))
    host = proto.Link(True, HOST_EPOCH, 0)
    ends = {"keypad": (keypad, host), "host": (host, keypad)}
    received: dict[str, list[bytes]] = {"keypad": [], "host": []}
    written = []
    for t, sender in steps:
        me, peer = ends[sender]
        action = SESSION_ACTIONS.get((t, sender))
        if action is not None:
            kind, value = action
            me.send(proto.key_message(value) if kind == "press" else proto.feedback_message(value))
        for frame in me.poll(t):
            written.append((t, sender, frame))
            if (t, sender) not in SESSION_LOST:
                other = "host" if sender == "keypad" else "keypad"
                received[other] += peer.feed(frame, t)
    return written, received["keypad"], received["host"]


def fresh_firmware_module(name: str) -> ModuleType:
    """Import firmware/<name>.py as a module of its own (not cached in sys.modules)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"firmware_{name}", FIRMWARE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class PtyPort:
    """A pseudo-terminal standing in for the keypad's USB serial. The host opens ``path``,
    a by-id style link to the terminal's slave side; the keypad has ``master``.
    ``unplug`` removes the link (as udev does) and the caller closes the master;
    ``replug`` makes a new terminal behind the same path and returns its master."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / "usb-MicroPython_Board_in_FS_mode_e6614c311b7d2a2c-if00"
        self._slaves: list[int] = []
        self.master = self.replug()

    def replug(self) -> int:
        import tty

        master, slave = os.openpty()
        tty.setraw(slave)  # no echo or line editing before the host opens it
        self._slaves.append(slave)  # held open, so the master never reads EIO meanwhile
        new = self.path.with_name(self.path.name + ".new")
        os.symlink(os.ttyname(slave), new)
        os.replace(new, self.path)
        self.master = master
        return master

    def unplug(self) -> None:
        self.path.unlink(missing_ok=True)

    def close(self) -> None:
        for slave in self._slaves:
            os.close(slave)
        self._slaves.clear()
        self.path.unlink(missing_ok=True)


WAIT = 30.0
"""The safety net of every wait for something the link does: it comes far sooner, and a
busy machine must not fail a test by being slow (never a measure of speed: bench/)."""


class HostRecorder:
    """A KeypadLink whose presses and health changes are recorded, for waiting on."""

    def __init__(self, path: Path | str, **options: Any) -> None:
        import queue
        import threading

        from cueboard.hw.keypad_link import KeypadLink

        self.presses: queue.Queue[Any] = queue.Queue()
        self.healths: list[Any] = []
        self._changed = threading.Condition()
        self.link = KeypadLink(str(path), self.presses.put, on_health=self._on_health, **options)

    def _on_health(self, health: Any) -> None:
        with self._changed:
            self.healths.append(health)
            self._changed.notify_all()

    def wait_health(self, health: Any, timeout: float = WAIT) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: bool(self.link.health == health), timeout)

    def wait_healths(self, pattern: list[Any], timeout: float = WAIT) -> bool:
        """Wait until the health changes so far contain ``pattern`` in order."""
        def seen() -> bool:
            rest = iter(self.healths)
            return all(any(h == want for h in rest) for want in pattern)
        with self._changed:
            return self._changed.wait_for(seen, timeout)

    def take(self, count: int, timeout: float = WAIT) -> list[Any]:
        """The next ``count`` presses, waiting at most ``timeout`` seconds in all."""
        import queue
        import time

        deadline = time.monotonic() + timeout
        got = []
        for _ in range(count):
            try:
                got.append(self.presses.get(timeout=max(0.0, deadline - time.monotonic())))
            except queue.Empty:
                break
        return got

    def left(self) -> list[Any]:
        """Presses delivered and not yet taken."""
        import queue

        got = []
        while True:
            try:
                got.append(self.presses.get_nowait())
            except queue.Empty:
                return got
