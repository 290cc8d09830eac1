"""``cueboard archive serve`` as systemd runs it, with the open-files limit systemd gives a
service by default (1024 soft), flooded with slow sockets from many addresses (issue 37: with
no connection cap and no deadline it ran out of file descriptors and answered no one).

The server sizes its connection cap to the limit (cueboard/common/web_server.py,
``connection_cap``): it never holds more descriptors than the limit, closes the surplus at
once (making room at the cap), the held ones at the head's deadline, and answers as soon as
the flood stops.
"""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from cueboard.league.records import checked
from cueboard.league.store import Archive
from tests.helpers.archive import season
from tests.helpers.web import closed_by_server, get

SOFT_LIMIT = 1024
"""systemd's DefaultLimitNOFILE soft value (its hard one is higher)."""


def _lower_limit() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (SOFT_LIMIT, hard))


def _descriptors(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


@pytest.mark.system
def test_archive_serve_keeps_within_systemds_open_files_limit(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/archive.db"
    with Archive.open(url) as archive:
        for record in season(["Ann", "Bob", "Cat"], seed=2):
            archive.put(checked(record), source="test")
    proc = subprocess.Popen([sys.executable, "-m", "cueboard.cli", "archive", "serve", "--db", url, "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_lower_limit)
    slow: list[socket.socket] = []
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # "cueboard archive serve: http://127.0.0.1:PORT/ (at most N connections ...)"
        assert line.startswith("cueboard archive serve: http://127.0.0.1:"), (line, proc.stderr and proc.stderr.read())
        port = int(line.split("http://127.0.0.1:", 1)[1].split("/", 1)[0])
        address = ("127.0.0.1", port)
        assert "at most 256 connections, 32 from one address" in line
        assert get(address, "/standings").status == 200
        most = 0
        for n in range(60):  # 60 addresses of 30 slow sockets: 1800, past both the cap and the limit
            source = f"127.0.1.{n + 1}"
            for _ in range(30):
                s = socket.create_connection(address, timeout=30, source_address=(source, 0))
                s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")  # and never the rest
                slow.append(s)
            most = max(most, _descriptors(proc.pid))
        assert proc.poll() is None  # alive
        assert most < SOFT_LIMIT, most  # never at the limit: no accept failed for want of a descriptor
        # Every slow one closed by the server: the surplus at once, the held ones at the head's
        # deadline (10 s: the server's, under test; the wait ends on each close).
        assert all(closed_by_server(s) for s in slow)
        for s in slow:
            s.close()
        slow.clear()
        assert get(address, "/standings", source="127.0.0.2").status == 200  # it serves on
    finally:
        for s in slow:
            s.close()
        proc.terminate()
        _out, err = proc.communicate(timeout=30)
    assert "Too many open files" not in err and "Traceback" not in err, err[-2000:]
