"""``cueboard screen``: serve the venue screen page (``screen/``) and the desk's at ``/desk``,
its own files only (:data:`PAGE_FILES`), with a ``config.js`` of the command's options as the
page's defaults. docs/screen.md, "The server"; docs/desk.md.

The brokers the pages connect to are the server's (issue 37, row 1): ``config.js`` names them
and each page's content policy allows exactly that one (:func:`content_security_policy`), so no
link can point a page, or the login typed into it, at another broker.
"""

from __future__ import annotations

import json
import posixpath
import re
import ssl
import sys
import threading
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from urllib.parse import unquote, urlsplit

from aiohttp import web

from cueboard.common.resources import screen_dir
from cueboard.common.web_server import Handler, Limits, WebServer, tls_context
from cueboard.venue.desk_routes import add_desk_routes

SCREEN_DIR = screen_dir()

PAGE_FILES = ("*.html", "*.js", "*.css", "*.svg", "*.ico", "*.png", "vendor/*.js", "vendor/*.json",
              "i18n/*.json", "shared/*.js", "games/*.js", "desk/*.html", "desk/*.js", "desk/*.css",
              "bracket/*.html", "bracket/*.js", "bracket/*.css",
              "score/*.html", "score/*.js", "score/*.css", "score/*.json", "score/*.svg", "score/*.png")
"""The page's files, as globs in its folder (one level each): what the package installs as
``cueboard.web`` (pyproject.toml's package data, which tests/screen/test_screen_server.py compares)."""

PAGE_ROUTES = {"desk": "desk/index.html"}
"""Addresses that name a page of the folder rather than a file: ``/desk`` (the venue's desk)."""

CONTENT_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                 ".css": "text/css; charset=utf-8", ".json": "application/json", ".svg": "image/svg+xml",
                 ".ico": "image/x-icon", ".png": "image/png"}

SCREENS_PORT = 9001
"""The screens' anonymous, read-only listener (``cueboard venue init``, plan.py ``ports.screens``)."""
PAGES_PORT = 8885
"""The pages' listener, where the desk and the scorers sign in (plan.py ``ports.pages``)."""

SCORER_WORKER = "score/sw.js"

SIGN_IN_PAGES = frozenset({"desk/index.html", "score/index.html", SCORER_WORKER})
"""The documents that connect to the pages' listener (``desk_broker``); the others to the screens'."""


def content_security_policy(broker: str | None) -> str:
    """What a page may load and run; ``broker``: the one broker origin it may connect to (None:
    the page's own origin only, for what is no page)."""
    return "; ".join(_policy(broker))


def _policy(broker: str | None) -> list[str]:
    return [
        "default-src 'none'",
        "script-src 'self'",  # index.html's scripts are files: no inline script, no eval
        # OBS adds a Browser source's custom CSS as a <style> element (docs/screen.md, the overlay's
        # --bug-* variables): inline styles are allowed, inline scripts never. The pages set text with
        # textContent only, so an injected style cannot come from a player's name.
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        # The schemas (fetch) from here; the broker over WebSockets: the server's only, never a link's.
        "connect-src 'self'" + (f" {broker}" if broker else ""),
        # mqtt.js keeps its timers in a worker made from a blob (so a hidden tab's keepalive is not
        # throttled); only the page's own scripts can make one. 'self': the scorer's service worker
        # (screen/score/sw.js, docs/scorer.md).
        "worker-src 'self' blob:",
        # The scorer's web app manifest (screen/score/manifest.json): without it under default-src
        # 'none' the browser cannot read it, and the scorer is not installable (docs/scorer.md).
        "manifest-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
    ]
# No frame-ancestors: a venue's signage software may show the page in a frame, and the page has
# nothing to click that framing could trick anyone into.


CONTENT_SECURITY_POLICY = content_security_policy(None)
"""The policy of an answer that is no page (a script, a schema, a 404): nothing to connect to."""

SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
"""Sent with every answer, as they are, with :data:`CONTENT_SECURITY_POLICY` (the server's own
errors carry that one); a page's ``Content-Security-Policy`` is then set for each answer by
:func:`make_server` (the page's own broker)."""

_HOST_HEADER = re.compile(r"(?P<name>[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?|\[[0-9a-f:.]{2,45}\])(:[0-9]{1,5})?")


def request_host(host_header: str | None) -> str | None:
    """The host name a page was asked for by (the ``Host`` header, its port left out), as a
    URL's host (an IPv6 address in brackets); None for a header that is not just a host name
    or address and a port.

    >>> request_host("Broker.Club.lan:8080"), request_host("[::1]:8080"), request_host("a@b")
    ('broker.club.lan', '[::1]', None)
    """
    found = _HOST_HEADER.fullmatch((host_header or "").lower())
    return found.group("name") if found else None


def page_brokers(settings: dict[str, str | int | float], host: str | None) -> dict[str, str]:
    """The brokers the pages connect to: ``broker`` (the screens' listener, ``--broker-ws``) and
    ``desk_broker`` (the pages' listener, where the desk and scorers sign in: ``--desk-broker``).
    One not configured is the listener of ``cueboard venue init`` on the host the page was asked
    for (``host``: what the browser's address says, so the page and its broker are one machine);
    with no usable host, none (the page says it has no broker)."""
    found: dict[str, str] = {}
    for key, scheme, port in (("broker", "wss", SCREENS_PORT), ("desk_broker", "wss", PAGES_PORT)):
        configured = settings.get(key)
        if configured:
            found[key] = str(configured)
        elif host is not None:
            found[key] = f"{scheme}://{host}:{port}"
    return found


def broker_origin(url: str) -> str | None:
    """A broker URL as a content policy's source: its scheme, host and port (the scheme's default
    written out); None for what is no ws:// or wss:// URL.

    >>> broker_origin("wss://Broker.club.lan/mqtt"), broker_origin("https://x")
    ('wss://broker.club.lan:443', None)
    """
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "wss" else 80)
    except ValueError:
        return None
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host}:{port}"


FOLDER_PAGES = {"score": "score/index.html", "bracket": "bracket/index.html"}
"""Pages in a folder of their own, by the address they are opened at (``/score``)."""


def page_files(directory: Path, patterns: Iterable[str] = PAGE_FILES) -> frozenset[str]:
    """The files of ``directory`` that the page is made of, as URL paths without the leading ``/``
    (hidden files, such as a tool's ``.eslintrc.js``, left out)."""
    found = (path.relative_to(directory) for pattern in patterns for path in directory.glob(pattern) if path.is_file())
    return frozenset(path.as_posix() for path in found if not any(part.startswith(".") for part in path.parts))


def request_path(target: str) -> str | None:
    """The file a request target asks for: percent-decoded (UTF-8), then normalised
    (``.``, ``..`` and repeated slashes resolved), without the leading ``/``; ``index.html``
    for ``/``. None for what names no file: a NUL or control character, a backslash, bad
    percent-encoding, or ``..`` above the top.

    >>> request_path("/vendor/../%6eode_modules/x.js?v=1")
    'node_modules/x.js'
    >>> request_path("/package%2ejson%00") is None
    True
    """
    raw = urlsplit(target).path
    try:
        path = unquote(raw, errors="strict")
    except UnicodeDecodeError:
        return None
    if not path.startswith("/") or "\\" in path or any(ord(c) < 32 or ord(c) == 127 for c in path):
        return None
    parts: list[str] = []
    for part in path.split("/"):
        if part == "..":
            if not parts:
                return None
            parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return posixpath.join(*parts) if parts else "index.html"


VENUE_CA = "venue-ca.crt"
"""Where the venue's CA certificate is served (``--venue-ca``): the scorer card's second QR code
(cueboard/venue/card.py). It is public; a phone that installs it trusts the venue's pages."""


def _document(target: str) -> str | None:
    """The page file a request target names (``/score`` is ``score/index.html``), or None."""
    path = request_path("/" + target.lstrip("/"))
    path = FOLDER_PAGES.get(path or "", path)
    return PAGE_ROUTES.get(path or "", path)


