"""The 12-button referee boxes alone: every event a referee needs, and a whole match.

Keys are named by their layout entry as in tests/table/test_keymap.py ("FOUL"; "FOUL~" held);
a shifted key is two presses, ``"SHIFT", "FREE_BALL"``. Each sequence is keyed in on the
keymap of examples/keymaps/, and the event it makes is given to the engine, which must
accept it. The same match through the daemon is the lead's end-to-end test.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from cueboard.engine import Event, IllegalEvent, Match, to_json
from cueboard.games.key_sequences import ClockCommand
from cueboard.table.keymap import Entry, Keymap, Pending, Refusal
from tests.table.test_keymap import (
    DOUBLES,
    KEYED,
    POT_RED,
    SIX_REDS_CLEARED,
    key_in,
    keymap,
    match,
    needs_blackball,
    play,
    presses,
    respotted_black,
)

BOX = "referee-box-12.toml"
BLACKBALL_BOX = "referee-box-12-blackball.toml"

# (what, match set-up, events before, keys, the event it must make)
Case = tuple[str, dict[str, Any], list[dict[str, Any]], list[str], dict[str, Any]]

SNOOKER: list[Case] = [
    ("pot", {}, [], ["RED"], POT_RED),
    ("several reds", {}, [], ["SHIFT", "RED", "RED", "RED", "SHIFT", "RED"], {"type": "pot", "balls": ["red"] * 2}),
    ("no pot", {}, [], ["NO_POT"], {"type": "no_pot"}),
    ("foul", {}, [], ["FOUL", "PINK"], {"type": "foul", "points": 6}),
    ("foul and a miss", {}, [], ["FOUL~", "BLUE"], {"type": "foul", "points": 5, "miss": True}),
    ("free ball call", {}, [], ["FREE_BALL", "RED"], {"type": "foul", "points": 4, "free_ball": True}),
    ("reds off in a foul", {}, [], ["FOUL", "SHIFT", "RED", "RED", "BLACK"],
     {"type": "foul", "points": 7, "reds_off": 1}),
    ("play again", {}, [{"type": "foul", "points": 4}], ["SHIFT", "YELLOW"], {"type": "play_again"}),
    ("replace", {}, [{"type": "foul", "points": 4, "miss": True}], ["SHIFT", "GREEN"], {"type": "replace"}),
    ("foul before a stroke (Section 3 Rule 14(d))", {},
     [{"type": "foul", "points": 4, "miss": True}, {"type": "replace"}], ["SHIFT", "FOUL", "RED"],
     {"type": "foul", "points": 4, "before_stroke": True}),
    ("concede", {}, [], ["SHIFT", "NO_POT"], {"type": "concede"}),
    ("concede the match", {}, [], ["SHIFT", "PINK", "SHIFT", "NO_POT"], {"type": "concede", "match": True}),
    ("claim", {"reds": 6}, SIX_REDS_CLEARED, ["SHIFT", "BLUE"], {"type": "claim"}),
    ("re-rack (Section 3 Rule 16)", {}, [POT_RED], ["SHIFT", "BROWN"], {"type": "rerack"}),
    ("next frame", {}, [{"type": "concede"}], ["SHIFT", "FREE_BALL"], {"type": "next_frame"}),
    ("undo", {}, [POT_RED], ["UNDO"], {"type": "undo"}),
    ("redo", {}, [POT_RED, {"type": "undo"}], ["SHIFT", "UNDO"], {"type": "redo"}),
]


@pytest.mark.parametrize(("what", "setup", "before", "keys", "expected"), SNOOKER, ids=[c[0] for c in SNOOKER])
def test_the_snooker_box_keys_every_call_of_a_referee(what: str, setup: dict[str, Any],
                                                      before: list[dict[str, Any]], keys: list[str],
                                                      expected: dict[str, Any]) -> None:
    assert play(match(events=before, **setup), keymap(BOX), keys) == expected


def test_the_re_spotted_black_is_given_to_the_side_the_lot_chose() -> None:
    m = respotted_black()
    assert play(m, keymap(BOX), ["SHIFT", "BLACK", "YELLOW"]) == {"type": "respotted_black", "striker": 1}
    assert m.state().to_json()["player"] == "Bob"
    m = respotted_black(**DOUBLES)
    assert play(m, keymap(BOX), ["SHIFT", "BLACK", "BROWN"]) == {
        "type": "respotted_black", "striker": 1, "player": "B2"}


def test_the_snooker_box_makes_every_event_but_three_of_the_marker() -> None:
    """AWARD, ORDER (four-handed) and STARTED_BY (a frame started by the wrong side) are the
    marker's: on the keypad, or `cueboard send`."""
    made = {expected["type"] for *_, expected in SNOOKER} | {"respotted_black"}
    assert KEYED["snooker"] - made == {"award", "order", "started_by"}


