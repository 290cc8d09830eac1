"""Clients for the project's web servers' tests (tests/venue/test_web_server.py,
tests/league/test_archive_server.py): raw HTTP/1.1 over a socket from a chosen loopback
address (the per-client cap counts by address: 127.0.0.2 is another client than 127.0.0.1),
with or without TLS, so that the server's own answers, errors too, are read as sent."""

from __future__ import annotations

import contextlib
import socket
import ssl
from dataclasses import dataclass

TIMEOUT = 30.0
"""Bounds a broken server only: every wait here ends on the server's event."""


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, str]  # names in lower case
    body: bytes


def connect(address: tuple[str, int], source: str = "127.0.0.1", tls: ssl.SSLContext | None = None) -> socket.socket:
    """A connection from ``source`` (a loopback address), through TLS when given a context."""
    raw = socket.create_connection(address, timeout=TIMEOUT, source_address=(source, 0))
    if tls is None:
        return raw
    return tls.wrap_socket(raw, server_hostname="localhost")


def read_all(sock: socket.socket) -> bytes:
    """What the server sends until it closes (a reset after its answer ends it as well)."""
    sock.settimeout(TIMEOUT)
    data = b""
    with contextlib.suppress(ConnectionResetError, BrokenPipeError, ssl.SSLError):
        while chunk := sock.recv(65536):
            data += chunk
    return data


def parse(data: bytes) -> Reply:
    assert data, "the server closed the connection without an answer"
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return Reply(int(status_line.split()[1]), headers, body)


def exchange(address: tuple[str, int], data: bytes, *, source: str = "127.0.0.1",
             tls: ssl.SSLContext | None = None) -> Reply:
    """``data`` sent as it is (the server may close before it is all read); the answer."""
    with connect(address, source, tls) as s:
        with contextlib.suppress(ConnectionResetError, BrokenPipeError, ssl.SSLError):
            s.sendall(data)
        return parse(read_all(s))


def get(address: tuple[str, int], target: str = "/", *, source: str = "127.0.0.1",
        tls: ssl.SSLContext | None = None) -> Reply:
    return exchange(address, f"GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode(),
                    source=source, tls=tls)


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server closed ``sock`` (waited for, up to TIMEOUT: the server's own deadline
    decides when; this only bounds a broken server)."""
    sock.settimeout(TIMEOUT)
    try:
        while sock.recv(65536):
            pass
        return True
    except (ConnectionResetError, BrokenPipeError, ssl.SSLError):
        return True
    except TimeoutError:
        return False


def slow_sockets(address: tuple[str, int], count: int, *, source: str = "127.0.0.1",
                 tls: bool = False) -> list[socket.socket]:
    """``count`` connections from ``source`` that never finish a request: on plain HTTP a head
    begun and never ended (slowloris); on HTTPS not even a TLS handshake begun."""
    held: list[socket.socket] = []
    for _ in range(count):
        s = socket.create_connection(address, timeout=TIMEOUT, source_address=(source, 0))
        if not tls:
            with contextlib.suppress(ConnectionResetError, BrokenPipeError):
                s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")  # and never the rest
        held.append(s)
    return held
