"""The table side of the desk's and the scorers' topics (docs/mqtt.md): ``next``, ``message``,
``history``, an amend's ``preview`` and the scorer's role and presence, against the venue broker
exactly as ``cueboard venue init`` writes it (TLS, the ACL, the password files) with real table
daemons on mock pins. Nothing waits on the wall clock: each step waits for the message it
causes; a message's end comes from the daemon's own clock, which the test moves.
"""

from __future__ import annotations

import json
import socket
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from cueboard.contract.notices import Prompt
from cueboard.contract.times import timestamp
from cueboard.hw.keys import KeyPress
from cueboard.table.config import Config
from cueboard.table.inputs import Call, KeyInput
from cueboard.table.journal import read_lines
from cueboard.table.match_history import History
from tests.helpers.daemon import StillOutput, table_config
from tests.helpers.mosquitto import TIMEOUT, Message, Subscriber
from tests.helpers.venue import Venue
from tests.table.test_reliability import Daemon

pytestmark = [pytest.mark.system, pytest.mark.club(scorers=["t1"])]


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
KEYPAD = EXAMPLES / "keymaps" / "keypad-4x5.toml"
SHIFT, NEXT_FRAME, OK = 0, 18, 14  # keypad-4x5: SHIFT NEXT FRAME (NEW MATCH), then OK
T1 = "cueboard/club/t1"
SCHEMAS = Path(__file__).resolve().parents[2] / "schema"
WATCHER = "desk-watch"
"""The tests' subscriber's own desk login (tests/table/conftest.py's hall): beside a person signed
in as ``desk``, since one login is one device and one session."""


def valid(name: str, payload: dict[str, Any]) -> dict[str, Any]:
    """``payload``, checked against ``schema/<name>.schema.json`` (with formats)."""
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker()).validate(payload)
    return payload


@dataclass
class Club(Venue):
    tmp: Path

    def config(self, name: str, *, mqtt_on: bool = True) -> Config:
        section = {"host": "localhost", "port": self.ports["tables"], "username": name,
                   "password": self.password(name), "command": True, "tls": {"ca": str(self.ca)}}
        return table_config(self.tmp / name, table={"venue": "club", "name": name},
                            keypad={"port": str(self.tmp / name / "no-keypad"), "keymap": str(KEYPAD)},
                            **({"mqtt": section} if mqtt_on else {}))

    def daemon(self, name: str = "t1", **options: Any) -> Daemon:
        daemon = Daemon(self.config(name), boards=[], control=False, **options)
        return daemon

    def subscriber(self, *topics: str, login: str = WATCHER) -> Subscriber:
        return Subscriber(list(topics), host="localhost", port=self.ports["people"], username=login,
                          password=self.password(login), ca=self.ca,
                          client_id=f"cueboard-{login}-{uuid.uuid4().hex[:8]}").wait_subscribed()

    def wait_listening(self, name: str = "t1", since: int = 0) -> None:
        """The table's subscriptions of this session are in (its last is the presence filter)."""
        self.broker.wait_for_log(lambda line: line.endswith(f"cueboard/club/{name}/score/+/presence"), since=since)


class Person:
    """A desk or a scorer on the people's listener (MQTT 5 over TLS): each publish waits for the
    broker's PUBACK and gives its reason code (135: not authorised by the ACL)."""

    def __init__(self, hall: Club, login: str, *, will: tuple[str, bytes] | None = None) -> None:
        self.login = login
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"cueboard-{login}-{uuid.uuid4().hex[:8]}",
                                  protocol=mqtt.MQTTv5)
        self.client.username_pw_set(login, hall.password(login))
        self.client.tls_set(str(hall.ca))
        if will is not None:
            self.client.will_set(will[0], will[1], qos=1, retain=True)
        self._acks: dict[int, int] = {}
        self._acked = threading.Condition()
        connected = threading.Event()
        self.client.on_connect = lambda *args: connected.set()
        self.client.on_publish = self._on_publish
        self.client.connect("localhost", hall.ports["people"])
        self.client.loop_start()
        assert connected.wait(TIMEOUT), f"{login}: no CONNACK"

    def _on_publish(self, client: Any, userdata: Any, mid: int, reason: Any, properties: Any) -> None:
        with self._acked:
            self._acks[mid] = reason.value
            self._acked.notify_all()

    def publish(self, topic: str, payload: bytes | dict[str, Any], *, retain: bool = False) -> int:
        """The PUBACK's reason code: 0 taken, 16 no subscribers, 135 not authorised."""
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        info = self.client.publish(topic, data, qos=1, retain=retain)
        with self._acked:
            assert self._acked.wait_for(lambda: info.mid in self._acks, TIMEOUT), f"no PUBACK for {topic}"
            return self._acks.pop(info.mid)

    def cut(self) -> None:
        """The phone's connection dropped (no DISCONNECT): the broker sends its will."""
        self.client.loop_stop()
        sock = self.client.socket()
        assert isinstance(sock, socket.socket)
        sock.shutdown(socket.SHUT_RDWR)
        sock.close()

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def handoff(fixture: str, sides: list[str], **form: Any) -> dict[str, Any]:
    return {"schema": 1, "fixture": fixture, "competition": "Spring Cup", "sides": sides,
            "format": {"game": "snooker", "best_of": 3, **form}, "handed_by": "desk"}


