"""A bounded web server for every page the product serves (the venue screen now; the desk, the
scorer and the league's pages later), on aiohttp: capped connections and header bytes, read
timeouts, HTTPS, loopback by default. Why and how: :class:`WebServer`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from aiohttp import web

__all__ = ["Handler", "Limits", "WebServer", "tls_context"]

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True)
class Limits:
    connections: int = 256
    """Open connections at most (a venue's screens and phones: tens)."""
    header_timeout: float = 10.0
    """Seconds a request's head may take to arrive."""
    header_bytes: int = 32768
    """Bytes a request's head may take (a browser sends 1-2 KiB)."""
    keepalive: float = 15.0
    """Seconds an idle kept-alive connection stays open."""
    handler_timeout: float = 30.0
    """Seconds an answer may take to be made."""


def tls_context(cert: str, key: str) -> ssl.SSLContext:
    """A server's TLS context from its certificate (chain) and key files."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert, key)
    return context


class _Guard(asyncio.Protocol):
    """One connection: aiohttp's protocol inside, with the connection cap, the head's deadline
    and the head's byte cap around it."""

    def __init__(self, server: WebServer, inner: Any) -> None:
        self.server = server
        self.inner = inner
        self.transport: asyncio.Transport | None = None
        self.waiting_bytes = 0  # bytes since the last request's head (or the connection)
        self.busy = False  # a request's head arrived and its answer is being made
        self.tail = b""  # the last bytes seen while waiting for a head: its end may straddle two reads
        self.deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)  # a stream (TCP, TLS)
        self.transport = transport
        if len(self.server._open) >= self.server.limits.connections:
            self.server.refused += 1
            transport.abort()  # over the cap: closed at once
            return
        self.server._open[transport] = self
        self.server.peak = max(self.server.peak, len(self.server._open))
        self.inner.connection_made(transport)
        self.arm()

    def arm(self) -> None:
        self.busy = False
        self.waiting_bytes = 0
        self.tail = b""
        if self.deadline is not None:
            self.deadline.cancel()
        self.deadline = asyncio.get_running_loop().call_later(self.server.limits.header_timeout, self.expire)

    def request_started(self) -> None:
        self.busy = True
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None

    def expire(self) -> None:
        if not self.busy and self.transport is not None:
            self.server.timed_out += 1
            self.transport.abort()  # no request's head in time: a slow (or silent) client

    def data_received(self, data: bytes) -> None:
        if not self.busy:
            # Only the head is capped: a POST's body (the desk's fixture file) may follow it in
            # the same reads, before the handler has begun (cueboard/venue/desk_routes.py caps bodies).
            seen = self.tail + data
            end = seen.find(b"\r\n\r\n")
            head = len(data) if end < 0 else max(0, end + 4 - len(self.tail))
            self.waiting_bytes += head
            if self.waiting_bytes > self.server.limits.header_bytes and self.transport is not None:
                self.server.too_big += 1
                self.transport.abort()
                return
            if end >= 0:
                self.busy = True  # the head is complete; its answer's deadline is the handler's
                if self.deadline is not None:
                    self.deadline.cancel()
                    self.deadline = None
            else:
                self.tail = seen[-3:]
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        result: bool | None = self.inner.eof_received()
        return result

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
        if self.transport is not None and self.server._open.pop(self.transport, None) is not None:
            self.inner.connection_lost(exc)


