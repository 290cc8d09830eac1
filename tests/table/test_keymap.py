"""Keymaps: key sequences become events the engine accepts; bad sequences are refused with a reason.

The default keymaps are the files of examples/keymaps/, read as the daemon reads them.
Keys are named here by what their key of the layout says ("FOUL", "5"); ``"FOUL~"`` is
FOUL pressed and held (two reports, as every device sends them: cueboard.hw.keys).
"""

from __future__ import annotations

import doctest
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import keymap_pictures
import pytest

from cueboard.engine import GAMES, Event, Match, to_json
from cueboard.engine.state import State
from cueboard.games import key_sequences
from cueboard.games.key_sequences import ClockCommand, NewMatch
from cueboard.hw.keys import ButtonPress, KeyPress
from cueboard.table import keymap as keymap_module
from cueboard.table.keymap import Entry, Keymap, KeymapError, Lapse, Pending, Refusal, load_keymap

# The events a key can make: every event of the game but the table's light, which the match or the
# desk switches, never a key (docs/hardware.md "The table's light").
KEYED = {game: set(GAMES[game].events) - {"light"} for game in ("snooker", "blackball")}

ROOT = Path(__file__).resolve().parents[2]
KEYMAPS = ROOT / "examples" / "keymaps"

needs_blackball = pytest.mark.skipif(
    "blackball" not in GAMES, reason="the blackball engine (engine/blackball/) is not registered yet")


def keymap(name: str) -> Keymap:
    return load_keymap(KEYMAPS / name)


def index_of(km: Keymap, name: str) -> int:
    """The key whose layout entry is ``name`` (the first, if several)."""
    for i in range(km.size):
        if km.action(i) == name:
            return i
    raise AssertionError(f"no key {name!r} on the keymap")


def presses(km: Keymap, keys: Sequence[str]) -> list[KeyPress]:
    out: list[KeyPress] = []
    for name in keys:
        held = name.endswith("~")
        i = index_of(km, name.rstrip("~"))
        out.append(KeyPress(i))
        if held:
            out.append(KeyPress(i, held=True))
    return out


def line(outcome: object) -> object:
    """A finished call as the journal writes it: an engine event's JSON (the keymap makes typed
    events, never a dict); anything else (Pending, Refusal, a command for the daemon) as it is."""
    assert not isinstance(outcome, dict), outcome
    return to_json(outcome) if isinstance(outcome, Event) else outcome


def keyed(entry: Entry, state: State, keys: Sequence[str]) -> Any:
    """Feed the keys; every key but the last must leave the sequence pending. The last outcome."""
    outcome: Any = None
    feed = presses(entry.keymap, keys)
    for n, press in enumerate(feed):
        outcome = entry.feed(press, state)
        if n < len(feed) - 1:
            assert isinstance(outcome, Pending), (keys, n, outcome)
    return outcome


def key_in(entry: Entry, state: State, keys: Sequence[str]) -> Any:
    """:func:`keyed`, a finished event as its JSON."""
    return line(keyed(entry, state, keys))


def match(game: str = "snooker", events: Sequence[dict[str, Any]] = (), **setup: Any) -> Match:
    line = {"type": "match", "game": game, "sides": ["Ann", "Bob"], "best_of": 3, **setup}
    m = Match.from_json(line)
    for e in events:
        m.apply(m.parse(e))
    return m


def play(m: Match, km: Keymap, keys: Sequence[str]) -> dict[str, Any]:
    """Key the sequence in on a fresh Entry; the engine must accept the typed event it makes,
    as it is. Its JSON (the journal's line) is what is returned."""
    event = keyed(Entry(km), m.state(), keys)
    assert isinstance(event, Event), (keys, event)
    m.apply(event)  # IllegalEvent here fails the test
    return to_json(event)


# -- positions to key in from ------------------------------------------------------------------

POT_RED = {"type": "pot", "balls": ["red"]}
SIX_REDS_CLEARED = [e for _ in range(6) for e in (POT_RED, {"type": "pot", "balls": ["black"]})] + [
    {"type": "pot", "balls": [c]} for c in ("yellow", "green", "brown", "blue", "pink")]
"""Six reds, each with the black, and the colours to the pink: 68 points, only the black left."""


def respotted_black(**setup: Any) -> Match:
    """A tie on the last black: 68 - 61 (handicap), then the trailing side pots the black."""
    return match(reds=6, handicap=[0, 61], events=[
        *SIX_REDS_CLEARED, {"type": "no_pot"}, {"type": "pot", "balls": ["black"]}], **setup)


DOUBLES: dict[str, Any] = {"sides": [["A1", "A2"], ["B1", "B2"]]}

