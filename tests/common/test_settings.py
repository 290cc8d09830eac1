"""The configuration toolkit (cueboard.common.settings) and the error hierarchy (cueboard.common.errors):
every getter's refusals, unknown keys, and one message shape for every section."""

from __future__ import annotations

import doctest
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import cueboard.common.errors
import cueboard.common.settings
from cueboard.common.errors import ConfigError, ConfigFileError, CueboardError
from cueboard.common.settings import REQUIRED, Required, Section, key_path, refusal
from cueboard.engine import IllegalEvent
from cueboard.hw.buttons import BoxConfigError, parse_boxes
from cueboard.hw.display_config import DisplayConfigError, parse_display
from cueboard.table.keymap import Keymap, KeymapError
from cueboard.table.mqtt.feed import MqttConfigError, parse_mqtt


class BoardError(ConfigError):
    """A section's own error class, as each parser has one."""


def section(**table: Any) -> Section:
    return Section(table, "board", error=BoardError, kind="a board")


def refused(call: Callable[[], object]) -> str:
    """The message of the BoardError ``call`` raises."""
    with pytest.raises(BoardError) as info:
        call()
    return str(info.value)


@pytest.mark.parametrize("module", [cueboard.common.settings, cueboard.common.errors])
def test_docstring_examples(module: Any) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# -- the error hierarchy ------------------------------------------------------------------


@pytest.mark.parametrize("error", [ConfigFileError, KeymapError, MqttConfigError, DisplayConfigError,
                                   BoxConfigError])
def test_every_specific_error_is_a_config_error_a_cueboard_error_and_a_value_error(error: type) -> None:
    assert issubclass(error, ConfigError)
    assert issubclass(error, CueboardError)
    assert issubclass(error, ValueError)
    assert error is not ConfigError


def test_the_engine_keeps_its_own_error() -> None:
    """The engine is pure and imports nothing of cueboard outside engine/ (cueboard/common/errors.py)."""
    assert issubclass(IllegalEvent, ValueError)
    assert not issubclass(IllegalEvent, CueboardError)


@pytest.mark.parametrize(("parse", "error", "message"), [
    (lambda: parse_display({"device": "dummy", "width": 0, "height": 8}), DisplayConfigError,
     "display.width: must be a whole number from 1 to 4096, not 0"),
    (lambda: parse_boxes([{"pins": [5], "hold_time": -1}]), BoxConfigError,
     "referee_box[0].hold_time: must be a number of seconds above 0, not -1"),
    (lambda: parse_mqtt({"keepalive": 1}, venue="v", table="t"), MqttConfigError,
     "mqtt.keepalive: must be a whole number from 5 to 65535, not 1"),
    (lambda: Keymap.from_toml('game = "snooker"\nlayout = [["UNDO"]]\ntimeout = -1', "k.toml"), KeymapError,
     "k.toml: timeout: must be a number of seconds above 0, not -1"),
])
def test_every_parser_raises_its_own_error_in_the_one_shape(parse: Callable[[], object], error: type,
                                                            message: str) -> None:
    with pytest.raises(error) as info:
        parse()
    assert str(info.value) == message


# -- the message shape ----------------------------------------------------------------------


def test_the_message_names_the_file_the_section_and_the_key() -> None:
    assert key_path("referee_box[0]", "pins[1]") == "referee_box[0].pins[1]"
    assert key_path("display", "[1]") == "display[1]"
    assert refusal("mqtt.port", "must be ...") == "mqtt.port: must be ..."
    assert refusal("", "cannot read: No such file or directory", "k.toml") == \
        "k.toml: cannot read: No such file or directory"
    s = Section({"port": 0}, "mqtt", error=BoardError, source="cueboard.toml")
    assert refused(lambda: s.getint("port", minval=1)) == \
        "cueboard.toml: mqtt.port: must be a whole number from 1, not 0"
    assert str(s.fail(None, "needs a host")) == "cueboard.toml: mqtt: needs a host"
    top = Section({"timeout": "x"}, error=BoardError, source="k.toml")
    assert refused(lambda: top.getfloat("timeout")) == "k.toml: timeout: must be a number, not 'x'"


def test_a_section_is_a_table() -> None:
    with pytest.raises(BoardError, match=r"^board: must be a table, not \[1, 2\]$"):
        Section([1, 2], "board", error=BoardError)
    assert isinstance(Section({}).fail("x", "y"), ConfigError)  # the root class by default


# -- the getters ----------------------------------------------------------------------------


