"""The control socket: ``cueboard match new``, ``cueboard send`` and friends on the Pi.

A unix socket (``control.socket``, mode 0660) taking one JSON object a connection and answering
with one line. Connections are served by a bounded pool of :data:`WORKERS` threads; at most
:data:`MAX_CONNECTIONS` are taken at once (being answered or waiting for a worker). One beyond
that is answered at once, on the accepting thread, with ``{"ok": false, "busy": true, "reason":
...}`` and closed: a script looping on the socket never makes the daemon start a thread per
connection. Each connection has ``timeout`` seconds to send its line and read its answer.

The line goes to the table as any line from the network does (:meth:`Asker.ask` with
``remote=True``: its own rate and queue, ``source`` ``control``), read by
:func:`~cueboard.contract.lines.read_line`, so that it always gets exactly one answer.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

from cueboard.contract.codes import Reason
from cueboard.contract.lines import Unreadable, read_line
from cueboard.engine.json_value import JsonObject
from cueboard.table.config import Config

__all__ = ["MAX_CONNECTIONS", "WORKERS", "Asker", "ControlServer", "ask_daemon"]

WORKERS = 4
"""Threads answering the control socket: a person's command or a script's, a few at a time."""

MAX_CONNECTIONS = 32
"""Connections taken at once (being answered, or waiting for one of the :data:`WORKERS`)."""

LINE_MAX = 65536
"""The most a connection may send before its line is read (the table's own limit applies then)."""


class Asker(Protocol):
    """What the control socket asks: the table (:class:`cueboard.table.daemon.Table`)."""

    config: Config

    def ask(self, obj: JsonObject, source: str, timeout: float, *, remote: bool = False) -> JsonObject: ...


class ControlServer:
    """A unix socket taking one JSON object a connection and answering with one line."""

    def __init__(self, path: Path, table: Asker, timeout: float = 5.0, *, workers: int = WORKERS,
                 max_connections: int = MAX_CONNECTIONS) -> None:
        self.path = path
        self.table = table
        self.timeout = timeout
        self.max_connections = max_connections
        self.busy = 0
        """Connections answered "busy" so far."""
        self._slots = threading.BoundedSemaphore(max_connections)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="control")
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
        if self._thread is not None:
            self._thread.join(self.timeout)
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _serve(self) -> None:
        assert self._sock is not None
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            if not self._slots.acquire(blocking=False):
                self._busy(conn)
                continue
            try:
                self._pool.submit(self._client, conn)
            except RuntimeError:  # the pool is shut down: the server is stopping
                self._slots.release()
                conn.close()
                return

    def _busy(self, conn: socket.socket) -> None:
        """A connection beyond the cap: told so at once, never queued (the accepting thread only
        writes one short line into the socket's empty buffer, which never waits)."""
        self.busy += 1
        answer = {"ok": False, "busy": True,
                  **Reason(f"busy: {self.max_connections} connections to the control socket are being answered "
                           "already (the most it takes at once); nothing was read or applied: send it again in a "
                           "moment, same id", "busy").codes()}
        with conn:
            conn.setblocking(False)
            with contextlib.suppress(OSError):
                conn.send((json.dumps(answer) + "\n").encode())

    def _client(self, conn: socket.socket) -> None:
        try:
            with conn:
                conn.settimeout(self.timeout)
                try:
                    data = b""
                    while not data.endswith(b"\n") and len(data) < LINE_MAX:
                        chunk = conn.recv(4096)
                        if not chunk:
                            break
                        data += chunk
                    answer = self.ask(data)
                except OSError:
                    return
                with contextlib.suppress(OSError):
                    conn.sendall((json.dumps(answer, ensure_ascii=False) + "\n").encode())
        finally:
            self._slots.release()

    def ask(self, data: bytes) -> JsonObject:
        obj = read_line(data.rstrip(b"\n"), max(LINE_MAX, self.table.config.commands.max_bytes))
        if isinstance(obj, Unreadable):  # numbers JSON cannot carry, nesting, not UTF-8: said, never a crash
            return {"ok": False, **obj.reason.codes()}
        return self.table.ask(obj, "control", self.timeout, remote=True)


def ask_daemon(path: Path, obj: JsonObject, timeout: float = 15.0) -> JsonObject:
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
    answer: JsonObject = json.loads(data.decode("utf-8"))
    return answer
