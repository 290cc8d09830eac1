"""The ``cueboard venue`` command lines: ``init``, ``add-table``, ``add-user``, ``revoke``, ``card``,
``expire``, ``add-bridge``.

Each writes the venue's record and every broker file from it (:mod:`.broker_files`), a new
login's password in ``logins/<name>.password`` (0600, for the table's Pi or the person), and
then reloads the broker (``systemctl reload mosquitto`` unless ``--reload`` says otherwise or
``--no-reload``): the change takes effect and no table is dropped. Every rewrite drops the
logins whose ``--expires`` has passed (``expire`` does only that, from a systemd timer).
"""

from __future__ import annotations

import argparse
import shlex
import socket
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from cueboard.contract.topics import TableTopics
from cueboard.venue.bridges import add_bridge
from cueboard.venue.broker_files import desks, write_broker_files
from cueboard.venue.bundle import GAMES, Bundle, bundle_name, config_text, write_bundle
from cueboard.venue.card import PAPER, card_for, check_card_options, write_card
from cueboard.venue.expiry import expires_at, parse_time
from cueboard.venue.pki import PkiError, make_ca, make_server_cert
from cueboard.venue.plan import Login, Ports, Venue, VenueError, check_name
from cueboard.venue.serve_unit import write_unit

__all__ = ["DEFAULT_DIR", "add_arguments", "run"]

DEFAULT_DIR = "/etc/cueboard/venue"
DEFAULT_RELOAD = "systemctl reload mosquitto"
VENUE_SERVICE = "venue"
"""The venue service's login (a desk's role), written by ``init``: ``<dir>/logins/venue.password``."""


def _keep_password(directory: Path, name: str, password: str) -> Path:
    logins = directory / "logins"
    logins.mkdir(mode=0o700, exist_ok=True)
    path = logins / f"{name}.password"
    path.unlink(missing_ok=True)
    path.touch(mode=0o600)
    path.write_text(password + "\n")
    return path


def _now(args: argparse.Namespace) -> datetime:
    """``--now`` (what would expire then: a check, and the tests' clock), or the real time."""
    now = getattr(args, "now", None)
    return parse_time("--now", now) if now else datetime.now(UTC)


def _rewrite(venue: Venue, directory: Path, now: datetime, out: TextIO) -> list[Login]:
    """The record and the broker's files written again, the logins expired at ``now`` dropped
    first (their password files too): every change is also an expiry run."""
    gone = venue.drop_expired(now)
    venue.save(directory)
    write_broker_files(venue, directory)
    for login in gone:
        (directory / "logins" / f"{login.name}.password").unlink(missing_ok=True)
        print(f"{login.role} {login.name} expired ({login.expires}): it can no longer log in", file=out)
    return gone


def _table_section(venue: Venue, directory: Path, name: str) -> str:
    return "\n".join([
        f"# or by hand: /etc/cueboard/cueboard.toml on table {name}'s Pi (copy {directory}/logins/{name}.password to",
        "# /etc/cueboard/mqtt-password and ca/venue-ca.crt to /etc/cueboard/venue-ca.crt):",
        "[mqtt]",
        f'host = "{venue.hosts[0]}"',
        f"port = {venue.ports.tables}",
        f'username = "{name}"',
        'password_file = "/etc/cueboard/mqtt-password"',
        'tls = { ca = "/etc/cueboard/venue-ca.crt" }',
        "command = true",
        "# The desk logins, each read on a link of its own (a desk added later is found by its first command)",
        "desks = [" + ", ".join(f'"{desk}"' for desk in desks(venue)) + "]",
    ])


def _join_bundle(venue: Venue, directory: Path, name: str, password: str, game: str) -> Path:
    """The table's join bundle (:mod:`.bundle`): what its Pi needs, in one private file."""
    config = config_text(venue.name, name, game, host=venue.hosts[0], port=venue.ports.tables, desks=desks(venue))
    ca = (directory / "ca" / "venue-ca.crt").read_text(encoding="utf-8")
    return write_bundle(directory, Bundle(venue.name, name, config, ca, password))


def _join_help(path: Path) -> str:
    return (f"on the table's Pi (copy {path.name} there; it holds the table's password, delete it after): "
            f"sudo cueboard join {path.name}   (a Pi without cueboard yet: sudo bash systemd/install.sh "
            f"--join {path.name})")


