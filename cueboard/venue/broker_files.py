"""The venue broker's files, written from the venue's record (:class:`.plan.Venue`):
``mosquitto/venue.conf`` (four listeners), ``mosquitto/acl`` (a role's rights) and the
logins' ``tables.passwd`` and ``people.passwd``. ``venue.conf`` also carries the bridges kept in
``mosquitto/bridges/``, which only ``cueboard venue add-bridge`` writes, so a rewrite never loses
a league's bridge.
Each listener and rule, and why: docs/security.md, "The venue's broker as ``cueboard venue``
writes it".
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
from pathlib import Path

from cueboard.contract.topics import (
    ALL,
    ANY,
    DEVICES,
    EVENT,
    HISTORY,
    INPUT,
    MESSAGE,
    NEXT,
    PREVIEW,
    RECORD,
    REJECTED,
    STATE,
    STATUS,
    VenueTopics,
    history_slot,
    match_record,
)
from cueboard.table.mqtt.config import COMMANDS_LOGIN, SCORERS, desk_link_login
from cueboard.venue.plan import Venue

__all__ = ["BRIDGES", "MESSAGE_SIZE_LIMIT", "TABLE_TOPICS", "broker_folder", "write_broker_files"]

BRIDGES = "bridges"
"""The folder beside ``venue.conf`` where a league's bridges are kept; each rewrite of
``venue.conf`` copies them in."""

MESSAGE_SIZE_LIMIT = 1048576
"""Bytes: a table refuses a command line over 16 KiB itself, with one short answer; a bigger
message is dropped by the broker (and logged) before it reaches anyone."""

TABLE_TOPICS = (STATE, EVENT, REJECTED, STATUS, DEVICES, INPUT, RECORD, HISTORY, history_slot(ANY), PREVIEW,
                match_record(ANY))
"""What a table's daemon publishes (docs/mqtt.md), under its prefix."""

ARCHIVE_READS = (RECORD, match_record(ANY), STATE, EVENT, STATUS)
"""What an archive login reads of every table (docs/league.md): the records (the current match's
and each kept until archived), and the state, events and status."""

DESK_TOPICS = (NEXT, MESSAGE)
"""What the desk publishes for a table and the table reads (docs/mqtt.md), under its prefix."""


def venue_topics(v: VenueTopics) -> tuple[str, ...]:
    """What the desk publishes for the whole venue, read by every desk and screen (docs/mqtt.md)."""
    return (v.competition, v.service)


def desk_kept(v: VenueTopics) -> tuple[str, ...]:
    """What the desks keep for each other (docs/desk.md): the venue's presets, player list and
    tonight's results (the finished matches' records)."""
    return (v.presets, v.players, v.results)


def _listener(port: int, bind: str | None, websockets: bool) -> list[str]:
    lines = [f"listener {port}" + (f" {bind}" if bind else "")]
    if websockets:
        lines.append("protocol websockets")
        if bind:
            # mosquitto 2.0.11 (Debian 12) binds a WebSockets listener to every address unless
            # the socket's domain is given (tests/venue/test_venue_tool.py reads the sockets).
            lines.append(f"socket_domain {'ipv6' if ipaddress.ip_address(bind).version == 6 else 'ipv4'}")
    return lines


