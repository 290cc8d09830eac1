"""``cueboard archive ...``: the results archive's commands (run, import, fixtures, standings,
breaks, matches, export, site, serve, stats) and their exit statuses. docs/league.md; ``cueboard archive --help``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from cueboard.contract.topics import MATCH_RECORDS, RECORDS

DEFAULT_DB = "sqlite:///var/lib/cueboard/archive.db"


def add_parser(sub: Any) -> None:
    """The ``archive`` command and its actions, on the CLI's subparsers."""
    a = sub.add_parser("archive", help="the results archive: store every match's record once, print the "
                       "league's tables", description="The results archive (docs/league.md).")
    a.set_defaults(func=lambda args: (a.print_help(), 0)[1])
    actions = a.add_subparsers(dest="archive_command", metavar="ACTION")

    def action(name: str, help: str) -> argparse.ArgumentParser:
        p: argparse.ArgumentParser = actions.add_parser(name, help=help, description=help)
        p.add_argument("--db", default=os.environ.get("CUEBOARD_ARCHIVE_DB", DEFAULT_DB),
                       help="sqlite:///PATH (or a path), or postgresql://USER@HOST/DBNAME "
                       f"(default $CUEBOARD_ARCHIVE_DB, else {DEFAULT_DB})")
        return p

    run = action("run", "subscribe to the tables' records on a broker and store each match once")
    run.add_argument("--host", default="127.0.0.1", help="the broker (default 127.0.0.1)")
    run.add_argument("--port", type=int, default=1883, help="its port (default 1883; 8883 with --ca)")
    run.add_argument("--topic", action="append", dest="topics", metavar="FILTER",
                     help=f"a topic filter to subscribe to (default {RECORDS} and {MATCH_RECORDS}, each "
                     "match's record kept until archived; repeat for more)")
    run.add_argument("--client-id", default="cueboard-archive",
                     help="the session's client id, the same on every run (default cueboard-archive)")
    run.add_argument("--username", help="the broker's user name for the archive")
    run.add_argument("--password-file", metavar="FILE", help="a file holding its password (one line)")
    run.add_argument("--ca", metavar="FILE", help="speak TLS, trusting this CA certificate")
    run.add_argument("--resync", type=float, default=60.0, metavar="SECONDS",
                     help="subscribe again this often, to catch up with every table's retained record "
                     "(default 60; 0: never)")
    run.add_argument("-v", "--verbose", action="store_true", help="log every record stored")
    run.set_defaults(func=_run)

    imp = action("import", "store the records of event logs or journal files, as the service would")
    imp.add_argument("logs", nargs="+", metavar="LOG")
    imp.add_argument("--venue", help="the venue the logs were played at (makes their match ids)")
    imp.add_argument("--table", help="the table they were played on")
    imp.add_argument("--competition", help="the competition they belong to (when the log does not say)")
    imp.set_defaults(func=_import)

    fx = action("fixtures", "store a league match day's fixtures (CSV or JSON)")
    fx.add_argument("file", metavar="FILE")
    fx.add_argument("--competition", help="the competition, when the file has no 'competition' column")
    fx.add_argument("--check", action="store_true", help="only check the file; store nothing")
    fx.set_defaults(func=_fixtures)

    st = action("standings", "print the league table")
    _filters(st)
    st.add_argument("--win", type=int, default=2, help="points for a match won (default 2)")
    st.add_argument("--loss", type=int, default=0, help="points for a match lost (default 0)")
    st.add_argument("--frame", type=int, default=0, help="points for each frame won (default 0)")
    st.add_argument("--teams", action="store_true", help="a row per team (from the stored fixtures)")
    st.set_defaults(func=_standings)

    br = action("breaks", "print the break list (50 and over, centuries marked)")
    _filters(br)
    br.add_argument("--from", type=int, default=50, dest="least", help="the least break listed (default 50)")
    br.set_defaults(func=_breaks)

    ma = action("matches", "print the stored matches (JSON lines), or one player's")
    ma.add_argument("--player", help="only this player's matches")
    ma.add_argument("--competition")
    ma.set_defaults(func=_matches)

    sv = action("serve", "serve the league's tables over HTTP: a standings page, and JSON and CSV")
    sv.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    sv.add_argument("--port", type=int, default=8090, help="the port (default 8090)")
    sv.set_defaults(func=_serve)

    ex = action("export", "print one stored match's record, or every match of a competition")
    ex.add_argument("match_id", metavar="MATCH_ID", nargs="?", help="the match (or give --competition)")
    ex.add_argument("--competition", help="every match of this competition, oldest first")
    ex.add_argument("--format", choices=("native", "cuescore"), default="native",
                    help="native: the stored record (default); cuescore: CueScore's shape (docs/league.md)")
    ex.add_argument("--cuescore", action="store_const", const="cuescore", dest="format",
                    help="the same as --format cuescore")
    ex.set_defaults(func=_export)

    sx = action("stats", "print each player's figures, the ratings, a player's rating history or handicap "
                "suggestions (docs/league.md, \"Statistics, ratings and handicaps\")")
    _filters(sx)
    sx.add_argument("--since", type=_date, metavar="YYYY-MM-DD", help="only matches started on or after this day")
    sx.add_argument("--until", type=_date, metavar="YYYY-MM-DD", help="only matches started on or before this day")
    what = sx.add_mutually_exclusive_group()
    what.add_argument("--ratings", action="store_true", help="the players' ratings, best first")
    what.add_argument("--history", metavar="PLAYER", help="this player's rating after each frame rated")
    what.add_argument("--handicaps", nargs="*", metavar="PLAYER",
                      help="the start for each pair of these players (none named: every player rated)")
    sx.set_defaults(func=_stats)

    si = action("site", "write the league's web site (static HTML, no script) into a folder")
    si.add_argument("--out", required=True, metavar="DIR",
                    help="the folder to write (new, empty, or a site written here before: replaced whole)")
    si.add_argument("--language", default="en", help="the site's language: en (default), nl, sv, de or fr")
    si.add_argument("--title", help="the site's title (default: the language's 'League results')")
    si.add_argument("--win", type=int, default=2, help="points for a match won (default 2)")
    si.add_argument("--loss", type=int, default=0, help="points for a match lost (default 0)")
    si.add_argument("--frame", type=int, default=0, help="points for each frame won (default 0)")
    si.add_argument("--from", type=int, default=50, dest="least", help="the least break listed (default 50)")
    si.set_defaults(func=_site)


