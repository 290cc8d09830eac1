"""Roles written down once (issue 37, row 9; ``cueboard/contract/roles.py``), tried at the door:
every line of :data:`~cueboard.contract.roles.LINES` from every role, and every topic a table
reads from every role, on a real table (mock pins) behind real mosquitto with TLS and the ACL
``cueboard venue`` writes. Each is taken or refused exactly as the roles module says: the
broker refuses a topic the role may not write (MQTT 5 PUBACK 135), the table refuses a line
the role may not send (``forbidden``, naming the role), and a line the role may send is taken
(applied, or refused by the rules, never for the role). A scorer cannot concede the match.

Names at the same door: a match line, a hand-off or a message from the desk with a character
RFC 8266's nickname rules refuse is refused naming the rule, and changes nothing.

Nothing waits on the wall clock: each step waits for the broker's PUBACK or the table's answer.
"""

from __future__ import annotations

import json
import threading
import uuid
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from cueboard.contract.roles import CHANNELS, LINE_CHANNEL, LINES, ROLES, WRITES, Channel, Role, may_send
from cueboard.table.config import Config
from tests.helpers.daemon import table_config
from tests.helpers.mosquitto import TIMEOUT, Message, Subscriber
from tests.table.test_handoffs import KEYPAD, T1, Club, handoff
from tests.table.test_reliability import Daemon

pytestmark = [pytest.mark.system, pytest.mark.club(scorers=["t1"])]

NOT_AUTHORISED = 135
"""The PUBACK's reason code for a publish the ACL refuses (MQTT 5)."""

SAMPLES: dict[str, dict[str, Any]] = {
    "pot": {"type": "pot", "balls": ["red"]},
    "no_pot": {"type": "no_pot"},
    "foul": {"type": "foul", "points": 4},
    "replace": {"type": "replace"},
    "play_again": {"type": "play_again"},
    "respotted_black": {"type": "respotted_black", "side": 0},
    "concede": {"type": "concede"},
    "claim": {"type": "claim"},
    "next_frame": {"type": "next_frame"},
    "rerack": {"type": "rerack"},
    "loss": {"type": "loss"},
    "touching": {"type": "touching"},
    "clock": {"type": "clock", "action": "start"},
    "clock_hold": {"type": "clock_hold"},
    "clock_resume": {"type": "clock_resume"},
    "undo": {"type": "undo"},
    "redo": {"type": "redo"},
    "call": {"type": "call", "keys": ["FOUL"], "needs": "the value"},
    "concede_match": {"type": "concede", "match": True},
    "award": {"type": "award", "side": 0, "reason": "conduct"},
    "amend": {"type": "amend", "seq": 1, "delete": True},
    "amend_preview": {"type": "amend", "seq": 1, "delete": True, "preview": True},
    "order": {"type": "order", "players": ["Ann", "Bob"]},
    "started_by": {"type": "started_by", "side": 1},
    "clock_stop": {"type": "clock", "action": "stop"},
    "match": {"type": "match", "game": "snooker", "sides": ["Zoë", "丁俊晖"], "best_of": 3},
    "new_match": {"type": "new_match"},
    "start_next": {"type": "start_next", "fixture": "F1"},
    "state": {"type": "state"},
    "light": {"type": "light", "on": True},
}
"""A line of each kind the roles module names (the rules may refuse it: the role is what is tried)."""