def _reload(args: argparse.Namespace, out: TextIO) -> int:
    if args.no_reload:
        print("not reloaded (--no-reload): systemctl reload mosquitto makes the change take effect", file=out)
        return 0
    command = shlex.split(args.reload)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        print(f"cueboard venue: the files are written, but {args.reload!r} failed: {exc}; reload the broker "
              "yourself (systemctl reload mosquitto)", file=sys.stderr)
        return 1
    if done.returncode != 0:
        print(f"cueboard venue: the files are written, but {args.reload!r} failed (status {done.returncode}): "
              f"{done.stderr.strip()[-300:]}; reload the broker yourself", file=sys.stderr)
        return 1
    print(f"broker reloaded ({args.reload}): the change is in effect, no table was dropped", file=out)
    return 0


def _init(args: argparse.Namespace, out: TextIO) -> int:
    directory = Path(args.dir)
    if (directory / "venue.json").exists():
        raise VenueError(f"--dir: {directory} has a venue already: add tables and users to it "
                         "(cueboard venue add-table, add-user) or give another --dir")
    check_name("--venue", args.venue)
    hosts = args.host or [socket.getfqdn(), "localhost", "127.0.0.1"]
    venue = Venue(name=args.venue, hosts=hosts, bind=args.bind,
                  ports=Ports(args.tables_port, args.people_port, args.pages_port, args.screens_port))
    names = args.table or [f"t{n}" for n in range(1, args.tables + 1)]
    passwords = {name: venue.new_table(name) for name in names}
    for desk in args.desk:
        passwords[desk] = venue.new_user(desk, "desk")
    if VENUE_SERVICE in names:
        raise VenueError(f"--table: {VENUE_SERVICE!r} is the venue service's login (a desk's role); name the table "
                         "otherwise")
    if VENUE_SERVICE not in venue.logins:  # the venue service's own desk login (cueboard venue serve)
        passwords[VENUE_SERVICE] = venue.new_user(VENUE_SERVICE, "desk")
    directory.mkdir(parents=True, exist_ok=True)
    directory.chmod(0o755)
    ca = make_ca(directory / "ca", f"cueboard {venue.name}")
    make_server_cert(directory / "certs", ca, hosts)
    venue.save(directory)
    write_broker_files(venue, directory)
    bundles = []
    for name, password in passwords.items():
        _keep_password(directory, name, password)
        if name in names:
            bundles.append(_join_bundle(venue, directory, name, password, args.game))
    conf = directory / "mosquitto" / "venue.conf"
    print(f"venue {venue.name}: {len(names)} tables ({', '.join(names)}), desk logins: {', '.join(args.desk)}"
          f" (and {VENUE_SERVICE}, the venue service's)",
          file=out)
    print(f"broker: {conf} (ACL, password files beside it); CA: {ca[0]}; certificate for {', '.join(hosts)}",
          file=out)
    print(f"passwords: {directory}/logins/<login>.password", file=out)
    print(f"next: ln -s {conf} /etc/mosquitto/conf.d/cueboard-venue.conf && systemctl restart mosquitto", file=out)
    if bundles:
        print(f"join bundles, one a table: {directory}/joins/ ({', '.join(p.name for p in bundles)})", file=out)
        print(_join_help(bundles[0]).replace(bundles[0].name, "cueboard-join-" + venue.name + "-<table>.json"),
              file=out)
    unit = write_unit(directory)  # the venue service: the pages, tonight's competition, the archive
    print(f"then: systemctl enable --now {unit}  (cueboard venue serve: docs/venue-service.md)", file=out)
    print(_table_section(venue, directory, names[0]) if names else "", file=out)
    return 0


def _add_table(args: argparse.Namespace, out: TextIO) -> int:
    directory = Path(args.dir)
    venue = Venue.load(directory)
    password = venue.new_table(args.name)
    _rewrite(venue, directory, _now(args), out)
    path = _keep_password(directory, args.name, password)
    bundle = _join_bundle(venue, directory, args.name, password, args.game)
    print(f"table {args.name} added at {venue.name}: its password in {path}; its join bundle in {bundle}", file=out)
    print(_join_help(bundle), file=out)
    print(_table_section(venue, directory, args.name), file=out)
    return _reload(args, out)