# (what it shows, match set-up, events before, keys, the event it must make)
SNOOKER_KEYPAD: list[tuple[str, dict[str, Any], list[dict[str, Any]], list[str], dict[str, Any]]] = [
    ("pot a red", {}, [], ["1"], POT_RED),
    ("pot a colour", {}, [POT_RED], ["6"], {"type": "pot", "balls": ["pink"]}),
    ("several reds", {}, [], ["PLUS", "1", "1", "1", "PLUS"], {"type": "pot", "balls": ["red"] * 3}),
    ("free ball", {}, [{"type": "foul", "points": 4, "free_ball": True}], ["FREE_BALL"],
     {"type": "pot", "balls": ["free"]}),
    ("free ball and a red", {}, [{"type": "foul", "points": 4, "free_ball": True}],
     ["PLUS", "FREE_BALL", "1", "OK"], {"type": "pot", "balls": ["free", "red"]}),
    ("no pot", {}, [], ["NO_POT"], {"type": "no_pot"}),
    ("foul 4", {}, [], ["FOUL", "1"], {"type": "foul", "points": 4}),
    ("foul 7", {}, [], ["FOUL", "7"], {"type": "foul", "points": 7}),
    ("foul and a miss", {}, [], ["MISS", "5"], {"type": "foul", "points": 5, "miss": True}),
    ("free ball call", {}, [], ["FOUL", "FREE_BALL", "4"], {"type": "foul", "points": 4, "free_ball": True}),
    ("reds off in a foul", {}, [], ["FOUL", "PLUS", "1", "1", "PLUS", "6"],
     {"type": "foul", "points": 6, "reds_off": 2}),
    ("all of a foul", {}, [], ["MISS", "FREE_BALL", "PLUS", "1", "7"],
     {"type": "foul", "points": 7, "reds_off": 1, "miss": True, "free_ball": True}),
    ("play again", {}, [{"type": "foul", "points": 4}], ["PLAY_AGAIN"], {"type": "play_again"}),
    ("replace", {}, [{"type": "foul", "points": 4, "miss": True}], ["REPLACE"], {"type": "replace"}),
    ("concede", {}, [], ["SHIFT", "NO_POT"], {"type": "concede"}),
    ("concede the match", {}, [], ["SHIFT", "MISS", "SHIFT", "NO_POT"], {"type": "concede", "match": True}),
    ("claim", {"reds": 6}, SIX_REDS_CLEARED, ["SHIFT", "OK"], {"type": "claim"}),
    ("award", {}, [], ["SHIFT", "FOUL", "2"], {"type": "award", "side": 1}),
    ("award the match", {}, [], ["SHIFT", "MISS", "SHIFT", "FOUL", "1"],
     {"type": "award", "side": 0, "match": True}),
    ("rerack", {}, [POT_RED], ["SHIFT", "CLEAR"], {"type": "rerack"}),
    ("order", DOUBLES, [], ["SHIFT", "PLUS", "2", "3", "1", "4"],
     {"type": "order", "players": ["A2", "B1", "A1", "B2"]}),
    ("next frame", {}, [{"type": "concede"}], ["NEXT_FRAME"], {"type": "next_frame"}),
    ("frame started by the wrong side (Section 3 Rule 3(d))", {}, [], ["SHIFT", "PLAY_AGAIN", "2"],
     {"type": "started_by", "side": 1}),
    ("undo", {}, [POT_RED], ["UNDO"], {"type": "undo"}),
    ("redo", {}, [POT_RED, {"type": "undo"}], ["REDO"], {"type": "redo"}),
]


@pytest.mark.parametrize(("what", "setup", "before", "keys", "expected"), SNOOKER_KEYPAD,
                         ids=[c[0] for c in SNOOKER_KEYPAD])
def test_snooker_keypad_sequences_make_events_the_engine_accepts(
        what: str, setup: dict[str, Any], before: list[dict[str, Any]], keys: list[str],
        expected: dict[str, Any]) -> None:
    assert play(match(events=before, **setup), keymap("keypad-4x5.toml"), keys) == expected


def test_respotted_black_from_the_keypad() -> None:
    m = respotted_black()
    assert m.state().to_json()["respotted_black"] and m.state().to_json()["striker"] is None
    event = play(m, keymap("keypad-4x5.toml"), ["SHIFT", "7", "2"])
    assert event == {"type": "respotted_black", "striker": 1}
    assert m.state().to_json()["player"] == "Bob"


def test_respotted_black_in_doubles_names_the_player() -> None:
    m = respotted_black(**DOUBLES)
    event = play(m, keymap("keypad-4x5.toml"), ["SHIFT", "7", "4"])
    assert event == {"type": "respotted_black", "striker": 1, "player": "B2"}
    assert m.state().to_json()["player"] == "B2"


def test_every_snooker_event_is_reachable_from_the_keypad() -> None:
    made = {expected["type"] for *_, expected in SNOOKER_KEYPAD} | {"respotted_black"}
    assert made == KEYED["snooker"]


