"""The daemon's configuration: one TOML file (``examples/snooker-table.toml``).

Every section is checked at start-up and an unknown key is an error that names the
key and the file (in the manner of Klipper's ``check_unused_options``): a typo never
passes silently. Each section is parsed by the module that uses it; this module
knows the top-level keys and puts the file's name on every message.

:func:`load_config` also refuses a file that other users can change (any user can write
it), or, when it holds ``mqtt.password``, read (docs/security.md). A file without a
password holds nothing secret, so one that everybody may read (a checkout's example) is
accepted; a password in it makes it as private as a password file.
"""

from __future__ import annotations

import os
import stat
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from cueboard.common import errors
from cueboard.common.errors import ConfigFileError
from cueboard.common.private_files import exposure
from cueboard.common.settings import Required, Section, refusal
from cueboard.contract.limits import CommandLimits
from cueboard.contract.names import check_setup
from cueboard.engine import IllegalEvent, MatchSetup, parse_match
from cueboard.hw.box_config import BoxConfig, parse_boxes
from cueboard.hw.display_config import DisplayConfig, parse_displays
from cueboard.hw.pins import check_pins, check_spi_devices, table_claims
from cueboard.table.home_assistant import HomeAssistantConfig, parse_home_assistant
from cueboard.table.keymap import Keymap, load_keymap
from cueboard.table.light_config import LightConfig, light_claims, parse_light
from cueboard.table.mqtt.feed import MqttConfig, parse_mqtt

T = TypeVar("T")


START = ("match", "idle")
"""``[table] start``: what a table shows until its first stroke (docs/install.md, "A table of a venue")."""

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
    """Start the shot clock at each new shot by itself; else the referee's CLOCK key starts it."""
    mqtt: MqttConfig | None = None
    """The feed's broker, or None: no feed."""
    referee_boxes: tuple[BoxConfig, ...] = ()
    referee_keymap: Path | None = None
    keypad_port: str | None = None
    keypad_keymap: Path | None = None
    displays: tuple[DisplayConfig, ...] = ()
    commands: CommandLimits = field(default_factory=CommandLimits)
    """How much the network (the command topic, the control socket) may ask of the table."""
    home_assistant: HomeAssistantConfig | None = None
    """Home Assistant's discovery, or None: not asked for."""
    start: str = "match"
    """``[table] start``: ``"match"`` (a table on its own: its ``[match]`` default, ready to
    score) or ``"idle"`` (a venue's table, from ``cueboard join``: it waits for the desk's
    match, and its boards show the idle board while no stroke is played)."""
    light: LightConfig | None = None
    """``[light]``: the table light's relay (docs/hardware.md, "The table's light"), or None."""

    def match_setup(self, overrides: Mapping[str, Any] | None = None) -> MatchSetup:
        """The default match, with ``overrides`` (a match line's fields) on top."""
        line = {"type": "match", **self.match, **(overrides or {})}
        return _setup(line)


def _setup(line: Mapping[str, Any]) -> MatchSetup:
    # A new match's names are people's (RFC 8266 nicknames); a log's, replayed, are the engine's alone.
    return check_setup(parse_match(dict(line)))


def _topic_part(section: Section, key: str, value: str) -> str:
    if any(c in value for c in "/#+") or not value.isprintable():
        raise section.fail(key, f"{value!r} is part of MQTT topics: no '/', '#', '+' or control characters")
    return value