def _add_user(args: argparse.Namespace, out: TextIO) -> int:
    directory = Path(args.dir)
    if args.card is not None:  # refused before the login is made, not after
        check_card_options(page=args.page, broker=args.broker, out=args.card, paper=args.paper)
    venue = Venue.load(directory)
    now = _now(args)
    expires = expires_at(args.expires, now) if args.expires else None
    password = venue.new_user(args.name, args.role, args.table, expires)
    _rewrite(venue, directory, now, out)
    path = _keep_password(directory, args.name, password)
    if args.role == "archive":
        print(_archive_added(venue, directory, args.name, path, expires), file=out)
        return _reload(args, out)
    where = "every table" if args.role == "desk" else f"table {args.table}"
    until = f", until {expires}" if expires else ""
    print(f"{args.role} {args.name} added at {venue.name} ({where}{until}): its password in {path}; one device "
          f"logs in with it (another device takes a login of its own: its session is known by its login), on port "
          f"{venue.ports.people} (MQTT over TLS) or {venue.ports.pages} (secure WebSockets) with a client id "
          f"cueboard-<anything>, and " + (
              f"sends commands on {TableTopics.of(venue.name, '<table>').command(args.name)}" if args.role == "desk"
              else f"scores on {TableTopics.of(venue.name, args.table).score(args.name)} (a marker's keys only)"),
          file=out)
    if args.card is not None:
        if args.role != "scorer":
            print("--card: only a scorer's login goes on a table's card; no card written", file=out)
        else:
            _write_card(args, directory, args.table, args.name, args.card, out)
    return _reload(args, out)


def _archive_added(venue: Venue, directory: Path, name: str, password: Path, expires: str | None) -> str:
    """What an archive login is for, and the command that runs the archive with it (docs/league.md)."""
    until = f", until {expires}" if expires else ""
    every = TableTopics.of(venue.name, "+")
    host = venue.hosts[0] if venue.hosts else "127.0.0.1"
    return (f"archive {name} added at {venue.name} (every table{until}): its password in {password}. It reads "
            f"{every.record}, {every.match_record('+')}, state, event and status, and writes only "
            f"{every.archived(name)} (that it stored a record; no score). Run it with:\n"
            f"  cueboard archive run --db sqlite:///var/lib/cueboard/archive.db --host {host} "
            f"--port {venue.ports.people} --ca {directory.resolve() / 'ca' / 'venue-ca.crt'} --username {name} "
            f"--password-file {password.resolve()}")


def _write_card(args: argparse.Namespace, directory: Path, table: str, user: str | None, out_path: str | None,
                out: TextIO) -> None:
    card = card_for(directory, table, user, page=args.page, broker=args.broker)
    path = Path(out_path) if out_path else directory / "cards" / f"{table}-{card.user}.pdf"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_card(card, path, args.paper)
    until = f"; it stops working at {card.expires}" if card.expires else ""
    print(f"card for table {table} ({args.paper.upper()}): {path}; it signs in as {card.user}{until} "
          f"(cueboard venue revoke {card.user} makes it useless); it carries a password: keep the file private",
          file=out)


def _card(args: argparse.Namespace, out: TextIO) -> int:
    """A card for an existing scorer login (``--user``), or a new login of its own for the card."""
    directory = Path(args.dir)
    check_card_options(page=args.page, broker=args.broker, out=args.out, paper=args.paper)
    if args.user is not None:
        if args.expires:
            raise VenueError(f"--expires: {args.user} is an existing login: its expiry is set when it is made "
                             "(leave --user out for a card with a login of its own)")
        _write_card(args, directory, args.table, args.user, args.out, out)
        return 0
    venue = Venue.load(directory)
    now = _now(args)
    name, password = venue.new_card(args.table, expires_at(args.expires, now) if args.expires else None)
    _rewrite(venue, directory, now, out)
    _keep_password(directory, name, password)
    _write_card(args, directory, args.table, name, args.out, out)
    return _reload(args, out)


