"""A league's bridges kept at the venue (``cueboard venue add-bridge FILE``): the lines ``cueboard
league add-venue`` wrote, checked to be bridge lines only, written 0640 to the broker's group in
``mosquitto/bridges/``, which no rewrite of the venue touches and each copies into ``venue.conf``
(docs/security.md, "A league's bridge at the venue").

Only bridge options are taken: the file is read by the broker as its configuration, so a
``listener`` or an ``allow_anonymous`` slipped into it would open the venue's broker.
"""

from __future__ import annotations

import re
from pathlib import Path

from cueboard.common.errors import VenueError
from cueboard.contract.topics import ANY, ARCHIVED, EVENT, RECORD, ROOT, STATE, STATUS
from cueboard.venue.broker_files import BRIDGES, _write, broker_folder

__all__ = ["BRIDGE_OPTIONS", "LEAGUE_SHOWS", "add_bridge", "check_bridge"]

LEAGUE_SHOWS = (STATE, EVENT, STATUS, RECORD)
"""What a venue's tables publish that a league shows (docs/mqtt.md): the only topics a bridge
carries (out, never in) and a venue's login at the league may write. Not the commands, scorers'
lines and presence, the desk's next and message, the devices' health, the history or the desk's
lists: a venue's screens may read some of those, but the league's readers are anyone."""

BRIDGE_OPTIONS = frozenset({
    "connection", "address", "addresses", "topic", "remote_clientid", "remote_username", "remote_password",
    "notification_topic", "notifications", "notifications_local_only", "cleansession", "keepalive_interval",
    "restart_timeout", "idle_timeout", "start_type", "threshold", "try_private", "round_robin",
    "bridge_cafile", "bridge_capath", "bridge_certfile", "bridge_keyfile", "bridge_insecure",
    "bridge_protocol_version", "bridge_tls_version", "bridge_require_ocsp", "bridge_alpn",
    "bridge_outgoing_retain", "bridge_max_packet_size", "local_clientid", "local_username", "local_password",
    "max_queued_messages",
})
"""mosquitto 2.0's bridge options (mosquitto.conf(5), "Bridges"): nothing else is taken."""

MOST_BYTES = 64 * 1024
_CONNECTION = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def check_bridge(text: str, source: str) -> list[str]:
    """The connections' names in ``text``, a file of bridge lines; refused, naming the line, if
    it holds anything but bridge options or starts other than with ``connection``."""
    names: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        option = words[0]
        if option not in BRIDGE_OPTIONS:
            raise VenueError(f"{source}:{number}: {option!r} is not a bridge option (mosquitto.conf(5), Bridges): "
                             "a bridge's file holds bridge lines only, since the broker reads it as its own "
                             "configuration")
        if option == "topic":
            _check_topic(words, f"{source}:{number}")
        if option == "connection":
            if len(words) != 2 or not _CONNECTION.fullmatch(words[1]):
                raise VenueError(f"{source}:{number}: 'connection' takes one name of letters, digits, '.', '-', '_'")
            names.append(words[1])
        elif not names:
            raise VenueError(f"{source}:{number}: {option!r} before any 'connection' line: a bridge's file starts "
                             "with its connection")
    if not names:
        raise VenueError(f"{source}: no 'connection' line: not a bridge's file (cueboard league add-venue writes "
                         "logins/venue-<venue>.bridge.conf)")
    if len(set(names)) != len(names):
        raise VenueError(f"{source}: a connection named twice ({', '.join(names)})")
    return names


def _check_topic(words: list[str], where: str) -> None:
    """``topic <pattern> out [qos]``: out only (the league never writes the venue), no prefixes
    (the topic keeps its name), and the pattern one of a table's topics a league shows (or each
    match's record kept until archived, ``record/+``). The one exception, in: a league archive's
    word that it stored a record (``archived/<its login>``), which a table takes only to clear
    that record, never to change a score (docs/league.md, "Never a match missed")."""
    levels = words[1].split("/") if len(words) > 1 else []
    plain = all(level == ANY or ("+" not in level and "#" not in level) for level in levels[1:3])
    if (len(words) in (3, 4) and words[2] == "in" and len(levels) == 5 and levels[0] == ROOT and plain
            and levels[3] == ARCHIVED and levels[4] not in ("", ANY, "#") and "+" not in levels[4]
            and "#" not in levels[4] and (len(words) == 3 or words[3] in ("0", "1", "2"))):
        return
    shown = (len(levels) == 4 and levels[0] == ROOT and levels[3] in LEAGUE_SHOWS and plain) or (
        len(levels) == 5 and levels[0] == ROOT and levels[3] == RECORD and levels[4] == ANY and plain)
    if not shown:
        raise VenueError(f"{where}: topic {words[1] if len(words) > 1 else ''!r}: a bridge carries a table's "
                         f"{', '.join(LEAGUE_SHOWS)} only (and each match's kept record out, and in only a league "
                         "archive's acknowledgement under its own login): what a league shows")
    if len(words) < 3 or words[2] != "out" or len(words) > 4 or (len(words) == 4 and words[3] not in ("0", "1", "2")):
        raise VenueError(f"{where}: topic {words[1]}: 'out' and a QoS (0, 1 or 2) only: a bridge carries the "
                         "venue's topics out, never the league's in (but an archive's word), and keeps their names "
                         "(no prefixes)")


def _connections(path: Path) -> set[str]:
    return {line.split()[1] for line in path.read_text().splitlines()
            if line.split()[:1] == ["connection"] and len(line.split()) == 2}


def add_bridge(directory: Path, source: Path) -> Path:
    """``source`` kept as ``mosquitto/bridges/<first connection>.conf``; that path. Taking the
    same connections again replaces their file (a new password); a connection another kept
    file has is refused (mosquitto would not start with it twice)."""
    try:
        if source.stat().st_size > MOST_BYTES:
            raise VenueError(f"{source}: more than {MOST_BYTES} bytes: not a bridge's file")
        text = source.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise VenueError(f"{source}: cannot read it: {exc}") from None
    names = check_bridge(text, str(source))
    folder = broker_folder(directory / "mosquitto" / BRIDGES)
    path = folder / f"{names[0]}.conf"
    for kept in sorted(folder.glob("*.conf")):
        if kept != path and (clash := _connections(kept) & set(names)):
            raise VenueError(f"{source}: connection {', '.join(sorted(clash))} is in {kept} already: remove that "
                             "file first")
    _write(path, text if text.endswith("\n") else text + "\n", 0o640)  # it holds the league's password
    return path
