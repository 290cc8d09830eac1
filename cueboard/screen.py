"""``cueboard screen``: serve the venue screen page (``screen/`` at the repo root).

The page is static (HTML, CSS, JavaScript, the vendored mqtt.js bundle and the JSON
Schemas), so any web server can serve ``screen/`` as well; this one adds a ``config.js``
carrying ``--broker-ws``, ``--venue``, ``--table``, ``--tables``, ``--view``, ``--per-page``,
``--rotate`` and ``--lang`` as the page's defaults (query parameters still win).
"""

from __future__ import annotations

import functools
import json
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

SCREEN_DIR = Path(__file__).resolve().parent.parent / "screen"


class ScreenHandler(SimpleHTTPRequestHandler):
    """Serves ``screen/``; ``/config.js`` from the server's settings; no ``node_modules``."""

    settings: ClassVar[dict[str, str | int | float]] = {}

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/config.js":
            body = ("window.CUEBOARD_SCREEN = " + json.dumps(self.settings) + ";\n").encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/javascript; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)
            return
        if path.startswith("/node_modules") or path.endswith((".mjs", "package.json", "package-lock.json")):
            self.send_error(404)
            return
        super().do_GET()

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: a screen polls nothing, and a venue does not read access logs


def make_server(host: str = "0.0.0.0", port: int = 8080, *, broker_ws: str | None = None, venue: str | None = None,
                table: str | None = None, directory: Path = SCREEN_DIR,
                page: dict[str, str | int | float] | None = None) -> ThreadingHTTPServer:
    """An HTTP server for the page (``port`` 0: a free one, see ``server.server_address``).
    ``page``: more of the page's defaults (``tables``, ``view``, ``per_page``, ``rotate``,
    ``lang``: docs/screen.md)."""
    if not (directory / "index.html").is_file():
        raise FileNotFoundError(f"no screen page in {directory}")
    settings: dict[str, str | int | float] = {
        k: v for k, v in (("broker", broker_ws), ("venue", venue), ("table", table)) if v}
    settings.update({k: v for k, v in (page or {}).items() if v is not None})
    handler = type("Handler", (ScreenHandler,), {"settings": settings})
    return ThreadingHTTPServer((host, port), functools.partial(handler, directory=str(directory)))


def serve_in_thread(server: ThreadingHTTPServer) -> threading.Thread:
    thread = threading.Thread(target=server.serve_forever, name="cueboard-screen", daemon=True)
    thread.start()
    return thread


def run_screen(*, host: str, port: int, broker_ws: str | None, venue: str | None, table: str | None,
               page: dict[str, str | int | float] | None = None) -> int:
    server = make_server(host, port, broker_ws=broker_ws, venue=venue, table=table, page=page)
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    print(f"cueboard screen: http://{shown}:{server.server_address[1]}/  "
          f"(broker {broker_ws or 'ws://<this host>:9001'}; ?table=NAME for one table)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