def _revoke(args: argparse.Namespace, out: TextIO) -> int:
    directory = Path(args.dir)
    venue = Venue.load(directory)
    login = venue.revoke(args.name)
    _rewrite(venue, directory, _now(args), out)
    (directory / "logins" / f"{args.name}.password").unlink(missing_ok=True)
    (directory / "joins" / bundle_name(venue.name, args.name)).unlink(missing_ok=True)  # its password is dead
    print(f"{login.role} {login.name} revoked at {venue.name}: it can no longer log in (a device logged in "
          "with it is disconnected when the broker reloads)", file=out)
    return _reload(args, out)


def _expire(args: argparse.Namespace, out: TextIO) -> int:
    """Drop the expired logins; the broker reloaded only if one was (the timer runs it often)."""
    directory = Path(args.dir)
    venue = Venue.load(directory)
    now = _now(args)
    if not venue.expired(now):
        print(f"nothing expired at {venue.name}", file=out)
        return 0
    _rewrite(venue, directory, now, out)
    return _reload(args, out)


def _add_bridge(args: argparse.Namespace, out: TextIO) -> int:
    directory = Path(args.dir)
    venue = Venue.load(directory)  # a venue's folder, or a clear refusal
    path = add_bridge(directory, Path(args.file))
    _rewrite(venue, directory, _now(args), out)
    print(f"bridge kept in {path} (0640, the broker's group) and written into venue.conf, as every later rewrite "
          "does; restart the broker once (systemctl restart mosquitto): mosquitto reads bridges at its start",
          file=out)
    return 0


def _serve(args: argparse.Namespace, out: TextIO) -> int:
    from cueboard.venue.serve import run as serve

    return serve(args, out)