class WebServer:
    """Routes (``add_get``), limits, TLS; ``server_address`` once made; :meth:`serve_forever`
    runs it in the calling thread until :meth:`shutdown` (from any thread).

    The standard library's ``http.server`` has no timeouts or limits of its own (what that
    cost: docs/performance.md, "Figures moved out of module docstrings"). Here:

    - **a cap on connections** (:attr:`Limits.connections`): one more is closed at once;
    - **a read timeout**: a request's head must arrive within :attr:`Limits.header_timeout` seconds
      of the connection (or of the previous answer on a kept-alive one), or the connection is
      closed: a slowloris client holds a connection for that long at most; idle kept-alive
      connections close after :attr:`Limits.keepalive`;
    - **a cap on header bytes**: at most :attr:`Limits.header_bytes` before a request's head is
      complete (and aiohttp's own caps on a line, a field and their count), else the connection
      is closed or answered 400;
    - **HTTPS** with the venue's certificate (``cueboard venue init`` writes one) when given;
    - **loopback by default**: ``--host`` opens it to the LAN;
    - the security headers of the caller's (:mod:`cueboard.venue.pages`) on every answer, errors too.

    No thread per connection: one asyncio loop, in the thread that calls :meth:`WebServer.serve_forever`.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, limits: Limits | None = None,
                 tls: ssl.SSLContext | None = None, headers: Mapping[str, str] | None = None) -> None:
        self.limits = limits or Limits()
        self.tls = tls
        self.headers = dict(headers or {})
        self.refused = 0  # connections over the cap
        self.timed_out = 0  # connections whose request's head did not come in time
        self.peak = 0  # the most connections open at once (never over the cap)
        self.too_big = 0  # connections whose request's head was too long
        self._open: dict[asyncio.Transport, _Guard] = {}
        self.app = web.Application(middlewares=[self._middleware], handler_args={
            "max_line_size": 8190, "max_field_size": 8190, "max_headers": 64})
        self._loop = asyncio.new_event_loop()
        self._stopped = threading.Event()  # shutdown() was called
        self._serving = threading.Event()  # serve_forever() began
        self._loop_ready = threading.Event()  # its loop runs: _stop_event exists
        self._done = threading.Event()  # serve_forever() returned
        self._stop_event: asyncio.Event
        self._runner: web.AppRunner | None = None
        self._server: asyncio.base_events.Server | None = None
        self._host, self._port = host, port
        self.server_address: tuple[str, int] = (host, port)

    @property
    def open_connections(self) -> int:
        return len(self._open)

    def add_get(self, path: str, handler: Handler) -> None:
        self.app.router.add_get(path, handler)  # HEAD too

    def start(self) -> None:
        """Bind (so that ``server_address`` has the port): done by :meth:`serve_forever` if not before."""
        if self._server is not None:
            return
        self._loop.run_until_complete(self._start())

    async def _start(self) -> None:
        self._runner = web.AppRunner(self.app, access_log=None, keepalive_timeout=self.limits.keepalive,
                                     handle_signals=False)
        await self._runner.setup()
        factory = self._runner.server
        assert factory is not None
        self._server = await asyncio.get_running_loop().create_server(
            lambda: _Guard(self, factory()), self._host, self._port, ssl=self.tls, backlog=128,
            reuse_address=True)
        sockname = self._server.sockets[0].getsockname()
        self.server_address = (str(sockname[0]), int(sockname[1]))

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        guard = self._open.get(request.transport) if request.transport is not None else None
        if guard is not None:
            guard.request_started()
        try:
            try:
                response = await asyncio.wait_for(handler(request), self.limits.handler_timeout)
            except web.HTTPException as exc:  # aiohttp's own (a 404 of the router ...): answered alike
                response = web.Response(status=exc.status, reason=exc.reason, text=exc.text)
            except TimeoutError:
                response = web.Response(status=503, text="too slow an answer\n")
            response.headers.update(self.headers)
            response.headers["Server"] = "cueboard"  # not which library, which version
            return response
        finally:
            if guard is not None:
                guard.arm()  # the next request's head has its own deadline and byte cap

    def serve_forever(self) -> None:
        self.start()
        self._serving.set()
        try:
            self._loop.run_until_complete(self._serve())
        finally:
            self._done.set()

    async def _serve(self) -> None:
        self._stop_event = asyncio.Event()
        self._loop_ready.set()
        if not self._stopped.is_set():
            await self._stop_event.wait()
        assert self._server is not None and self._runner is not None
        self._server.close()
        for transport in list(self._open):
            transport.abort()
        with contextlib.suppress(Exception):
            await self._server.wait_closed()
        await self._runner.cleanup()

    def shutdown(self, timeout: float = 10.0) -> None:
        """Stop serving (from another thread) and wait until it has."""
        self._stopped.set()
        if not self._serving.is_set():
            return
        if self._loop_ready.wait(timeout):
            self._loop.call_soon_threadsafe(self._stop_event.set)
        self._done.wait(timeout)

    def server_close(self) -> None:
        if not self._loop.is_running() and not self._loop.is_closed():
            self._loop.close()