def test_a_required_key_says_what_to_give() -> None:
    s = section()
    assert refused(lambda: s.getint("width")) == "board.width: required"
    assert refused(lambda: s.getint("width", REQUIRED)) == "board.width: required"
    assert refused(lambda: s.getstr("name", Required('e.g. "hall"'))) == 'board.name: required (e.g. "hall")'
    assert refused(lambda: s.getchoice("mode", ("1", "RGB"))) == "board.mode: required (one of '1', 'RGB')"
    assert refused(lambda: s.getsection("spi")) == "board.spi: required"
    assert refused(lambda: s.get("raw")) == "board.raw: required"


def test_a_default_is_returned_as_it_is() -> None:
    s = section()
    assert s.getint("width", 0, minval=1) == 0  # not checked: a default is the program's own
    assert s.getint("width", None) is None
    assert s.getfloat("speed", 2) == 2
    assert s.getbool("on", True) is True
    assert s.getstr("name", "") == ""
    assert s.getchoice("mode", ("1", "RGB"), None) is None
    assert s.getlist("pins", None) is None
    assert s.get("raw", 7) == 7


def test_getstr() -> None:
    s = section(name="hall", blank="  ", empty="", number=7)
    assert s.getstr("name") == "hall"
    assert refused(lambda: s.getstr("blank")) == "board.blank: must be a non-empty string, not '  '"
    assert refused(lambda: s.getstr("empty")) == "board.empty: must be a non-empty string, not ''"
    assert s.getstr("empty", empty=True) == ""
    assert refused(lambda: s.getstr("number", empty=True)) == "board.number: must be a string, not 7"


@pytest.mark.parametrize(("value", "minval", "maxval", "reason"), [
    (True, None, None, "must be a whole number, not True"),
    (2.0, None, None, "must be a whole number, not 2.0"),
    ("2", None, None, "must be a whole number, not '2'"),
    (0, 1, 65535, "must be a whole number from 1 to 65535, not 0"),
    (65536, 1, 65535, "must be a whole number from 1 to 65535, not 65536"),
    (-1, 0, None, "must be a whole number from 0, not -1"),
    (10, None, 9, "must be a whole number up to 9, not 10"),
])
def test_getint_refuses(value: Any, minval: int | None, maxval: int | None, reason: str) -> None:
    s = section(n=value)
    assert refused(lambda: s.getint("n", minval=minval, maxval=maxval)) == f"board.n: {reason}"


def test_getint_takes_its_bounds() -> None:
    s = section(low=1, high=65535)
    assert s.getint("low", minval=1, maxval=65535) == 1
    assert s.getint("high", minval=1, maxval=65535) == 65535


@pytest.mark.parametrize(("value", "bounds", "reason"), [
    (False, {}, "must be a number, not False"),
    ("1", {}, "must be a number, not '1'"),
    (math.nan, {}, "must be a number, not nan"),
    (0, {"above": 0}, "must be a number above 0, not 0"),
    (-0.5, {"minval": 0}, "must be a number from 0, not -0.5"),
    (1.5, {"minval": 0, "maxval": 1}, "must be a number from 0 to 1, not 1.5"),
    (3, {"above": 0, "maxval": 2.5}, "must be a number above 0 up to 2.5, not 3"),
    (0, {"above": 0, "unit": "seconds"}, "must be a number of seconds above 0, not 0"),
])
def test_getfloat_refuses(value: Any, bounds: dict[str, Any], reason: str) -> None:
    s = section(x=value)
    assert refused(lambda: s.getfloat("x", **bounds)) == f"board.x: {reason}"


def test_getfloat_takes_whole_numbers_and_its_bounds() -> None:
    s = section(whole=2, zero=0, tiny=1e-9)
    assert s.getfloat("whole") == 2.0 and isinstance(s.getfloat("whole"), float)
    assert s.getfloat("zero", minval=0) == 0.0
    assert s.getfloat("tiny", above=0) == 1e-9


def test_getbool() -> None:
    s = section(on=True, yes="yes", one=1)
    assert s.getbool("on") is True
    assert refused(lambda: s.getbool("yes")) == "board.yes: must be true or false, not 'yes'"
    assert refused(lambda: s.getbool("one")) == "board.one: must be true or false, not 1"


def test_getchoice() -> None:
    s = section(wiring="rows", bad="diagonal", angle=90.0, text="90", yes=True, one=1)
    assert s.getchoice("wiring", ("rows", "columns")) == "rows"
    assert refused(lambda: s.getchoice("bad", ("rows", "columns"))) == \
        "board.bad: must be one of 'rows', 'columns', not 'diagonal'"
    angle = s.getchoice("angle", (0, 90, -90, 180))
    assert angle == 90 and isinstance(angle, int)  # the choice itself
    assert refused(lambda: s.getchoice("text", (0, 90))) == "board.text: must be one of 0, 90, not '90'"
    assert refused(lambda: s.getchoice("yes", (0, 1))) == "board.yes: must be one of 0, 1, not True"
    assert refused(lambda: s.getchoice("one", (True, False))) == "board.one: must be one of True, False, not 1"


