"""The daemon's engine loop: events journalled before they are shown, refusals that change
nothing, recovery after a restart, key presses through the keymaps, new matches, the shot
clock on a real (injected) clock, and the control socket of ``cueboard match new``."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cueboard.boards.shown import Shown
from cueboard.contract.codes import Reason
from cueboard.contract.notices import Notice
from cueboard.engine.shot_clock import ShotTime
from cueboard.engine.snooker.events import Foul
from cueboard.hw.keys import KeyPress
from cueboard.table.daemon import ControlServer, Table, ask_daemon
from cueboard.table.inputs import Call, Command, KeyInput
from cueboard.table.journal import Journal, read_lines
from tests.helpers.daemon import EXAMPLES, StillOutput, scripted_events, table_config


class Recorder(StillOutput):
    """Stands in for a board or the feed where the test needs to see the order of calls;
    the real ones have their own tests against luma's devices and a real broker."""

    def __init__(self, journal: Journal | None = None) -> None:
        self.journal = journal
        self.shown: list[tuple[dict[str, Any], float | None]] = []
        """Each state shown (as JSON, to compare with answers) and the clock's seconds left."""
        self.held: list[bool] = []
        """Each time: the board was told the referee holds the shot clock."""
        self.shots: list[ShotTime | None] = []
        """Each time: the shot being timed (its length and call) the board was told."""
        self.flashes = 0
        self.reasons: list[str | None] = []
        self.notices: list[Notice] = []
        self.saved_when_shown: list[bool] = []
        self.health = "ok"

    def show(self, shown: Shown, clock: float | None = None) -> None:
        seq = shown.state.seq
        if self.journal is not None and self.journal.path is not None and seq:
            lines = read_lines(self.journal.path)
            self.saved_when_shown.append(len(lines) - 1 >= seq)
        self.shown.append((shown.state.to_json(), clock))
        self.held.append(shown.held)
        self.shots.append(shown.shot)

    def flash(self, now: float | None = None, reason: str | None = None) -> None:
        self.flashes += 1
        self.reasons.append(reason)

    def notice(self, notice: Notice, now: float | None = None) -> None:
        self.notices.append(notice)


class Running:
    """A Table whose engine loop runs in a thread, as under ``cueboard run``."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.thread = threading.Thread(target=table.run, daemon=True)

    def __enter__(self) -> Running:
        self.table.start()
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.table.stop()
        self.thread.join(30)
        self.table.journal.close()

    def send(self, obj: dict[str, Any], source: str = "control") -> dict[str, Any]:
        done = threading.Event()
        answer: dict[str, Any] = {}

        def reply(a: dict[str, Any]) -> None:
            answer.update(a)
            done.set()

        self.table.submit(Command(source, obj, reply))
        assert done.wait(30), "the engine thread did not answer"
        return answer

    def sync(self) -> None:
        """Wait until everything submitted so far has been handled."""
        done = threading.Event()
        self.table.submit(Call("test", done.set))
        assert done.wait(30)

    def press(self, source: str, *indexes: int) -> None:
        for i in indexes:
            self.table.submit(KeyInput(source, KeyPress(i)))
        self.sync()


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Running]:
    config = table_config(tmp_path)
    t = Table(config)
    t.boards.append(Recorder(t.journal))
    with Running(t) as running:
        yield running


def test_a_fresh_table_starts_the_default_match_and_shows_it(table: Running) -> None:
    board = table.table.boards[0]
    state, clock = board.shown[0]
    assert state["seq"] == 0 and state["sides"][0]["name"] == "Ann" and state["best_of"] == 3
    assert clock is None
    assert [p.name for p in table.table.journal.matches()] == ["match-000001.jsonl"]


def test_every_event_is_in_the_journal_before_it_is_shown(table: Running) -> None:
    for obj in scripted_events(40):
        assert table.send(obj)["ok"]
    board = table.table.boards[0]
    assert len(board.saved_when_shown) == 40 and all(board.saved_when_shown)
    assert board.shown[-1][0]["seq"] == 40


def test_a_refused_event_changes_nothing_and_flashes_the_board(table: Running) -> None:
    """Keyed at the table (here: as the keypad), a refusal blinks the board, which says it
    short ("RED IS ON"); the whole reason, with the rule, is the answer."""
    before = table.send({"type": "state"})["state"]
    size = table.table.journal.path.stat().st_size
    answer = table.send({"type": "pot", "balls": ["pink"]}, source="keypad")
    assert answer == {"ok": False, "reason": answer["reason"], "code": "refused", "short": "not_on"}
    assert "red is on" in answer["reason"] and "Rule 10" in answer["reason"]
    assert table.send({"type": "state"})["state"] == before
    assert table.table.journal.path.stat().st_size == size
    board = table.table.boards[0]
    assert board.flashes == 1
    reason = board.reasons[0]
    assert isinstance(reason, Reason) and reason == answer["reason"]
    assert (reason.short, reason.ball) == ("not_on", "red")


def test_a_desk_commands_refusal_is_answered_at_the_desk_not_on_the_board(table: Running) -> None:
    """``cueboard match new --best-of 4`` from the desk (the control socket) is refused with the
    reason there; the table's board, which the hall reads, does not blink (issue 24)."""
    answer = table.send({"type": "match", "best_of": 4})
    assert not answer["ok"] and "'best_of' must be odd" in answer["reason"]
    answer = table.send({"type": "pot", "balls": ["pink"]})
    assert not answer["ok"] and "red is on" in answer["reason"]
    assert table.table.boards[0].flashes == 0