def venue_conf(venue: Venue, directory: Path) -> str:
    m = directory / "mosquitto"
    certs = directory / "certs"
    tls = [f"cafile {directory / 'ca' / 'venue-ca.crt'}", f"certfile {certs / 'server.crt'}",
           f"keyfile {certs / 'server.key'}", "tls_version tlsv1.2"]
    wss = [f"certfile {certs / 'server.crt'}", f"keyfile {certs / 'server.key'}"]
    acl = f"acl_file {m / 'acl'}"
    ports, bind = venue.ports, venue.bind
    lines = [
        f"# The venue broker of {venue.name}, written by cueboard venue (docs/security.md): edit venue.json with",
        "# cueboard venue add-table / add-user / revoke, not this file, which they write again.",
        "# On Debian: ln -s this file /etc/mosquitto/conf.d/cueboard-venue.conf; systemctl restart mosquitto once;",
        "# after that every change takes effect with systemctl reload mosquitto (the tool runs it).",
        "",
        f"message_size_limit {MESSAGE_SIZE_LIMIT}",
        "# Small messages go out at once: without it Nagle's algorithm held a desk's answer some 45 ms (issue 37).",
        "set_tcp_nodelay true",
        "per_listener_settings true",
        "# A client sends an id starting cueboard- (an anonymous screen keeps it); a login's session is known by",
        "# the login itself (use_username_as_clientid below), which cannot start cueboard- (the tool refuses such",
        "# a name): nobody can take a table's, a device's or a link's session.",
        "clientid_prefixes cueboard-",
        "",
        "# The tables' daemons: one session a table, known by its login (its links: <table>.scorers, .commands).",
        *_listener(ports.tables, bind, False), *tls,
        f"password_file {m / 'tables.passwd'}", "allow_anonymous false", "use_username_as_clientid true", acl,
        "",
        "# The desk and the scorers: one login a device (the desk on two laptops is two desk logins, a scorer",
        "# card is a login of its own), its session known by its login.",
        *_listener(ports.people, bind, False), *tls,
        f"password_file {m / 'people.passwd'}", "allow_anonymous false", "use_username_as_clientid true", acl,
        "",
        "# The desk's and scorers' pages: the same logins over secure WebSockets, the same one session each.",
        *_listener(ports.pages, bind, True), *wss,
        f"password_file {m / 'people.passwd'}", "allow_anonymous false", "use_username_as_clientid true", acl,
        "",
        "# The venue screens: secure WebSockets, anonymous and read only. No password is taken here.",
        *_listener(ports.screens, bind, True), *wss,
        "password_file /dev/null", "allow_anonymous true", acl,
        "",
    ]
    return "\n".join(lines + kept_bridges(m / BRIDGES))


def kept_bridges(folder: Path) -> list[str]:
    """The bridges ``cueboard venue add-bridge`` kept in ``folder``, copied into ``venue.conf``
    at every rewrite. (Not an ``include_dir``: mosquitto 2.0 reads that in its main file only,
    and Debian's main file includes ``venue.conf`` from ``conf.d``, so it would be ignored.)"""
    lines: list[str] = []
    for path in sorted(folder.glob("*.conf")) if folder.is_dir() else []:
        lines += [f"# A league's bridge, kept in {path} by cueboard venue add-bridge (read at the broker's start):",
                  *path.read_text().splitlines(), ""]
    return lines


def acl(venue: Venue) -> str:
    v = VenueTopics(venue.name)
    every = v.table(ANY)
    lines = [f"# Who may read and write what at {venue.name}, written by cueboard venue: a role's rights come",
             "# from here alone. Anonymous clients (the screens): read the tables' topics, write nothing."]
    lines += [f"topic read {every.under(t)}" for t in (*TABLE_TOPICS, *DESK_TOPICS)]
    lines += [f"topic read {t}" for t in venue_topics(v)]
    for login in venue.logins.values():
        lines += ["", f"user {login.name}"]
        if login.role == "table":
            own = v.table(login.name)
            lines += [f"topic write {own.under(t)}" for t in TABLE_TOPICS]
            lines += [f"topic read {own.command(ANY)}", f"topic read {own.unnamed_command}"]
            lines += [f"topic read {own.under(t)}" for t in DESK_TOPICS]
            lines += [f"topic write {own.next}",  # cleared once the match it hands on began
                      f"topic read {own.presence(ANY)}"]
            # its records kept until an archive says it stored them (its own, read back after a
            # restart), and the archives' word (cueboard/table/unarchived.py)
            lines += [f"topic read {own.match_record(ANY)}", f"topic read {own.archived(ANY)}"]
            # The table's paced links (cueboard.table.mqtt.paced_link): sessions of their own, reading the
            # scorers' lines and the commands. (The table's own login keeps its read on the commands:
            # a daemon whose commands' link is refused takes them there, with a warning.)
            lines += ["", f"user {login.name}{SCORERS}", f"topic read {own.score(ALL)}"]
            # ... and the desk's values, off the table's own connection (issue 37: a flood of them there
            # delayed its acknowledgements, and the state with them) and off the commands' link
            lines += [f"topic read {own.under(t)}" for t in DESK_TOPICS]
            lines += ["", f"user {login.name}{COMMANDS_LOGIN}", f"topic read {own.command(ANY)}",
                      f"topic read {own.unnamed_command}"]
            # A link for each desk login's commands (cueboard.table.mqtt.desk_links): one login's flood
            # fills only its own session's queue (issue 38 row 11; docs/security.md, "A session per desk")
            for desk in desks(venue):
                lines += ["", f"user {desk_link_login(login.name, desk)}", f"topic read {own.command(desk)}"]
        elif login.role == "desk":
            lines += [f"topic read {v.everything}", f"topic write {every.command(login.name)}"]
            lines += [f"topic write {every.under(t)}" for t in DESK_TOPICS]
            lines += [f"topic write {t}" for t in (*venue_topics(v), *desk_kept(v))]
        elif login.role == "archive":
            # Reads what it stores; writes only that it stored a record, under its own name: the
            # table then clears that record, never a score (cueboard/table/unarchived.py).
            lines += [f"topic read {every.under(t)}" for t in ARCHIVE_READS]
            lines += [f"topic write {every.archived(login.name)}"]
        else:
            # A scorer's lines on a topic of their own: the table knows the role by the topic
            # (docs/mqtt.md, Roles), as it knows the login by its last level.
            scored = v.table(str(login.table))
            lines += [f"topic read {scored.under(ALL)}", f"topic write {scored.score(login.name)}",
                      f"topic write {scored.presence(login.name)}"]
    return "\n".join(lines) + "\n"