BLACKBALL_KEYPAD: list[tuple[str, list[dict[str, Any]], list[str], dict[str, Any]]] = [
    ("pot on the break", [], ["RED"], {"type": "pot", "balls": ["red"]}),
    ("pot several", [], ["PLUS", "RED", "YELLOW", "RED", "PLUS"],
     {"type": "pot", "balls": ["red", "yellow", "red"]}),
    ("no pot", [], ["NO_POT"], {"type": "no_pot"}),
    ("illegal break", [], ["ILLEGAL_BREAK"], {"type": "no_pot", "legal": False}),
    ("foul", [{"type": "no_pot"}], ["FOUL", "FOUL"], {"type": "foul"}),
    ("foul with balls down", [{"type": "no_pot"}], ["FOUL", "YELLOW", "RED", "OK"],
     {"type": "foul", "balls": ["yellow", "red"]}),
    ("shot clock foul", [{"type": "no_pot"}], ["TIME"], {"type": "foul", "reason": "time"}),
    ("loss", [{"type": "no_pot"}], ["LOSS"], {"type": "loss"}),
    ("concede", [], ["CONCEDE"], {"type": "concede"}),
    ("concede the match", [], ["SHIFT", "CONCEDE", "CONCEDE"], {"type": "concede", "match": True}),
    ("award", [], ["AWARD", "2"], {"type": "award", "side": 1}),
    ("award the match", [], ["SHIFT", "CONCEDE", "AWARD", "1"], {"type": "award", "side": 0, "match": True}),
    ("rerack", [{"type": "no_pot"}], ["RERACK", "OK"], {"type": "rerack"}),
    ("rerack, the lag winner breaks", [{"type": "no_pot"}], ["RERACK", "2"],
     {"type": "rerack", "breaker": 1}),
    ("nine-ball rerack", [{"type": "no_pot"}], ["SHIFT", "RERACK", "1"],
     {"type": "rerack", "breaker": 0, "nine_ball": True}),
    ("next frame", [{"type": "concede"}], ["NEXT_FRAME"], {"type": "next_frame"}),
    ("touching ball (rule 4i)", [{"type": "no_pot"}], ["SHIFT", "PLUS", "YELLOW"],
     {"type": "touching", "ball": "yellow"}),
    ("hold the clock (rule 8a)", [{"type": "no_pot"}], ["SHIFT", "OK"], {"type": "clock_hold"}),
    ("resume the clock (rule 8a)", [{"type": "no_pot"}, {"type": "clock_hold"}], ["SHIFT", "CLEAR"],
     {"type": "clock_resume"}),
    ("undo", [{"type": "no_pot"}], ["UNDO"], {"type": "undo"}),
    ("redo", [{"type": "no_pot"}, {"type": "undo"}], ["REDO"], {"type": "redo"}),
]


@needs_blackball
@pytest.mark.parametrize(("what", "before", "keys", "expected"), BLACKBALL_KEYPAD,
                         ids=[c[0] for c in BLACKBALL_KEYPAD])
def test_blackball_keypad_sequences_make_events_the_engine_accepts(
        what: str, before: list[dict[str, Any]], keys: list[str], expected: dict[str, Any]) -> None:
    m = match("blackball", before)
    assert play(m, keymap("keypad-4x5-blackball.toml"), keys) == expected


@needs_blackball
def test_every_blackball_event_is_reachable_from_the_keypad() -> None:
    made = {expected["type"] for *_, expected in BLACKBALL_KEYPAD}
    assert made == KEYED["blackball"]


# -- the referee box: the common calls in one or two presses ---------------------------------

BOX = "referee-box-12.toml"
SNOOKER_BOX: list[tuple[str, list[dict[str, Any]], list[str], dict[str, Any]]] = [
    *[(f"pot the {b}", [POT_RED], [b.upper()], {"type": "pot", "balls": [b]})
      for b in ("yellow", "green", "brown", "blue", "pink", "black")],
    ("pot a red", [], ["RED"], POT_RED),
    ("free ball", [{"type": "foul", "points": 4, "free_ball": True}], ["FREE_BALL"],
     {"type": "pot", "balls": ["free"]}),
    ("no pot", [], ["NO_POT"], {"type": "no_pot"}),
    *[(f"foul {p}", [], ["FOUL", ball], {"type": "foul", "points": p})
      for ball, p in (("RED", 4), ("BROWN", 4), ("BLUE", 5), ("PINK", 6), ("BLACK", 7))],
    ("foul and a miss", [], ["FOUL~", "BLUE"], {"type": "foul", "points": 5, "miss": True}),
    ("free ball call", [], ["FREE_BALL", "GREEN"], {"type": "foul", "points": 4, "free_ball": True}),
    ("undo", [POT_RED], ["UNDO"], {"type": "undo"}),
]


