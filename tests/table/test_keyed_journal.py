"""A call keyed at the table goes to the engine as the typed event the keymap made (no JSON in
between), and its journal line is the one a network line of the same event writes, byte for
byte (the log format is the contract: old logs replay the same, and so do new ones).

Each sequence is keyed on the shipped 4x5 keypads through a running daemon; the journal is
read back from disk. ``t`` is the time of the press, so it is masked where lines are compared.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from cueboard.engine.blackball.events import Touching
from cueboard.hw.keys import KeyPress
from cueboard.table.daemon import Table
from cueboard.table.inputs import Call, Command, KeyInput
from cueboard.table.journal import read_lines
from tests.helpers.daemon import EXAMPLES, StillOutput, table_config

SNOOKER_MATCH = {"game": "snooker", "sides": ["Ann", "Bob"], "best_of": 3}
BLACKBALL_MATCH = {"game": "blackball", "sides": ["Ann", "Bob"], "race_to": 3, "shot_clock": 30}


class Flashes(StillOutput):
    """A board that keeps the reasons it blinked for."""

    def __init__(self) -> None:
        self.reasons: list[str | None] = []

    def show(self, state: object, clock: float | None = None) -> None:
        pass

    def flash(self, now: float | None = None, reason: str | None = None) -> None:
        self.reasons.append(reason)


@contextmanager
def running(tmp: Path, match: dict[str, Any], keymap: str | None = None) -> Iterator[Table]:
    sections: dict[str, Any] = {"match": match}
    if keymap is not None:
        sections["keypad"] = {"port": "/dev/null", "keymap": str(EXAMPLES / "keymaps" / keymap)}
    table = Table(table_config(tmp, **sections))
    table.boards.append(Flashes())
    thread = threading.Thread(target=table.run, daemon=True)
    table.start()
    thread.start()
    try:
        yield table
    finally:
        table.stop()
        thread.join(30)
        table.journal.close()


def sync(table: Table) -> None:
    done = threading.Event()
    table.submit(Call("test", done.set))
    assert done.wait(30), "the engine thread did not answer"


def press(table: Table, *keys: int) -> None:
    for key in keys:
        table.submit(KeyInput("keypad", KeyPress(key)))
    sync(table)


def send(table: Table, obj: dict[str, Any]) -> None:
    table.submit(Command("control", obj, None))
    sync(table)


def journal(table: Table) -> list[str]:
    """The journal's lines, as on disk, each ``t`` masked."""
    assert table.journal.path is not None
    return [re.sub(r'"t":[0-9.]+', '"t":T', line.decode() if isinstance(line, bytes) else str(line))
            for line in read_lines(table.journal.path)]


def reasons(table: Table) -> list[str | None]:
    board = table.boards[0]
    assert isinstance(board, Flashes)
    return board.reasons


# Keypad keys (docs/img/keypad.svg): key = row * 4 + column.
SHIFT, FOUL, MISS, UNDO, RED, NO_POT, PINK, FREE_BALL = 0, 1, 2, 3, 4, 7, 10, 11
BLACK, PLUS, OK, REPLACE, NEXT_FRAME, REDO = 12, 13, 14, 17, 18, 19

SNOOKER_LINES = [
    '{"type":"match","game":"snooker","sides":["Ann","Bob"],"best_of":3}',
    '{"type":"pot","t":T,"balls":["red"]}',
    '{"type":"pot","t":T,"balls":["black"]}',
    '{"type":"foul","t":T,"points":7,"reds_off":1,"miss":true,"free_ball":true}',
    '{"type":"undo","t":T}',
    '{"type":"redo","t":T}',
    '{"type":"replace","t":T}',
    '{"type":"no_pot","t":T}',
    '{"type":"foul","t":T,"points":6,"reds_off":2}',
]


def sent_as_network_lines(folder: Path, match: dict[str, Any], lines: list[str]) -> list[str]:
    """The journal of a second table sent ``lines`` (less the match line) as network lines."""
    with running(folder, match) as table:
        for line in lines[1:]:
            send(table, json.loads(re.sub(',"t":T', "", line)))
        return journal(table)