def add_arguments(venue: argparse.ArgumentParser) -> None:
    sub = venue.add_subparsers(dest="venue_command", metavar="ACTION")

    def common(p: argparse.ArgumentParser, reload: bool = True) -> None:
        p.add_argument("--dir", default=DEFAULT_DIR, help=f"the venue's folder (default {DEFAULT_DIR})")
        if reload:
            p.add_argument("--reload", default=DEFAULT_RELOAD, metavar="COMMAND",
                           help=f"how the broker is reloaded after the change (default: {DEFAULT_RELOAD})")
            p.add_argument("--no-reload", action="store_true", help="write the files only")

    init = sub.add_parser("init", help="a venue broker's config, CA, certificates, logins and ACL",
                          description="Write a venue's broker configuration (mosquitto), its CA and the "
                          "broker's certificate (MQTT over TLS, WebSockets over TLS, the pages' HTTPS), a login "
                          "and password for each table and desk, and the ACL (docs/security.md).")
    common(init, reload=False)
    init.add_argument("--venue", required=True, help="the venue's name, as in each table's [table] venue")
    init.add_argument("--tables", type=int, default=0, metavar="N", help="tables t1 ... tN")
    init.add_argument("--table", action="append", metavar="NAME", help="a table by name (again for more)")
    init.add_argument("--desk", action="append", default=None, metavar="LOGIN",
                      help="a desk login, one a laptop (default: one, desk; again for more)")
    init.add_argument("--host", action="append", metavar="NAME_OR_ADDRESS",
                      help="a name or address the broker and the pages are reached by, for the certificate "
                      "(again for more; default: this machine's name, localhost, 127.0.0.1)")
    init.add_argument("--bind", metavar="ADDRESS", help="listen on this address only (default: every address)")
    init.add_argument("--tables-port", type=int, default=Ports.tables, help="MQTT/TLS for the tables (8883)")
    init.add_argument("--people-port", type=int, default=Ports.people, help="MQTT/TLS for desk and scorers (8884)")
    init.add_argument("--pages-port", type=int, default=Ports.pages, help="secure WebSockets for their pages (8885)")
    init.add_argument("--screens-port", type=int, default=Ports.screens, help="secure WebSockets for screens (9001)")
    game_option(init)
    init.set_defaults(venue_func=_init)
    table = sub.add_parser("add-table", help="a new table's login and ACL, then reload the broker")
    common(table)
    table.add_argument("name")
    game_option(table)
    table.set_defaults(venue_func=_add_table)
    user = sub.add_parser("add-user", help="a desk, scorer or archive login, then reload the broker")
    common(user)
    user.add_argument("name")
    user.add_argument("--role", required=True, choices=["desk", "scorer", "archive"])
    user.add_argument("--table", help="a scorer's table")
    expires_option(user)
    user.add_argument("--card", nargs="?", const="", default=None, metavar="FILE",
                      help="a scorer's: write the table's card too (.pdf or .png; "
                      "default <dir>/cards/<table>-<login>.pdf)")
    card_options(user)
    user.set_defaults(venue_func=_add_user)
    revoke = sub.add_parser("revoke", help="remove a login (a person or a table), then reload the broker")
    common(revoke)
    revoke.add_argument("name")
    revoke.set_defaults(venue_func=_revoke)
    card = sub.add_parser("card", help="a table's printable scorer card, a login of its own: QR codes of its scorer "
                          "page and the CA", description="Make a scorer login of its own for a new card of a table "
                          "(card-<table>-<n>; --expires: when it stops working), reload the broker, and write the card "
                          "(PDF or PNG, A6 or A5): a QR code of the scorer page's address with that login in its "
                          "fragment, and a QR code of the venue's CA certificate with how to trust it on Android and "
                          "iOS (docs/scorer.md). With --user, a card for that existing scorer login instead.")
    common(card)
    card.add_argument("--table", required=True, help="the table")
    card.add_argument("--user", help="an existing scorer login to put on the card (default: a new login for the card)")
    card.add_argument("--out", metavar="FILE", help="the card, .pdf or .png (default <dir>/cards/<table>-<login>.pdf)")
    expires_option(card)
    card_options(card)
    card.set_defaults(venue_func=_card)
    expire = sub.add_parser("expire", help="drop the logins whose --expires has passed, then reload the broker "
                            "(if any was): what cueboard-venue-expire.timer runs")
    common(expire)
    expire.set_defaults(venue_func=_expire)
    bridge = sub.add_parser("add-bridge", help="keep a league's bridge (cueboard league add-venue's file) where "
                            "venue.conf carries it at every rewrite")
    common(bridge, reload=False)
    bridge.add_argument("file", help="the bridge's lines: logins/venue-<venue>.bridge.conf from the league")
    bridge.set_defaults(venue_func=_add_bridge)
    from cueboard.venue.serve import add_arguments as serve_arguments

    serve = sub.add_parser("serve", help="the venue's service: the pages, the competition runner and the archive",
                           description="Serve the pages over HTTPS, run tonight's competition from the server "
                           "(hand-offs go on with no desk open) and the archive (docs/venue-service.md).")
    serve_arguments(serve)
    serve.set_defaults(venue_func=_serve)
    for each in (table, user, revoke, card, expire, bridge):
        each.add_argument("--now", metavar="TIME", help="take TIME (ISO 8601) as now for the expiry of logins "
                          "(to see what would expire then)")


def game_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", default="snooker", choices=sorted(GAMES), help="the game of the table's join bundle: "
                   "its board, referee box and keypad as in examples/<game>-table.toml (default snooker)")


def expires_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--expires", metavar="HOURS_OR_TIME", help="when the login stops working: hours from now (6) or "
                   "a time (2026-11-29T03:00:00Z; without a zone, this machine's local time); default: when revoked")


def card_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--paper", default="a6", choices=sorted(PAPER), help="the card's size (default a6)")
    p.add_argument("--page", metavar="URL", help="where cueboard screen serves the scorer page, https://host:port "
                   "(default https://<the venue's first host>:8443)")
    p.add_argument("--broker", metavar="URL", help="the broker for the page, wss://host:port (default: the venue's "
                   "pages listener)")


def run(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """Exit status: 0 done, 1 the broker could not be reloaded, 2 refused (the message says why)."""
    func = getattr(args, "venue_func", None)
    if func is None:
        print("cueboard venue: say what: init, add-table, add-user, revoke, card, expire, add-bridge or serve "
              "(--help)",
              file=sys.stderr)
        return 2
    if getattr(args, "desk", "unset") is None:
        args.desk = ["desk"]
    try:
        return int(func(args, out))
    except (VenueError, PkiError) as exc:
        print(f"cueboard venue: {exc}", file=sys.stderr)
        return 2