@pytest.mark.parametrize(("what", "before", "keys", "expected"), SNOOKER_BOX, ids=[c[0] for c in SNOOKER_BOX])
def test_common_calls_are_one_or_two_presses_of_the_referee_box(
        what: str, before: list[dict[str, Any]], keys: list[str], expected: dict[str, Any]) -> None:
    assert len(keys) <= 2
    assert play(match(events=before), keymap(BOX), keys) == expected


def test_several_reds_and_reds_off_from_the_referee_box() -> None:
    m = match()
    # + is SHIFT RED on the box.
    assert play(m, keymap(BOX), ["SHIFT", "RED", "RED", "RED", "SHIFT", "RED"]) == {
        "type": "pot", "balls": ["red", "red"]}
    m = match()
    # The first ball that is not a red closes the + and sets the penalty.
    assert play(m, keymap(BOX), ["FOUL", "SHIFT", "RED", "RED", "RED", "BLUE"]) == {
        "type": "foul", "points": 5, "reds_off": 2}
    assert m.state().to_json()["reds"] == 13


def test_free_ball_and_the_ball_on_together_from_the_referee_box() -> None:
    m = match(events=[*[e for _ in range(15) for e in (POT_RED, {"type": "pot", "balls": ["black"]})],
                      {"type": "foul", "points": 4, "free_ball": True}])
    assert m.state().to_json()["ball_on"] == "yellow"
    assert play(m, keymap(BOX), ["SHIFT", "RED", "FREE_BALL", "YELLOW", "SHIFT", "RED"]) == {
        "type": "pot", "balls": ["free", "yellow"]}


@needs_blackball
def test_blackball_referee_box() -> None:
    km = keymap("referee-box-12-blackball.toml")
    m = match("blackball")
    assert play(m, km, ["NO_POT"]) == {"type": "no_pot"}
    assert play(m, km, ["FOUL", "RED", "FOUL"]) == {"type": "foul", "balls": ["red"]}
    assert play(m, km, ["YELLOW"]) == {"type": "pot", "balls": ["yellow"]}
    assert play(m, km, ["UNDO"]) == {"type": "undo"}
    assert play(m, km, ["TIME"]) == {"type": "foul", "reason": "time"}


def test_a_button_press_feeds_the_keymap_like_a_key_press() -> None:
    km = keymap(BOX)
    entry = Entry(km)
    state = match().state()
    assert line(entry.feed(ButtonPress(box=1, button=index_of(km, "RED")), state)) == POT_RED


# -- the free ball key reads the state ---------------------------------------------------------


def test_free_ball_key_pots_the_free_ball_only_when_one_is_to_be_taken() -> None:
    km = keymap(BOX)
    offered = match(events=[{"type": "foul", "points": 4, "free_ball": True}]).state()
    assert offered.free_ball is True
    assert key_in(Entry(km), offered, ["FREE_BALL"]) == {"type": "pot", "balls": ["free"]}
    not_offered = match().state()
    assert key_in(Entry(km), not_offered, ["FREE_BALL"]) == Pending(
        ("FREE BALL",), "the ball that sets the penalty (4 to 7)")
    # A striker who has a free ball and fouls: FOUL first makes FREE BALL a call again.
    assert key_in(Entry(km), offered, ["FOUL", "FREE_BALL", "PINK"]) == {
        "type": "foul", "points": 6, "free_ball": True}


# -- refusals: a reason, a beep, and nothing changed --------------------------------------------


def refused(entry: Entry, state: State, key: str) -> str:
    before = entry.pending
    outcome = entry.feed(KeyPress(index_of(entry.keymap, key)), state)
    assert isinstance(outcome, Refusal), outcome
    assert entry.pending == before, "a refused key must leave the sequence as it was"
    return outcome.reason


def test_a_foul_needs_its_ball_and_says_which_rule() -> None:
    entry, state = Entry(keymap("keypad-4x5.toml")), match().state()
    key_in(entry, state, ["FOUL", "MISS"])
    reason = refused(entry, state, "NO_POT")
    assert reason.startswith("FOUL MISS NO POT: ")
    assert "Section 3 Rule 10" in reason
    assert refused(entry, state, "OK").startswith("FOUL MISS OK: ")
    # The sequence is still there: the right key finishes it.
    four = KeyPress(index_of(entry.keymap, "4"))
    assert line(entry.feed(four, state)) == {"type": "foul", "points": 4, "miss": True}


def test_sequences_that_make_no_event_are_refused_never_guessed() -> None:
    km = keymap("keypad-4x5.toml")
    state = match().state()
    entry = Entry(km)
    key_in(entry, state, ["PLUS"])
    assert "balls potted" in refused(entry, state, "PLUS")
    assert "only the balls potted" in refused(entry, state, "NO_POT")
    entry = Entry(km)
    key_in(entry, state, ["SHIFT", "FOUL"])
    assert "1 or 2, not 3" in refused(entry, state, "3")
    entry = Entry(km)
    key_in(entry, state, ["FOUL", "PLUS"])
    assert "press RED (1) for each" in refused(entry, state, "PLUS")
    key_in(entry, state, ["1"])
    assert "only the reds that left the table" in refused(entry, state, "NO_POT")
    assert refused(Entry(km), state, "OK") == "OK: nothing to finish"