BLACKBALL: list[Case] = [
    ("pot", {}, [], ["RED"], {"type": "pot", "balls": ["red"]}),
    ("pot several", {}, [], ["PLUS", "RED", "YELLOW", "PLUS"], {"type": "pot", "balls": ["red", "yellow"]}),
    ("no pot", {}, [], ["NO_POT"], {"type": "no_pot"}),
    ("illegal break (rule 4b)", {}, [], ["SHIFT", "NO_POT"], {"type": "no_pot", "legal": False}),
    ("foul", {}, [{"type": "no_pot"}], ["FOUL", "BLACK", "FOUL"], {"type": "foul", "balls": ["black"]}),
    ("time foul (rule 8a)", {}, [{"type": "no_pot"}], ["TIME"], {"type": "foul", "reason": "time"}),
    ("loss", {}, [{"type": "no_pot"}], ["LOSS"], {"type": "loss"}),
    ("concede", {}, [], ["SHIFT", "LOSS"], {"type": "concede"}),
    ("concede the match", {}, [], ["SHIFT", "PLUS", "SHIFT", "LOSS"], {"type": "concede", "match": True}),
    ("award", {}, [], ["SHIFT", "FOUL", "SHIFT", "YELLOW"], {"type": "award", "side": 1}),
    ("award the match", {}, [], ["SHIFT", "PLUS", "SHIFT", "FOUL", "SHIFT", "RED"],
     {"type": "award", "side": 0, "match": True}),
    ("re-rack, same breaker", {}, [{"type": "no_pot"}], ["SHIFT", "NEXT_FRAME", "SHIFT", "NEXT_FRAME"],
     {"type": "rerack"}),
    ("re-rack, side 2 breaks", {}, [{"type": "no_pot"}], ["SHIFT", "NEXT_FRAME", "SHIFT", "YELLOW"],
     {"type": "rerack", "breaker": 1}),
    ("nine-ball re-rack (rule 8g)", {}, [{"type": "no_pot"}], ["SHIFT", "BLACK", "SHIFT", "RED"],
     {"type": "rerack", "breaker": 0, "nine_ball": True}),
    ("next frame", {}, [{"type": "concede"}], ["NEXT_FRAME"], {"type": "next_frame"}),
    ("undo", {}, [{"type": "no_pot"}], ["UNDO"], {"type": "undo"}),
    ("redo", {}, [{"type": "no_pot"}, {"type": "undo"}], ["SHIFT", "UNDO"], {"type": "redo"}),
]


@needs_blackball
@pytest.mark.parametrize(("what", "setup", "before", "keys", "expected"), BLACKBALL,
                         ids=[c[0] for c in BLACKBALL])
def test_the_blackball_box_keys_every_call_of_a_referee(what: str, setup: dict[str, Any],
                                                        before: list[dict[str, Any]], keys: list[str],
                                                        expected: dict[str, Any]) -> None:
    assert play(match("blackball", before, **setup), keymap(BLACKBALL_BOX), keys) == expected


@needs_blackball
def test_the_blackball_box_makes_every_blackball_event() -> None:
    # TOUCHING (rule 4i) is the marker's, on the keypad: the box's twelve keys are all taken.
    made = {expected["type"] for *_, expected in BLACKBALL} | {"clock_hold", "clock_resume"}
    assert KEYED["blackball"] - made == {"touching"}


@needs_blackball
@pytest.mark.parametrize(("keys", "command"), [
    (["CLOCK"], ClockCommand("start")),
    (["SHIFT", "CLOCK"], {"type": "clock_hold"}),
    (["SHIFT", "TIME"], {"type": "clock_resume"}),
])
def test_the_blackball_box_starts_holds_and_resumes_the_shot_clock(keys: list[str],
                                                                   command: object) -> None:
    """Starting is a command for the daemon (docs/daemon.md); holding and resuming are rulings
    of the log (rule 8a: clock_hold, clock_resume, and the daemon holds its clock on them).
    One press, or SHIFT and one."""
    state = match("blackball", shot_clock=30).state()
    assert key_in(Entry(keymap(BLACKBALL_BOX)), state, keys) == command


@needs_blackball
def test_a_clock_key_in_the_middle_of_a_call_is_refused() -> None:
    entry = Entry(keymap(BLACKBALL_BOX))
    state = match("blackball", [{"type": "no_pot"}]).state()
    key_in(entry, state, ["FOUL"])
    outcome = key_in(entry, state, ["CLOCK"])
    assert isinstance(outcome, Refusal) and outcome.reason.startswith("FOUL CLOCK: ")
    assert entry.pending.keys == ("FOUL",)


