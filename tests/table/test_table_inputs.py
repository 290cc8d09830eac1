"""What the table does with its inputs (issue 15), through the real Table and its journal:

- remote lines with an ``id`` are applied once, a repeat gets the first answer, also across a
  restart of the daemon; a line refused once stays refused;
- the shot clock is the referee's: started, held and resumed by command, never by itself unless
  the table says so, one time foul at most for an idle table, and its running state in the
  published state's ``clock`` object;
- a call being keyed in goes to the boards and the ``input`` topic, and so does its lapse;
- the match record goes out when a frame ends, equal to the record of the log.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from cueboard.contract.codes import Reason
from cueboard.contract.notices import Prompt
from cueboard.engine.record import match_id, record_of
from cueboard.hw.keys import KeyPress
from cueboard.table.daemon import ControlServer, Table
from cueboard.table.inputs import KeyInput
from tests.helpers.daemon import StillOutput, table_config
from tests.table.test_daemon import FakeMonotonic, Running

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


class Feed:
    """A stand-in for the MQTT feed that keeps what it is given (the real one has its own tests
    against mosquitto)."""

    health = "ok"

    def __init__(self) -> None:
        self.states: list[dict[str, Any]] = []
        self.inputs: list[dict[str, Any]] = []
        self.records: list[dict[str, Any]] = []
        self.rejected: list[tuple[Any, str, str]] = []

    def publish_state(self, state: Mapping[str, Any]) -> None:
        self.states.append(dict(state))

    def publish_event(self, seq: int, event: Mapping[str, Any], *, logged: bool = True) -> None:
        pass

    def publish_rejected(self, event: Mapping[str, Any] | None, reason: str, source: str, *,
                         user: str | None = None, raw: bytes | None = None) -> None:
        self.rejected.append((event, reason, source))

    def publish_devices(self, devices: Mapping[str, str]) -> None:
        pass

    def publish_input(self, source: str, keys: Sequence[str], next_: str = "", *, expires_at: float | None = None,
                      expired: bool = False) -> None:
        self.inputs.append({"source": source, "keys": list(keys), "next": next_, "expires_at": expires_at,
                            "expired": expired})

    def publish_record(self, record: Mapping[str, Any]) -> None:
        self.records.append(dict(record))


class Prompted(StillOutput):
    def __init__(self) -> None:
        self.prompts: list[Prompt | None] = []
        self.reasons: list[str | None] = []

    def show(self, state: Any, clock: float | None = None, now: float | None = None) -> bool:
        return True

    def flash(self, now: float | None = None, reason: str | None = None) -> None:
        self.reasons.append(reason)

    def prompt(self, prompt: Prompt | None, now: float | None = None) -> None:
        self.prompts.append(prompt)


# -- ids: exactly once ---------------------------------------------------------------------------


def send(sock: Path, line: str, ident: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cueboard.cli", "send", "--socket", str(sock), "--id", ident, line],
                          capture_output=True, text=True, timeout=120, check=False)


def serving(config: Any) -> tuple[Table, ControlServer]:
    table = Table(config)
    server = ControlServer(config.control_socket, table)
    return table, server


@pytest.mark.system
def test_the_same_id_twice_counts_once_also_across_a_restart(tmp_path: Path) -> None:
    config = table_config(tmp_path)
    red = '{"type": "pot", "balls": ["red"]}'
    for _ in range(2):  # the daemon, then the daemon restarted within the match
        table, server = serving(config)
        with Running(table) as running:
            server.start()
            try:
                for _ in range(2):
                    result = send(config.control_socket, red, "desk-1")
                    assert result.returncode == 0, result.stderr
                    assert running.send({"type": "state"})["state"]["seq"] == 1
                # Refused now: next_frame mid-frame. Refused again, the same id, whatever comes.
                refused = send(config.control_socket, '{"type": "next_frame"}', "desk-2")
                assert refused.returncode == 2 and "the frame is not over" in refused.stderr
            finally:
                server.stop()
    # The refusal was kept beside the journal: even a line that is legal now is not applied.
    table, server = serving(config)
    with Running(table) as running:
        running.send({"type": "concede"})  # the frame is over: next_frame would now be legal
        server.start()
        try:
            again = send(config.control_socket, '{"type": "next_frame"}', "desk-2")
            assert again.returncode == 2 and "the frame is not over" in again.stderr
            assert running.send({"type": "state"})["state"]["frame_over"]
        finally:
            server.stop()


def test_an_id_must_be_a_short_string(tmp_path: Path) -> None:
    config = table_config(tmp_path)
    table = Table(config)
    with Running(table):
        answer = table.ask({"type": "no_pot", "id": "x" * 65}, "control", 30, remote=True)
        assert answer["ok"] is False and "'id'" in answer["reason"]
        assert table.latest_state is not None and table.latest_state.seq == 0


# -- the shot clock ---------------------------------------------------------------------------------


def blackball_table(tmp_path: Path, **sections: Any) -> tuple[Table, FakeMonotonic, Feed]:
    config = table_config(tmp_path, match={"game": "blackball", "sides": ["Ann", "Bob"], "race_to": 2}, **sections)
    mono = FakeMonotonic()
    feed = Feed()
    table = Table(config, monotonic=mono, feed=feed, wall=lambda: 1_800_000_000.0 + mono.now)
    table.start()
    return table, mono, feed


def test_the_clock_is_the_referees_started_held_resumed_and_one_foul_at_most(tmp_path: Path) -> None:
    table, mono, feed = blackball_table(tmp_path)
    try:
        table.command({"type": "no_pot"}, "referee_box:0")
        assert table.clock is None  # not automatic: nothing runs by itself (rule 8a: the referee starts it)
        assert feed.states[-1]["clock"] == {"running": False, "left": 60, "length": 60}
        table.command({"type": "clock"}, "referee_box:0")
        running = feed.states[-1]["clock"]
        assert running["running"] and running["length"] == 60 and running["ends_at"].startswith("2027-")
        mono.now += 20
        table.command({"type": "clock", "action": "hold"}, "referee_box:0")  # a rest is fetched (8a(a))
        assert feed.states[-1]["clock"] == {"running": False, "paused": True, "left": 40.0, "length": 60}
        mono.now += 300
        table._timers(None)
        assert table.clock is not None and table.clock.left(mono.now) == 40  # held: no time passes
        table.command({"type": "clock", "action": "resume"}, "referee_box:0")
        assert feed.states[-1]["clock"]["running"]
        mono.now += 40
        table._timers(None)
        assert table.match is not None and table.match.events[-1].TYPE == "foul"
        assert table.clock is None
        fouls = sum(e.TYPE == "foul" for e in table.match.events)
        for _ in range(5):  # an idle table: nobody plays on
            mono.now += 120
            table._timers(None)
        assert sum(e.TYPE == "foul" for e in table.match.events) == fouls == 1
    finally:
        table.journal.close()


def test_the_clock_refuses_what_makes_no_sense(tmp_path: Path) -> None:
    table, _, _ = blackball_table(tmp_path)
    answers: list[dict[str, Any]] = []
    try:
        table.command({"type": "clock", "action": "hold"}, "control", answers.append)
        table.command({"type": "clock", "action": "resume"}, "control", answers.append)
        table.command({"type": "clock", "action": "pause"}, "control", answers.append)
        table.command({"type": "concede"}, "control", answers.append)
        table.command({"type": "clock"}, "control", answers.append)  # the frame is over
        reasons = [a.get("reason", "") for a in answers if not a["ok"]]
        assert len(reasons) == 4
        assert "not running" in reasons[0] and "not held" in reasons[1] and "'action'" in reasons[2]
        assert "no shot clock now" in reasons[3]
    finally:
        table.journal.close()


def test_an_automatic_clock_waits_for_the_rack_and_for_the_referee_after_a_time_foul(tmp_path: Path) -> None:
    table, mono, _ = blackball_table(tmp_path, shot_clock={"auto": True})
    try:
        table.command({"type": "no_pot"}, "referee_box:0")
        assert table.clock is not None  # automatic: the next shot's clock runs
        table.command({"type": "rerack"}, "referee_box:0")
        assert table.clock is None  # the balls are racked: the referee starts the break's clock
        table.command({"type": "clock"}, "referee_box:0")
        mono.now += 61
        table._timers(None)
        assert table.clock is None  # the time foul: stopped until somebody plays on
        table.command({"type": "no_pot"}, "referee_box:0")
        assert table.clock is not None
    finally:
        table.journal.close()


# -- a call being keyed in ---------------------------------------------------------------------------


def test_a_call_in_progress_and_its_lapse_go_to_the_boards_and_the_input_topic(tmp_path: Path) -> None:
    config = table_config(tmp_path, keypad={"port": str(tmp_path / "none"), "keymap": str(EXAMPLES / "keymaps" /
                                                                                             "keypad-4x5.toml")})
    mono = FakeMonotonic()
    feed = Feed()
    board = Prompted()
    table = Table(config, monotonic=mono, feed=feed, boards=[board], wall=lambda: 1_800_000_000.0 + mono.now)
    table.start()
    try:
        table._handle(KeyInput("keypad", KeyPress(1)))  # FOUL
        assert board.prompts[-1] == Prompt("keypad", ("FOUL",), "the ball that sets the penalty (4 to 7)")
        shown = feed.inputs[-1]
        assert shown["keys"] == ["FOUL"] and shown["next"] and not shown["expired"]
        assert shown["expires_at"] == 1_800_000_000.0 + mono.now + 15  # the keymap's timeout
        mono.now += 16
        table._timers(None)
        assert board.prompts[-1] == Prompt("keypad", ("FOUL",), "the ball that sets the penalty (4 to 7)", lapsed=True)
        assert feed.inputs[-1]["expired"] and feed.inputs[-1]["keys"] == ["FOUL"]
        # A key right after the lapse is refused with the reason: never read as a call the
        # marker did not see begin.
        table._handle(KeyInput("keypad", KeyPress(4)))  # 1: a red
        assert table.match is not None and table.match.seq == 0
        assert "lapsed" in (feed.rejected[-1][1]) and "press again" in feed.rejected[-1][1]
        assert board.reasons[-1] == feed.rejected[-1][1]
        table._handle(KeyInput("keypad", KeyPress(4)))  # pressed again: a red
        assert table.match.seq == 1
    finally:
        table.journal.close()


# -- the match record ---------------------------------------------------------------------------------


def test_the_record_goes_out_when_a_frame_ends_equal_to_the_record_of_the_log(tmp_path: Path) -> None:
    config = table_config(tmp_path)
    feed = Feed()
    table = Table(config, feed=feed)
    table.start()
    try:
        published = len(feed.records)
        table.command({"type": "pot", "balls": ["red"]}, "control")
        assert len(feed.records) == published  # mid-frame: nothing to publish
        table.command({"type": "concede"}, "control")
        assert len(feed.records) == published + 1
        assert table.match is not None
        # The log's record, and where it was played (record.md: the daemon adds venue, table, match_id).
        placed = {"venue": config.venue, "table": config.table, "fixture": None, "competition": None}
        record = record_of(table.match)
        assert table.recorder is not None and table.recorder.started_at is not None
        ident = match_id(config.venue, config.table, table.recorder.started_at)  # its first event's time
        assert ident.startswith(f"{config.venue}/{config.table}/{record['started'][:-1]}")
        assert feed.records[-1] == {**record, **placed, "match_id": ident}
        assert feed.records[-1]["frames"][0]["how"] == "conceded"
        table.command({"type": "undo"}, "control")  # the frame's end taken back
        assert {k: v for k, v in feed.records[-1].items() if k not in (*placed, "match_id")} == record_of(table.match)
        assert feed.records[-1]["frames"] == []
    finally:
        table.journal.close()


OVER_RATE = Reason("not taken: over commands.rate", "rate")


def test_a_flood_of_refusals_is_summed_up_not_published_line_by_line(tmp_path: Path) -> None:
    """Issue 16: refusals of a flood must not crowd the feed, and none goes unsaid."""
    mono = FakeMonotonic()
    feed = Feed()
    table = Table(table_config(tmp_path), feed=feed, monotonic=mono)
    table.start()
    try:
        answers: list[dict[str, Any]] = []
        for _ in range(100):
            table.refuse_remote({"type": "no_pot"}, OVER_RATE, "command", answers.append, limit=True)
        assert len(answers) == 100 and all(not a["ok"] for a in answers)  # every sender is answered
        assert len(feed.rejected) == 5  # a few one by one
        mono.now += 1
        table._timers(None)
        assert len(feed.rejected) == 6
        assert feed.rejected[-1][1].startswith("95 more lines from command not taken in the last second, not "
                                               "answered one by one")
    finally:
        table.journal.close()


def test_a_refused_line_with_an_id_is_answered_by_its_id_and_each_user_has_its_own_rate(tmp_path: Path) -> None:
    """Issue 26: a flood by one login neither takes another's tokens nor hides the answers to
    lines with an id in a summary."""
    mono = FakeMonotonic()
    feed = Feed()
    table = Table(table_config(tmp_path, commands={"rate": 5, "burst": 10}), feed=feed, monotonic=mono)
    table.start()
    try:
        refused = [n for n in range(100) if table.admit("command", "scorer-t1") is not None]
        assert len(refused) == 90  # its burst of 10 taken, the rest refused
        assert table.admit("command", "desk") is None  # the desk's own tokens are untouched
        for n in refused:
            table.refuse_remote({"type": "no_pot", "id": f"s{n}"}, OVER_RATE, "command", limit=True, user="scorer-t1")
        assert [event["id"] for event, _, _ in feed.rejected] == [f"s{n}" for n in refused]  # each its own
        mono.now += 1
        table._timers(None)
        assert len(feed.rejected) == 90  # nothing left to sum up
    finally:
        table.journal.close()
