"""The league's tables over HTTP for a league's web site: a read-only aiohttp sub-application
(:func:`archive_app`), every answer computed by :mod:`cueboard.league.standings`, served by
``cueboard archive serve`` on the project's bounded server (:func:`make_server`). The routes:
docs/league.md, "On the league's web site".
"""

from __future__ import annotations

import asyncio
import base64
import functools
import hashlib
import html
import json
import posixpath
import re
import threading
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import quote

import jinja2
import markupsafe
from aiohttp import web

from cueboard.common.web_server import Limits, WebServer
from cueboard.league.export import cuescore_competition, cuescore_match
from cueboard.league.site import charts, render
from cueboard.league.site.figures import PlayerFigures, all_players
from cueboard.league.site.words import words_for
from cueboard.league.standings import Row, Rules, breaks, player_matches, rank, results_of, team_sides, to_csv
from cueboard.league.store import Archive

T = TypeVar("T")


class _Shared:
    """The archive, used by one worker thread at a time."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.lock = threading.Lock()
        self.archive: Archive | None = None
        # Every player's figures, and the pages drawn from them, for the archive as it was at
        # ``revisions`` (each match's revision: a record stored again, a correction, a new
        # match changes them). The ratings need every frame in order, so they are worked out
        # once a change, not once a page (docs/league.md, "Player pages").
        self.revisions: dict[str, int] | None = None
        self.figures: dict[str, PlayerFigures] = {}
        self.pages: dict[tuple[str, str], str] = {}

    def use(self, work: Callable[[Archive], T]) -> T:
        with self.lock:
            if self.archive is None:
                self.archive = Archive.open(self.url)
            return work(self.archive)

    def close(self) -> None:
        with self.lock:
            if self.archive is not None:
                self.archive.close()
                self.archive = None


SHARED = web.AppKey("archive", _Shared)


def archive_app(url: str) -> web.Application:
    """The sub-application on the archive at ``url`` (opened, and migrated, on first use)."""
    app = web.Application()
    app[SHARED] = _Shared(url)
    app.router.add_get("/", page)
    app.router.add_get("/standings", standings_json)
    app.router.add_get("/standings.csv", standings_csv)
    app.router.add_get("/breaks", breaks_json)
    app.router.add_get("/players/{name}/matches", matches_of_player)
    app.router.add_get("/players/{name}", player_page)
    app.router.add_get("/statistics", statistics_page)
    app.router.add_get("/matches", all_matches)
    app.router.add_get("/matches/{match_id:.+}", one_match)

    async def close(app: web.Application) -> None:
        await asyncio.to_thread(app[SHARED].close)

    app.on_cleanup.append(close)
    return app


async def _use(request: web.Request, work: Callable[[Archive], T]) -> T:
    return await asyncio.to_thread(request.app[SHARED].use, work)


def _int(request: web.Request, name: str, default: int, low: int = 0, high: int = 1000) -> int:
    raw = request.query.get(name)
    if raw is None:
        return default
    if not (re.fullmatch(r"-?[0-9]{1,5}", raw) and low <= int(raw) <= high):
        raise web.HTTPBadRequest(text=f"?{name}= must be a whole number from {low} to {high}\n")
    return int(raw)


def _competition(request: web.Request) -> str | None:
    value = request.query.get("competition")
    if value is not None and (len(value) > 200 or not value.isprintable()):
        raise web.HTTPBadRequest(text="?competition= must be printable text of at most 200 characters\n")
    return value or None


def _json(data: Any) -> web.Response:
    return web.json_response(data, dumps=lambda d: json.dumps(d, ensure_ascii=False))


async def _table(request: web.Request) -> list[Row]:
    rules = Rules(_int(request, "win", 2), _int(request, "loss", 0), _int(request, "frame", 0))
    competition = _competition(request)
    by_teams = request.query.get("teams") in ("1", "true")

    def work(archive: Archive) -> list[Row]:
        records = archive.records(competition=competition, finished_only=True)
        teams = team_sides(archive.fixtures(competition)) if by_teams else None
        return rank(results_of(records, teams=teams), rules)  # the one ranking, as the desk's

    return await _use(request, work)


async def standings_json(request: web.Request) -> web.Response:
    return _json([row.as_dict() for row in await _table(request)])


async def standings_csv(request: web.Request) -> web.Response:
    return web.Response(text=to_csv(await _table(request)), content_type="text/csv", charset="utf-8")


async def breaks_json(request: web.Request) -> web.Response:
    least, competition = _int(request, "least", 50, 1, 147 * 35), _competition(request)
    return _json(await _use(request, lambda a: breaks(a.records(competition=competition), least)))


async def matches_of_player(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    return _json(await _use(request, lambda a: player_matches(a.records(), name)))


async def all_matches(request: web.Request) -> web.Response:
    """The records; ``?format=cuescore``: the competition (or the whole archive) as one
    CueScore-style tournament, every match in CueScore's shape."""
    competition = _competition(request)
    records = await _use(request, lambda a: a.records(competition=competition))
    return _json(cuescore_competition(competition, records) if request.query.get("format") == "cuescore"
                 else records)