def _filters(p: argparse.ArgumentParser) -> None:
    p.add_argument("--competition", help="only this competition's matches")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--csv", action="store_true", help="CSV: a header row, then a row each")
    out.add_argument("--json", action="store_true", help="JSON")


def _date(text: str) -> str:
    import datetime

    try:
        return datetime.date.fromisoformat(text).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a day (YYYY-MM-DD)") from None


def _fail(err: TextIO, message: str, status: int = 1) -> int:
    err.write(f"cueboard archive: {message}\n")
    return status


def _open(args: argparse.Namespace) -> Any:
    from cueboard.league.store import Archive

    return Archive.open(args.db)


def _guarded(args: argparse.Namespace, body: Any) -> int:
    from cueboard.common.errors import DatabaseError

    try:
        status: int = body()
        return status
    except DatabaseError as exc:
        return _fail(sys.stderr, str(exc))


def _run(args: argparse.Namespace) -> int:
    from cueboard.league.archive_service import ArchiveService, Connection

    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    password = None
    if args.password_file:
        try:
            with open(args.password_file, encoding="utf-8") as f:
                password = f.readline().rstrip("\n")
        except OSError as exc:
            return _fail(sys.stderr, f"--password-file {args.password_file}: {exc.strerror or exc}")
    connection = Connection(host=args.host, port=args.port, client_id=args.client_id, username=args.username,
                            password=password, ca=args.ca, topics=args.topics or [RECORDS, MATCH_RECORDS],
                            resync=args.resync)

    def body() -> int:
        with _open(args) as archive:
            ArchiveService(archive, connection).run()
        return 0

    return _guarded(args, body)


def _import(args: argparse.Namespace) -> int:
    from cueboard.common.errors import LogError
    from cueboard.league.importer import read_log

    try:
        records = [read_log(path, venue=args.venue, table=args.table, competition=args.competition)
                   for path in args.logs]
    except LogError as exc:
        sys.stderr.write(f"{exc}\n")
        return exc.status

    def body() -> int:
        with _open(args) as archive:
            for path, record in zip(args.logs, records, strict=True):
                stored = archive.put(record, source=os.path.abspath(path)[-500:])
                print(f"{path}: {stored.outcome} {stored.match_id}")
        return 0

    return _guarded(args, body)


