"""``cueboard venue serve --dir <venue dir>``: the whole venue's service in one process
(docs/venue-service.md): the pages (desk, screen, scorer, bracket, results) as ``cueboard
screen`` serves them, over HTTPS with the venue's certificate; the competition runner
(:mod:`.runner`), logged in as the desk-role login ``venue``; and the archive
(:mod:`cueboard.league.archive_service`) on SQLite in the venue's folder, or ``--db``.
Everything it needs is read from the venue's folder ``cueboard venue init`` wrote.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from aiohttp import web

from cueboard.common.errors import VenueError
from cueboard.common.systemd import notify
from cueboard.common.web_server import WebServer, tls_context
from cueboard.venue.pages import make_server, serve_in_thread
from cueboard.venue.plan import Venue
from cueboard.venue.runner import Broker, Runner

log = logging.getLogger(__name__)

__all__ = ["SERVICE_LOGIN", "add_arguments", "run"]

SERVICE_LOGIN = "venue"
"""The runner's login, a desk's role, written by ``cueboard venue init``."""
ARCHIVE_LOGIN = "archive"
"""The archive's login (``cueboard venue add-user archive --role archive``): a session of its own
(the broker names a session by its login)."""


@dataclass(frozen=True)
class Plan:
    """What the service runs, read from the venue's folder and the options."""

    venue: Venue
    directory: Path
    runner: Broker
    archive: Broker | None
    db: str
    results: bool = True
    """The archive's pages served at /results/: the archive runs here, or ``--db`` names one."""


def _password(directory: Path, login: str, option: str, role: str = "desk") -> str:
    path = directory / "logins" / f"{login}.password"
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        raise VenueError(f"{option}: no password for the login {login!r} ({path}): cueboard venue add-user "
                         f"{login} --role {role} --dir {directory}") from None


def plan(args: argparse.Namespace) -> Plan:
    """The service's plan, or :class:`VenueError` naming the option or file that is wrong."""
    directory = Path(args.dir)
    venue = Venue.load(directory)
    host = args.broker_host or venue.hosts[0]
    ca = str(directory / "ca" / "venue-ca.crt")
    runner = Broker(host, venue.ports.people, args.login, _password(directory, args.login, "--login"), ca)
    archive = None
    if not args.no_archive:
        archive = Broker(host, venue.ports.people, args.archive_login,
                         _password(directory, args.archive_login, "--archive-login", "archive"), ca)
    db = args.db or f"sqlite:///{directory / 'archive.db'}"
    return Plan(venue, directory, runner, archive, db, results=archive is not None or bool(args.db))


RESULTS = "/results"
"""Where the archive's pages are served (cueboard/league/http.py: the standings, the matches), as
``cueboard archive serve`` serves them; the desk's "Tonight's results" links there."""


def start_pages(p: Plan, host: str, port: int) -> WebServer:
    """The pages over HTTPS with the venue's certificate; the desk's broker is the pages'
    listener, the screens' (and the bracket's) the anonymous one (docs/security.md); the
    archive's pages at ``/results/`` when this service runs the archive or reads one (``--db``)."""
    from cueboard.league import http as archive_pages

    certs = p.directory / "certs"
    broker_host = p.runner.host
    page: dict[str, str | int | float] = {"desk_broker": f"wss://{broker_host}:{p.venue.ports.pages}"}
    mounted: dict[str, tuple[web.Application, str]] = {}
    if p.results:
        mounted[RESULTS] = (archive_pages.archive_app(p.db), archive_pages.CONTENT_SECURITY_POLICY)
        page["results"] = RESULTS + "/"
    server = make_server(host, port, broker_ws=f"wss://{broker_host}:{p.venue.ports.screens}", venue=p.venue.name,
                         page=page, tls=tls_context(str(certs / "server.crt"), str(certs / "server.key")),
                         venue_ca=p.directory / "ca" / "venue-ca.crt", mounted=mounted)
    serve_in_thread(server)
    return server


def start_archive(p: Plan, done: threading.Event) -> Callable[[], None]:
    """The archive, in a thread of its own; what stops it. The one place the service reaches
    the league's archive: its login and catch-up are the archive's (cueboard.league)."""
    if p.archive is None:
        return lambda: None
    from cueboard.league.archive_service import ArchiveService, Connection
    from cueboard.league.store import Archive

    a = p.archive
    archive = Archive.open(p.db)
    connection = Connection(host=a.host, port=a.port, username=a.username, password=a.password, ca=a.ca)
    service = ArchiveService(archive, connection)
    thread = threading.Thread(target=service.serve, args=(done,), name="venue-archive", daemon=True)
    thread.start()

    def stop() -> None:
        done.set()
        thread.join()
        archive.close()

    return stop


def run(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        p = plan(args)
    except VenueError as exc:
        print(f"cueboard venue serve: {exc}", file=sys.stderr)
        return 2
    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: done.set())
    try:
        server = start_pages(p, args.host, args.port)
    except OSError as exc:
        print(f"cueboard venue serve: --host {args.host} --port {args.port}: cannot listen: {exc}", file=sys.stderr)
        return 2
    runner = Runner(p.venue.name, p.runner)
    runner.start()
    stop_archive = start_archive(p, threading.Event())  # its own: it stops after the runner
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "") else args.host
    print(f"cueboard venue serve: https://{shown}:{server.server_address[1]}/desk  (venue {p.venue.name}, "
          f"broker {p.runner.host}:{p.runner.port} as {p.runner.username}; archive "
          f"{'off' if p.archive is None else p.db})", file=out, flush=True)
    notify("READY=1")
    try:
        done.wait()
    finally:
        notify("STOPPING=1")
        runner.stop()
        stop_archive()
        server.shutdown()
        server.server_close()
    return 0


def add_arguments(serve: argparse.ArgumentParser) -> None:
    serve.add_argument("--dir", default="/etc/cueboard/venue", help="the venue's folder (cueboard venue init's)")
    serve.add_argument("--host", default="0.0.0.0", help="the pages' address (default: every address)")
    serve.add_argument("--port", type=int, default=8080, help="the pages' HTTPS port (default 8080; 0: a free one)")
    serve.add_argument("--db", help="the archive's database (default: sqlite:///<dir>/archive.db; or "
                       "postgresql://...)")
    serve.add_argument("--no-archive", action="store_true", help="run no archive here (another machine runs it)")
    serve.add_argument("--login", default=SERVICE_LOGIN, help=f"the runner's desk login (default {SERVICE_LOGIN})")
    serve.add_argument("--archive-login", default=ARCHIVE_LOGIN,
                       help=f"the archive's login (default {ARCHIVE_LOGIN})")
    serve.add_argument("--broker-host", help="the broker's name as its certificate has it (default: the venue's "
                       "first --host)")
    serve.add_argument("--verbose", action="store_true", help="log every message handled")