def desks(venue: Venue) -> list[str]:
    """The venue's desk logins, whose commands each table reads on a link of its own."""
    return [login.name for login in venue.logins.values() if login.role == "desk"]


def _write(path: Path, text: str, mode: int) -> None:
    """Written whole (a new file renamed over the old one): the broker never reads half of it."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    tmp.chmod(mode)
    _give_to_broker(tmp)
    tmp.replace(path)


def _give_to_broker(path: Path) -> None:
    """Run as root on the broker's machine: the file belongs to the ``mosquitto`` group, which
    mosquitto runs as, so mode 0640 lets it read and nobody else."""
    if os.geteuid() != 0:
        return
    import grp

    with contextlib.suppress(KeyError):  # no mosquitto group on this machine: the files stay root's
        os.chown(path, 0, grp.getgrnam("mosquitto").gr_gid)


def give_key_to_broker(key: Path) -> None:
    """The broker's TLS key, 0640 to the ``mosquitto`` group when run as root: Debian's
    mosquitto drops to its user before it loads the key, so a 0600 root:root key stops it."""
    if key.exists() and os.geteuid() == 0:
        _give_to_broker(key)
        key.chmod(0o640)


def broker_folder(path: Path) -> Path:
    """``path`` made (0750) and given to the broker's group: mosquitto reads its files there
    when it reloads, as its own user, and nobody else lists them."""
    path.mkdir(mode=0o750, parents=True, exist_ok=True)
    path.chmod(0o750)
    _give_to_broker(path)
    return path


def write_broker_files(venue: Venue, directory: Path) -> list[Path]:
    """Every file of the venue's broker, from ``venue``; the paths written. (Not the bridges'
    folder's files: only ``cueboard venue add-bridge`` writes there.)"""
    m = directory / "mosquitto"
    m.mkdir(parents=True, exist_ok=True)
    broker_folder(m / BRIDGES)
    tables = [lg.hash for lg in venue.logins.values() if lg.role == "table"]
    # Each table's paced links log in as <table>.scorers and <table>.commands with the table's
    # password (names no login can have: names take no '.'), their client ids tied to them like
    # the table's own.
    tables += [f"{lg.name}{suffix}:{lg.hash.split(':', 1)[1]}" for suffix in (SCORERS, COMMANDS_LOGIN)
               for lg in venue.logins.values() if lg.role == "table"]
    # ... and <table>.commands.<desk> for each desk login, the same password (cueboard.table.mqtt.desk_links)
    tables += [f"{desk_link_login(lg.name, desk)}:{lg.hash.split(':', 1)[1]}" for lg in venue.logins.values()
               if lg.role == "table" for desk in desks(venue)]
    people = [lg.hash for lg in venue.logins.values() if lg.role != "table"]
    # venue.conf too is the broker's group's only: it carries the bridges' passwords, and mosquitto
    # reads it again as its own user on a reload.
    files = [(m / "venue.conf", venue_conf(venue, directory), 0o640), (m / "acl", acl(venue), 0o640),
             (m / "tables.passwd", "".join(line + "\n" for line in tables), 0o640),
             (m / "people.passwd", "".join(line + "\n" for line in people), 0o640)]
    for path, text, mode in files:
        _write(path, text, mode)
    give_key_to_broker(directory / "certs" / "server.key")
    return [path for path, _, _ in files]