# -- a whole match from the box alone -----------------------------------------------------------


class Table:
    """The engine and the box's Entry, as the daemon joins them: each press with the state
    now; an event goes to the engine as it is, whose refusal is worded for the box. The events
    applied are kept as the journal writes them."""

    def __init__(self, m: Match, km: Keymap) -> None:
        self.match = m
        self.entry = Entry(km)
        self.events: list[dict[str, Any]] = []

    def press(self, keys: Sequence[str]) -> Any:
        """Press the keys in turn; the last outcome (an event applied, a Pending or a Refusal)."""
        outcome: Any = None
        for key in presses(self.entry.keymap, keys):
            outcome = self.entry.feed(key, self.match.state())
            if isinstance(outcome, Event):
                try:
                    self.match.apply(outcome)
                except IllegalEvent as exc:
                    return Refusal(self.entry.keymap.explain(str(exc)))
                outcome = to_json(outcome)
                self.events.append(outcome)
        return outcome

    def call(self, keys: Sequence[str]) -> dict[str, Any]:
        """The keys of one call: each but the last pending, the last an event the engine takes."""
        for n in range(len(keys) - 1):
            assert isinstance(self.press(keys[n:n + 1]), Pending), (keys, n)
        event = self.press(keys[-1:])
        assert isinstance(event, dict), (keys, event)
        return event

    def state(self) -> dict[str, Any]:
        return self.match.state().to_json()


def score(t: Table) -> tuple[int, int]:
    s = t.state()["sides"]
    return s[0]["score"], s[1]["score"]


def test_a_best_of_3_from_first_break_to_match_end_on_the_referee_box_alone() -> None:
    t = Table(match(best_of=3), keymap(BOX))
    # Frame 1: Ann breaks.
    t.call(["RED"])
    t.call(["BLACK"])
    t.call(["NO_POT"])
    assert score(t) == (8, 0) and t.state()["striker"] == 1
    # Bob misses the reds: a foul and a miss (FOUL held), the blue struck first.
    assert t.call(["FOUL~", "BLUE"]) == {"type": "foul", "points": 5, "miss": True}
    # Ann has the balls replaced and Bob plays again from where he was.
    assert t.call(["SHIFT", "GREEN"]) == {"type": "replace"}
    assert t.state()["striker"] == 1 and score(t) == (13, 0)
    t.call(["RED"])
    # The referee undoes the red (a slip of the finger) and redoes it.
    assert t.call(["UNDO"]) == {"type": "undo"}
    assert score(t) == (13, 0)
    assert t.call(["SHIFT", "UNDO"]) == {"type": "redo"}
    t.call(["PINK"])
    assert score(t) == (13, 7)
    # Bob fouls and leaves Ann snookered: the referee calls a free ball.
    assert t.call(["FREE_BALL", "RED"]) == {"type": "foul", "points": 4, "free_ball": True}
    assert t.state()["free_ball"] and t.state()["striker"] == 0
    assert t.call(["FREE_BALL"]) == {"type": "pot", "balls": ["free"]}
    t.call(["BLACK"])
    t.call(["NO_POT"])
    assert score(t) == (25, 7)
    # Bob concedes frame 1.
    assert t.call(["SHIFT", "NO_POT"]) == {"type": "concede"}
    assert t.state()["frame_over"] and t.state()["frame_winner"] == 0
    # A ball pressed now is refused, saying what to press.
    refusal = t.press(["RED"])
    assert refusal == Refusal("the frame is over: press NEXT FRAME (SHIFT FREE BALL) to start frame 2")
    assert t.call(["SHIFT", "FREE_BALL"]) == {"type": "next_frame"}
    # Frame 2: Bob breaks, Ann concedes at once.
    assert t.state()["frame"] == 2 and t.state()["striker"] == 1
    t.call(["NO_POT"])
    t.call(["SHIFT", "NO_POT"])
    t.call(["SHIFT", "FREE_BALL"])
    # Frame 3: Ann breaks, pots a red and the black, and Bob concedes the decider.
    t.call(["RED"])
    t.call(["BLACK"])
    t.call(["NO_POT"])
    t.call(["SHIFT", "NO_POT"])
    s = t.state()
    assert s["match_over"] and s["match_winner"] == 0
    assert [side["frames"] for side in s["sides"]] == [2, 1]
    # Every event the box made is in the log, and replays to the same match.
    replayed = match(best_of=3, events=t.events)
    assert replayed.state().to_json() == s