PolicySetter = Callable[[web.Request, web.StreamResponse], Awaitable[None]]


def _policy_setter(settings: dict[str, str | int | float]) -> PolicySetter:
    """Set each answer's content policy as it goes out (after the server's own headers): a page
    may connect to its own broker only, the one config.js names for the host it was asked by."""
    async def set_policy(request: web.Request, response: web.StreamResponse) -> None:
        path = _document(request.raw_path)
        broker: str | None = None
        if path is not None and (path.endswith(".html") or path == SCORER_WORKER):
            key = "desk_broker" if path in SIGN_IN_PAGES else "broker"
            url = page_brokers(settings, request_host(request.headers.get("Host"))).get(key)
            broker = None if url is None else broker_origin(url)
        response.headers["Content-Security-Policy"] = content_security_policy(broker)

    return set_policy


def _page_handler(directory: Path, files: frozenset[str], settings: dict[str, str | int | float],
                  venue_ca: bytes | None = None) -> Handler:
    """The page's files (``files``, from ``directory``), ``/config.js`` from the server's
    settings (its brokers for the host the page was asked by: :func:`page_brokers`) and the
    venue's CA certificate when given; a 404 for anything else, a 501 for a method other than
    GET and HEAD."""

    async def answer(request: web.Request) -> web.StreamResponse:
        if request.method not in ("GET", "HEAD"):
            return web.Response(status=501, text="501: GET and HEAD only\n")
        # The target as sent; leading slashes are one ("//x" is a path here, not a host).
        path = request_path("/" + request.raw_path.lstrip("/"))
        if path in FOLDER_PAGES:  # /score: the scorer's page (docs/scorer.md)
            path = FOLDER_PAGES[path]
        if path == "config.js":
            known = {**settings, **page_brokers(settings, request_host(request.headers.get("Host")))}
            config = ("window.CUEBOARD_SCREEN = " + json.dumps(known) + ";\n").encode()
            return _send(config, "text/javascript; charset=utf-8", cache="no-store")
        if path == VENUE_CA and venue_ca is not None:
            # The type a phone's browser hands to its certificate installer (Android, iOS).
            return _send(venue_ca, "application/x-x509-ca-cert", cache="no-cache")
        # The desk (docs/desk.md) at /desk: its page's relative paths (i18n/, config.js) are the
        # screen's own, so the two share the catalogues, the settings and the vendored libraries.
        path = PAGE_ROUTES.get(path or "", path)
        if path is None or path not in files:
            return web.Response(status=404, text="404: not part of the page\n")
        try:
            content = (directory / path).read_bytes()
        except OSError:  # gone since the server started
            return web.Response(status=404, text="404: not part of the page\n")
        response = _send(content, CONTENT_TYPES.get(posixpath.splitext(path)[1], "application/octet-stream"),
                         cache="no-cache")
        if path == SCORER_WORKER:  # it serves /score too, one level above its own folder
            response.headers["Service-Worker-Allowed"] = "/score"
        return response

    return answer


def _send(content: bytes, content_type: str, *, cache: str) -> web.Response:
    response = web.Response(body=content, headers={"Content-Type": content_type, "Cache-Control": cache})
    return response


