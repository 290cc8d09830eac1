"""The configuration is checked at start-up: a bad key stops it with the key and the file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import cueboard.table.config as config_module
from cueboard.common import errors
from cueboard.table.config import ConfigFileError, load_config
from tests.helpers.daemon import EXAMPLES


@pytest.mark.parametrize("name", ["snooker-table.toml", "blackball-table.toml"])
def test_the_example_configurations_load(name: str, tmp_path: Path) -> None:
    text = (EXAMPLES / name).read_text()
    (tmp_path / "keymaps").symlink_to(EXAMPLES / "keymaps")
    (tmp_path / "cueboard.toml").write_text(text)
    config = load_config(tmp_path / "cueboard.toml")
    assert config.table in ("table-1", "pool-1")
    assert config.referee_keymap == tmp_path / "keymaps" / config.referee_keymap.name
    assert config.match_setup().game in ("snooker", "blackball")


GOOD = """
[table]
venue = "v"
name = "t1"
"""


@pytest.mark.parametrize(("extra", "message"), [
    ("[jornal]\ndir = '/tmp'\n", "jornal: unknown key (the configuration takes: table, match, journal"),
    ("[journal]\ndri = '/tmp'\n", "journal.dri: unknown key (journal takes: dir)"),
    ("[control]\nsoket = 'c.sock'\n", "control.soket: unknown key (control takes: socket)"),
    ("[shot_clock]\nautomatic = true\n", "shot_clock.automatic: unknown key (shot_clock takes: auto)"),
    ("[commands]\nrates = 3\n", "commands.rates: unknown key (commands takes: rate, burst"),
    ("[keypad]\nprot = 'x'\n", "keypad.prot: unknown key (keypad takes: port, keymap)"),
    ("[match]\nbest_off = 3\n", "match: unknown field 'best_off'"),
    ("[match]\nbest_of = 4\n", "'best_of' must be odd"),
    ("[match]\ngame = 'pool'\n", "'game' must be one of"),
    ("[match]\nreds = 7\n", "'reds' must be 15, 10 or 6"),
    ("[shot_clock]\nauto = 'yes'\n", "shot_clock.auto: must be true or false"),
    ("[keypad]\nport = '/dev/ttyACM0'\n", "keypad: needs both 'port'"),
    ("[[referee_box]]\npins = [5, 6]\n", "referee_box[0].keymap: required"),
    ("[[referee_box]]\npins = [5, 5]\nkeymap = 'k.toml'\n", "listed twice"),
])
def test_a_bad_key_names_the_key_and_the_file(tmp_path: Path, extra: str, message: str) -> None:
    path = tmp_path / "cueboard.toml"
    path.write_text(GOOD + extra)
    with pytest.raises(ConfigFileError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}: ")
    assert message in str(info.value)


def test_the_table_name_is_required_and_fit_for_topics(tmp_path: Path) -> None:
    path = tmp_path / "cueboard.toml"
    path.write_text("[table]\nvenue = 'v'\n")
    with pytest.raises(ConfigFileError, match=r"table\.name: required"):
        load_config(path)
    path.write_text("[table]\nname = 'a/b'\n")
    with pytest.raises(ConfigFileError, match=r"table\.name: .a/b. is part of MQTT topics"):
        load_config(path)


def test_bad_toml_and_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "cueboard.toml"
    path.write_text("[table\n")
    with pytest.raises(ConfigFileError, match="not valid TOML"):
        load_config(path)
    with pytest.raises(ConfigFileError, match="cannot read"):
        load_config(tmp_path / "none.toml")


@pytest.mark.system
def test_cueboard_run_stops_with_status_2_naming_the_key(tmp_path: Path) -> None:
    path = tmp_path / "cueboard.toml"
    path.write_text(GOOD + "[journal]\ndri = '/tmp'\n")
    result = subprocess.run([sys.executable, "-m", "cueboard.cli", "run", "--config", str(path)],
                            capture_output=True, text=True, check=False, timeout=60)
    assert result.returncode == 2
    assert f"{path}: journal.dri: unknown key" in result.stderr


@pytest.mark.parametrize(("extra", "message"), [
    ("[mqtt]\nport = 0\n", "mqtt.port: must be a whole number from 1 to 65535, not 0"),
    ("[[display]]\ndevice = 'dummy'\nwidth = 8\nheight = 8\n[[display]]\ndevice = 'dummy'\nwidth = 8\n",
     "display[1].height: required (pixels)"),
    ("[[referee_box]]\npins = [5]\nkeymap = 'k.toml'\npullup = true\n",
     "referee_box[0].pullup: unknown key (a referee box takes: pins"),
])
def test_a_section_parsers_error_becomes_the_files(tmp_path: Path, extra: str, message: str) -> None:
    path = tmp_path / "cueboard.toml"
    path.write_text(GOOD + extra)
    with pytest.raises(ConfigFileError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}: {message}"), str(info.value)
    assert isinstance(info.value, errors.ConfigError) and isinstance(info.value, ValueError)


@pytest.mark.parametrize("bug", [ValueError("a bug: too many values to unpack"), OSError(5, "a bug's I/O")])
def test_a_bug_in_a_section_parser_is_not_a_config_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         bug: Exception) -> None:
    """Only the toolkit's errors become config errors: a bug keeps its traceback and its type."""
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise bug

    monkeypatch.setattr(config_module, "parse_displays", broken)
    path = tmp_path / "cueboard.toml"
    path.write_text(GOOD + "[display]\ndevice = 'dummy'\nwidth = 8\nheight = 8\n")
    with pytest.raises(type(bug)) as info:
        load_config(path)
    assert info.value is bug
    assert not isinstance(info.value, errors.CueboardError)


