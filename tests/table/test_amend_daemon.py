"""``amend`` through every path an event takes (docs/events.md, Corrections): the control socket
and ``cueboard send``, the MQTT command topic through a real mosquitto, the journal (kept as
keyed, with who and when) and a restart of the daemon, ``cueboard replay`` of that journal; the
boards say CORRECTED and what (an undo or redo of it: UNDO or REDO and CORRECTION); the record
lists the correction."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from cueboard.boards.notices import notice_words
from cueboard.boards.shown import Shown
from cueboard.boards.words import words_for
from cueboard.contract.notices import Notice
from cueboard.table.daemon import ControlServer, Table, ask_daemon
from cueboard.table.journal import read_lines
from tests.helpers.daemon import StillOutput, table_config
from tests.helpers.mosquitto import Message, Mosquitto, Subscriber
from tests.table.test_command_path import USERS, config_for, desk, subscribed
from tests.table.test_daemon import Running
from tests.table.test_reliability import PREFIX, TIMEOUT, Daemon

pytestmark = pytest.mark.system


CLI = [sys.executable, "-m", "cueboard.cli"]
BREAK = [{"type": "pot", "balls": ["red"]}, {"type": "pot", "balls": ["black"]},
         {"type": "pot", "balls": ["red"]}, {"type": "pot", "balls": ["black"]}, {"type": "no_pot"}]
PINK = {"type": "amend", "seq": 4, "event": {"type": "pot", "balls": ["pink"]}, "user": "desk"}


class Board(StillOutput):
    """A board that keeps the states and the notices it was given."""

    def __init__(self) -> None:
        self.states: list[dict[str, Any]] = []
        self.notices: list[tuple[str, str]] = []
        """Each notice as the bar says it in English: its head and its longest form."""

    def show(self, shown: Shown, clock: float | None = None, now: float | None = None) -> bool:
        self.states.append(shown.state.to_json())
        return True

    def flash(self, now: float | None = None, reason: str | None = None) -> None:
        pass

    def notice(self, notice: Notice, now: float | None = None) -> None:
        head, forms = notice_words(notice, words_for("en"))
        self.notices.append((head, forms[0]))


def scores(state: dict[str, Any]) -> list[int]:
    return [side["score"] for side in state["sides"]]


def test_an_amend_through_the_control_socket_and_cueboard_send_survives_a_restart(tmp_path: Path) -> None:
    config = table_config(tmp_path)
    sock = config.control_socket
    board = Board()
    table = Table(config, boards=[board])
    with Running(table):
        server = ControlServer(sock, table)
        server.start()
        try:
            for obj in BREAK:
                assert ask_daemon(sock, obj)["ok"]
            sent = subprocess.run([*CLI, "send", "--socket", str(sock), "--id", "fix-1", json.dumps(PINK)],
                                  capture_output=True, text=True, check=False)
            assert sent.returncode == 0, sent.stderr
            state = json.loads(sent.stdout)
            assert scores(state) == [15, 0] and state["seq"] == 5
            assert board.notices == [("CORRECTED", "EVENT 4: POT PINK")]
            assert board.states[-1] == state
            # Kept as keyed, with who sent it, when, and its id; a retry is not applied again.
            line = json.loads(read_lines(table.journal.path)[-1])
            assert {k: line[k] for k in ("type", "seq", "event", "user", "id")} == {**PINK, "id": "fix-1"}
            assert isinstance(line["t"], float)
            again = subprocess.run([*CLI, "send", "--socket", str(sock), "--id", "fix-1", json.dumps(PINK)],
                                   capture_output=True, text=True, check=False)
            assert again.returncode == 0 and len(read_lines(table.journal.path)) == 7
            record = table.recorder.record()  # type: ignore[union-attr]
            assert [(c["user"], c["seq"], c["was"], c["now"]) for c in record["corrections"]] == [
                ("desk", 4, {"type": "pot", "balls": ["black"]}, {"type": "pot", "balls": ["pink"]})]
            # Refused, naming the event that no longer applies; nothing changes, nothing journalled.
            bad = ask_daemon(sock, {"type": "amend", "seq": 2, "event": None})
            assert not bad["ok"] and "event 3 (pot red) no longer applies" in bad["reason"]
            assert len(read_lines(table.journal.path)) == 7
            # Undo takes the amend back, redo puts it back; the boards are told both times.
            assert scores(ask_daemon(sock, {"type": "undo"})["state"]) == [16, 0]
            assert board.notices[-1] == ("UNDO", "CORRECTION 4")
            shown = ask_daemon(sock, {"type": "redo"})["state"]
            assert scores(shown) == [15, 0]
            assert board.notices[-1] == ("REDO", "CORRECTION 4")
        finally:
            server.stop()
    # A restart: the same state, the correction in the record, and undo still takes it back.
    board = Board()
    table = Table(config, boards=[board])
    with Running(table) as running:
        assert board.states[0] == shown
        assert table.recorder.record()["corrections"][0]["user"] == "desk"  # type: ignore[union-attr]
        assert scores(running.send({"type": "undo"})["state"]) == [16, 0]
        assert scores(running.send({"type": "redo"})["state"]) == [15, 0]
        journal = table.journal.path
    # cueboard replay of the journal gives the state the boards showed.
    replayed = subprocess.run([*CLI, "replay", str(journal)], capture_output=True, text=True, check=False)
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout) == board.states[-1]


def test_an_amend_through_the_mqtt_command_topic(tmp_path: Path, broker: Mosquitto) -> None:
    config = config_for(tmp_path, broker)
    client = desk(broker)
    listen = Subscriber([f"{PREFIX}/state", f"{PREFIX}/record"], port=broker.port, host="localhost",
                        username="desk", password=USERS["desk"], ca=broker.tls_files.ca)  # type: ignore[attr-defined]
    listen.wait_subscribed()
    board = Board()
    try:
        with Daemon(config, boards=[board], control=False, pin_factory=MockFactory()) as daemon:
            subscribed(daemon, broker)
            for obj in BREAK:
                assert daemon.send(obj)["ok"]
            # The login's topic names the user (the line carries none): the table writes it down.
            line_sent = {k: v for k, v in PINK.items() if k != "user"} | {"id": "mqtt-fix"}
            client.publish(f"{PREFIX}/command/desk", json.dumps(line_sent),
                           qos=1).wait_for_publish(TIMEOUT)
            got = listen.wait_for(lambda m: m.topic.endswith("/state") and scores(m.json()) == [15, 0])
            assert got.json()["seq"] == 5
            # The state and the record are latest values, published in either order: the record
            # may have come (and been passed over) while the state was awaited.
            def corrected(m: Message) -> bool:
                return m.topic.endswith("/record") and bool(m.json()["corrections"])

            record = next((m for m in list(listen.seen) if corrected(m)), None) or listen.wait_for(corrected)
            assert record.json()["corrections"][0]["user"] == "desk"
            # record.md: where it was played, and the id an archive stores it once by.
            placed = record.json()
            assert (placed["venue"], placed["table"], placed["fixture"], placed["competition"]) == (
                "test-venue", "t1", None, None)
            # Its first event's time, to the millisecond when it has a fraction (engine.record.match_id).
            assert placed["started"] and placed["match_id"].startswith(f"test-venue/t1/{placed['started'][:-1]}")
            assert board.notices == [("CORRECTED", "EVENT 4: POT PINK")]
            line = json.loads(read_lines(daemon.table.journal.path)[-1])  # type: ignore[arg-type]
            assert (line["type"], line["user"], line["id"]) == ("amend", "desk", "mqtt-fix")
    finally:
        client.disconnect()
        client.loop_stop()
        listen.close()