def make_server(host: str = "127.0.0.1", port: int = 8080, *, broker_ws: str | None = None, venue: str | None = None,
                table: str | None = None, directory: Path = SCREEN_DIR,
                page: dict[str, str | int | float] | None = None, tls: ssl.SSLContext | None = None,
                limits: Limits | None = None, venue_ca: Path | None = None,
                mounted: dict[str, tuple[web.Application, str]] | None = None) -> WebServer:
    """A web server for the page (:mod:`cueboard.venue.web_server`: bounded, HTTPS with ``tls``),
    bound at once (``port`` 0: a free one, see ``server.server_address``). ``page``: more of the
    page's defaults (``tables``, ``view``, ``per_page``, ``rotate``, ``lang``: docs/screen.md).
    ``venue_ca``: the venue's CA certificate, served at ``/venue-ca.crt``. ``mounted``: other
    applications by prefix (``/results``: the archive's pages, :func:`mount`), each with its own
    content policy."""
    if not (directory / "index.html").is_file():
        raise FileNotFoundError(f"no screen page in {directory}")
    settings: dict[str, str | int | float] = {
        k: v for k, v in (("broker", broker_ws), ("venue", venue), ("table", table)) if v}
    settings.update({k: v for k, v in (page or {}).items() if v is not None})
    files = page_files(directory) - {"config.js"}  # config.js is the settings, made above
    server = WebServer(host, port, limits=limits or Limits(), tls=tls,
                       headers={**SECURITY_HEADERS, "Content-Security-Policy": CONTENT_SECURITY_POLICY})
    ca = None if venue_ca is None else venue_ca.read_bytes()
    server.app.on_response_prepare.append(_policy_setter(settings))
    add_desk_routes(server)  # the desk's fixtures and draws (cueboard/venue/desk_routes.py), before the files
    for prefix, (app, policy) in (mounted or {}).items():
        mount(server, prefix, app, policy)
    server.app.router.add_route("*", "/{tail:.*}", _page_handler(directory, files, settings, ca))
    server.start()
    return server


def mount(server: WebServer, prefix: str, app: web.Application, policy: str) -> None:
    """``app`` at ``prefix`` (``/results``) of the pages' server, before the pages' files: the same
    bounded server, its headers and lanes; ``prefix`` alone is sent on to ``prefix/`` (the app's
    own page, whose links are relative). Its answers carry ``policy``, set after the pages' own
    (a sub-application's ``on_response_prepare`` runs after its parent's)."""
    async def set_policy(request: web.Request, response: web.StreamResponse) -> None:
        response.headers["Content-Security-Policy"] = policy

    async def to_folder(request: web.Request) -> web.StreamResponse:
        # Returned, not raised: the server answers a raised HTTP error with its own text, no Location.
        target = prefix + "/" + (f"?{request.query_string}" if request.query_string else "")
        return web.Response(status=301, text=f"301: {target}\n", headers={"Location": target})

    app.on_response_prepare.append(set_policy)
    server.app.router.add_get(prefix, to_folder)
    server.app.add_subapp(prefix + "/", app)


def serve_in_thread(server: WebServer) -> threading.Thread:
    thread = threading.Thread(target=server.serve_forever, name="cueboard-screen", daemon=True)
    thread.start()
    return thread


def run_screen(*, host: str, port: int, broker_ws: str | None, venue: str | None, table: str | None,
               page: dict[str, str | int | float] | None = None, tls_cert: str | None = None,
               tls_key: str | None = None, venue_ca: str | None = None) -> int:
    desk_broker = (page or {}).get("desk_broker")
    for option, url in (("--broker-ws", broker_ws), ("--desk-broker", desk_broker)):
        if url is not None and broker_origin(str(url)) is None:
            print(f"cueboard screen: {option}: {url!r} is not a broker's WebSockets URL (ws://host:port or "
                  "wss://host:port): the pages connect to this broker only", file=sys.stderr)
            return 2
    if venue_ca is not None and not Path(venue_ca).is_file():
        print(f"cueboard screen: --venue-ca: {venue_ca} is not a file (the venue's ca/venue-ca.crt)", file=sys.stderr)
        return 2
    tls = None if tls_cert is None else tls_context(tls_cert, tls_key or tls_cert)
    server = make_server(host, port, broker_ws=broker_ws, venue=venue, table=table, page=page, tls=tls,
                         venue_ca=None if venue_ca is None else Path(venue_ca))
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    scheme = "https" if tls is not None else "http"
    print(f"cueboard screen: {scheme}://{shown}:{server.server_address[1]}/  "
          f"(broker {broker_ws or 'wss://<this host>:9001'}; ?table=NAME for one table)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