async def one_match(request: web.Request) -> web.Response:
    match_id = request.match_info["match_id"]
    record = await _use(request, lambda a: a.record(match_id))
    if record is None:
        raise web.HTTPNotFound(text=f"no match {match_id!r} in the archive\n")
    return _json(cuescore_match(record) if request.query.get("format") == "cuescore" else record)


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body {{ font: 16px/1.4 system-ui, sans-serif; margin: 2rem auto; max-width: 56rem; color: #111; padding: 0 1rem; }}
h1 {{ font-size: 1.6rem; margin-bottom: .2rem; }} h2 {{ font-size: 1.2rem; margin-top: 2rem; }}
h2 small {{ font-weight: 400; color: #0b5d2a; font-size: .9rem; }}
p.sub {{ color: #555; margin-top: 0; }}
table {{ border-collapse: collapse; width: 100%; }}
th, td {{ padding: .35rem .6rem; border-bottom: 1px solid #ddd; text-align: right; }}
th {{ background: #0b5d2a; color: #fff; font-weight: 600; }}
td.name, th.name {{ text-align: left; width: 34%; }}
th:first-child, td:first-child {{ width: 3.5rem; }}
tr:nth-child(even) td {{ background: #f3f7f4; }}
td.pts {{ font-weight: 700; }}
.century {{ color: #0b5d2a; font-weight: 700; }}
.short {{ display: none; }} abbr {{ text-decoration: none; }}
td.date {{ white-space: nowrap; }}
.scroll {{ overflow-x: auto; }}
/* A phone (390 CSS pixels): the short headings, tighter cells, every column in view (the
   points most of all); a table wider still scrolls within itself, never off the page. */
@media (max-width: 36rem) {{
  body {{ margin: 1rem auto; padding: 0 .5rem; font-size: 15px; }}
  .long {{ display: none; }} .short {{ display: inline; }}
  th, td {{ padding: .35rem .3rem; }}
  td.name, th.name {{ width: auto; }}
  th:first-child, td:first-child {{ width: auto; }}
}}
</style></head><body>
<h1>{title}</h1><p class="sub">{subtitle}</p>
<div class="scroll"><table><thead><tr><th><abbr title="Position">Pos</abbr></th><th class="name">Name</th>
<th><abbr title="Played">P</abbr></th><th><abbr title="Won">W</abbr></th><th><abbr title="Lost">L</abbr></th>
<th><abbr title="Frames for"><span class="long">Frames for</span><span class="short">F</span></abbr></th>
<th><abbr title="Frames against"><span class="long">Frames against</span><span class="short">A</span></abbr></th>
<th>+/-</th><th><abbr title="Points"><span class="long">Points</span><span class="short">Pts</span></abbr></th>
</tr></thead><tbody>
{rows}
</tbody></table></div>
<h2>Breaks of 50 and over <small>(centuries in green)</small></h2>
<div class="scroll"><table><thead><tr><th>Break</th><th class="name">Player</th><th class="name">Against</th>
<th>Date</th></tr></thead>
<tbody>
{breaks}
</tbody></table></div>
</body></html>
"""


async def page(request: web.Request) -> web.Response:
    """The standings and the break list as a plain page (every name escaped, no script)."""
    rows = await _table(request)
    competition = _competition(request)
    found = await _use(request, lambda a: breaks(a.records(competition=competition), 50))
    e = html.escape
    body = "\n".join(
        f"<tr><td>{r.position}</td><td class=name>{e(r.name)}</td><td>{r.played}</td><td>{r.won}</td>"
        f"<td>{r.lost}</td><td>{r.frames_for}</td><td>{r.frames_against}</td><td>{r.frame_difference:+d}</td>"
        f"<td class=pts>{r.points}</td></tr>" for r in rows) or "<tr><td colspan=9>No results yet</td></tr>"
    listed = "\n".join(
        f"<tr><td{' class=century' if b['century'] else ''}>{b['points']}</td><td class=name>{e(b['player'])}</td>"
        f"<td class=name>{e(b['against'])}</td><td class=date>{e(b['date'] or '')}</td></tr>" for b in found[:50]
    ) or "<tr><td colspan=4>No breaks of 50 yet</td></tr>"
    rules = Rules(_int(request, "win", 2), _int(request, "loss", 0), _int(request, "frame", 0))
    subtitle = (f"{sum(r.played for r in rows) // 2} matches played. {rules.win} points for a win"
                + (f", {rules.frame} a frame" if rules.frame else "")
                + "; level on points: frame difference, frames won, then head to head.")
    text = PAGE.format(title=e(competition or "League table"), subtitle=e(subtitle), rows=body, breaks=listed)
    return web.Response(text=text, content_type="text/html", charset="utf-8")


CHART_STYLE = """
h1, td.name { overflow-wrap: anywhere; }
.wide { overflow-x: auto; }  /* a table wider than a phone scrolls within itself */
figure.chart { margin: .5rem 0 1rem; }
figure.chart svg { display: block; width: 100%; height: auto; max-width: 36rem; }
table.figures small.rests { display: block; font-size: .8rem; color: #555; max-width: 36rem; }
table.figures td.fig { white-space: nowrap; }
table.stats th { font-size: .85rem; }
td.date { text-align: left; }
.none { color: #555; }
"""
"""The player page's own rules, besides :data:`PAGE`'s."""


def _figures(shared: _Shared, archive: Archive) -> dict[str, PlayerFigures]:
    """Every player's figures, worked out again only when the archive has changed."""
    revisions = archive.revisions()
    if revisions != shared.revisions:
        shared.figures, shared.pages, shared.revisions = all_players(archive.records()), {}, revisions
    return shared.figures


def _archive_page(request: web.Request, key: tuple[str, str],
                  draw: Callable[[dict[str, PlayerFigures]], str | None]) -> str | None:
    shared = request.app[SHARED]

    def work(archive: Archive) -> str | None:
        figures = _figures(shared, archive)
        if key not in shared.pages:
            page = draw(figures)
            if page is None:
                return None
            shared.pages[key] = page
        return shared.pages[key]

    return shared.use(work)


@functools.cache
def _environment() -> jinja2.Environment:
    """The site's templates, compiled once (a compile costs more than a page)."""
    env = render.environment()
    # The archive's routes, relative (``root``: the page's way back to the app's root, which
    # may be mounted under a prefix): a match as JSON, a player's page.
    env.globals.update(match_page=lambda match_id: f"matches/{quote(str(match_id), safe='')}",
                       player_page=lambda name: posixpath.join("players", quote(name, safe="")))  # a URL path
    return env


def _render(heading: str, root: str, **fields: Any) -> str:
    words = words_for("en")
    return _environment().get_template("archive_page.html").render(
        {"f": None, "groups": [], **fields}, w=words, lang=words.language, root=root, least=50, heading=heading,
        page_style=markupsafe.Markup(PAGE_STYLE), chart_style=markupsafe.Markup(CHART_STYLE))


async def player_page(request: web.Request) -> web.Response:
    """A player's statistics in every competition (what each figure rests on), rating chart and
    breaks chart: drawn on the server as SVG, no script."""
    name = request.match_info["name"]
    if len(name) > 200 or not name.isprintable():
        raise web.HTTPBadRequest(text="a player's name must be printable text of at most 200 characters\n")

    def draw(figures: dict[str, PlayerFigures]) -> str | None:
        found = figures.get(name)
        return None if found is None else _render(name, "../", f=found, players=figures)

    text = await asyncio.to_thread(_archive_page, request, ("player", name), draw)
    if text is None:
        raise web.HTTPNotFound(text=f"no player {name!r} in the archive\n")
    return web.Response(text=text, content_type="text/html", charset="utf-8")


async def statistics_page(request: web.Request) -> web.Response:
    """Every player's figures, a table a competition (``?competition=``: that one only), best
    frame win rate first, each name a link to the player's page."""
    only = _competition(request)

    def draw(figures: dict[str, PlayerFigures]) -> str:
        groups: dict[str, list[dict[str, Any]]] = {}
        for row in sorted((s.as_dict() for f in figures.values() for s in f.stats),
                          key=lambda s: (s["competition"], -(s["frame_win_rate"] or 0.0), -s["frames_played"],
                                         s["player"])):
            if only is None or row["competition"] == only:
                groups.setdefault(row["competition"], []).append(row)
        return _render(only or "Statistics", "./", groups=list(groups.items()), players=figures)

    text = await asyncio.to_thread(_archive_page, request, ("statistics", only or ""), draw)
    return web.Response(text=text or "", content_type="text/html", charset="utf-8")


def _style_hash(page: str) -> str:
    """The CSP source of the page's one ``<style>`` element: its SHA-256, so that no other style
    (nor any script) runs even if a name ever escaped its escaping."""
    style = re.search(r"<style>(.*?)</style>", page.format(title="", subtitle="", rows="", breaks=""), re.S)
    assert style is not None
    return "'sha256-" + base64.b64encode(hashlib.sha256(style.group(1).encode()).digest()).decode() + "'"


def _style_of(page: str) -> str:
    style = re.search(r"<style>(.*?)</style>", page.format(title="", subtitle="", rows="", breaks=""), re.S)
    assert style is not None
    return style.group(1)


PAGE_STYLE = _style_of(PAGE)
"""The standings page's style, used by the player and statistics pages too (the same hash)."""


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'none'",  # no script, no image, no font, no fetch: a page of text and JSON
    # The pages' styles and the charts' (each chart kind's <style> is the same on every page).
    " ".join(["style-src", _style_hash(PAGE), _hash(CHART_STYLE), *charts.style_hashes()]),
    "base-uri 'none'",
    "form-action 'none'",
])
"""What the archive's answers may load and run: the page's own style, nothing else. No
frame-ancestors: a league's web site may show the table in a frame."""

LIMITS = Limits(body_bytes=0)
"""The project's server's limits (connections, per client, the head's deadline and size), and
no body: every route is a GET."""


def make_server(url: str, host: str = "127.0.0.1", port: int = 8090, *, limits: Limits = LIMITS) -> WebServer:
    """The sub-application alone, at ``/``, on the bounded server (bound at once: ``port`` 0 takes
    a free one, see ``server.server_address``)."""
    app = archive_app(url)
    server = WebServer(host, port, limits=limits, headers={"Content-Security-Policy": CONTENT_SECURITY_POLICY},
                       app=app)
    server.start()
    # The figures worked out before the first reader asks (a league of 100,000 frames takes
    # seconds: bench/league_stats.py --pages); a page asked meanwhile waits for them.
    threading.Thread(target=warm, args=(app,), name="archive-figures", daemon=True).start()
    return server


def warm(app: web.Application) -> None:
    """Work every player's figures out now, if the archive has changed since they were."""
    shared = app[SHARED]
    shared.use(lambda archive: _figures(shared, archive))


def serve(url: str, host: str, port: int) -> None:
    """``cueboard archive serve``: until interrupted."""
    server = make_server(url, host, port)
    print(f"cueboard archive serve: http://{server.server_address[0]}:{server.server_address[1]}/ "
          f"(at most {server.connections} connections, {server.limits.per_client} from one address)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
