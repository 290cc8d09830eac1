"""The bounded web server every page is served from (issue 26; cueboard/venue/web_server.py), attacked
on loopback: the measured failures were 800 slow connections making 801 threads (699 alive 7 s
after they closed), 5.4 MB of headers read in one request, and every interface by default.

- slow connections (slowloris: a request's head one byte at a time, never finished): each is
  closed once its head's time is up; past the connection cap one more is closed at once; no
  thread is made for any; the server answers a real request all along and after;
- oversized heads (5.4 MB of headers, one 100 KB line): the connection is closed (or answered
  400) long before the bytes are read, and the server serves on;
- HTTPS with a venue's certificate; loopback unless told otherwise.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from cueboard.cli import parser
from cueboard.venue.pages import SECURITY_HEADERS, make_server, serve_in_thread
from cueboard.venue.web_server import Limits, WebServer, tls_context
from tests.helpers.mosquitto import TlsFiles
from tests.screen.test_screen_server import fake_page, request

TIMEOUT = 30.0


@pytest.fixture
def served(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[WebServer]:
    limits = getattr(request, "param", Limits(
        connections=64, header_bytes=16384,
        header_timeout=1.0))  # not a wall-clock limit: the server's deadline under test (busy: closes later)
    server = make_server("127.0.0.1", 0, directory=fake_page(tmp_path), limits=limits)
    serve_in_thread(server)
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server closed ``sock`` (waited for, up to TIMEOUT: the server's own deadline
    decides when; this only bounds a broken server)."""
    sock.settimeout(TIMEOUT)
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def test_slow_connections_are_closed_and_make_no_thread(served: WebServer) -> None:
    threads = threading.active_count()
    slow: list[socket.socket] = []
    try:
        for _ in range(200):  # 64 taken (the cap), the rest closed at once
            s = socket.create_connection(served.server_address, timeout=TIMEOUT)
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")  # and never the rest
            slow.append(s)
        assert threading.active_count() <= threads + 1  # no thread a connection
        assert all(closed_by_server(s) for s in slow)
    finally:
        for s in slow:
            s.close()
    # Every one closed, as over the cap or as too slow; never more than the cap open at once. (Not
    # "at least 200 - 64 refused": on a loaded machine the first slow ones may time out while
    # the loop still connects, freeing their places: 135 refused and 65 timed out seen in CI.)
    assert served.refused + served.timed_out == 200 and served.refused > 0
    assert served.peak == 64
    answer = request(served.server_address[1], "/")  # it serves on
    assert answer.status == 200 and answer.headers["x-content-type-options"] == "nosniff"


def test_a_slow_head_on_a_kept_alive_connection_is_closed_too(served: WebServer) -> None:
    with socket.create_connection(served.server_address, timeout=TIMEOUT) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        s.settimeout(TIMEOUT)
        assert s.recv(65536).startswith(b"HTTP/1.1 200")
        s.sendall(b"GET / HTTP/1.1\r\nHo")  # the next request's head, never finished
        assert closed_by_server(s)
    assert served.timed_out == 1


@pytest.mark.parametrize("head", [
    pytest.param(b"".join(b"X-Fill-%d: %s\r\n" % (n, b"a" * 1000) for n in range(5400)), id="5.4-MB-of-headers"),
    pytest.param(b"X-Long: " + b"a" * 100_000 + b"\r\n", id="one-100-KB-line"),
    pytest.param(b"".join(b"X-%d: a\r\n" % n for n in range(3000)), id="3000-headers"),
])
def test_an_oversized_head_is_not_read(served: WebServer, head: bytes) -> None:
    sent = 0
    with socket.create_connection(served.server_address, timeout=TIMEOUT) as s:
        data = b"GET / HTTP/1.1\r\nHost: x\r\n" + head + b"\r\n"
        with contextlib.suppress(ConnectionResetError, BrokenPipeError):
            for start in range(0, len(data), 8192):
                s.sendall(data[start:start + 8192])
                sent = start + 8192
        s.settimeout(TIMEOUT)
        answer = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := s.recv(65536):
                answer += chunk
    status = answer.split(b"\r\n", 1)[0]
    assert served.too_big == 1 or status.endswith((b" 400 Bad Request", b" 431 Request Header Fields Too Large")), \
        answer[:100]
    if len(data) > 1_000_000:
        assert sent < len(data)  # closed while the client was still sending: the rest never read
    assert request(served.server_address[1], "/").status == 200  # it serves on


def test_https_with_the_venues_certificate(tmp_path: Path, tls_files: TlsFiles) -> None:
    server = make_server("127.0.0.1", 0, directory=fake_page(tmp_path),
                         tls=tls_context(str(tls_files.server_cert), str(tls_files.server_key)))
    serve_in_thread(server)
    try:
        context = ssl.create_default_context(cafile=str(tls_files.ca))
        with socket.create_connection(server.server_address, timeout=TIMEOUT) as raw, \
                context.wrap_socket(raw, server_hostname="localhost") as s:
            s.sendall(b"GET /index.html HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            data = b""
            while chunk := s.recv(65536):
                data += chunk
        assert data.startswith(b"HTTP/1.1 200")
        head = data.split(b"\r\n\r\n")[0].decode().lower()
        assert all(f"{name.lower()}: {value.lower()}" in head for name, value in SECURITY_HEADERS.items())
        with socket.create_connection(server.server_address, timeout=TIMEOUT) as plain:  # no clear text
            plain.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            assert not plain.recv(65536).startswith(b"HTTP/1.1 200")
    finally:
        server.shutdown()
        server.server_close()


def test_loopback_unless_told(tmp_path: Path) -> None:
    assert parser().parse_args(["screen"]).host == "127.0.0.1"
    server = make_server(port=0, directory=fake_page(tmp_path))
    try:
        assert server.server_address[0] == "127.0.0.1"
    finally:
        server.shutdown()
        server.server_close()