def test_snooker_calls_keyed_are_journalled_as_the_network_lines_of_the_same_events(tmp_path: Path) -> None:
    with running(tmp_path / "keys", SNOOKER_MATCH, "keypad-4x5.toml") as table:
        press(table, RED, BLACK)
        press(table, MISS, FREE_BALL, PLUS, RED, BLACK)  # foul 7, a red off, a miss, a free ball
        press(table, UNDO, REDO, REPLACE)
        press(table, BLACK)  # the engine refuses it (a red is on): in the keypad's words, not journalled
        press(table, NO_POT, FOUL, PLUS, RED, RED, PLUS, PINK)
        keyed = journal(table)
        assert table.refused == 1
        assert reasons(table)[-1] is not None and "red" in str(reasons(table)[-1])
    assert keyed == SNOOKER_LINES
    assert sent_as_network_lines(tmp_path / "network", SNOOKER_MATCH, SNOOKER_LINES) == keyed


def test_the_engines_refusal_of_a_keyed_call_is_in_the_words_of_the_device(tmp_path: Path) -> None:
    with running(tmp_path, SNOOKER_MATCH, "keypad-4x5.toml") as table:
        send(table, {"type": "concede"})
        press(table, RED)
        assert reasons(table)[-1] == "the frame is over: press NEXT FRAME to start frame 2"
        press(table, NEXT_FRAME)
        assert journal(table)[1:] == ['{"type":"concede","t":T}', '{"type":"next_frame","t":T}']


# The blackball keypad: key = row * 4 + column (docs/img/keypad-blackball.svg).
B_SHIFT, B_FOUL, B_NO_POT, B_RED, B_YELLOW, B_1, B_2, B_TIME, B_OK = 0, 1, 2, 4, 5, 8, 9, 10, 11
B_CONCEDE, B_CLEAR, B_RERACK = 14, 15, 17

BLACKBALL_LINES = [
    '{"type":"match","game":"blackball","sides":["Ann","Bob"],"race_to":3,"shot_clock":30.0}',
    '{"type":"no_pot","t":T}',
    '{"type":"clock_hold","t":T}',
    '{"type":"clock_resume","t":T}',
    '{"type":"foul","t":T,"reason":"time"}',
    '{"type":"rerack","t":T,"breaker":1}',
    '{"type":"rerack","t":T,"breaker":0,"nine_ball":true}',
    '{"type":"foul","t":T,"balls":["yellow"]}',
    '{"type":"concede","t":T,"match":true}',
]


@pytest.mark.parametrize("clock_start", [False, True], ids=["", "clock started"])
def test_blackball_calls_and_clock_keys_keyed_are_journalled_as_network_lines(tmp_path: Path,
                                                                             clock_start: bool) -> None:
    with running(tmp_path / "keys", BLACKBALL_MATCH, "keypad-4x5-blackball.toml") as table:
        press(table, B_NO_POT)
        press(table, B_SHIFT, B_OK, B_SHIFT, B_CLEAR)  # hold and resume: rulings of the log (rule 8a)
        press(table, B_TIME)
        if clock_start:
            # SHIFT TIME starts the shot clock: the daemon's command, in no log.
            press(table, B_SHIFT, B_TIME)
            assert table.clocks.clock is not None and table.clocks.clock.paused_at is None
        press(table, B_RERACK, B_2, B_SHIFT, B_RERACK, B_1)
        press(table, B_FOUL, B_YELLOW, B_FOUL, B_SHIFT, B_CONCEDE, B_CONCEDE)
        keyed = journal(table)
        assert table.refused == 0
    assert keyed == BLACKBALL_LINES
    assert sent_as_network_lines(tmp_path / "network", BLACKBALL_MATCH, BLACKBALL_LINES) == keyed


def test_new_match_keyed_is_the_daemons_command(tmp_path: Path) -> None:
    with running(tmp_path, SNOOKER_MATCH, "keypad-4x5.toml") as table:
        press(table, RED, SHIFT, NEXT_FRAME)  # NEW MATCH, waiting for OK
        assert journal(table)[1:] == ['{"type":"pot","t":T,"balls":["red"]}']
        press(table, OK)
        assert journal(table) == [SNOOKER_LINES[0]] and len(table.journal.matches()) == 2


def test_an_event_of_another_game_is_refused_never_applied(tmp_path: Path) -> None:
    """A keymap of another game refuses every key, so this cannot come from the keys; should
    a typed event of another game reach the daemon all the same, it is said and changes nothing."""
    with running(tmp_path, SNOOKER_MATCH, "keypad-4x5.toml") as table:
        table.submit(Call("test", lambda: table._keyed(Touching(ball="red"), "keypad")))
        sync(table)
        assert table.refused == 1 and reasons(table)[-1] == "touching: not an event of snooker"
        assert journal(table) == [SNOOKER_LINES[0]]
        press(table, RED)  # and the table goes on
        assert journal(table)[1:] == ['{"type":"pot","t":T,"balls":["red"]}']
