"""Names that cannot garble a board or a screen (docs/events.md, the match line's ``sides``).

A name is 1 to 40 characters once trimmed and NFC-normalised, with no control, line-break or
bidirectional-control character. Anything else is refused naming the side, and changes
nothing, on every path a name comes in by: the match line (the log, the control socket, the
MQTT command topic), ``cueboard match new`` and the table's configuration.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cueboard.engine import IllegalEvent, Match
from cueboard.table.config import ConfigFileError, load_config
from cueboard.table.daemon import ControlServer, Table
from tests.helpers.daemon import table_config
from tests.table.test_daemon import Running

BAD_NAMES = [
    pytest.param("x" * 41, "41 characters", id="41-characters"),
    pytest.param("y" * 2_000_000, "2000000 characters", id="two-megabytes"),
    pytest.param("Ann\nBob", "line break", id="line-break"),
    pytest.param("Ann\u2028Bob", "line break", id="line-separator"),
    pytest.param("Ann\tBob", "control character", id="tab"),
    pytest.param("Ann\x07", "control character", id="bell"),
    pytest.param("\u202eevil", "bidirectional control character (U+202E)", id="right-to-left-override"),
    pytest.param("\u2067Ann", "bidirectional control character (U+2067)", id="right-to-left-isolate"),
    pytest.param("   ", "empty name", id="blank"),
    # Issue 26: a look-alike "Ronnie" and a garbled name on every screen.
    pytest.param("Ron\u200bnie", "invisible character (U+200B)", id="zero-width-space"),
    pytest.param("\ufeffRonnie", "invisible character (U+FEFF)", id="byte-order-mark"),
    pytest.param("Ron\u2060nie", "invisible character (U+2060)", id="word-joiner"),
    pytest.param("Ronnie\u00ad", "invisible character (U+00AD)", id="soft-hyphen"),
    pytest.param("\u3164", "invisible character (U+3164)", id="hangul-filler"),
    pytest.param("\u200dRonnie", "zero-width joiner outside a word (U+200D)", id="joiner-at-the-start"),
    pytest.param("Q" + "\u0301" * 30 + "uinten", "30 combining marks on one letter", id="30-stacked-marks"),
    pytest.param("\u0301Ronnie", "combining mark on no letter", id="a-mark-on-nothing"),
    pytest.param("Ann\ue000", "no board or screen can show", id="private-use"),
]


def line(*sides: Any, game: str = "snooker") -> dict[str, Any]:
    return {"type": "match", "game": game, "sides": list(sides)}


@pytest.mark.parametrize(("name", "why"), BAD_NAMES)
@pytest.mark.parametrize("game", ["snooker", "blackball"])
def test_the_match_line_refuses_a_bad_name_naming_the_side(name: str, why: str, game: str) -> None:
    with pytest.raises(IllegalEvent) as info:
        Match.from_json(line("Ann", name, game=game))
    assert "side 1" in str(info.value) and why in str(info.value)
    assert len(str(info.value)) < 300  # the name itself is not echoed back


@pytest.mark.parametrize(("name", "why"), BAD_NAMES[:3])
def test_a_doubles_player_is_named_too(name: str, why: str) -> None:
    with pytest.raises(IllegalEvent, match=r"side 0 player 2's name|side 0 player 2 has") as info:
        Match.from_json(line(["A1", name], ["B1", "B2"]))
    assert why in str(info.value)


def test_a_good_name_is_trimmed_and_normalised() -> None:
    decomposed = "Jo\u0301zsef"  # o + combining acute: NFC makes it one character
    m = Match.from_json(line("  " + decomposed + " ", "赵心童"))
    assert m.state().to_json()["sides"][0]["name"] == "J\u00f3zsef"
    assert m.state().to_json()["sides"][1]["name"] == "赵心童"
    assert Match.from_json(line("x" * 40, "Bob")).state().to_json()["sides"][0]["name"] == "x" * 40


@pytest.mark.parametrize(("given", "shown"), [
    ("Ronnie\u00a0O'Sullivan", "Ronnie O'Sullivan"),  # a no-break space: a plain one
    ("Ronnie  \u3000 O'Sullivan", "Ronnie O'Sullivan"),  # one space between words
    ("Nguye\u0302\u0303n", "Nguy\u1ec5n"),  # Vietnamese's two accents on one letter: NFC makes one character
    ("\u0e01\u0e34\u0e48", "\u0e01\u0e34\u0e48"),  # Thai: a vowel and a tone mark on a letter
    ("\u05e9\u05c1\u05b8\u05bc", "\u05e9\u05b8\u05bc\u05c1"),  # Hebrew: three points on a letter (NFC's order)
    ("\u0645\u06cc\u200c\u062e\u0648\u0627\u0647", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647"),  # Persian ZWNJ
])
def test_names_read_the_same_everywhere(given: str, shown: str) -> None:
    """Spaces normalised, real scripts' marks and joiners kept (issue 26)."""
    assert Match.from_json(line(given, "Bob")).state().to_json()["sides"][0]["name"] == shown


@pytest.fixture
def table(tmp_path: Path) -> Any:
    t = Table(table_config(tmp_path))
    with Running(t) as running:
        yield running


@pytest.mark.parametrize(("name", "why"), BAD_NAMES)
def test_a_new_match_from_the_control_socket_or_mqtt_refuses_it(table: Running, name: str, why: str) -> None:
    before = table.send({"type": "state"})["state"]
    files = table.table.journal.matches()
    answer = table.send({"type": "match", "sides": ["Ann", name]}, source="command")
    assert answer["ok"] is False and "side 1" in answer["reason"] and why in answer["reason"]
    assert table.send({"type": "state"})["state"] == before
    assert table.table.journal.matches() == files  # no new journal file


@pytest.mark.system
@pytest.mark.parametrize(("name", "why"), [p for p in BAD_NAMES if p.id != "two-megabytes"])
def test_cueboard_match_new_refuses_it(tmp_path: Path, name: str, why: str) -> None:
    config = table_config(tmp_path)
    t = Table(config)
    with Running(t):
        server = ControlServer(config.control_socket, t)
        server.start()
        try:
            result = subprocess.run([sys.executable, "-m", "cueboard.cli", "match", "new", "--socket",
                                     str(config.control_socket), "--sides", "Ann", name],
                                    capture_output=True, text=True, timeout=120, check=False)
        finally:
            server.stop()
    assert result.returncode == 2, result.stderr
    assert "refused" in result.stderr and "side 1" in result.stderr and why in result.stderr


@pytest.mark.parametrize(("name", "why"), [p for p in BAD_NAMES if len(p.values[0]) < 100])
def test_the_configuration_refuses_it_naming_the_file(tmp_path: Path, name: str, why: str) -> None:
    path = tmp_path / "cueboard.toml"
    # JSON's string escapes (\\n, \\t, \\uXXXX) are TOML's too.
    path.write_text(f'[table]\nname = "t1"\n[match]\nsides = ["Ann", {json.dumps(name)}]\n')
    with pytest.raises(ConfigFileError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}: ") and "side 1" in str(info.value) and why in str(info.value)
