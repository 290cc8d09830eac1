"""A table's join bundle: everything a new Pi needs to become a table of the venue, in one file.

``cueboard venue add-table`` (and ``venue init``, for each of its tables) writes
``<dir>/joins/cueboard-join-<venue>-<table>.json`` (0600: it holds the table's password); on
the Pi ``cueboard join FILE`` (or ``install.sh --join FILE``) writes from it
``/etc/cueboard/cueboard.toml``, ``mqtt-password`` and ``venue-ca.crt`` (:mod:`.join`).

One JSON object: ``cueboard_join`` (this shape's version, 1), ``venue``, ``table``, ``config``
(the table's TOML, every path absolute, keymaps from ``/etc/cueboard/keymaps``, which the
installer and ``cueboard join`` fill from the package's ``cueboard.examples``), ``ca`` (the
venue's CA certificate, PEM) and ``password``. JSON and not a tar: one object, read whole,
checked field by field, with nothing to unpack onto the disk.

>>> text = config_text("club", "t1", "blackball", host="hall.lan", port=8883)
>>> "start = \\"idle\\"" in text and "/etc/cueboard/keymaps/keypad-4x5-blackball.toml" in text
True
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cueboard.common.errors import VenueError
from cueboard.common.resources import examples_dir

__all__ = ["ETC", "GAMES", "VERSION", "Bundle", "bundle_name", "config_text", "read_bundle", "write_bundle"]

VERSION = 1
ETC = "/etc/cueboard"
"""Where the Pi keeps its configuration (systemd/install.sh, systemd/cueboard.service)."""
GAMES = {"snooker": "snooker-table.toml", "blackball": "blackball-table.toml"}
"""Each game's example configuration, the hardware a table of it usually has."""
_FIELDS = ("cueboard_join", "venue", "table", "config", "ca", "password")


@dataclass(frozen=True)
class Bundle:
    venue: str
    table: str
    config: str
    """The table's cueboard.toml, as written on the Pi."""
    ca: str
    password: str


def bundle_name(venue: str, table: str) -> str:
    return f"cueboard-join-{venue}-{table}.json"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML for {value!r}")


def _toml(doc: Mapping[str, Any]) -> str:
    """The few shapes a table's configuration has: tables of scalars, lists and inline tables,
    and arrays of tables (``[[referee_box]]``)."""
    out: list[str] = []
    for name, section in doc.items():
        rows = section if isinstance(section, list) else [section]
        for row in rows:
            out.append(f"[[{name}]]" if isinstance(section, list) else f"[{name}]")
            out.extend(f"{k} = {_toml_value(v)}" for k, v in row.items())
            out.append("")
    return "\n".join(out)


def config_text(venue: str, table: str, game: str, *, host: str, port: int, desks: list[str] | None = None) -> str:
    """The table's cueboard.toml: the game's example (its board, referee box and keypad) as a
    table of ``venue``: its login on the venue's broker, idle at start (no default match of
    "Home v Away" to concede: docs/venue.md), every path absolute; ``desks``: the venue's desk
    logins, each read on a link of its own."""
    example = tomllib.loads((examples_dir() / GAMES[game]).read_text(encoding="utf-8"))
    doc: dict[str, Any] = {
        # A venue's table waits for the desk's match: idle at start, free to be handed one.
        "table": {"venue": venue, "name": table, "start": "idle"},
        "match": {"game": game},
        **{k: v for k, v in example.items() if k not in ("table", "match", "mqtt")},
        "mqtt": {"host": host, "port": port, "username": table, "password_file": f"{ETC}/mqtt-password",
                 "tls": {"ca": f"{ETC}/venue-ca.crt"}, "command": True},
    }
    if desks:  # each desk login read on a link of its own (docs/mqtt.md "A link per desk login")
        doc["mqtt"]["desks"] = list(desks)
    for key in ("referee_box", "keypad"):
        for row in doc.get(key, []) if isinstance(doc.get(key), list) else [doc.get(key, {})]:
            if "keymap" in row:
                row["keymap"] = f"{ETC}/keymaps/{Path(row['keymap']).name}"
    head = (f"# cueboard: table {table} of venue {venue}, written by cueboard join from the venue's bundle.\n"
            "# Every key is checked at start-up (docs/install.md); cueboard join again replaces this file.\n\n")
    return head + _toml(doc)


def write_bundle(directory: Path, bundle: Bundle) -> Path:
    """``<directory>/joins/<bundle_name>``, 0600 from its first byte (it holds the password)."""
    joins = directory / "joins"
    joins.mkdir(mode=0o700, exist_ok=True)
    path = joins / bundle_name(bundle.venue, bundle.table)
    path.unlink(missing_ok=True)
    path.touch(mode=0o600)
    obj = {"cueboard_join": VERSION, "venue": bundle.venue, "table": bundle.table, "config": bundle.config,
           "ca": bundle.ca, "password": bundle.password}
    path.write_text(json.dumps(obj, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def read_bundle(path: Path) -> Bundle:
    """The bundle in ``path``, checked whole; VenueError naming the file and what is wrong."""
    def bad(why: str) -> VenueError:
        return VenueError(f"{path}: not a cueboard join bundle: {why} (cueboard venue add-table writes one: "
                          "joins/cueboard-join-<venue>-<table>.json in the venue's folder)")

    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise VenueError(f"{path}: cannot read the bundle: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise bad(f"not JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise bad("not a JSON object")
    missing = [k for k in _FIELDS if k not in obj]
    if missing:
        raise bad(f"no {', '.join(missing)}")
    if obj["cueboard_join"] != VERSION:
        raise bad(f"cueboard_join is {obj['cueboard_join']!r}; this cueboard reads version {VERSION} "
                  "(update cueboard on the Pi, or make the bundle with this version's venue tool)")
    unknown = sorted(set(obj) - set(_FIELDS))
    if unknown:
        raise bad(f"unknown field {', '.join(unknown)}")
    for key in _FIELDS[1:]:
        if not isinstance(obj[key], str) or not obj[key]:
            raise bad(f"{key} must be a text, not {obj[key]!r}")
    bundle = Bundle(obj["venue"], obj["table"], obj["config"], obj["ca"], obj["password"])
    if "\n" in bundle.password.strip() or bundle.password != bundle.password.strip():
        raise bad("password must be one line")
    if "-----BEGIN CERTIFICATE-----" not in bundle.ca:
        raise bad("ca is not a PEM certificate")
    try:
        config = tomllib.loads(bundle.config)
    except tomllib.TOMLDecodeError as exc:
        raise bad(f"config is not TOML ({exc})") from None
    table = config.get("table", {})
    mqtt = config.get("mqtt", {})
    if not isinstance(table, dict) or (table.get("venue"), table.get("name")) != (bundle.venue, bundle.table):
        raise bad(f"config's [table] is not venue {bundle.venue!r}, name {bundle.table!r}")
    if not isinstance(mqtt, dict) or mqtt.get("username") != bundle.table:
        raise bad(f"config's [mqtt] username is not {bundle.table!r}")
    return bundle
