"""The desk's two JSON routes on ``cueboard screen`` (docs/desk.md, "Tonight's competition"):
the page cannot run Python, so the fixture file and the draw are checked here, by
:mod:`cueboard.league.match_day` and :mod:`cueboard.venue.pairings`, and answered as the matches the desk keeps.

- ``POST /desk/api/fixtures?competition=NAME`` with the file's bytes (CSV or JSON): ``200
  {"fixtures": [...], "matches": [...]}``, or ``422 {"error": {"file", "line", "reason"}}``
  naming the first bad line (a file over :data:`cueboard.league.match_day.MAX_BYTES` is refused
  without being read further).
- ``POST /desk/api/draw`` with ``{"kind", "name", "players", "seeded", "seed", "twice"}``:
  ``200`` the draw's matches (:func:`cueboard.venue.competition.from_draw`), or ``422 {"error":
  {"reason"}}``.

They change nothing anywhere (no file, no broker): the desk publishes what it keeps itself, as
the desk's login, so the broker's ACL still decides who may.
"""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from cueboard.common.errors import DrawError, FixtureError
from cueboard.league import match_day
from cueboard.venue.competition import from_draw, from_fixtures
from cueboard.venue.web_server import WebServer

__all__ = ["add_desk_routes"]

MAX_DRAW_BYTES = 64 * 1024
"""A draw's request: 256 players with handicaps is some 10 KiB."""
DRAIN = 32 * 1024 * 1024
"""Bytes of an oversize body read and discarded before answering (beyond: the connection closes)."""


def _json(status: int, body: Any) -> web.Response:
    return web.Response(status=status, text=json.dumps(body), content_type="application/json",
                        headers={"Cache-Control": "no-store"})


async def _read(request: web.Request, limit: int) -> bytes:
    """The body, no more than ``limit`` + 1 bytes of it (so an oversize one is known as such)."""
    data = bytearray()
    while len(data) <= limit:
        chunk = await request.content.read(min(65536, limit + 1 - len(data)))
        if not chunk:
            break
        data += chunk
    # An oversize body is read to its end (up to DRAIN bytes, discarded) so that the client,
    # still sending, gets the answer naming the limit rather than a reset connection.
    drained = len(data)
    while len(data) > limit and drained < DRAIN and await request.content.read(65536):
        drained += 65536
    return bytes(data)


async def _fixtures(request: web.Request) -> web.Response:
    name = request.query.get("name", "fixtures")[:100]
    competition = request.query.get("competition") or None
    data = await _read(request, match_day.MAX_BYTES)
    try:
        found = match_day.parse(data, name=name, competition=competition)
    except FixtureError as exc:
        return _json(422, {"error": {"file": name, "line": exc.line, "reason": exc.reason, "text": str(exc)}})
    if not found:
        return _json(422, {"error": {"file": name, "line": None, "reason": "no fixtures in the file",
                                     "text": f"{name}: no fixtures in the file"}})
    return _json(200, {"fixtures": [f.as_dict() for f in found], "matches": from_fixtures(found)})


async def _draw(request: web.Request) -> web.Response:
    data = await _read(request, MAX_DRAW_BYTES)
    if len(data) > MAX_DRAW_BYTES:
        return _json(422, {"error": {"reason": f"a draw's request is at most {MAX_DRAW_BYTES:,} bytes"}})
    try:
        body = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return _json(422, {"error": {"reason": f"not JSON: {exc}"[:200]}})
    if not isinstance(body, dict):
        return _json(422, {"error": {"reason": "a draw's request is a JSON object"}})
    try:
        return _json(200, from_draw(body))
    except DrawError as exc:
        return _json(422, {"error": {"reason": str(exc)}})


def add_desk_routes(server: WebServer) -> None:
    """The routes, added before the page's own catch-all (aiohttp matches in order)."""
    server.app.router.add_post("/desk/api/fixtures", _fixtures)
    server.app.router.add_post("/desk/api/draw", _draw)