def test_getpath(tmp_path: Path) -> None:
    s = section(rel="journal", abs="/var/lib/x", home="~/x", empty="", number=3)
    assert s.getpath("rel", base=tmp_path) == tmp_path / "journal"
    assert s.getpath("abs", base=tmp_path) == Path("/var/lib/x")
    assert s.getpath("home", base=tmp_path) == Path.home() / "x"
    assert s.getpath("rel") == Path("journal")
    assert s.getpath("absent", "keymaps/k.toml", base=tmp_path) == tmp_path / "keymaps" / "k.toml"
    assert s.getpath("absent", None, base=tmp_path) is None
    assert refused(lambda: s.getpath("empty")) == "board.empty: must be a path, not ''"
    assert refused(lambda: s.getpath("number")) == "board.number: must be a path, not 3"


def test_getlist() -> None:
    s = section(pins=[5, 6], frozen=(5, 6), text="5,6")
    assert s.getlist("pins") == [5, 6]
    assert s.getlist("frozen") == [5, 6]  # a dataclass's tuple, checked the same way
    assert refused(lambda: s.getlist("text", of="GPIO pins")) == "board.text: must be a list of GPIO pins, not '5,6'"
    assert refused(lambda: s.getlist("text")) == "board.text: must be a list, not '5,6'"


def test_getsection_names_its_keys_by_their_path() -> None:
    s = Section({"tls": {"ca": ""}, "spi": 3}, "mqtt", error=BoardError, source="c.toml")
    tls = s.getsection("tls", kind="mqtt's TLS")
    assert (tls.path, tls.error, tls.source, tls.kind) == ("mqtt.tls", BoardError, "c.toml", "mqtt's TLS")
    assert refused(lambda: tls.getstr("ca")) == "c.toml: mqtt.tls.ca: must be a non-empty string, not ''"
    assert refused(lambda: s.getsection("spi")) == "c.toml: mqtt.spi: must be a table, not 3"
    empty = s.getsection("absent", {})
    assert empty.path == "mqtt.absent" and not empty.raw
    assert s.getsection("absent", None) is None


# -- unknown keys ---------------------------------------------------------------------------


def test_a_key_no_getter_asked_for_is_refused_naming_what_the_section_takes() -> None:
    s = section(width=8, hieght=8)
    s.getint("width")
    s.getint("height", None)  # absent, but taken: it is listed
    s.getstr("name", "")
    assert refused(s.check_unused) == "board.hieght: unknown key (a board takes: width, height, name)"


def test_an_unknown_key_can_say_whose_it_is() -> None:
    s = section(wiring="rows")
    s.getint("cascaded", None)
    message = refused(lambda: s.check_unused(hint=lambda key: "it is a key of ws2812 boards"))
    assert message == "board.wiring: unknown key; it is a key of ws2812 boards (a board takes: cascaded)"


def test_check_unused_passes_when_every_key_was_read() -> None:
    s = section(a=1, hold={"FOUL": "MISS"})
    s.getint("a")
    assert dict(s.getsection("hold").items()) == {"FOUL": "MISS"}
    s.check_unused()
    assert "a" in s and "b" not in s


def test_items_take_every_key_and_a_section_with_no_getter_takes_nothing() -> None:
    s = section(x=1, y=2)
    assert list(s.items()) == [("x", 1), ("y", 2)]
    s.check_unused()
    assert refused(section(x=1).check_unused) == "board.x: unknown key (a board takes: nothing)"


def test_one_check_on_the_root_refuses_an_unknown_key_anywhere_in_the_file() -> None:
    """Klipper's check_unused_options: every option read is recorded, through the sub-tables
    read with getsection; one check at the end covers the whole file, sub-tables first."""
    root = Section({"a": {"b": {"typo": 1, "ok": 2}}, "c": 3}, error=BoardError, kind="the file")
    b = root.getsection("a").getsection("b")
    assert b.getint("ok") == 2 and root.getint("c") == 3
    assert refused(root.check_unused) == "a.b.typo: unknown key (a.b takes: ok)"
    assert refused(Section({"x": {}, "y": 1}, error=BoardError, kind="the file").check_unused) == \
        "x: unknown key (the file takes: nothing)"
    clean = Section({"a": {"k": 1}})
    assert clean.getsection("a").getint("k") == 1
    clean.check_unused()  # nothing unread: nothing refused