def test_order_refuses_a_player_twice() -> None:
    entry, state = Entry(keymap("keypad-4x5.toml")), match(**DOUBLES).state()
    key_in(entry, state, ["SHIFT", "PLUS", "1"])
    assert refused(entry, state, "1") == "ORDER 1 1: player 1 (A1) is in the order already"


def test_the_engine_still_judges_what_the_keymap_builds() -> None:
    """The keymap builds the event; the rules (ball on, penalty) are the engine's to apply."""
    m = match(events=[POT_RED, {"type": "pot", "balls": ["pink"]}])
    event = key_in(Entry(keymap(BOX)), m.state(), ["FOUL", "RED"])
    assert event == {"type": "foul", "points": 4}
    m2 = match(reds=6, events=SIX_REDS_CLEARED[:-1])  # pink on
    event = key_in(Entry(keymap(BOX)), m2.state(), ["FOUL", "RED"])
    with pytest.raises(ValueError, match="at least 6"):
        m2.apply(m2.parse(event))


def test_shift_of_a_key_with_nothing_shifted_names_the_config_key() -> None:
    entry, state = Entry(keymap("keypad-4x5.toml")), match().state()
    key_in(entry, state, ["SHIFT"])
    assert "keymap 'shift'" in refused(entry, state, "5")
    assert entry.pending.keys == ("SHIFT",)
    # SHIFT again takes it off; the key is then itself.
    assert key_in(entry, state, ["SHIFT", "5"]) == {"type": "pot", "balls": ["blue"]}


def test_a_key_that_is_not_on_the_keymap_or_a_match_of_another_game() -> None:
    entry = Entry(keymap(BOX))
    state = match().state()
    outcome = entry.press(12, state)
    assert isinstance(outcome, Refusal) and "'layout'" in outcome.reason
    outcome = entry.press(0, match("blackball").state())
    assert isinstance(outcome, Refusal) and "keymap 'game'" in outcome.reason
    blank = Keymap.from_toml('game = "snooker"\nlayout = [["UNDO", ""]]')
    outcome = Entry(blank).press(1, state)
    assert isinstance(outcome, Refusal) and "no action" in outcome.reason


# -- undo, clear, redo -------------------------------------------------------------------------


def test_undo_is_one_press_and_clears_a_half_keyed_sequence_first() -> None:
    km = keymap(BOX)
    entry, state = Entry(km), match(events=[POT_RED]).state()
    assert key_in(entry, state, ["UNDO"]) == {"type": "undo"}
    key_in(entry, state, ["FOUL"])
    assert key_in(entry, state, ["UNDO"]) == Pending()
    assert entry.pending == Pending()
    assert key_in(entry, state, ["UNDO"]) == {"type": "undo"}


def test_clear_and_redo_on_the_keypad() -> None:
    entry, state = Entry(keymap("keypad-4x5.toml")), match().state()
    key_in(entry, state, ["FOUL", "PLUS", "1"])
    assert refused(entry, state, "REDO") == "FOUL + 1 REDO: finish the call first, or clear it with UNDO or CLEAR"
    assert key_in(entry, state, ["CLEAR"]) == Pending()
    assert key_in(entry, state, ["REDO"]) == {"type": "redo"}
    key_in(entry, state, ["FOUL", "SHIFT"])
    # SHIFT CLEAR is RERACK on this keypad; UNDO has nothing shifted, so it clears.
    assert key_in(entry, state, ["UNDO"]) == Pending()
    assert entry.pending == Pending()


# -- holds ----------------------------------------------------------------------------------------


def test_a_held_key_replaces_the_press_it_follows() -> None:
    km = keymap(BOX)
    entry, state = Entry(km), match().state()
    foul = index_of(km, "FOUL")
    needs = "the ball that sets the penalty (4 to 7)"
    assert entry.press(foul, state) == Pending(("FOUL",), needs)
    assert entry.press(foul, state, held=True) == Pending(("MISS",), needs)
    assert entry.press(foul, state, held=True) == entry.pending  # reported once; a second is nothing new
    assert key_in(entry, state, ["BLACK"]) == {"type": "foul", "points": 7, "miss": True}


def test_a_held_key_without_a_hold_action_is_the_press_already_taken() -> None:
    km = keymap(BOX)
    entry, state = Entry(km), match().state()
    red = index_of(km, "RED")
    assert line(entry.press(red, state)) == POT_RED
    assert entry.press(red, state, held=True) == Pending()  # not a second red


def test_hold_after_a_press_within_a_sequence() -> None:
    km = keymap(BOX)
    entry, state = Entry(km), match().state()
    assert key_in(entry, state, ["FREE_BALL", "FOUL~", "BLUE"]) == {
        "type": "foul", "points": 5, "miss": True, "free_ball": True}