def parse_config(raw: Mapping[str, Any], path: Path) -> Config:
    """Check a decoded configuration; ConfigFileError naming the key when it is wrong."""
    base = path.parent
    root = Section(raw, error=ConfigFileError, kind="the configuration")
    table = root.getsection("table", {})
    venue = _topic_part(table, "venue", table.getstr("venue", "venue"))
    name = _topic_part(table, "name", table.getstr("name", Required("the table's name, e.g. \"table-1\": "
                                                                     "its MQTT topics")))
    start = table.getstr("start", "match")
    if start not in START:
        raise table.fail("start", f"{start!r} is not one of {', '.join(START)}")

    match_section = root.getsection("match", {})
    if "type" in match_section:
        raise match_section.fail("type", "leave it out ([match] is the default match line's fields)")
    # The engine knows a match line's fields (each game its own) and refuses one it does not
    # take, naming it: every key is read here as given, and checked by parse_match below.
    match = {**DEFAULT_MATCH, **dict(match_section.items())}
    try:
        _setup({"type": "match", **match})
    except IllegalEvent as exc:
        # The engine's message names the match line's field ("match: 'best_of' must be odd").
        raise match_section.fail(None, str(exc).removeprefix("match: ")) from None

    journal = root.getsection("journal", {})
    journal_dir = journal.getpath("dir", "/var/lib/cueboard/journal", base=base)
    control = root.getsection("control", {})
    control_socket = control.getpath("socket", "/run/cueboard/control.sock", base=base)
    clock = root.getsection("shot_clock", {})
    # The referee controls the clock (blackball rule 8a: he starts it); auto only on request.
    auto = clock.getbool("auto", False)
    section = root.getsection("commands", {})
    defaults = CommandLimits()
    commands = CommandLimits(
        rate=section.getfloat("rate", defaults.rate, above=0, maxval=1000, unit="lines a second"),
        burst=section.getint("burst", defaults.burst, minval=1, maxval=10000),
        queue=section.getint("queue", defaults.queue, minval=1, maxval=10000),
        new_match_every=section.getfloat("new_match_every", defaults.new_match_every, minval=0, maxval=86400,
                                         unit="seconds"),
        max_bytes=section.getint("max_bytes", defaults.max_bytes, minval=1024, maxval=1_000_000))

    mqtt_table = root.get("mqtt", None)
    mqtt = None if mqtt_table is None else _section(partial(parse_mqtt, mqtt_table, venue=venue, table=name))
    home_assistant = _home_assistant(root.get("home_assistant", None), mqtt)

    boxes: tuple[BoxConfig, ...] = ()
    referee_keymap = None
    referee_keymap_named = ""  # as the file names it, for messages
    value = root.get("referee_box", None)
    if value is not None:
        # Each box names the keymap they share; the rest of its table is parse_boxes's.
        tables = [value] if isinstance(value, Mapping) else value
        keymaps = set()
        stripped = []
        for i, t in enumerate(tables if isinstance(tables, list) else []):
            if isinstance(t, Mapping):
                box = Section(t, f"referee_box[{i}]", error=ConfigFileError)
                keymaps.add(box.getpath("keymap", Required('e.g. "keymaps/referee-box-12.toml"'), base=base))
                referee_keymap_named = str(t["keymap"])
                t = {k: v for k, v in t.items() if k != "keymap"}
            stripped.append(t)
        if len(keymaps) > 1:
            raise ConfigFileError(refusal("referee_box.keymap", "the boxes of one table share one keymap"))
        boxes = _section(partial(parse_boxes, stripped if isinstance(tables, list) else value))
        referee_keymap = keymaps.pop() if keymaps else None

    keypad = root.getsection("keypad", {})
    keypad_port = keypad.getstr("port", None)
    keypad_keymap = keypad.getpath("keymap", None, base=base)

    displays: tuple[DisplayConfig, ...] = ()
    value = root.get("display", None)
    if value is not None:
        displays = _section(partial(parse_displays, value))
        for language in sorted({d.language for d in displays}):
            # The board's words are read now, so that a translator's slip stops the start with
            # its file and word named, not a board half-way through opening.
            from cueboard.boards.words import CatalogueError, words_for

            try:
                words_for(language)
            except CatalogueError as exc:
                raise ConfigFileError(f"display.language = {language!r}: {exc}") from None
    light = parse_light(root.getsection("light", {}))
    root.check_unused()  # every option of the file read above: an unknown key anywhere is refused here
    # After the typos: "needs both" for a misspelt key would hide the misspelling.
    if keypad.raw and (keypad_port is None or keypad_keymap is None):
        raise keypad.fail(None, "needs both 'port' (e.g. /dev/cueboard-keypad) and 'keymap'")
    # One GPIO, one device: the boxes' buttons, the boards' buses and HATs, a keypad on the UART.
    clash = check_spi_devices(displays) or check_pins(table_claims(boxes, displays, keypad_port)
                                                        + light_claims(light))
    if clash is not None:
        raise ConfigFileError(clash)

    config = Config(path=path, venue=venue, table=name, match=match, journal_dir=journal_dir,
                    control_socket=control_socket, shot_clock_auto=auto, mqtt=mqtt,
                    referee_boxes=boxes, referee_keymap=referee_keymap, keypad_port=keypad_port,
                    keypad_keymap=keypad_keymap, displays=displays, commands=commands,
                    home_assistant=home_assistant, start=start, light=light)
    game = match["game"]
    if referee_keymap is not None:
        # A keymap that cannot be read or used is a KeymapError naming its file.
        keymap = _section(partial(load_keymap, referee_keymap))
        named = referee_keymap_named
        for i, box_config in enumerate(boxes):
            # pins[n] is button n of the keymap's layout: a key without a pin cannot be pressed,
            # a pin without a key would only ever be refused.
            if len(box_config.pins) != keymap.size:
                raise ConfigFileError(refusal(f"referee_box[{i}].pins", f"{len(box_config.pins)} pins for a keymap of "
                                              f"{keymap.size} keys ({named})"))
        _same_game(keymap, game, "referee_box[0].keymap", named)
    if keypad_keymap is not None:
        keymap = _section(partial(load_keymap, keypad_keymap))
        _same_game(keymap, game, "keypad.keymap", str(keypad.raw["keymap"]))
    return config