class Door:
    """A client of one role at the venue's broker (MQTT 5 over TLS; a screen over secure
    WebSockets, anonymous): each publish waits for the broker's PUBACK and gives its reason code."""

    def __init__(self, hall: Club, role: Role, login: str | None, port: int, *, websockets: bool = False) -> None:
        self.role, self.login = role, login
        # A chosen id starts cueboard- (the tables' listener makes the login the id: use_username_as_clientid).
        client_id = f"cueboard-{login or 'screen'}-{uuid.uuid4().hex[:8]}"
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5,
                                  transport="websockets" if websockets else "tcp")
        if login is not None:
            self.client.username_pw_set(login, hall.password(login))
        self.client.tls_set(str(hall.ca))
        self._acks: dict[int, int] = {}
        self._acked = threading.Condition()
        connected = threading.Event()
        refused: list[Any] = []

        def on_connect(client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
            if reason.is_failure:
                refused.append(reason)
            connected.set()

        self.client.on_connect = on_connect
        self.client.on_publish = self._on_publish
        self.client.connect("localhost", port)
        self.client.loop_start()
        assert connected.wait(TIMEOUT), f"{role}: no CONNACK"
        assert not refused, f"{role}: connection refused: {refused}"

    def _on_publish(self, client: Any, userdata: Any, mid: int, reason: Any, properties: Any) -> None:
        with self._acked:
            self._acks[mid] = reason.value
            self._acked.notify_all()

    def publish(self, topic: str, payload: bytes | dict[str, Any]) -> int:
        """The PUBACK's reason code: 0 taken, 16 no subscribers, 135 not authorised."""
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        info = self.client.publish(topic, data, qos=1)
        with self._acked:
            assert self._acked.wait_for(lambda: info.mid in self._acks, TIMEOUT), f"no PUBACK for {topic}"
            return self._acks.pop(info.mid)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def config(hall: Club) -> Config:
    """t1 as the hall's, with limits no test of roles reaches (a refusal here is for the role or the rules)."""
    section = {"host": "localhost", "port": hall.ports["tables"], "username": "t1",
               "password": hall.password("t1"), "command": True, "tls": {"ca": str(hall.ca)}}
    return table_config(hall.tmp / "t1", table={"venue": "club", "name": "t1"}, mqtt=section,
                        keypad={"port": str(hall.tmp / "t1" / "no-keypad"), "keymap": str(KEYPAD)},
                        commands={"rate": 1000, "burst": 1000, "queue": 1000, "new_match_every": 0})


def doors(hall: Club) -> dict[Role, Door | None]:
    """A client of each role: the desk, t1's scorer, another table (t2's login: t1's is its
    daemon's session), an anonymous screen; the league has no login at a venue's broker (its
    bridge carries the venue's topics out), so nothing of it can knock."""
    return {"desk": Door(hall, "desk", "desk", hall.ports["people"]),
            "scorer": Door(hall, "scorer", "scorer-t1", hall.ports["people"]),
            "table": Door(hall, "table", "t2", hall.ports["tables"]),
            "screen": Door(hall, "screen", None, hall.ports["screens"], websockets=True),
            "league": None,
            "archive": None}  # writes none of these: its acknowledgements, tests/venue/test_archive_role.py


def topic(channel: Channel, login: str) -> str:
    return {"command": f"{T1}/command/{login}", "score": f"{T1}/score/{login}",
            "presence": f"{T1}/score/{login}/presence", "next": f"{T1}/next", "message": f"{T1}/message"}[channel]


def benign(channel: Channel, ident: str) -> bytes | dict[str, Any]:
    """What each topic carries, harmless: a no-pot, an online presence; empty (clears) on next and message."""
    if channel in ("command", "score"):
        return {"type": "no_pot", "id": ident}
    if channel == "presence":
        return {"schema": 1, "online": True}
    return b""


def answer_to(sub: Subscriber, ident: str) -> Message:
    """The table's answer to the line ``ident``: on event, rejected or preview (a preview's)."""
    try:
        return sub.wait_for(lambda m: m.topic in (f"{T1}/event", f"{T1}/rejected", f"{T1}/preview")
                            and bool(m.payload) and m.json().get("id") == ident)
    except TimeoutError:
        raise AssertionError(f"no answer to {ident}") from None


def try_line(sub: Subscriber, door: Door, channel: Channel, kind: str) -> str:
    """Send ``kind``'s sample from ``door`` on ``channel``; check the table's answer against the
    roles module and say what it was."""
    role, login = door.role, door.login
    assert login is not None
    ident = f"{role}-{kind}"
    line = {**SAMPLES[kind], "id": ident}
    assert door.publish(topic(channel, login), line) != NOT_AUTHORISED
    if kind == "call" and may_send(role, kind):
        # Taken: shown on the boards' input, never journalled or answered.
        sub.wait_for(lambda m: m.topic == f"{T1}/input" and m.json().get("source") == f"scorer:{login}"
                     and m.json().get("keys") == ["FOUL"])
        door.publish(topic(channel, login), {"type": "call", "keys": []})
        return "taken"
    if kind == "state" and may_send(role, kind):
        # A state question over MQTT is answered by the retained state: nothing comes for its
        # id unless it is refused. The user's lines are taken in order: the next one's answer says it was not.
        door.publish(topic(channel, login), {"type": "no_pot", "id": f"after-{ident}"})
        after = sub.wait_for(lambda m: m.topic in (f"{T1}/event", f"{T1}/rejected") and bool(m.payload)
                             and m.json().get("id") in (ident, f"after-{ident}"))
        assert after.json()["id"] == f"after-{ident}" or after.topic.endswith("/event"), after.json()
        return "taken"
    got = answer_to(sub, ident)
    said = got.json()
    refused = got.topic.endswith("/rejected")
    if may_send(role, kind):
        assert not (refused and (said.get("code") == "forbidden" or "is refused from" in str(said.get("reason")))), \
            (role, kind, said)
        return f"refused by the rules ({said.get('short')})" if refused else "taken"
    assert refused, (role, kind, said)
    if role == "scorer":  # the table decides: the role named, in words and code
        assert (said["code"], said["short"]) == ("forbidden", "not_a_scorers"), said
        assert f"is refused from {login}: a scorer login scores strokes" in said["reason"], said
    return f"refused ({said['code']})"


def test_every_line_from_every_role_is_taken_or_refused_as_the_roles_say(hall: Club, finding: Any) -> None:
    assert set(SAMPLES) == set(LINES), "a line of the roles module with no sample here"
    clients = doors(hall)
    tried: list[tuple[str, str, str]] = []
    try:
        with Daemon(config(hall), boards=[], control=False), hall.subscriber(f"{T1}/#") as sub:
            hall.wait_listening()
            # The broker's door: each topic the table reads, from each role, under its own name.
            for role in ROLES:
                door = clients[role]
                if door is None:
                    assert not WRITES[role]
                    continue
                for channel in CHANNELS:
                    code = door.publish(topic(channel, door.login or "screen"),
                                        benign(channel, f"acl-{role}-{channel}"))
                    if channel in WRITES[role] and role != "table":
                        assert code != NOT_AUTHORISED, (role, channel)
                    else:  # a table's `next` is its own: t2's login may not write t1's
                        assert code == NOT_AUTHORISED, (role, channel, code)
                    tried.append((role, channel, "taken" if code != NOT_AUTHORISED else "refused by the broker"))
                # Nobody writes a command or score topic under another's name.
                assert door.publish(f"{T1}/command/someone-else", benign("command", "x")) == NOT_AUTHORISED
                assert door.publish(f"{T1}/score/someone-else", benign("score", "x")) == NOT_AUTHORISED
            assert clients["table"] is not None
            assert clients["table"].publish("cueboard/club/t2/next", b"") != NOT_AUTHORISED  # its own

            # The table's door: every line from each role with a topic for lines.
            for role, channel in LINE_CHANNEL.items():
                door = clients[role]
                assert door is not None
                tried += [(role, kind, try_line(sub, door, channel, kind)) for kind in SAMPLES]
    finally:
        for door in clients.values():
            if door is not None:
                door.close()
    outcomes: dict[str, int] = {}
    for _, _, outcome in tried:
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    finding(f"{len(tried)} tries of the roles' doors: " + ", ".join(f"{n} {o}" for o, n in sorted(outcomes.items())),
            tried=[list(t) for t in tried])
    lines_tried = {(role, kind) for role, kind, _ in tried if kind in LINES}
    assert lines_tried == {(role, kind) for role in LINE_CHANNEL for kind in LINES}


def test_a_scorer_cannot_concede_the_match_and_nothing_changes(hall: Club) -> None:
    clients = doors(hall)
    try:
        with Daemon(config(hall), boards=[], control=False) as t1, hall.subscriber(f"{T1}/#") as sub:
            hall.wait_listening()
            before = t1.send({"type": "state"})["state"]
            scorer = clients["scorer"]
            assert scorer is not None
            scorer.publish(f"{T1}/score/scorer-t1", {"type": "concede", "match": True, "id": "c1"})
            said = answer_to(sub, "c1").json()
            assert (said["code"], said["short"]) == ("forbidden", "not_a_scorers")
            assert said["reason"] == ("'concede' with \"match\": true is refused from scorer-t1: a scorer login "
                                      "scores strokes; the desk concedes a match")
            assert t1.send({"type": "state"})["state"] == before
            # The frame is the striker's to concede, keyed by the marker: taken.
            scorer.publish(f"{T1}/score/scorer-t1", {"type": "concede", "id": "c2"})
            conceded = answer_to(sub, "c2")
            assert conceded.topic == f"{T1}/event", conceded.json()
            assert not t1.send({"type": "state"})["state"]["match_over"]
    finally:
        for door in clients.values():
            if door is not None:
                door.close()


@pytest.mark.parametrize("name", ["An\u200dn", "Ann\ufe0f", "An\u034fn", "An\u17b4n"],
                         ids=["zwj", "U+FE0F", "U+034F", "U+17B4"])
def test_the_desk_match_line_and_message_refuse_invisible_characters(hall: Club, name: str) -> None:
    clients = doors(hall)
    try:
        with Daemon(config(hall), boards=[], control=False) as t1, hall.subscriber(f"{T1}/#") as sub:
            hall.wait_listening()
            before = t1.send({"type": "state"})["state"]
            files = t1.table.journal.matches()
            desk = clients["desk"]
            assert desk is not None
            desk.publish(f"{T1}/command/desk", {"type": "match", "sides": ["Ann", name], "id": "m1"})
            said = answer_to(sub, "m1").json()
            assert said["reason"].startswith("match: RFC 8266 nickname: side 1's name has "), said
            assert (said["short"], said["code"]) == ("match_setup", "refused")
            desk.publish(f"{T1}/command/desk", {"type": "match", "sides": ["Ann", "ANN"], "id": "m2"})
            said = answer_to(sub, "m2").json()
            assert "is entered twice: the same player as side 0" in said["reason"], said
            desk.publish(f"{T1}/message", {"schema": 1, "text": f"{name}: your match is next", "until": None})
            refused = sub.wait_for(lambda m: m.topic == f"{T1}/rejected" and m.json().get("short") == "bad_message")
            assert refused.json()["reason"].startswith("message: RFC 8266 nickname: the message's 'text' has ")
            desk.publish(f"{T1}/next", handoff("KO-1", ["Cara", name]))  # the desk's hand-off
            refused = sub.wait_for(lambda m: m.topic == f"{T1}/rejected" and m.json().get("short") == "bad_next")
            assert "RFC 8266 nickname: side 1's name has " in refused.json()["reason"], refused.json()
            assert t1.send({"type": "state"})["state"] == before and t1.table.journal.matches() == files
            # Real names pass the same door.
            desk.publish(f"{T1}/command/desk", {"type": "match", "sides": ["Zoë", "O'Sullivan"], "id": "m3"})
            assert answer_to(sub, "m3").topic == f"{T1}/event"
            assert t1.send({"type": "state"})["state"]["sides"][1]["name"] == "O'Sullivan"
    finally:
        for door in clients.values():
            if door is not None:
                door.close()
