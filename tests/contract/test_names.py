"""Names compared as people read them (issue 37, row 8; docs/security.md, "Names as people read
them"): the four characters the issue found passing (a zero-width joiner between letters,
U+FE0F, U+034F, U+17B4) are refused, naming RFC 8266's rule, in every place a name or a message
comes from a person: a new match's sides (the table's match line), the table's configured
match, tonight's draw, the standings' players, a league's match-day file and the desk's
message. Real names pass; two names one person reads alike are one player. A log written
before, with such a name, still replays the same (the engine's check is the log's)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cueboard.common.errors import ConfigFileError, DrawError, FixtureError, MessageRefused
from cueboard.contract.names import RULE, NameRefused, comparable, nickname, same_player
from cueboard.engine import IllegalEvent, Match
from cueboard.league import match_day
from cueboard.table.config import load_config
from cueboard.table.message import parse_message
from cueboard.venue import desk_routes
from cueboard.venue.competition import from_draw
from tests.helpers.daemon import table_config

INVISIBLE = [
    pytest.param("An\u200dn", "zero_width_joiner", 3, id="zwj-between-letters"),
    pytest.param("Ann\ufe0f", "precis_ignorable_properties", 4, id="U+FE0F"),
    pytest.param("An\u034fn", "precis_ignorable_properties", 3, id="U+034F"),
    pytest.param("An\u17b4n", "precis_ignorable_properties", 3, id="U+17B4"),
]

REAL = ["O'Sullivan", "Ding Junhui", "丁俊晖", "Zoë", "Jean-Luc", "Ronnie O\u2019Sullivan", "José Muñoz",
        "Nguyễn Văn", "Ørsted", "D'Arcy-Smith", "赵心童", "Ali Çarter", "Łukasz", "Ann 🎱",
        "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647"]  # Persian: its zero-width non-joiner is the script's own


def _where(text: str, at: int) -> str:
    return f"(U+{ord(text[at - 1]):04X}) at {at}"


@pytest.mark.parametrize(("name", "rule", "at"), INVISIBLE)
def test_the_rule_refuses_each_invisible_character_naming_it(name: str, rule: str, at: int) -> None:
    with pytest.raises(NameRefused) as info:
        nickname(name, "side 1")
    words = str(info.value)
    assert words.startswith(f"{RULE}: side 1's name has ") and rule in words and _where(name, at) in words
    assert info.value.short == "nickname"


@pytest.mark.parametrize("name", REAL)
def test_real_names_pass_unchanged(name: str) -> None:
    assert nickname(name, "side 0") == name
    assert nickname(f"  {name}  ", "side 0") == name


@pytest.mark.parametrize(("a", "b"), [("Ann", "ANN"), ("Ann", "Ａｎｎ"), ("Zoë", "ZOË"), ("Ann Lee", "ann  lee")])
def test_names_one_person_reads_alike_are_one_player(a: str, b: str) -> None:
    assert same_player(a, b) and comparable(a) == comparable(b)
    assert not same_player("Ann", "Anne")


# -- a new match: the table's match line (the network's, the desk's hand-off) -------------------


def _setup(tmp_path: Path, *sides: Any) -> Any:
    return table_config(tmp_path).match_setup({"sides": list(sides)})


@pytest.mark.parametrize(("name", "rule", "at"), INVISIBLE)
def test_a_new_match_refuses_it_naming_the_side_and_the_rule(tmp_path: Path, name: str, rule: str, at: int) -> None:
    with pytest.raises(IllegalEvent) as info:
        _setup(tmp_path, "Bob", name)
    assert info.value.short == "match_setup"
    assert str(info.value).startswith(f"match: {RULE}: side 1's name has ") and rule in str(info.value)
    with pytest.raises(IllegalEvent, match="side 0 player 2's name"):
        _setup(tmp_path, ["Cy", name], ["Bob", "Dee"])


def test_a_new_match_cannot_have_one_player_twice(tmp_path: Path) -> None:
    for a, b in (("Ann", "ANN"), ("Ann", "Ａnn"), ("Zoë", "zoë")):
        with pytest.raises(IllegalEvent, match="is entered twice: the same player as side 0") as info:
            _setup(tmp_path, a, b)
        assert info.value.short == "match_setup" and RULE in str(info.value)
    with pytest.raises(IllegalEvent, match="one match cannot have both"):
        _setup(tmp_path, ["Ann", "Bob"], ["Cy", "bob"])


@pytest.mark.parametrize("name", REAL)
def test_a_new_match_takes_real_names_as_given(tmp_path: Path, name: str) -> None:
    assert _setup(tmp_path, name, "Bob").players == ((name,), ("Bob",))


def test_a_new_match_keeps_the_name_people_read(tmp_path: Path) -> None:
    """Width folded and spaces made one: the name kept is the one compared."""
    assert _setup(tmp_path, "Ｒｏｎｎｉｅ", "Ding\u3000 Junhui").names == ("Ronnie", "Ding Junhui")


@pytest.mark.parametrize(("name", "rule", "at"), INVISIBLE)
def test_the_configured_match_refuses_it_naming_the_file(tmp_path: Path, name: str, rule: str, at: int) -> None:
    """The keypad's new match is the configured one: checked when the configuration is read."""
    path = tmp_path / "cueboard.toml"
    path.write_text(f'[table]\nname = "t1"\n[match]\nsides = ["Ann", {json.dumps(name)}]\n')
    with pytest.raises(ConfigFileError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}: ") and RULE in str(info.value) and rule in str(info.value)


