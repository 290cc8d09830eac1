"""The daemon's configuration: one TOML file (``examples/snooker-table.toml``).

Every section is checked at start-up and an unknown key is an error that names the
key and the file (in the manner of Klipper's ``check_unused_options``): a typo never
passes silently. Each section is parsed by the module that uses it; this module
knows the top-level keys and puts the file's name on every message.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .engine import IllegalEvent, MatchSetup, parse_match
from .feed import parse_mqtt
from .hw.buttons import parse_boxes
from .hw.display_config import parse_display
from .keymap import load_keymap


class ConfigError(ValueError):
    """The configuration cannot be used; the message names the file and the key."""


DEFAULT_MATCH: dict[str, Any] = {"game": "snooker", "sides": ["Player 1", "Player 2"]}


@dataclass(frozen=True)
class Config:
    path: Path
    venue: str
    table: str
    match: dict[str, Any]
    """The table's default match line (without ``type``): what NEW MATCH starts."""
    journal_dir: Path
    control_socket: Path | None
    shot_clock_auto: bool
    mqtt: Any = None  # cueboard.feed.MqttConfig, or None: no feed
    referee_boxes: tuple[Any, ...] = ()  # cueboard.hw.buttons.BoxConfig
    referee_keymap: Path | None = None
    keypad_port: str | None = None
    keypad_keymap: Path | None = None
    displays: tuple[Any, ...] = ()  # cueboard.hw.display_config.DisplayConfig
    raw: Mapping[str, Any] = field(default_factory=dict)

    def match_setup(self, overrides: Mapping[str, Any] | None = None) -> MatchSetup:
        """The default match, with ``overrides`` (a match line's fields) on top."""
        line = {"type": "match", **self.match, **(overrides or {})}
        return _setup(line)


def _setup(line: Mapping[str, Any]) -> MatchSetup:
    return parse_match(dict(line))


TOP_LEVEL = ("table", "match", "journal", "control", "shot_clock", "mqtt", "referee_box", "keypad",
             "display")


def _table(raw: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = raw.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"[{key}] must be a table")
    return value


def _only(section: Mapping[str, Any], name: str, keys: tuple[str, ...]) -> None:
    for key in section:
        if key not in keys:
            raise ConfigError(f"{name}.{key}: unknown key ({name} takes: {', '.join(keys)})")


def _text(section: Mapping[str, Any], name: str, key: str, default: str | None) -> str | None:
    value = section.get(key, default)
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise ConfigError(f"{name}.{key}: must be a non-empty string, not {value!r}")
    return value


def _path(base: Path, value: str | None) -> Path | None:
    if value is None:
        return None
    p = Path(value).expanduser()
    return p if p.is_absolute() else base / p


def _topic_part(value: str, where: str) -> str:
    if any(c in value for c in "/#+") or not value.isprintable():
        raise ConfigError(f"{where}: {value!r} is part of MQTT topics: no '/', '#', '+' or control characters")
    return value


def parse_config(raw: Mapping[str, Any], path: Path) -> Config:
    """Check a decoded configuration; ConfigError naming the key when it is wrong."""
    base = path.parent
    for key in raw:
        if key not in TOP_LEVEL:
            raise ConfigError(f"{key}: unknown section (the sections are: {', '.join(TOP_LEVEL)})")
    table = _table(raw, "table")
    _only(table, "table", ("venue", "name"))
    venue = _topic_part(_text(table, "table", "venue", "venue") or "venue", "table.venue")
    name = _text(table, "table", "name", None)
    if name is None:
        raise ConfigError("table.name: required (the table's name, e.g. \"table-1\": its MQTT topics)")
    name = _topic_part(name, "table.name")

    match = {**DEFAULT_MATCH, **_table(raw, "match")}
    if "type" in match:
        raise ConfigError("match.type: leave it out ([match] is the default match line's fields)")
    try:
        _setup({"type": "match", **match})
    except IllegalEvent as exc:
        raise ConfigError(f"[match]: {exc}") from None

    journal = _table(raw, "journal")
    _only(journal, "journal", ("dir",))
    journal_dir = _path(base, _text(journal, "journal", "dir", "/var/lib/cueboard/journal"))
    control = _table(raw, "control")
    _only(control, "control", ("socket",))
    control_socket = _path(base, _text(control, "control", "socket", "/run/cueboard/control.sock"))
    clock = _table(raw, "shot_clock")
    _only(clock, "shot_clock", ("auto",))
    auto = clock.get("auto", True)
    if not isinstance(auto, bool):
        raise ConfigError(f"shot_clock.auto: must be true or false, not {auto!r}")

    mqtt = None
    if "mqtt" in raw:
        mqtt = _section(lambda: parse_mqtt(_table(raw, "mqtt"), venue=venue, table=name))

    boxes: tuple[Any, ...] = ()
    referee_keymap = None
    if "referee_box" in raw:
        value = raw["referee_box"]
        tables = [value] if isinstance(value, dict) else value
        keymaps = set()
        stripped = []
        for i, t in enumerate(tables if isinstance(tables, list) else []):
            if isinstance(t, dict) and "keymap" in t:
                t = dict(t)
                keymaps.add(str(t.pop("keymap")))
            elif isinstance(t, dict):
                raise ConfigError(f"referee_box[{i}].keymap: required (e.g. \"keymaps/referee-box-12.toml\")")
            stripped.append(t)
        if len(keymaps) > 1:
            raise ConfigError("referee_box.keymap: the boxes of one table share one keymap")
        boxes = _section(lambda: parse_boxes(stripped if isinstance(tables, list) else value))
        referee_keymap = _path(base, keymaps.pop()) if keymaps else None

    keypad = _table(raw, "keypad")
    _only(keypad, "keypad", ("port", "keymap"))
    keypad_port = _text(keypad, "keypad", "port", None)
    keypad_keymap = _path(base, _text(keypad, "keypad", "keymap", None))
    if keypad and (keypad_port is None or keypad_keymap is None):
        raise ConfigError("keypad: needs both 'port' (e.g. /dev/cueboard-keypad) and 'keymap'")

    displays: tuple[Any, ...] = ()
    if "display" in raw:
        value = raw["display"]
        tables = value if isinstance(value, list) else [value]
        displays = tuple(_section(lambda t=t: parse_display(t)) for t in tables)  # type: ignore[misc]

    config = Config(path=path, venue=venue, table=name, match=match, journal_dir=journal_dir or Path("."),
                    control_socket=control_socket, shot_clock_auto=auto, mqtt=mqtt,
                    referee_boxes=boxes, referee_keymap=referee_keymap, keypad_port=keypad_port,
                    keypad_keymap=keypad_keymap, displays=displays, raw=raw)
    for keymap_path in (referee_keymap, keypad_keymap):
        if keymap_path is not None:
            _section(lambda p=keymap_path: _load_keymap(p, config))  # type: ignore[misc]
    return config


def _load_keymap(path: Path, config: Config) -> Any:
    return load_keymap(path)


def _section(parse: Callable[[], Any]) -> Any:
    try:
        return parse()
    except ConfigError:
        raise
    except (ValueError, OSError) as exc:
        raise ConfigError(str(exc)) from None


def load_config(path: str | Path) -> Config:
    """Read and check the configuration file; ConfigError naming the file and the key."""
    p = Path(path)
    try:
        raw = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{p}: not valid TOML: {exc}") from None
    try:
        return parse_config(raw, p)
    except ConfigError as exc:
        raise ConfigError(f"{p}: {exc}") from None