def test_a_keymap_that_cannot_be_read_names_its_file(tmp_path: Path) -> None:
    path = tmp_path / "cueboard.toml"
    keymap = tmp_path / "keypad.toml"
    path.write_text(GOOD + "[keypad]\nport = '/dev/ttyACM0'\nkeymap = 'keypad.toml'\n")
    with pytest.raises(ConfigFileError) as info:
        load_config(path)
    assert str(info.value) == f"{path}: {keymap}: cannot read: No such file or directory"
    keymap.write_bytes(b'game = "snooker"\ndescription = "caf\xe9"\n')  # Latin-1, not UTF-8
    with pytest.raises(ConfigFileError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}: {keymap}: cannot read: not UTF-8")


# -- the devices' keymaps fit the boxes and the table's game ---------------------------------


def _table(tmp_path: Path, extra: str) -> Path:
    (tmp_path / "keymaps").symlink_to(EXAMPLES / "keymaps")
    path = tmp_path / "cueboard.toml"
    path.write_text(GOOD + extra)
    return path


def test_a_referee_box_with_fewer_pins_than_its_keymap_has_keys(tmp_path: Path) -> None:
    path = _table(tmp_path, "[[referee_box]]\npins = [5, 6, 13, 19, 26, 12, 16, 20, 21, 4, 17]\n"
                            "keymap = 'keymaps/referee-box-12.toml'\n")
    with pytest.raises(ConfigFileError) as info:
        load_config(path)
    assert str(info.value) == (f"{path}: referee_box[0].pins: 11 pins for a keymap of 12 keys "
                               "(keymaps/referee-box-12.toml)")


def test_the_second_box_is_named_and_a_pin_too_many_is_refused_too(tmp_path: Path) -> None:
    pins = "[5, 6, 13, 19, 26, 12, 16, 20, 21, 4, 17, 27]"
    path = _table(tmp_path, f"[[referee_box]]\npins = {pins}\nkeymap = 'keymaps/referee-box-12.toml'\n"
                            "[[referee_box]]\npins = [2, 3, 7, 8, 9, 10, 11, 14, 15, 18, 22, 23, 24]\n"
                            "keymap = 'keymaps/referee-box-12.toml'\n")
    with pytest.raises(ConfigFileError, match=r"referee_box\[1\]\.pins: 13 pins for a keymap of 12 keys"):
        load_config(path)


@pytest.mark.parametrize(("extra", "message"), [
    ("[[referee_box]]\npins = [5, 6, 13, 19, 26, 12, 16, 20, 21, 4, 17, 27]\n"
     "keymap = 'keymaps/referee-box-12-blackball.toml'\n",
     "referee_box[0].keymap: keymaps/referee-box-12-blackball.toml is a blackball keymap and the table's "
     "[match] game is snooker"),
    ("[keypad]\nport = '/dev/cueboard-keypad'\nkeymap = 'keymaps/keypad-4x5-blackball.toml'\n",
     "keypad.keymap: keymaps/keypad-4x5-blackball.toml is a blackball keymap and the table's [match] game "
     "is snooker"),
    ("[match]\ngame = 'blackball'\nsides = ['A', 'B']\n[keypad]\nport = '/dev/cueboard-keypad'\n"
     "keymap = 'keymaps/keypad-4x5.toml'\n",
     "keypad.keymap: keymaps/keypad-4x5.toml is a snooker keymap and the table's [match] game is blackball"),
])
def test_a_keymap_of_the_other_game_is_refused(tmp_path: Path, extra: str, message: str) -> None:
    path = _table(tmp_path, extra)
    with pytest.raises(ConfigFileError) as info:
        load_config(path)
    assert str(info.value) == f"{path}: {message}"
