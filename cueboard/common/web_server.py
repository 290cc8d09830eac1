"""The one bounded web server every HTTP server of the project runs on (``cueboard screen``'s
pages and the desk's routes, ``cueboard archive serve``), on aiohttp: capped connections (in
all and per client), a deadline and a byte cap on a request's head, a cap on a body, HTTPS,
loopback by default, the same security headers on every answer. Why and how: :class:`WebServer`
and docs/security.md, "The servers".
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import ssl
import struct
import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_request import BaseRequest

from cueboard.common.web_limits import BACKLOG, FD_RESERVE, Limits, client_key, connection_cap

__all__ = ["BASE_HEADERS", "FD_RESERVE", "SERVER_NAME", "Handler", "Limits", "WebServer", "client_key",
           "connection_cap", "tls_context"]

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

SERVER_NAME = "cueboard"
"""The ``Server`` header: which program, never which library or version (aiohttp's default
names Python's and its own)."""

BASE_HEADERS: Mapping[str, str] = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
"""On every answer of every server, errors too; each server adds its own Content-Security-Policy
(required: :class:`WebServer` refuses to be made without one)."""


def tls_context(cert: str, key: str) -> ssl.SSLContext:
    """A server's TLS context from its certificate (chain) and key files."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert, key)
    return context


def _plain_answer(status: str, text: str, headers: Mapping[str, str]) -> bytes:
    """A whole HTTP/1.1 answer that closes the connection, for what is refused before aiohttp
    reads a request (over the connection cap, a head too long)."""
    body = text.encode()
    lines = [f"HTTP/1.1 {status}", f"Server: {SERVER_NAME}", "Content-Type: text/plain; charset=utf-8",
             f"Content-Length: {len(body)}", "Connection: close", *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


class _RequestHandler(RequestHandler):
    """aiohttp's connection handler, its own error answers (a malformed request: 400, a line or
    field too long: 400/431, a handler's crash: 500) carrying the server's headers as well: those
    are made without the application, so no middleware sees them."""

    def __init__(self, server: WebServer, manager: web.Server, **kwargs: Any) -> None:
        super().__init__(manager, **kwargs)
        self._web_server = server

    def handle_error(self, request: BaseRequest, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        response = super().handle_error(request, status, exc, message)
        self._web_server.stamp(response)
        return response


class _Guard(asyncio.Protocol):
    """One connection: the caps counted from the socket's accept (before any TLS handshake),
    the head's deadline and byte cap, then aiohttp's protocol inside."""

    def __init__(self, server: WebServer) -> None:
        self.server = server
        self.inner: RequestHandler | None = None
        self.raw: asyncio.Transport | None = None  # the socket's transport
        self.transport: asyncio.Transport | None = None  # what aiohttp speaks on (TLS's, or the socket's)
        self.client = ""
        self.counted = False
        self.lost = False  # aiohttp's protocol told of the connection's end
        self.waiting_bytes = 0  # bytes since the last request's head (or the connection)
        self.busy = False  # a request's head arrived and its answer is being made
        self.tail = b""  # the last bytes seen while waiting for a head: its end may straddle two reads
        self.deadline: asyncio.TimerHandle | None = None
        self.early = bytearray()  # what came with the handshake's end, before start_tls returned
        self.stalled: asyncio.TimerHandle | None = None  # the send deadline, while the client reads nothing

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)  # a stream (TCP)
        self.raw = transport
        server = self.server
        self.client = client_key(transport.get_extra_info("peername"))
        if len(server._clients.get(self.client, ())) >= server.limits.per_client:
            server.refused_per_client += 1
            self.refuse("503 Service Unavailable",
                        f"503: {server.limits.per_client} connections from your address are open"
                        " (limit: per_client)\n")
            return
        if len(server._open) >= server.connections and not server._evict_one():
            self.refuse("503 Service Unavailable",
                        f"503: the server's {server.connections} connections are all taken (limit: connections)\n")
            return
        self.counted = True
        server._open.add(self)
        server._clients.setdefault(self.client, {})[self] = None
        server.peak = max(server.peak, len(server._open))
        self.arm()  # the handshake and the first head within the head's deadline
        if server.tls is None:
            self.begin(transport)
        else:
            # The handshake is done here, counted and timed, rather than by the listening socket
            # (whose connections are seen only once their handshake ends: uncounted, untimed).
            transport.pause_reading()  # no byte of the handshake reaches aiohttp
            server._tasks.add(task := asyncio.ensure_future(self.handshake(transport)))
            task.add_done_callback(server._tasks.discard)

    async def handshake(self, raw: asyncio.Transport) -> None:
        assert self.server.tls is not None
        try:
            secured = await asyncio.get_running_loop().start_tls(
                raw, self, self.server.tls, server_side=True, ssl_handshake_timeout=self.server.limits.header_timeout)
        except asyncio.CancelledError:  # the server stops
            raw.abort()
            self.forget()
            raise
        except Exception:  # a failed handshake, whatever its kind, ends only its own connection
            raw.abort()
            self.forget()  # its connection_lost never comes: the handshake did not end
            return
        if not self.counted or secured is None:  # closed while it shook hands
            return
        assert isinstance(secured, asyncio.Transport)
        self.begin(secured)

    def begin(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        self.inner = self.server._handler()
        self.server._guards[transport] = self
        self.inner.connection_made(transport)
        if self.early:  # a TLS 1.3 client's request may come in the handshake's last read
            early, self.early = bytes(self.early), bytearray()
            self.data_received(early)

    def refuse(self, status: str, text: str) -> None:
        """Closed at once: with an answer on plain HTTP, without one on HTTPS (a handshake is
        the work a flood wants the server to do)."""
        self.server.refused += 1
        assert self.raw is not None
        if self.server.tls is None:
            self.raw.write(_plain_answer(status, text, self.server.headers))
            self.raw.close()
        else:
            self.raw.abort()

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

    def waiting(self) -> bool:
        """Waiting for a request's head (or the handshake): no answer being made or still
        being sent (a big file's tail in the buffers outlives the handler)."""
        buffers = (t.get_write_buffer_size() for t in (self.raw, self.transport) if t is not None)
        return not self.busy and not any(buffers)

    def expire(self) -> None:
        self.deadline = None
        if not self.busy and not self.waiting() and self.raw is not None:
            # Still sending the last answer (send_timeout watches that): the next head's time
            # starts again, its bytes counted on.
            self.deadline = asyncio.get_running_loop().call_later(self.server.limits.header_timeout, self.expire)
            return
        if self.waiting() and self.raw is not None:
            self.server.timed_out += 1
            self.raw.abort()  # no request's head in time: a slow (or silent) client
            if self.inner is None:  # still shaking hands: no connection_lost will come here
                self.forget()

    def data_received(self, data: bytes) -> None:
        if self.inner is None or self.transport is None:
            self.early += data
            if len(self.early) > self.server.limits.header_bytes and self.raw is not None:
                self.server.too_big += 1
                self.raw.abort()
            return
        if not self.busy:
            # Only the head is capped here: a POST's body may follow it in the same reads,
            # before the handler has begun (Limits.body_bytes and the handlers cap bodies).
            seen = self.tail + data
            end = seen.find(b"\r\n\r\n")
            head = len(data) if end < 0 else max(0, end + 4 - len(self.tail))
            self.waiting_bytes += head
            if self.waiting_bytes > self.server.limits.header_bytes:
                self.server.too_big += 1
                self.busy = True  # answered: no deadline, no more reading
                self.transport.pause_reading()
                self.transport.write(_plain_answer(
                    "431 Request Header Fields Too Large",
                    f"431: a request's head is at most {self.server.limits.header_bytes} bytes (limit: header_bytes)\n",
                    self.server.headers))
                self.transport.close()
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
        if self.inner is not None:
            self.inner.eof_received()  # aiohttp's: None, the transport closes itself
        return None

    def pause_writing(self) -> None:
        if self.stalled is None:
            self.stalled = asyncio.get_running_loop().call_later(self.server.limits.send_timeout, self.stall)
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.stalled is not None:
            self.stalled.cancel()
            self.stalled = None
        if self.inner is not None:
            self.inner.resume_writing()

    def stall(self) -> None:
        self.stalled = None
        if self.raw is not None:
            self.server.send_timed_out += 1
            sock = self.raw.get_extra_info("socket")
            if sock is not None:
                # A reset, not a FIN queued behind the unread answer: else the kernel keeps
                # the socket and its buffer until it gives up on the client.
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.raw.abort()  # its answer unread for send_timeout: a client that stopped reading

    def evict(self) -> None:
        """Closed to make room (:meth:`WebServer._evict_one`): its place is free at once."""
        self.server.evicted += 1
        if self.raw is not None:
            self.raw.abort()
        self.forget()

    def connection_lost(self, exc: Exception | None) -> None:
        self.forget()
        if self.inner is not None and not self.lost:
            self.lost = True
            self.inner.connection_lost(exc)

    def forget(self) -> None:
        for timer in (self.deadline, self.stalled):
            if timer is not None:
                timer.cancel()
        self.deadline = self.stalled = None
        if not self.counted:
            return
        self.counted = False
        server = self.server
        server._open.discard(self)
        if self.transport is not None:
            server._guards.pop(self.transport, None)
        mine = server._clients.get(self.client, {})
        mine.pop(self, None)
        if not mine:
            server._clients.pop(self.client, None)


class WebServer:
    """Routes (``add_get``, or an application of the caller's: ``app``), limits, TLS;
    ``server_address`` once made; :meth:`serve_forever` runs it in the calling thread until
    :meth:`shutdown` (from any thread).

    The standard library's ``http.server`` has no timeouts or limits of its own (what that
    cost: docs/performance.md, "Figures moved out of module docstrings"), nor has
    ``aiohttp.web.run_app`` a connection cap or a head's deadline (issue 37: a client holding
    256 slow sockets left 5 of 74 requests answered; the archive ran out of file descriptors).
    Here, counted from the socket's accept, before any TLS handshake:

    - **a cap per client** (:attr:`Limits.per_client`): one more is closed at once (on plain
      HTTP with a 503 naming the limit);
    - **a cap on connections** (:attr:`Limits.connections`, lowered to fit the open-files limit:
      :func:`connection_cap`): at it, a connection still waiting for its head, of the client
      holding the most, is closed to make room (:meth:`_evict_one`); if none waits, the new
      one is closed at once;
    - **a read timeout**: a request's head (and the TLS handshake before it) must arrive within
      :attr:`Limits.header_timeout` seconds of the connection (or of the previous answer on a
      kept-alive one), or the connection is closed; idle kept-alive connections close after
      :attr:`Limits.keepalive`; an answer the client stops reading is abandoned after
      :attr:`Limits.send_timeout`;
    - **a cap on header bytes**: at most :attr:`Limits.header_bytes` before a request's head is
      complete (and aiohttp's own caps on a line, a field and their count), else a 431 (or
      aiohttp's 400) and the connection closes, the rest never read;
    - **a cap on a body**: a Content-Length over :attr:`Limits.body_bytes` is answered 413
      unread; the answer's deadline (:attr:`Limits.handler_timeout`) bounds a trickling one;
    - **HTTPS** when given a TLS context; **loopback by default**;
    - **the same security headers on every answer**, errors too (:data:`BASE_HEADERS`, the
      caller's Content-Security-Policy, ``Server: cueboard``).

    No thread per connection: one asyncio loop, in the thread that calls :meth:`WebServer.serve_forever`.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, limits: Limits | None = None,
                 tls: ssl.SSLContext | None = None, headers: Mapping[str, str] | None = None,
                 app: web.Application | None = None) -> None:
        self.limits = limits or Limits()
        self.connections = connection_cap(self.limits.connections)
        self.tls = tls
        self.headers = {**BASE_HEADERS, **(headers or {})}
        if "Content-Security-Policy" not in self.headers:
            raise ValueError("a server's headers need its Content-Security-Policy")
        self.refused = 0  # connections over a cap (the per-client one too)
        self.refused_per_client = 0  # connections over the per-client cap
        self.evicted = 0  # connections waiting for a head, closed to make room for a new one
        self.timed_out = 0  # connections whose request's head did not come in time
        self.send_timed_out = 0  # connections whose client stopped reading its answer
        self.peak = 0  # the most connections open at once (never over the cap)
        self.too_big = 0  # connections whose request's head was too long
        self._open: set[_Guard] = set()
        self._clients: dict[str, dict[_Guard, None]] = {}  # each client's open connections, oldest first
        self._guards: dict[asyncio.BaseTransport, _Guard] = {}  # by the transport aiohttp speaks on
        self._tasks: set[asyncio.Future[None]] = set()  # handshakes under way
        self._own_body_caps: set[str] = set()  # the routes that cap their bodies themselves (add_post)
        self.app = app if app is not None else web.Application(client_max_size=self.limits.body_bytes)
        self.app.middlewares.insert(0, self._middleware)
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

    def _evict_one(self) -> bool:
        """At the cap, room for one more: the oldest connection still waiting for a request's
        head (or its TLS handshake) of the client holding the most, closed. So clients that
        hold many idle sockets (from many addresses) make room for one that asks and is
        answered; a connection whose answer is being made is never closed so. False if every
        connection is busy with an answer."""
        for _count, mine in sorted(((len(m), m) for m in self._clients.values()), key=lambda cm: -cm[0]):
            for guard in mine:
                if guard.waiting():
                    guard.evict()
                    return True
        return False

    def add_get(self, path: str, handler: Handler) -> None:
        self.app.router.add_get(path, handler)  # HEAD too

    def add_post(self, path: str, handler: Handler, *, own_body_cap: bool = False) -> None:
        """A POST route; ``own_body_cap``: its handler reads the body and caps it itself (to answer
        an oversize one naming its own limit), so :attr:`Limits.body_bytes` does not apply."""
        self.app.router.add_post(path, handler)
        if own_body_cap:
            self._own_body_caps.add(path)

    def stamp(self, response: web.StreamResponse) -> None:
        """The server's headers on an answer (not yet sent)."""
        response.headers.update(self.headers)
        response.headers["Server"] = SERVER_NAME

    def start(self) -> None:
        """Bind (so that ``server_address`` has the port): done by :meth:`serve_forever` if not before."""
        if self._server is not None:
            return
        self._loop.run_until_complete(self._start())

    def _handler(self) -> RequestHandler:
        assert self._runner is not None and self._runner.server is not None
        return _RequestHandler(
            self, self._runner.server, loop=self._loop, keepalive_timeout=self.limits.keepalive, access_log=None,
            max_line_size=8190, max_field_size=8190, max_headers=64)

    async def _start(self) -> None:
        self._runner = web.AppRunner(self.app, access_log=None, handle_signals=False)
        await self._runner.setup()
        self._server = await asyncio.get_running_loop().create_server(
            lambda: _Guard(self), self._host, self._port, backlog=BACKLOG, reuse_address=True)
        sockname = self._server.sockets[0].getsockname()
        self.server_address = (str(sockname[0]), int(sockname[1]))

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        guard = self._guards.get(request.transport) if request.transport is not None else None
        if guard is not None:
            guard.request_started()
        try:
            length = request.content_length
            own_cap = request.match_info.route.resource is not None and \
                request.match_info.route.resource.canonical in self._own_body_caps
            try:
                if length is not None and length > self.limits.body_bytes and not own_cap:
                    response: web.StreamResponse = web.Response(
                        status=413, text=f"413: a request's body is at most {self.limits.body_bytes} bytes"
                                         " (limit: body_bytes)\n")
                    response.force_close()  # the body is never read
                else:
                    response = await asyncio.wait_for(handler(request), self.limits.handler_timeout)
            except web.HTTPException as exc:  # aiohttp's own (a 404 of the router, a 413 ...): answered alike
                response = web.Response(status=exc.status, reason=exc.reason, text=exc.text)
                if exc.status == 413:
                    response.force_close()
            except TimeoutError:
                response = web.Response(status=503, text="503: too slow an answer (limit: handler_timeout)\n")
            self.stamp(response)
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
        for guard in list(self._open):
            if guard.raw is not None:
                guard.raw.abort()
        for task in list(self._tasks):
            task.cancel()
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