def _fixtures(args: argparse.Namespace) -> int:
    from cueboard.common.errors import FixtureError
    from cueboard.league.match_day import read

    try:
        fixtures = read(args.file, competition=args.competition)
    except FixtureError as exc:
        return _fail(sys.stderr, str(exc), 2)
    if args.check:
        print(f"{args.file}: {len(fixtures)} fixtures, all good")
        return 0

    def body() -> int:
        with _open(args) as archive:
            archive.put_fixtures([f.as_dict() for f in fixtures])
        print(f"{args.file}: {len(fixtures)} fixtures stored")
        return 0

    return _guarded(args, body)


def _standings(args: argparse.Namespace) -> int:
    from cueboard.league.standings import Rules, standings, team_sides, text_table, to_csv

    def body() -> int:
        with _open(args) as archive:
            records = archive.records(competition=args.competition, finished_only=True)
            teams = team_sides(archive.fixtures(args.competition)) if args.teams else None
        rows = standings(records, Rules(args.win, args.loss, args.frame), teams=teams)
        if args.csv:
            sys.stdout.write(to_csv(rows))
        elif args.json:
            print(json.dumps([r.as_dict() for r in rows], ensure_ascii=False))
        else:
            sys.stdout.write(text_table(rows))
        return 0

    return _guarded(args, body)


def _breaks(args: argparse.Namespace) -> int:
    from cueboard.league.standings import breaks, breaks_csv

    def body() -> int:
        with _open(args) as archive:
            found = breaks(archive.records(competition=args.competition), args.least)
        if args.csv:
            sys.stdout.write(breaks_csv(found))
        elif args.json:
            print(json.dumps(found, ensure_ascii=False))
        else:
            for b in found:
                print(f"{b['points']:>4}{'  century' if b['century'] else '         '}  {b['player']}  "
                      f"v {b['against']}  {b['date'] or ''}  frame {b['frame']}")
        return 0

    return _guarded(args, body)


def _matches(args: argparse.Namespace) -> int:
    from cueboard.league.standings import player_matches

    def body() -> int:
        with _open(args) as archive:
            records = archive.records(competition=args.competition)
        rows: Sequence[Any] = player_matches(records, args.player) if args.player else records
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
        return 0

    return _guarded(args, body)


def _export(args: argparse.Namespace) -> int:
    from cueboard.league.export import cuescore_competition, cuescore_match

    if (args.match_id is None) == (args.competition is None):
        return _fail(sys.stderr, "export: give a MATCH_ID or --competition NAME (one of them)", 2)

    def body() -> int:
        if args.competition is not None:
            with _open(args) as archive:
                records = archive.records(competition=args.competition)
            if not records:
                return _fail(sys.stderr, f"no match of competition {args.competition!r} in {args.db}")
            out: Any = (cuescore_competition(args.competition, records) if args.format == "cuescore"
                        else records)
            print(json.dumps(out, ensure_ascii=False))
            return 0
        with _open(args) as archive:
            record = archive.record(args.match_id)
        if record is None:
            return _fail(sys.stderr, f"no match {args.match_id!r} in {args.db}")
        print(json.dumps(cuescore_match(record) if args.format == "cuescore" else record, ensure_ascii=False))
        return 0

    return _guarded(args, body)


def _site(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cueboard.common.errors import SiteError
    from cueboard.league.site.build import build
    from cueboard.league.site.words import words_for
    from cueboard.league.standings import Rules

    try:
        words_for(args.language)  # refused before the database is opened
    except ValueError as exc:
        return _fail(sys.stderr, str(exc), 2)

    def body() -> int:
        with _open(args) as archive:
            try:
                pages = build(archive, Path(args.out), language=args.language, title=args.title,
                              rules=Rules(args.win, args.loss, args.frame), least=args.least)
            except SiteError as exc:
                return _fail(sys.stderr, str(exc))
        print(f"{args.out}: {pages} pages")
        return 0

    return _guarded(args, body)


def _serve(args: argparse.Namespace) -> int:
    from cueboard.league.http import serve

    def body() -> int:
        with _open(args):  # opened (and migrated) once here, so a bad URL is said at once
            pass
        serve(args.db, args.host, args.port)
        return 0

    return _guarded(args, body)


def _stats(args: argparse.Namespace) -> int:
    from cueboard.league.stats_command import stats

    def body() -> int:
        with _open(args) as archive:
            records = archive.records(competition=args.competition)
        return stats(records, args, sys.stdout, sys.stderr)

    return _guarded(args, body)