def test_an_undo_and_a_redo_are_acknowledged_with_what_they_took_back_and_put_back(table: Running) -> None:
    assert table.send({"type": "pot", "balls": ["red"]})["ok"]
    assert table.send({"type": "foul", "points": 4, "miss": True})["ok"]
    assert table.send({"type": "undo"})["ok"]
    assert table.send({"type": "redo"})["ok"]
    board = table.table.boards[0]
    foul = Foul(points=4, miss=True, t=board.notices[0].event.t)
    assert board.notices == [Notice("undo", foul), Notice("redo", foul)]
    # Shown after the state the undo made, so that the board says it over that state.
    assert board.shown[-1][0]["seq"] == 2


def test_a_restart_shows_exactly_what_was_shown_before(tmp_path: Path) -> None:
    config = table_config(tmp_path)
    first = Table(config)
    first.boards.append(Recorder())
    with Running(first) as running:
        for obj in scripted_events(75):
            running.send(obj)
        running.send({"type": "undo"})
        last_shown = first.boards[0].shown[-1][0]
    second = Table(config)
    second.boards.append(Recorder())
    with Running(second):
        assert second.boards[0].shown[0][0] == last_shown


def test_key_presses_become_events_through_the_keymaps(tmp_path: Path) -> None:
    config = table_config(tmp_path, keypad={"port": "/dev/null", "keymap": str(EXAMPLES / "keymaps/keypad-4x5.toml")})
    t = Table(config)
    with Running(t) as running:
        # Keys: 4 = "1" (red), 10 = "6" (pink), 1 = FOUL, 9 = "5" (blue); see docs/img/keypad.svg.
        running.press("keypad", 4, 10, 4)
        state = running.send({"type": "state"})["state"]
        assert state["sides"][0]["score"] == 8 and state["break"] == 8
        running.press("keypad", 1, 9)  # FOUL 5: refused, blue is not the least... colour is on: 4 is fine
        state = running.send({"type": "state"})["state"]
        assert state["sides"][1]["score"] == 5 and state["striker"] == 1
        running.press("keypad", 3)  # UNDO
        assert running.send({"type": "state"})["state"]["sides"][1]["score"] == 0


def test_new_match_from_the_keypad_starts_a_new_journal_in_the_default_format(tmp_path: Path) -> None:
    config = table_config(tmp_path, keypad={"port": "/dev/null", "keymap": str(EXAMPLES / "keymaps/keypad-4x5.toml")})
    t = Table(config)
    with Running(t) as running:
        running.press("keypad", 4)
        running.press("keypad", 0, 18)  # SHIFT NEXT FRAME: NEW MATCH, waiting for OK
        assert running.send({"type": "state"})["state"]["seq"] == 1
        running.press("keypad", 14)  # OK
        state = running.send({"type": "state"})["state"]
        assert state["seq"] == 0 and state["best_of"] == 3
        assert len(t.journal.matches()) == 2


def test_the_desk_sets_names_and_format_and_a_bad_one_is_refused(table: Running) -> None:
    answer = table.send({"type": "match", "sides": ["Judd", "Ronnie"], "best_of": 5, "reds": 6})
    assert answer["ok"] and answer["state"]["sides"][1]["name"] == "Ronnie" and answer["state"]["reds"] == 6
    bad = table.send({"type": "match", "best_of": 4})
    assert not bad["ok"] and "best_of" in bad["reason"]
    assert table.send({"type": "state"})["state"]["sides"][0]["name"] == "Judd"