# -- timeouts --------------------------------------------------------------------------------------


def test_an_unfinished_sequence_expires_after_the_keymap_timeout() -> None:
    km = keymap(BOX)
    assert km.timeout == 15
    entry, state = Entry(km), match().state()
    entry.press(index_of(km, "FOUL"), state, now=100.0)
    assert entry.expire(114.9) is None
    assert entry.pending.keys == ("FOUL",)
    lapse = entry.expire(115.0)
    assert isinstance(lapse, Refusal)
    assert lapse.reason == "FOUL: not finished within 15 s (keymap 'timeout'), cleared"
    assert entry.pending == Pending()
    assert entry.expire(200.0) is None


def test_a_key_just_after_a_lapse_is_refused_not_read_as_a_new_call() -> None:
    """The referee who presses the ball 15.5 s after FREE BALL has not seen the call lapse:
    the key is refused, saying so, and only the next press starts a new call."""
    km = keymap(BOX)
    entry, state = Entry(km), match().state()
    assert km.grace == 3
    entry.press(index_of(km, "FREE_BALL"), state, now=100.0)
    lapse = entry.expire(115.0)
    assert isinstance(lapse, Lapse)
    assert (lapse.keys, lapse.needs, lapse.at, lapse.until) == (
        ("FREE BALL",), "the ball that sets the penalty (4 to 7)", 115.0, 118.0)
    assert entry.lapsed == lapse
    blue = index_of(km, "BLUE")
    assert entry.press(blue, state, now=115.5) == Refusal(
        "FREE BALL lapsed after 15 s (keymap 'timeout'): press again to start a new call")
    assert entry.pending == Pending() and entry.lapsed is None
    assert line(entry.press(blue, state, now=116.0)) == {"type": "pot", "balls": ["blue"]}


def test_a_lapse_is_noticed_by_the_press_itself() -> None:
    """The daemon calls expire() once a second; a press after the call's time and before
    that call still finds the call lapsed, not extended by a key nobody saw it take."""
    km = keymap(BOX)
    entry, state = Entry(km), match().state()
    entry.press(index_of(km, "FOUL"), state, now=100.0)
    outcome = entry.press(index_of(km, "BLUE"), state, now=115.2)
    assert outcome == Refusal("FOUL lapsed after 15 s (keymap 'timeout'): press again to start a new call")
    assert entry.pending == Pending()


def test_after_the_grace_a_key_starts_a_new_call() -> None:
    km = keymap(BOX)
    entry, state = Entry(km), match().state()
    entry.press(index_of(km, "FOUL"), state, now=100.0)
    assert entry.expire(115.0) is not None
    assert line(entry.press(index_of(km, "RED"), state, now=118.0)) == POT_RED
    assert entry.lapsed is None


def test_undo_just_after_a_lapse_never_takes_back_a_stroke() -> None:
    """UNDO meant to clear a half-keyed call that has just lapsed must not undo the stroke
    before it."""
    km = keymap(BOX)
    entry, state = Entry(km), match(events=[POT_RED]).state()
    entry.press(index_of(km, "FOUL"), state, now=100.0)
    entry.expire(115.0)
    undo = index_of(km, "UNDO")
    assert entry.press(undo, state, now=116.0) == Refusal(
        "FOUL lapsed after 15 s (keymap 'timeout') and is cleared already: press UNDO again to undo "
        "the last event")
    assert line(entry.press(undo, state, now=116.5)) == {"type": "undo"}


def test_a_held_key_refused_in_the_grace_is_not_a_first_word() -> None:
    km = keymap(BOX)
    entry, state = Entry(km), match().state()
    foul = index_of(km, "FOUL")
    entry.press(foul, state, now=100.0)
    entry.expire(115.0)
    assert isinstance(entry.press(foul, state, now=116.0), Refusal)
    assert entry.press(foul, state, held=True, now=116.8) == Pending()
    assert entry.pending == Pending()


def test_expires_at_follows_the_last_key() -> None:
    km = keymap(BOX)
    entry, state = Entry(km), match().state()
    assert entry.expires_at is None
    entry.press(index_of(km, "FOUL"), state, now=100.0)
    assert entry.expires_at == 115.0
    entry.press(index_of(km, "FREE_BALL"), state, now=104.0)
    assert entry.expires_at == 119.0
    assert entry.pending == Pending(("FOUL", "FREE BALL"), "the ball that sets the penalty (4 to 7)")
    entry.press(index_of(km, "BLUE"), state, now=105.0)
    assert entry.expires_at is None
    untimed = Keymap.from_toml('game = "snooker"\nlayout = [["FOUL", "UNDO"]]')
    entry = Entry(untimed)
    entry.press(0, state, now=1.0)
    assert entry.expires_at is None and entry.expire(1e9) is None


