"""``cueboard league``: a league's broker, hardened as written (``init``), and its venues'
bridges (``add-venue``). The listeners, logins and ACL, and why: docs/security.md,
"A league's broker".
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from cueboard.contract.topics import ANY, EVERYTHING, RECORDS, TableTopics, bridge_state
from cueboard.venue.bridges import LEAGUE_SHOWS
from cueboard.venue.broker_files import MESSAGE_SIZE_LIMIT, _listener, _write, give_key_to_broker
from cueboard.venue.command import DEFAULT_RELOAD, _keep_password, _reload
from cueboard.venue.passwords import hashed, new_password
from cueboard.venue.pki import PkiError, make_ca, make_server_cert
from cueboard.venue.plan import VenueError, check_name

__all__ = ["add_arguments", "run"]

DEFAULT_DIR = "/etc/cueboard/league"
LEAGUE_RECORD = "league.json"
RESULTS = "results"
"""The league's results service's login (``cueboard archive run --username results``)."""


def league_topics(venue: str) -> list[str]:
    """``LEAGUE_SHOWS`` of every table of ``venue``: the bridge's topics and the login's rights."""
    return [TableTopics.of(venue, ANY).under(name) for name in LEAGUE_SHOWS]


@dataclass
class League:
    name: str
    hosts: list[str]
    bind: str | None = None
    bridges_port: int = 8883
    readers_port: int = 8884
    logins: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> {"role", "venue", "hash"}

    def new_login(self, name: str, role: str, venue: str | None) -> str:
        if name in self.logins:
            raise VenueError(f"{name!r} is taken already at the league")
        password = new_password()
        self.logins[name] = {"role": role, "venue": venue, "hash": hashed(name, password)}
        return password

    def save(self, directory: Path) -> None:
        tmp = directory / (LEAGUE_RECORD + ".tmp")
        tmp.write_text(json.dumps(asdict(self), indent=2) + "\n")
        tmp.chmod(0o600)
        tmp.replace(directory / LEAGUE_RECORD)

    @classmethod
    def load(cls, directory: Path) -> League:
        try:
            data = json.loads((directory / LEAGUE_RECORD).read_text())
        except FileNotFoundError:
            raise VenueError(f"--dir: {directory} has no league ({LEAGUE_RECORD}): cueboard league init "
                             "first") from None
        return cls(**data)


def league_conf(league: League, directory: Path) -> str:
    m, certs = directory / "mosquitto", directory / "certs"
    acl = f"acl_file {m / 'acl'}"
    return "\n".join([
        f"# The league broker of {league.name}, written by cueboard league (docs/security.md, docs/scale.md).",
        "# On Debian: ln -s this file /etc/mosquitto/conf.d/cueboard-league.conf; systemctl restart mosquitto",
        "# once; cueboard league add-venue then reloads it (systemctl reload mosquitto).",
        "",
        f"message_size_limit {MESSAGE_SIZE_LIMIT}",
        "# Small messages go out at once: without it Nagle's algorithm held a desk's answer some 45 ms (issue 37).",
        "set_tcp_nodelay true",
        "per_listener_settings true",
        "# A client id a client chooses starts with cueboard-; a bridge's id is its login (venue-<venue>),",
        "# which therefore nobody can choose: no client takes a bridge's session.",
        "clientid_prefixes cueboard-",
        "max_inflight_messages 100",
        "max_queued_messages 1000",
        "persistent_client_expiration 1d",
        "",
        "# The venues' bridges and the results service: MQTT over TLS, a login each, no anonymous client.",
        *_listener(league.bridges_port, league.bind, False),
        f"cafile {directory / 'ca' / 'venue-ca.crt'}", f"certfile {certs / 'server.crt'}",
        f"keyfile {certs / 'server.key'}", "tls_version tlsv1.2",
        f"password_file {m / 'passwords'}", "allow_anonymous false", "use_username_as_clientid true", acl,
        "",
        "# League screens and overlays: secure WebSockets, anonymous, read only; no password taken here.",
        *_listener(league.readers_port, league.bind, True),
        f"certfile {certs / 'server.crt'}", f"keyfile {certs / 'server.key'}",
        "password_file /dev/null", "allow_anonymous true", acl,
        "",
    ])


def league_acl(league: League) -> str:
    lines = [f"# Who may read and write what at the league {league.name}, written by cueboard league.",
             "# Anonymous readers: every venue's tables and every bridge's state; they write nothing.",
             f"topic read {EVERYTHING}", f"topic read {bridge_state(ANY)}"]
    for name, login in league.logins.items():
        lines += ["", f"user {name}"]
        if login["role"] == "venue":
            # What its bridge carries and nothing more: a venue's broker changed by hand still
            # puts no command, presence or desk list before the league's readers.
            lines += [f"topic write {topic}" for topic in league_topics(login["venue"])]
            lines += [f"topic write {bridge_state(name)}"]
        elif login["role"] == "records":
            # Each match's record kept until archived too, and the archive's word back to the
            # venue's tables, which then clear it (docs/league.md, "Never a match missed").
            tables = TableTopics.of(login["venue"], ANY)
            lines += [f"topic write {tables.record}", f"topic write {tables.match_record(ANY)}",
                      f"topic read {tables.archived(ANY)}", f"topic write {bridge_state(name)}"]
        else:
            lines += [f"topic read {EVERYTHING}", f"topic read {bridge_state(ANY)}",
                      f"topic write {TableTopics.of(ANY, ANY).archived(name)}"]
    return "\n".join(lines) + "\n"


def write_league_files(league: League, directory: Path) -> None:
    m = directory / "mosquitto"
    m.mkdir(parents=True, exist_ok=True)
    # 0640 to the broker's group, its key too: Debian's mosquitto reads them as its own user
    # (the key at its start, the files again on a reload).
    _write(m / "league.conf", league_conf(league, directory), 0o640)
    _write(m / "acl", league_acl(league), 0o640)
    _write(m / "passwords", "".join(login["hash"] + "\n" for login in league.logins.values()), 0o640)
    give_key_to_broker(directory / "certs" / "server.key")


def bridge_lines(league: League, login: str, ca: str = "/etc/mosquitto/certs/league-ca.crt", *,
                 connection: str = "league", topics: list[str] | None = None,
                 topics_in: list[str] | None = None) -> str:
    """What the venue's broker adds to bridge to the league (its password in the password line):
    ``topics`` (default: everything) out at QoS 1 on a persistent session logged in as ``login``,
    and ``topics_in`` (default: none) in."""
    return "\n".join([
        f"connection {connection}",
        f"address {league.hosts[0]}:{league.bridges_port}",
        f"bridge_cafile {ca}",
        # The league takes a client id starting cueboard- (clientid_prefixes) and makes it the login.
        f"remote_clientid cueboard-bridge-{login}",
        f"remote_username {login}",
        "remote_password THE-PASSWORD-IN-THE-LOGIN-FILE",
        f"notification_topic {bridge_state(login)}",
        "cleansession false",
        *(f"topic {topic} out 1" for topic in (topics or [EVERYTHING])),
        *(f"topic {topic} in 1" for topic in (topics_in or [])),
    ])


RECORDS_TOPIC = RECORDS
"""What the records' bridge carries (the tables' ``<prefix>/record``, docs/record.md)."""


def _init(args: argparse.Namespace, out: TextIO) -> int:
    directory = Path(args.dir)
    if (directory / LEAGUE_RECORD).exists():
        raise VenueError(f"--dir: {directory} has a league already: cueboard league add-venue adds to it")
    check_name("--league", args.league)
    hosts = args.host or ["localhost", "127.0.0.1"]
    league = League(args.league, hosts, args.bind, args.bridges_port, args.readers_port)
    password = league.new_login(RESULTS, "results", None)
    directory.mkdir(parents=True, exist_ok=True)
    ca = make_ca(directory / "ca", f"cueboard league {league.name}")
    make_server_cert(directory / "certs", ca, hosts)
    league.save(directory)
    write_league_files(league, directory)
    _keep_password(directory, RESULTS, password)
    conf = directory / "mosquitto" / "league.conf"
    print(f"league {league.name}: broker {conf}; CA {ca[0]} (each venue's bridge_cafile); the results service's "
          f"password in {directory}/logins/results.password", file=out)
    print(f"next: ln -s {conf} /etc/mosquitto/conf.d/cueboard-league.conf && systemctl restart mosquitto", file=out)
    return 0


def _add_venue(args: argparse.Namespace, out: TextIO) -> int:
    directory = Path(args.dir)
    league = League.load(directory)
    check_name("venue", args.venue)
    login, records = f"venue-{args.venue}", f"venue-{args.venue}-results"
    for name in (login, records):  # both checked before either is taken: a refusal changes nothing
        if name in league.logins:
            raise VenueError(f"venue {args.venue!r}: the login {name!r} is taken already at the league")
    passwords = {login: league.new_login(login, "venue", args.venue),
                 records: league.new_login(records, "records", args.venue)}
    league.save(directory)
    write_league_files(league, directory)
    paths = [_keep_password(directory, name, password) for name, password in passwords.items()]
    lines = [f"# {args.venue}'s bridges to the league {league.name}: on the venue's broker, cueboard venue add-bridge "
             "this file (docs/security.md).",
             "# What the league shows, and nothing more: no command, presence, message or desk list.",
             bridge_lines(league, login, topics=league_topics(args.venue)).replace(
                 "THE-PASSWORD-IN-THE-LOGIN-FILE", passwords[login]),
             "",
             "# The match records on a bridge of their own (docs/league.md): its queue holds only records;",
             "# each match's kept until archived, and the league's archive's word back in, which the table",
             "# takes to clear that record (nothing else comes in, and it changes no score).",
             bridge_lines(league, records, connection="league-results",
                          topics=[TableTopics.of(args.venue, ANY).record,
                                  TableTopics.of(args.venue, ANY).match_record(ANY)],
                          topics_in=[TableTopics.of(args.venue, ANY).archived(RESULTS)]).replace(
                 "THE-PASSWORD-IN-THE-LOGIN-FILE", passwords[records])]
    bridge = directory / "logins" / f"{login}.bridge.conf"
    bridge.unlink(missing_ok=True)
    bridge.touch(mode=0o600)
    bridge.write_text("\n".join(lines) + "\n")
    print(f"venue {args.venue} added to the league: logins {login} and {records} (the match records' bridge), "
          f"passwords in {paths[0]} and {paths[1]}; its broker's two bridges in {bridge}: copy it to the venue's "
          "broker and run cueboard venue add-bridge <file> there (it keeps them, 0640, and every rewrite of "
          "venue.conf carries them), then restart that broker once", file=out)
    return _reload(args, out)


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="league_command", metavar="ACTION")
    init = sub.add_parser("init", help="a league broker's config, CA, certificate and ACL, hardened")
    init.add_argument("--dir", default=DEFAULT_DIR, help=f"the league's folder (default {DEFAULT_DIR})")
    init.add_argument("--league", required=True, help="the league's name")
    init.add_argument("--host", action="append", metavar="NAME_OR_ADDRESS",
                      help="a name or address the venues and readers reach the broker by (again for more)")
    init.add_argument("--bind", metavar="ADDRESS", help="listen on this address only (default: every address)")
    init.add_argument("--bridges-port", type=int, default=8883, help="MQTT/TLS for the bridges (8883)")
    init.add_argument("--readers-port", type=int, default=8884, help="secure WebSockets for readers (8884)")
    init.set_defaults(league_func=_init)
    venue = sub.add_parser("add-venue", help="a venue's bridge logins (everything, and the match records "
                           "alone), and its bridges' lines; then reload")
    venue.add_argument("--dir", default=DEFAULT_DIR, help=f"the league's folder (default {DEFAULT_DIR})")
    venue.add_argument("venue", help="the venue's name (its tables' [table] venue)")
    venue.add_argument("--reload", default=DEFAULT_RELOAD, metavar="COMMAND",
                       help=f"how the broker is reloaded after the change (default: {DEFAULT_RELOAD})")
    venue.add_argument("--no-reload", action="store_true", help="write the files only")
    venue.set_defaults(league_func=_add_venue)


def run(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    func = getattr(args, "league_func", None)
    if func is None:
        print("cueboard league: say what: init or add-venue (--help)", file=sys.stderr)
        return 2
    try:
        return int(func(args, out))
    except (VenueError, PkiError) as exc:
        print(f"cueboard league: {exc}", file=sys.stderr)
        return 2
