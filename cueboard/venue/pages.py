"""``cueboard screen``: serve the venue screen page (``screen/``) and the desk's at ``/desk``,
its own files only (:data:`PAGE_FILES`), with a ``config.js`` of the command's options as the
page's defaults. docs/screen.md, "The server"; docs/desk.md.
"""

from __future__ import annotations

import json
import posixpath
import ssl
import sys
import threading
from collections.abc import Iterable
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

CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'none'",
    "script-src 'self'",  # index.html's scripts are files: no inline script, no eval
    # OBS adds a Browser source's custom CSS as a <style> element (docs/screen.md, the overlay's
    # --bug-* variables): inline styles are allowed, inline scripts never. The pages set text with
    # textContent only, so an injected style cannot come from a player's name.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    # The schemas (fetch) from here; the broker over WebSockets, on whatever host ?broker= names.
    "connect-src 'self' ws: wss:",
    # mqtt.js keeps its timers in a worker made from a blob (so a hidden tab's keepalive is not
    # throttled); only the page's own scripts can make one. 'self': the scorer's service worker
    # (screen/score/sw.js, docs/scorer.md).
    "worker-src 'self' blob:",
    # The scorer's web app manifest (screen/score/manifest.json): without it under default-src
    # 'none' the browser cannot read it, and the scorer is not installable (docs/scorer.md).
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
])
"""What the page may load and run. No frame-ancestors: a venue's signage software may show the
page in a frame, and the page has nothing to click that framing could trick anyone into."""

SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


SCORER_WORKER = "score/sw.js"

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


def _page_handler(directory: Path, files: frozenset[str], settings: dict[str, str | int | float],
                  venue_ca: bytes | None = None) -> Handler:
    """The page's files (``files``, from ``directory``), ``/config.js`` from the server's
    settings and the venue's CA certificate when given; a 404 for anything else, a 501 for a
    method other than GET and HEAD."""
    config = ("window.CUEBOARD_SCREEN = " + json.dumps(settings) + ";\n").encode()

    async def answer(request: web.Request) -> web.StreamResponse:
        if request.method not in ("GET", "HEAD"):
            return web.Response(status=501, text="501: GET and HEAD only\n")
        # The target as sent; leading slashes are one ("//x" is a path here, not a host).
        path = request_path("/" + request.raw_path.lstrip("/"))
        if path in FOLDER_PAGES:  # /score: the scorer's page (docs/scorer.md)
            path = FOLDER_PAGES[path]
        if path == "config.js":
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
                limits: Limits | None = None, venue_ca: Path | None = None) -> WebServer:
    """A web server for the page (:mod:`cueboard.venue.web_server`: bounded, HTTPS with ``tls``),
    bound at once (``port`` 0: a free one, see ``server.server_address``). ``page``: more of the
    page's defaults (``tables``, ``view``, ``per_page``, ``rotate``, ``lang``: docs/screen.md).
    ``venue_ca``: the venue's CA certificate, served at ``/venue-ca.crt``."""
    if not (directory / "index.html").is_file():
        raise FileNotFoundError(f"no screen page in {directory}")
    settings: dict[str, str | int | float] = {
        k: v for k, v in (("broker", broker_ws), ("venue", venue), ("table", table)) if v}
    settings.update({k: v for k, v in (page or {}).items() if v is not None})
    files = page_files(directory) - {"config.js"}  # config.js is the settings, made above
    server = WebServer(host, port, limits=limits or Limits(), tls=tls, headers=SECURITY_HEADERS)
    ca = None if venue_ca is None else venue_ca.read_bytes()
    add_desk_routes(server)  # the desk's fixtures and draws (cueboard/venue/desk_routes.py), before the files
    server.app.router.add_route("*", "/{tail:.*}", _page_handler(directory, files, settings, ca))
    server.start()
    return server


def serve_in_thread(server: WebServer) -> threading.Thread:
    thread = threading.Thread(target=server.serve_forever, name="cueboard-screen", daemon=True)
    thread.start()
    return thread


def run_screen(*, host: str, port: int, broker_ws: str | None, venue: str | None, table: str | None,
               page: dict[str, str | int | float] | None = None, tls_cert: str | None = None,
               tls_key: str | None = None, venue_ca: str | None = None) -> int:
    if venue_ca is not None and not Path(venue_ca).is_file():
        print(f"cueboard screen: --venue-ca: {venue_ca} is not a file (the venue's ca/venue-ca.crt)", file=sys.stderr)
        return 2
    tls = None if tls_cert is None else tls_context(tls_cert, tls_key or tls_cert)
    server = make_server(host, port, broker_ws=broker_ws, venue=venue, table=table, page=page, tls=tls,
                         venue_ca=None if venue_ca is None else Path(venue_ca))
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    scheme = "https" if tls is not None else "http"
    print(f"cueboard screen: {scheme}://{shown}:{server.server_address[1]}/  "
          f"(broker {broker_ws or 'ws://<this host>:9001'}; ?table=NAME for one table)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
