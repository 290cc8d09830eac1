"""The desk's JSON routes on ``cueboard screen``: the fixture file and the draw checked, and
the night's table ranked by the league's one ranking, for a page that cannot run Python. They
change nothing anywhere. The routes and their answers: docs/desk.md, "The desk's JSON routes".
"""

from __future__ import annotations

import asyncio
import json
import unicodedata
from typing import Any, TypeGuard

from aiohttp import web

from cueboard.common.errors import DrawError, FixtureError
from cueboard.common.web_server import WebServer
from cueboard.contract.names import NameRefused, distinct, nickname
from cueboard.league import match_day
from cueboard.league.standings import Result, rank
from cueboard.venue.competition import MAX_PLAYERS, advance, checked, from_draw, from_fixtures, group_table, withdraw

__all__ = ["add_desk_routes"]

MAX_DRAW_BYTES = 64 * 1024
"""A draw's request: 256 players with handicaps is some 10 KiB."""
MAX_RESULTS = MAX_PLAYERS * (MAX_PLAYERS - 1)
"""A night's finished matches: a round robin home and away of the largest draw (65,280)."""
MAX_ENTRANTS = 2 * match_day.MAX_FIXTURES
"""A night's players or pairs: both sides of the largest match day (4,000)."""
MAX_NAME = 2 * match_day.MAX_FIELD + 3
"""A side's name: a pair of the longest names a fixture file may give, joined by ``" & "``."""
MAX_FRAMES = 1000
"""Frames one side won in a match (far more than a best of 35)."""
MAX_STANDINGS_BYTES = 16 * 1024 * 1024
"""A standings request: the largest night (:data:`MAX_RESULTS` with 40-character names) is some 8 MB."""
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
        return _json(422, {"error": {"file": name, "line": exc.line, "reason": exc.reason, "text": str(exc),
                                     **_short(exc)}})
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
        return _json(422, {"error": {"reason": str(exc), **_short(exc)}})


def _short(exc: Exception) -> dict[str, str]:
    """A name refused under RFC 8266's rules says so for machines too: ``"short": "nickname"``."""
    refused = exc if isinstance(exc, NameRefused) else exc.__cause__
    return {"short": NameRefused.short} if isinstance(refused, NameRefused) else {}


def _name(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: a name, as text")
    if len(value) > MAX_NAME:
        raise ValueError(f"{where}: {len(value)} characters; a name is at most {MAX_NAME}")
    bad = next((ch for ch in value if unicodedata.category(ch) == "Cc"), None)
    if bad is not None:
        raise ValueError(f"{where}: the name has a control character (U+{ord(bad):04X})")
    return nickname(value, where)  # as the table keeps a name (RFC 8266), so results find their player


def _whole(value: object, low: int, high: int) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def night_results(body: Any) -> tuple[list[str], list[Result]]:
    """The players and the finished matches of a standings request (the module docstring).
    Raises :class:`ValueError` naming the field or the limit."""
    if not isinstance(body, dict):
        raise ValueError("a standings request is a JSON object: {\"players\": [...], \"results\": [...]}")
    players, results = body.get("players", []), body.get("results")
    if not isinstance(players, list):
        raise ValueError("players: a list of names")
    if len(players) > MAX_ENTRANTS:
        raise ValueError(f"players: {len(players):,}; at most {MAX_ENTRANTS:,} in one night")
    if not isinstance(results, list):
        raise ValueError("results: a list of {\"sides\", \"winner\", \"frames\"}, one a finished match")
    if len(results) > MAX_RESULTS:
        raise ValueError(f"results: {len(results):,}; at most {MAX_RESULTS:,} in one night")
    names = [_name(p, f"player {n}") for n, p in enumerate(players, start=1)]
    distinct(((f"player {n}", name) for n, name in enumerate(names, start=1)), "the night's players")
    out: list[Result] = []
    for n, r in enumerate(results, start=1):
        if not isinstance(r, dict):
            raise ValueError(f"result {n}: an object {{\"sides\", \"winner\", \"frames\"}}")
        sides = r.get("sides")
        if not isinstance(sides, list) or len(sides) != 2:
            raise ValueError(f"result {n}: sides: the two sides' names")
        a, b = (_name(side, f"result {n}: side {i}") for i, side in enumerate(sides))
        winner = r.get("winner")
        if not _whole(winner, 0, 1):
            raise ValueError(f"result {n}: winner: 0 or 1 (a finished match)")
        frames = r.get("frames")
        if frames is None:
            frames = [0, 0]  # a result the desk has no frames of counts the win alone
        if not isinstance(frames, list) or len(frames) != 2 or not all(_whole(f, 0, MAX_FRAMES) for f in frames):
            raise ValueError(f"result {n}: frames: the frames each side won, two whole numbers from 0 to {MAX_FRAMES}")
        out.append(Result((a, b), winner, (frames[0], frames[1])))
    return names, out


def _ranked(data: bytes) -> tuple[int, dict[str, Any]]:
    try:
        body = json.loads(data.decode("utf-8"))
        players, results = night_results(body)
    except (UnicodeDecodeError, ValueError) as exc:
        return 422, {"error": {"reason": str(exc)[:300], **_short(exc)}}
    return 200, {"standings": [row.as_dict() for row in rank(results, entrants=players)]}


async def _standings(request: web.Request) -> web.Response:
    data = await _read(request, MAX_STANDINGS_BYTES)
    if len(data) > MAX_STANDINGS_BYTES:
        return _json(413, {"error": {"reason": f"a standings request is at most {MAX_STANDINGS_BYTES:,} bytes"}})
    status, body = await asyncio.to_thread(_ranked, data)  # a big night is parsed and ranked off the event loop
    return _json(status, body)


def _advanced(data: bytes) -> tuple[int, dict[str, Any]]:
    """``{"competition", "withdraw"?: name}`` -> the competition advanced (and the player withdrawn),
    with each group's table: what the desk then publishes (docs/desk.md, "Walkovers and withdrawals")."""
    try:
        body = json.loads(data.decode("utf-8"))
        if not isinstance(body, dict):
            raise DrawError("an advance request is a JSON object: {\"competition\": {...}, \"withdraw\"?: name}")
        c = checked(body.get("competition"))
        who = body.get("withdraw")
        if who is not None:
            if not isinstance(who, str):
                raise DrawError("withdraw: a player's name")
            c = withdraw(c, nickname(who, "withdraw"))
        else:
            c = advance(c)
    except (UnicodeDecodeError, ValueError) as exc:  # DrawError and NameRefused are ValueErrors
        return 422, {"error": {"reason": str(exc)[:300], **_short(exc)}}
    return 200, {"competition": c, "groups": {g: group_table(c, g) for g in c.get("groups", {})}}


async def _advance(request: web.Request) -> web.Response:
    data = await _read(request, MAX_STANDINGS_BYTES)
    if len(data) > MAX_STANDINGS_BYTES:
        return _json(413, {"error": {"reason": f"an advance request is at most {MAX_STANDINGS_BYTES:,} bytes"}})
    status, body = await asyncio.to_thread(_advanced, data)  # a big night off the event loop
    return _json(status, body)


def add_desk_routes(server: WebServer) -> None:
    """The routes, added before the page's own catch-all (aiohttp matches in order)."""
    server.add_post("/desk/api/fixtures", _fixtures, own_body_cap=True)
    server.add_post("/desk/api/draw", _draw, own_body_cap=True)
    server.add_post("/desk/api/standings", _standings, own_body_cap=True)
    server.add_post("/desk/api/advance", _advance, own_body_cap=True)