@pytest.mark.parametrize(("name", "rule", "at"), INVISIBLE)
def test_an_old_log_with_such_a_name_replays_the_same(name: str, rule: str, at: int) -> None:
    """The engine's own check (the log's) is as it was: a match begun before still replays."""
    line = {"type": "match", "game": "snooker", "sides": [name, "Bob"], "best_of": 3}
    match = Match.from_json(line)
    match.apply(match.parse({"type": "pot", "balls": ["red"], "t": 1.0}))
    assert match.state().to_json()["sides"][0]["name"] == name and match.seq == 1
    assert Match.from_json({**line, "sides": ["Ann", "Ann\ufe0f"]}).setup.names == ("Ann", "Ann\ufe0f")


# -- tonight's draw, the standings' players, a match day, a message ---------------------------


@pytest.mark.parametrize(("name", "rule", "at"), INVISIBLE)
def test_the_draw_refuses_it(name: str, rule: str, at: int) -> None:
    with pytest.raises(DrawError) as info:
        from_draw({"kind": "knockout", "name": "Cup", "players": [{"name": "Bob"}, {"name": name}]})
    assert str(info.value).startswith(f"{RULE}: player 2's name has ") and rule in str(info.value)
    assert desk_routes._short(info.value) == {"short": "nickname"}


def test_the_draw_cannot_have_one_player_twice() -> None:
    with pytest.raises(DrawError, match=r"player 3 \('ANN'\) is entered twice: the same player as player 1"):
        from_draw({"kind": "round_robin", "name": "Fri", "players": [{"name": n} for n in ("Ann", "Bob", "ANN")]})
    drawn = from_draw({"kind": "knockout", "name": "Cup", "players": [{"name": n} for n in REAL[:8]]})
    assert {s for m in drawn["matches"] for s in m["sides"] if s} == set(REAL[:8])


@pytest.mark.parametrize(("name", "rule", "at"), INVISIBLE)
def test_the_standings_players_refuse_it(name: str, rule: str, at: int) -> None:
    status, body = desk_routes._ranked(json.dumps({"players": ["Bob", name], "results": []}).encode())
    assert status == 422 and body["error"]["short"] == "nickname", body
    assert body["error"]["reason"].startswith(f"{RULE}: player 2's name has ") and rule in body["error"]["reason"]
    status, body = desk_routes._ranked(json.dumps({"players": ["Bob", "bob"], "results": []}).encode())
    assert status == 422 and "entered twice" in body["error"]["reason"] and body["error"]["short"] == "nickname"


@pytest.mark.parametrize(("name", "rule", "at"), INVISIBLE)
def test_a_match_day_file_refuses_it_naming_the_line(name: str, rule: str, at: int) -> None:
    data = f"competition,fixture,home,away\nL,F1,Bob,Cy\nL,F2,Dee,{name}\n".encode()
    with pytest.raises(FixtureError) as info:
        match_day.parse(data, name="day.csv")
    assert info.value.line == 3 and str(info.value).startswith(f"day.csv line 3: {RULE}: the away side's name has ")
    assert rule in str(info.value) and desk_routes._short(info.value) == {"short": "nickname"}
    with pytest.raises(FixtureError, match="is entered twice"):
        match_day.parse(b"competition,fixture,home,away\nL,F1,Ann,ANN\n", name="day.csv")
    fixtures = match_day.parse("competition,fixture,home,away\nL,F1,Zoë,丁俊晖\n".encode(), name="day.csv")
    assert fixtures[0].match_line()["sides"] == ["Zoë", "丁俊晖"]


@pytest.mark.parametrize(("name", "rule", "at"), INVISIBLE)
def test_a_desk_message_refuses_it(name: str, rule: str, at: int) -> None:
    text = f"Table 3: {name}, your match is next"
    with pytest.raises(MessageRefused) as info:
        parse_message(json.dumps({"schema": 1, "text": text, "until": None}).encode())
    assert str(info.value).startswith(f"message: {RULE}: the message's 'text' has ") and rule in str(info.value)
    assert _where(text, at + len("Table 3: ")) in str(info.value)


def test_a_desk_message_in_real_words_passes() -> None:
    for text in ("Zoë v 丁俊晖 on table 3 — 5 minutes", "O'Sullivan: your match is next 🎱"):
        message = parse_message(json.dumps({"schema": 1, "text": text, "until": None}).encode())
        assert message is not None and message.text == text


def test_a_megabyte_name_costs_nothing() -> None:
    with pytest.raises(NameRefused, match="1,000,000 characters; at most 1000 are read"):
        nickname("x" * 1_000_000, "side 0")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60) | st.sampled_from(["Ann\ufe0f", "A\u200dnn", "\u202eevil", "Ｆｕｌｌ", "丁俊晖"]))
def test_any_text_is_a_kept_name_or_refused_naming_the_rule(text: str) -> None:
    """Never another exception (nothing crashes the daemon), and a name kept is kept as it is
    the next time (enforcing is stable: RFC 8264's idempotence) and one player with itself."""
    try:
        name = nickname(text, "side 0")
    except NameRefused as exc:
        assert str(exc).startswith(f"{RULE}: ")
        return
    assert nickname(name, "side 0") == name and same_player(name, text)