class FakeMonotonic:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_shot_clock_restarts_after_each_stroke_and_its_expiry_is_a_time_foul(tmp_path: Path) -> None:
    """Blackball rule 8a: 60 s a shot; the daemon enters the time foul when it runs out. A table
    whose clock is automatic (shot_clock.auto: the referee's CLOCK key otherwise)."""
    config = table_config(tmp_path, match={"game": "blackball", "sides": ["Ann", "Bob"], "race_to": 2},
                          shot_clock={"auto": True})
    mono = FakeMonotonic()
    t = Table(config, monotonic=mono)
    board = Recorder()
    t.boards.append(board)
    t.start()
    try:
        assert t.clock is None  # the referee starts the first one (the break)
        t.command({"type": "clock"}, "referee_box:0")
        assert t.clock is not None and t.clock.left(mono.now) == 60
        mono.now += 29.5
        t._timers(None)
        assert board.shown[-1][1] == pytest.approx(30.5)
        t.command({"type": "no_pot"}, "referee_box:0")  # a valid break: the clock restarts
        assert t.clock is not None and t.clock.left(mono.now) == 60
        mono.now += 60
        t._timers(None)
        state = t.match.state().to_json()
        assert t.match.events[-1].TYPE == "foul" and state["free_shot"] and state["striker"] == 0
        assert json.loads(read_lines(t.journal.path)[-1])["reason"] == "time"
    finally:
        t.journal.close()


def test_the_state_question_says_the_clocks_time_left_and_a_held_clock_is_marked(tmp_path: Path) -> None:
    """``cueboard match state``: the seconds left on the shot clock, running or held (not the
    60 s a shot may take); the boards get a held clock's state marked ``paused`` (issue 24)."""
    config = table_config(tmp_path, match={"game": "blackball", "sides": ["Ann", "Bob"], "race_to": 2})
    mono = FakeMonotonic()
    t = Table(config, monotonic=mono)
    board = Recorder()
    t.boards.append(board)
    t.start()
    try:
        answers: list[dict[str, Any]] = []
        t.command({"type": "state"}, "control", answers.append)
        assert answers[-1]["state"]["clock"] == {"running": False, "left": 60, "length": 60}
        t.command({"type": "clock"}, "referee_box:0")
        mono.now += 18.25
        t.command({"type": "state"}, "control", answers.append)
        assert answers[-1]["state"]["clock"] == {"running": True, "left": 41.8, "length": 60, "called": False}
        assert answers[-1]["state"]["shot_clock"] == 60  # the state's own field: seconds a shot may take
        t.command({"type": "clock", "action": "hold"}, "referee_box:0")
        mono.now += 100
        t.command({"type": "state"}, "control", answers.append)
        assert answers[-1]["state"]["clock"] == {"running": False, "paused": True, "left": 41.8, "length": 60}
        _, left = board.shown[-1]
        assert board.held[-1] and left == pytest.approx(41.75)
        assert board.shots[-1] == ShotTime(60, 30)  # the running clock's: the call 30 s in (rule 8a)
        t.command({"type": "clock", "action": "resume"}, "referee_box:0")
        assert not board.held[-1]
        # The state itself is the contract's.
        assert t.latest_state is not None and "clock" not in t.latest_state.to_json()
    finally:
        t.journal.close()


@pytest.mark.system
def test_the_control_socket_and_the_cli(tmp_path: Path) -> None:
    config = table_config(tmp_path)
    t = Table(config)
    with Running(t):
        server = ControlServer(config.control_socket, t)
        server.start()
        try:
            sock = str(config.control_socket)
            cli = [sys.executable, "-m", "cueboard.cli"]
            new = subprocess.run([*cli, "match", "new", "--socket", sock, "--sides", "Mark", "Kyren",
                                  "--best-of", "5"], capture_output=True, text=True, check=False)
            assert new.returncode == 0, new.stderr
            assert json.loads(new.stdout)["sides"][1]["name"] == "Kyren"
            sent = subprocess.run([*cli, "send", "--socket", sock, '{"type": "pot", "balls": ["red"]}'],
                                  capture_output=True, text=True, check=False)
            assert sent.returncode == 0 and json.loads(sent.stdout)["break"] == 1
            bad = subprocess.run([*cli, "send", "--socket", sock, '{"type": "pot", "balls": ["red"]}'],
                                 capture_output=True, text=True, check=False)
            assert bad.returncode == 2 and "colour is on" in bad.stderr
            assert ask_daemon(config.control_socket, {"type": "state"})["state"]["seq"] == 1
        finally:
            server.stop()
