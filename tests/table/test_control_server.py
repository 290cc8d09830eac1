"""The control socket's bounds (issue 25): a bounded pool of workers and a cap on connections.
A client beyond the cap is answered "busy" at once and never gets a thread of its own; the ones
taken are answered in turn, each exactly once."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

from cueboard.table.control_server import ControlServer, ask_daemon
from cueboard.table.daemon import Table
from tests.helpers.daemon import table_config
from tests.table.test_daemon import Running


def _open(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(30)
    sock.connect(str(path))
    return sock


def _answer(sock: socket.socket) -> dict[str, object]:
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    answer: dict[str, object] = json.loads(data)
    return answer


def test_a_client_beyond_the_cap_is_told_busy_and_gets_no_thread(tmp_path: Path) -> None:
    config = table_config(tmp_path)
    table = Table(config)
    with Running(table):
        server = ControlServer(config.control_socket, table, timeout=30.0, workers=1, max_connections=2)
        server.start()
        held: list[socket.socket] = []
        try:
            threads_before = threading.active_count()
            # Two clients connect and say nothing yet: one is with the worker, one waits for it.
            held = [_open(config.control_socket) for _ in range(2)]
            busy = []
            for _ in range(20):  # one after the other: the accepting thread answers each at once
                with _open(config.control_socket) as sock:
                    busy.append(_answer(sock))
            assert all(a["ok"] is False and a["busy"] is True and "busy: 2 connections" in str(a["reason"])
                       for a in busy), busy[0]
            assert server.busy == 20
            assert threading.active_count() <= threads_before + 1  # the one worker, nothing per connection
            # The two taken are answered in turn, each once.
            for n, sock in enumerate(held):
                sock.sendall(json.dumps({"type": "no_pot", "id": f"held{n}"}).encode() + b"\n")
            answers = [_answer(sock) for sock in held]
            assert [a["ok"] for a in answers] == [True, True]
            assert ask_daemon(config.control_socket, {"type": "state"})["state"]["seq"] == 2
        finally:
            for sock in held:
                sock.close()
            server.stop()