def state_where(sub: Subscriber, match: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    message = sub.wait_for(lambda m: m.topic == f"{T1}/state" and match(m.json()))
    return valid("state", message.json())


def answer(sub: Subscriber, ident: str) -> Message:
    """The table's answer to the line with ``ident``: on event or rejected."""
    return sub.wait_for(lambda m: m.topic in (f"{T1}/event", f"{T1}/rejected") and m.payload and m.json().get("id")
                        == ident)


def both(sub: Subscriber, *wanted: Callable[[Message], bool]) -> list[Message]:
    """The next message matching each of ``wanted``, whichever comes first (the table sends its
    retained topics before its events and refusals)."""
    found: list[Message | None] = [None] * len(wanted)
    while not all(found):
        m = sub.wait_for(lambda m: any(w(m) for w in wanted))
        found[next(i for i, w in enumerate(wanted) if w(m))] = m
    return [m for m in found if m is not None]


def names(state: dict[str, Any]) -> list[str]:
    return [side["name"] for side in state["sides"]]


def press(daemon: Daemon, *keys: int) -> None:
    """Keys of the marker's keypad, as its link hands them to the table."""
    for key in keys:
        daemon.table.submit(KeyInput("keypad", KeyPress(key)))
    daemon.on_engine(lambda: None)


def test_a_handed_fixture_starts_on_the_referees_new_match_and_only_once(hall: Club) -> None:
    desk = Person(hall, "desk")
    with hall.daemon() as t1, hall.subscriber(f"{T1}/#") as sub:
        hall.wait_listening()
        assert desk.publish(f"{T1}/next", handoff("KO-1", ["Cara", "Dan"]), retain=True) in (0, 16)
        state = state_where(sub, lambda s: s.get("next") is not None)
        assert state["next"] == {"fixture": "KO-1", "competition": "Spring Cup", "names": ["Cara", "Dan"]}
        assert names(state) == ["Ann", "Bob"]  # handed on, not started: the referee starts it

        press(t1, SHIFT, NEXT_FRAME, OK)  # NEW MATCH, confirmed
        state = state_where(sub, lambda s: names(s) == ["Cara", "Dan"])
        assert "next" not in state and state["seq"] == 0
        record = sub.wait_for(lambda m: m.topic == f"{T1}/record" and m.json()["sides"][0]["name"] == "Cara").json()
        sub.wait_for(lambda m: m.topic == f"{T1}/next" and m.payload == b"")  # the table cleared the desk's
        assert (record["fixture"], record["competition"]) == ("KO-1", "Spring Cup")
        first = json.loads(read_lines(t1.table.journal.path)[0])
        assert (first["fixture"], first["competition"], first["best_of"]) == ("KO-1", "Spring Cup", 3)

        # Never twice: a start_next of it, and the desk's hand-off coming again, are refused.
        desk.publish(f"{T1}/command/desk", {"type": "start_next", "fixture": "KO-1", "id": "again"})
        refused = answer(sub, "again").json()
        assert refused["reason"] == ("start_next: fixture 'KO-1' was started on this table already: a fixture is "
                                     "played once") and refused["user"] == "desk"
        desk.publish(f"{T1}/next", handoff("KO-1", ["Cara", "Dan"]), retain=True)
        said = both(sub, lambda m: m.topic == f"{T1}/rejected" and m.json()["source"] == "next",
                    lambda m: m.topic == f"{T1}/next" and m.payload == b"")  # cleared again, in either order
        assert "fixture 'KO-1' was started on this table already" in said[0].json()["reason"]
        assert names(t1.state()) == ["Cara", "Dan"] and len(t1.table.journal.matches()) == 2
    desk.close()


def test_start_next_from_the_desk_waits_for_the_live_match(hall: Club) -> None:
    desk = Person(hall, "desk")
    with hall.daemon(), hall.subscriber(f"{T1}/#") as sub:
        hall.wait_listening()
        desk.publish(f"{T1}/command/desk", {"type": "pot", "balls": ["red"], "id": "p1"})
        assert answer(sub, "p1").topic == f"{T1}/event"
        desk.publish(f"{T1}/next", handoff("L-7", ["Eve", "Fay"], reds=6), retain=True)
        state = state_where(sub, lambda s: s.get("next") is not None)
        assert state["seq"] == 1  # live: the hand-off waits (the boards do not show it yet)

        desk.publish(f"{T1}/command/desk", {"type": "start_next", "fixture": "L-7", "id": "s1"})
        refused = answer(sub, "s1").json()
        assert refused["reason"].startswith("start_next: a match is live on this table (Ann v Bob): fixture 'L-7' "
                                            "waits until it is over")
        desk.publish(f"{T1}/command/desk", {"type": "start_next", "fixture": "L-8", "id": "s2"})
        assert answer(sub, "s2").json()["reason"] == ("start_next: fixture 'L-8' is not the one handed to this "
                                                      "table (next holds 'L-7')")

        desk.publish(f"{T1}/command/desk", {"type": "concede", "match": True, "id": "c1"})
        assert answer(sub, "c1").topic == f"{T1}/event"
        desk.publish(f"{T1}/command/desk", {"type": "start_next", "fixture": "L-7", "id": "s3"})
        started, shown = both(sub, lambda m: m.topic in (f"{T1}/event", f"{T1}/rejected") and m.json().get("id")
                              == "s3", lambda m: m.topic == f"{T1}/state" and names(m.json()) == ["Eve", "Fay"])
        assert started.topic == f"{T1}/event"
        event = started.json()
        assert event["seq"] == 0 and event["user"] == "desk"
        assert event["event"]["type"] == "match" and event["event"]["fixture"] == "L-7"
        assert event["event"]["reds"] == 6
        assert "next" not in shown.json()
        desk.publish(f"{T1}/command/desk", {"type": "start_next", "fixture": "L-7", "id": "s4"})
        assert "was started on this table already" in answer(sub, "s4").json()["reason"]
    desk.close()


def test_a_bad_hand_off_is_refused_naming_the_field(hall: Club) -> None:
    desk = Person(hall, "desk")
    with hall.daemon(), hall.subscriber(f"{T1}/rejected") as sub:
        hall.wait_listening()
        desk.publish(f"{T1}/next", handoff("F1", ["Ann", "Ann"]), retain=True)
        reason = sub.get().json()["reason"]
        assert reason == "next: sides: match: every player needs a different name (the order of play names them)"
        desk.publish(f"{T1}/next", handoff("F1", ["Ann", "Bob"], best_of=0), retain=True)
        assert sub.get().json()["reason"] == "next: format: match: 'best_of' must be at least 1"
        desk.publish(f"{T1}/next", {**handoff("F\u202e1", ["Ann", "Bob"])}, retain=True)
        assert sub.get().json()["reason"].startswith("next: fixture: match: the fixture's name has")
    desk.close()


def test_the_hand_off_is_kept_across_a_restart(hall: Club) -> None:
    desk = Person(hall, "desk")
    with hall.daemon(), hall.subscriber(f"{T1}/state") as sub:
        hall.wait_listening()
        desk.publish(f"{T1}/next", handoff("R-2", ["Gus", "Hal"]), retain=True)
        state_where(sub, lambda s: s.get("next") is not None)
    desk.publish(f"{T1}/next", b"", retain=True)  # off the broker: only the table's folder has it now
    desk.close()
    # The table again, without its broker: the hand-off is its own, from its journal folder.
    with Daemon(hall.config("t1", mqtt_on=False), boards=[], control=False) as again:
        shown = again.on_engine(again.table.state_answer)  # the state as published: with its next
        assert shown is not None and shown["next"]["fixture"] == "R-2"
        press(again, SHIFT, NEXT_FRAME, OK)
        assert names(again.state()) == ["Gus", "Hal"]
        assert json.loads(read_lines(again.table.journal.path)[0])["fixture"] == "R-2"


def test_a_message_shows_until_its_time_is_over(hall: Club) -> None:
    now = [1_790_000_000.0]
    desk = Person(hall, "desk")
    with hall.daemon(wall=lambda: now[0]) as t1, hall.subscriber(f"{T1}/state", f"{T1}/rejected") as sub:
        hall.wait_listening()
        until = timestamp(now[0] + 300)
        desk.publish(f"{T1}/message", {"schema": 1, "text": "Table 1: your match starts in 5 minutes",
                                        "until": until}, retain=True)
        state = state_where(sub, lambda s: s.get("message") is not None)
        assert state["message"] == {"text": "Table 1: your match starts in 5 minutes", "until": until}

        now[0] += 299
        t1.on_engine(lambda: None)  # the loop's timers ran: still on
        assert "message" in (t1.on_engine(t1.table.state_answer) or {})
        now[0] += 2
        t1.table.submit(Call("test", lambda: None))  # wakes the loop, as its deadline would
        state = state_where(sub, lambda s: "message" not in s)

        desk.publish(f"{T1}/message", {"schema": 1, "text": "bell\u0007", "until": None}, retain=True)
        refused = sub.wait_for(lambda m: m.topic == f"{T1}/rejected").json()
        assert refused["reason"] == ("message: 'text' has a control character (U+0007) at 5: a board cannot "
                                     "show it") and refused["source"] == "message"
        desk.publish(f"{T1}/message", {"schema": 1, "text": "Bar closes at 11", "until": None}, retain=True)
        state_where(sub, lambda s: s.get("message", {}).get("text") == "Bar closes at 11")
        desk.publish(f"{T1}/message", b"", retain=True)
        state_where(sub, lambda s: "message" not in s)
    desk.close()


def test_the_history_is_there_after_a_reconnect_and_a_preview_changes_nothing(hall: Club) -> None:
    desk = Person(hall, "desk")
    with hall.daemon() as t1, hall.subscriber(f"{T1}/#") as sub:
        hall.wait_listening()
        for i, line in enumerate([{"type": "pot", "balls": ["red"]}, {"type": "pot", "balls": ["black"]},
                                  {"type": "no_pot"}]):
            desk.publish(f"{T1}/command/desk", {**line, "id": f"e{i}"})
            assert answer(sub, f"e{i}").topic == f"{T1}/event"
        press(t1, 4)  # a red for the other side, keyed on the keypad (keypad-4x5: 1 is a red)
        journal = len(read_lines(t1.table.journal.path))

        desk.publish(f"{T1}/command/desk", {"type": "amend", "seq": 2, "event": {"type": "pot", "balls": ["pink"]},
                                            "preview": True, "id": "pv"})
        preview = valid("preview", sub.wait_for(lambda m: m.topic == f"{T1}/preview").json())
        assert preview["id"] == "pv" and preview["user"] == "desk"
        assert [s["score"] for s in preview["state"]["sides"]] == [7, 1]
        assert [s["score"] for s in t1.state()["sides"]] == [8, 1]  # not applied
        assert len(read_lines(t1.table.journal.path)) == journal  # nor journalled
        desk.publish(f"{T1}/command/desk", {"type": "amend", "seq": 9, "event": {"type": "no_pot"},
                                            "preview": True, "id": "pv2"})
        assert answer(sub, "pv2").json()["reason"].startswith("preview: ")
        desk.publish(f"{T1}/command/desk", {"type": "amend", "seq": 2, "event": {"type": "pot", "balls": ["pink"]},
                                            "id": "pv"})  # the real one, same id: applied (a preview keeps none)
        assert answer(sub, "pv").topic == f"{T1}/event"

    # The desk reloads: the retained snapshot (taken at the start, before the first line) and the
    # slots since it have every line, with when, where from and who.
    with hall.subscriber(f"{T1}/history", f"{T1}/history/+") as again:
        snapshot = valid("history", again.wait_topic(f"{T1}/history").json())
        slots = [again.wait_for(lambda m: m.topic.startswith(f"{T1}/history/")).json() for _ in range(5)]
    assert snapshot["truncated"] == 0 and snapshot["lines"] == 0 and snapshot["events"] == []
    assert all(s["epoch"] == snapshot["epoch"] for s in slots)
    history = {"events": [s["line"] for s in sorted(slots, key=lambda s: s["n"])]}
    assert sorted(s["n"] for s in slots) == [1, 2, 3, 4, 5]
    assert [(e["source"], e["user"]) for e in history["events"]] == [
        ("desk", "desk"), ("desk", "desk"), ("desk", "desk"), ("keypad", None), ("desk", "desk")]
    assert [e["seq"] for e in history["events"]] == [1, 2, 3, 4, 4] and all(e["ts"] for e in history["events"])
    desk.close()


def test_the_history_keeps_the_newest_lines_within_its_bound() -> None:
    history = History(limit=400)
    history.begin(None)
    for seq in range(1, 21):
        history.add(seq, {"type": "pot", "balls": ["red"], "t": 1_790_000_000 + seq}, "keypad")
    payload = history.payload()
    data = valid("history", json.loads(payload))
    assert len(payload) <= 400 and data["truncated"] == 20 - len(data["events"]) > 0
    assert data["events"][-1]["seq"] == 20 and data["events"][0]["source"] == "keypad"


class Board(StillOutput):
    """A board that keeps the calls it was asked to show."""

    def __init__(self) -> None:
        self.prompts: list[Prompt | None] = []

    def show(self, state: Any, clock: float | None = None, now: float | None = None) -> bool:
        return True

    def flash(self, now: float | None = None, reason: str | None = None) -> None:
        pass

    def prompt(self, prompt: object, now: float | None = None) -> None:
        assert prompt is None or isinstance(prompt, Prompt)
        self.prompts.append(prompt)


def test_a_scorer_scores_strokes_and_nothing_else(hall: Club) -> None:
    presence = f"{T1}/score/scorer-t1/presence"
    scorer = Person(hall, "scorer-t1", will=(presence, json.dumps({"schema": 1, "online": False}).encode()))
    board = Board()
    with Daemon(hall.config("t1"), boards=[board], control=False) as t1, hall.subscriber(f"{T1}/#") as sub:
        hall.wait_listening()
        assert scorer.publish(presence, {"schema": 1, "online": True, "ts": timestamp(1_790_000_000)},
                              retain=True) in (0, 16)
        devices = valid("devices", sub.wait_for(lambda m: m.topic == f"{T1}/devices" and "scorer:scorer-t1"
                                                in m.json()).json())
        assert devices["scorer:scorer-t1"] == "ok" and "scorer:scorer-t1" in devices["last_seen"]

        # A call being keyed on the phone shows on the boards as a keypad's; the stroke ends it.
        scorer.publish(f"{T1}/score/scorer-t1", {"type": "call", "keys": ["FOUL"], "needs": "the value"})
        keyed = sub.wait_for(lambda m: m.topic == f"{T1}/input").json()
        assert (keyed["source"], keyed["keys"]) == ("scorer:scorer-t1", ["FOUL"])
        assert t1.on_engine(lambda: board.prompts[-1]) == Prompt("scorer:scorer-t1", ("FOUL",), "the value")
        scorer.publish(f"{T1}/score/scorer-t1", {"type": "pot", "balls": ["red"], "id": "tap1"})
        event = answer(sub, "tap1")
        assert event.topic == f"{T1}/event" and event.json()["user"] == "scorer-t1"
        assert t1.on_engine(lambda: board.prompts[-1]) is None
        for line, whose in (({"type": "new_match"}, "the desk starts matches"),
                            ({"type": "start_next", "fixture": "F1"}, "the desk starts matches"),
                            ({"type": "match", "sides": ["X", "Y"]}, "the desk starts matches"),
                            ({"type": "amend", "seq": 1, "delete": True}, "the desk or the referee corrects the log")):
            ident = f"no-{line['type']}"
            scorer.publish(f"{T1}/score/scorer-t1", {**line, "id": ident})
            refused = answer(sub, ident).json()
            assert refused["reason"] == (f"{line['type']!r} is refused from scorer-t1: a scorer login scores "
                                         f"strokes; {whose}"), refused
            assert refused["source"] == "scorer"
        # The broker: another table's score topic, and the command topic, are not the scorer's.
        assert scorer.publish("cueboard/club/t2/score/scorer-t1", {"type": "no_pot", "id": "x"}) == 135
        assert scorer.publish(f"{T1}/command/scorer-t1", {"type": "new_match", "id": "y"}) == 135
        assert scorer.publish(f"{T1}/score/desk", {"type": "no_pot", "id": "z"}) == 135

        scorer.cut()  # the phone's Wi-Fi drops: its will says so
        devices = sub.wait_for(lambda m: m.topic == f"{T1}/devices" and m.json().get("scorer:scorer-t1") == "lost")
        assert devices.json()["last_seen"]["scorer:scorer-t1"]