def test_no_grace_when_the_keymap_says_zero_and_clear_forgets_a_lapse() -> None:
    km = Keymap.from_toml('game = "snooker"\ntimeout = 5\ngrace = 0\nlayout = [["FOUL", "RED", "UNDO"]]')
    entry, state = Entry(km), match().state()
    entry.press(0, state, now=0.0)
    assert entry.expire(5.0) is not None
    assert line(entry.press(1, state, now=5.0)) == POT_RED
    entry = Entry(keymap(BOX))
    entry.press(index_of(entry.keymap, "FOUL"), state, now=0.0)
    entry.expire(20.0)
    entry.clear()
    assert entry.lapsed is None
    assert line(entry.press(index_of(entry.keymap, "RED"), state, now=20.5)) == POT_RED


# -- messages in the words of the device's keys -------------------------------------------------


def test_prompts_and_refusals_name_the_keys_of_the_box_they_are_keyed_on() -> None:
    box, pad = keymap(BOX), keymap("keypad-4x5.toml")
    state = respotted_black().state()
    on_box = key_in(Entry(box), state, ["SHIFT", "BLACK"])
    assert on_box == Pending(("RE-SPOT BLACK",), "who plays the black: side 1 (RED) or 2 (YELLOW)")
    on_pad = key_in(Entry(pad), state, ["SHIFT", "7"])
    assert on_pad == Pending(("RE-SPOT BLACK",), "who plays the black: side 1 or 2")
    entry = Entry(box)
    key_in(entry, match().state(), ["SHIFT", "RED"])
    assert entry.pending.needs == "the balls potted together, then + (SHIFT RED)"
    assert refused(entry, match().state(), "NO_POT") == (
        "+ NO POT: between the two + (SHIFT RED) go only the balls potted in the stroke")


@needs_blackball
def test_the_blackball_box_is_never_told_to_press_a_key_it_does_not_have() -> None:
    box = keymap("referee-box-12-blackball.toml")
    state = match("blackball", [{"type": "no_pot"}]).state()
    entry = Entry(box)
    key_in(entry, state, ["FOUL"])
    assert entry.pending.needs == "the balls that went down, then FOUL"
    assert "OK" not in refused(entry, state, "NO_POT")
    entry = Entry(box)
    key_in(entry, state, ["SHIFT", "NEXT_FRAME"])
    assert entry.pending == Pending(("RE-RACK",), "the side that breaks (1 (SHIFT RED) or 2 (SHIFT YELLOW)), "
                                    "or RE-RACK (SHIFT NEXT FRAME) again for the same breaker")


def test_the_engines_frame_over_refusal_says_what_to_press() -> None:
    """The engine says which event to enter; each device says which keys make it."""
    m = match(events=[{"type": "concede"}])
    with pytest.raises(ValueError) as info:
        m.check(m.parse(POT_RED))
    reason = str(info.value)
    assert reason == "the frame is over: enter next_frame to start frame 2"
    assert keymap(BOX).explain(reason) == "the frame is over: press NEXT FRAME (SHIFT FREE BALL) to start frame 2"
    assert keymap("keypad-4x5.toml").explain(reason) == "the frame is over: press NEXT FRAME to start frame 2"
    no_key = Keymap.from_toml('game = "snooker"\nlayout = [["RED", "UNDO"]]')
    assert no_key.explain(reason) == reason
    assert keymap(BOX).explain("red is on: potting the pink is a foul, enter a foul") == (
        "red is on: potting the pink is a foul, enter a foul")


def test_how_a_device_keys_an_action() -> None:
    box, pad = keymap(BOX), keymap("keypad-4x5.toml")
    assert box.name("FOUL") == "FOUL"
    assert box.name("MISS") == "MISS (hold FOUL)"
    assert box.name("PLUS") == "+ (SHIFT RED)"
    assert box.name("2") == "2 (YELLOW)"
    assert pad.name("RED") == "RED (1)"
    assert box.name("ORDER") is None and box.name("OK") is None


# -- the keymap files are checked ----------------------------------------------------------------


GOOD = 'game = "snooker"\nlayout = [["RED", "FOUL", "UNDO"]]\n'