def _home_assistant(table: Any, mqtt: MqttConfig | None) -> HomeAssistantConfig | None:
    """``[home_assistant]`` (cueboard.table.home_assistant); discovery needs the table's ``[mqtt]``."""
    if table is None:
        return None
    ha = _section(partial(parse_home_assistant, table))
    if ha.discovery and mqtt is None:
        raise ConfigFileError(refusal("home_assistant.discovery", "needs [mqtt]: the table announces itself to Home "
                                      "Assistant on its MQTT broker"))
    return ha if ha.discovery else None


def _same_game(keymap: Keymap, game: str, where: str, named: str) -> None:
    """A device's keymap is of the table's game: a snooker box on a blackball table would
    refuse every key."""
    if keymap.game != game:
        raise ConfigFileError(refusal(where, f"{named} is a {keymap.game} keymap and the table's [match] game is "
                                      f"{game}"))


def _section(parse: Callable[[], T]) -> T:
    """Run a section's own parser: its ConfigFileError (only) becomes this file's."""
    try:
        return parse()
    except ConfigFileError:
        raise
    except errors.ConfigError as exc:
        raise ConfigFileError(str(exc)) from None


def load_config(path: str | Path) -> Config:
    """Read and check the configuration file; ConfigFileError naming the file and the key."""
    p = Path(path)
    try:
        raw = tomllib.loads(p.read_text(encoding="utf-8"))
        _check_private(p, raw)
    except OSError as exc:
        raise ConfigFileError(refusal("", f"cannot read: {exc.strerror or exc}", str(p))) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigFileError(refusal("", f"not valid TOML: {exc}", str(p))) from None
    try:
        return parse_config(raw, p)
    except errors.ConfigError as exc:
        raise ConfigFileError(refusal("", str(exc), str(p))) from None


def _check_private(path: Path, raw: Mapping[str, Any]) -> None:
    """Refuse a file that every user can change (they could point the table at their own
    broker, or let commands in), or that holds the MQTT password and others can read."""
    mode = stat.S_IMODE(os.stat(path).st_mode)
    if mode & 0o002:
        raise ConfigFileError(refusal("", f"every user can change it (mode {mode:04o}): chmod o-w {path}", str(path)))
    mqtt = raw.get("mqtt")
    if isinstance(mqtt, Mapping) and "password" in mqtt:
        why = exposure(path)
        if why is not None:
            raise ConfigFileError(refusal("mqtt.password", f"the file holds the password and other users can read it: "
                                          f"{why} (or move the password to mqtt.password_file)", str(path)))