@pytest.mark.parametrize(("text", "message"), [
    (GOOD + "colour = 1\n", "colour: unknown key (a keymap takes: game, layout"),
    ('game = "pool"\nlayout = [["UNDO"]]', "game: must be one of 'blackball', 'snooker', not 'pool'"),
    ('game = "snooker"\nlayout = [["RED", "FRE_BALL", "UNDO"]]', "layout[0][1]: unknown action 'FRE_BALL'"),
    ('game = "blackball"\nlayout = [["GREEN", "UNDO"]]',
     "layout[0][0]: unknown action 'GREEN' for blackball"),
    ('game = "snooker"\nlayout = [["RED", "UNDO"], ["FOUL"]]', "layout[1]: has 1 keys and layout[0] has 2"),
    ('game = "snooker"\nlayout = []', "layout: must list the rows"),
    ('game = "snooker"\nlayout = [["RED", "FOUL"]]', "no UNDO key"),
    (GOOD + "[hold]\nRED = \"MISS\"\n", "hold.RED: RED can finish an event"),
    (GOOD + "[hold]\nMISS = \"FOUL\"\n", "hold.MISS: no key of 'layout' is MISS"),
    (GOOD + "[hold]\nFOUL = \"MIS\"\n", "hold.FOUL: unknown action 'MIS'"),
    (GOOD + "[shift]\nRED = \"CLAIM\"\n", "'layout' has no SHIFT key"),
    (GOOD + "timeout = 0\n", "timeout: must be a number of seconds above 0"),
    (GOOD + "timeout = true\n", "timeout: must be a number of seconds above 0"),
    (GOOD + "grace = -1\n", "grace: must be a number of seconds from 0 to 60, not -1"),
    (GOOD + "grace = '3'\n", "grace: must be a number of seconds from 0 to 60"),
    (GOOD + "description = 3\n", "description: must be a string"),
    ("game = ", "not TOML"),
])
def test_a_bad_keymap_is_an_error_naming_the_key(text: str, message: str) -> None:
    with pytest.raises(KeymapError, match="^my.toml: .*" + message.replace("(", r"\(").replace("[", r"\[")):
        Keymap.from_toml(text, "my.toml")


def test_keymap_errors_are_value_errors() -> None:
    assert issubclass(KeymapError, ValueError)


def test_a_missing_keymap_file(tmp_path: Path) -> None:
    with pytest.raises(KeymapError, match="cannot read"):
        load_keymap(tmp_path / "nope.toml")


@pytest.mark.parametrize("name", sorted(p.name for p in KEYMAPS.glob("*.toml")))
def test_the_default_keymaps_load(name: str) -> None:
    km = keymap(name)
    assert km.size in (12, 20)
    assert km.game in ("snooker", "blackball")


# -- the pictures are drawn from the keymaps ---------------------------------------------------


@pytest.mark.parametrize("picture", sorted(keymap_pictures.PICTURES))
def test_the_pictures_in_the_docs_are_up_to_date(picture: str) -> None:
    source, shape = keymap_pictures.PICTURES[picture]
    drawn = keymap_pictures.draw(load_keymap(ROOT / source), shape)
    assert (ROOT / picture).read_text(encoding="utf-8") == drawn, (
        "redraw with: python -m cueboard.keymap_pictures")


@pytest.mark.parametrize("module", [keymap_module, key_sequences])
def test_docstring_examples(module: Any) -> None:
    assert doctest.testmod(module).failed == 0


# -- commands for the daemon: NEW_MATCH and CLOCK ---------------------------------------------


def test_new_match_needs_confirming_and_clear_keeps_the_match() -> None:
    keymap = Keymap.from_toml('game = "snooker"\nlayout = [["NEW_MATCH", "OK", "CLEAR", "UNDO", "RED"]]')
    entry = Entry(keymap)
    state = match().state()
    first = entry.press(0, state)
    assert isinstance(first, Pending) and "OK" in first.needs
    assert isinstance(entry.press(4, state), Refusal)  # a stray ball key is refused, still pending
    assert entry.press(2, state) == Pending()  # CLEAR: no new match
    entry.press(0, state)
    assert entry.press(1, state) == NewMatch()
    entry.press(0, state)
    assert entry.press(0, state) == NewMatch()  # NEW MATCH twice also confirms
    assert NewMatch().to_json() == {"type": "new_match"}  # the daemon's command, as the network sends it


def test_clock_is_one_press() -> None:
    keymap = load_keymap(KEYMAPS / "referee-box-12-blackball.toml")
    entry = Entry(keymap)
    index = [a for row in keymap.layout for a in row].index("CLOCK")
    assert entry.press(index, match("blackball").state()) == ClockCommand("start")
    assert ClockCommand("start").to_json() == {"type": "clock", "action": "start"}


def test_the_keypad_keys_a_foul_before_a_stroke_rule_14d() -> None:
    """SHIFT REPLACE (BEFORE STROKE), then the penalty ball: Section 3 Rule 14(d)."""
    m = Match.from_json({"type": "match", "game": "snooker", "sides": ["Ann", "Bob"]})
    for event in ({"type": "foul", "points": 4, "miss": True}, {"type": "replace"}):
        m.apply(m.parse(event))
    entry = Entry(keymap("keypad-4x5.toml"))
    event = key_in(entry, m.state(), ["SHIFT", "REPLACE", "4"])
    assert event == {"type": "foul", "points": 4, "before_stroke": True}
    m.apply(m.parse(event))
    assert m.state().to_json()["misses"] == 1 and m.state().to_json()["striker"] == 1
