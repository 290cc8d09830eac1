"""Who changed the score (issue 26, docs/mqtt.md): named logins on the command path, through a
real mosquitto over TLS.

- Each client writes ``<prefix>/command/<user>``: the user goes onto the ``event`` answer and
  into the journal with the event, and a restart replays that journal to the same score.
- Every input gets exactly one answer, whatever it holds (a number JSON cannot carry, 100,000
  nested arrays, bytes that are not UTF-8, 1 MB): ``rejected`` with its id, type and user and
  at most 1 KiB of it.
- The bare ``<prefix>/command`` of older tools is refused, naming the key that takes it.
- One login flooding the table is refused on its own: the desk's commands with ids are each
  answered and applied, and every flood line with an id gets its own answer.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from gpiozero.pins.mock import MockFactory
from paho.mqtt.enums import CallbackAPIVersion

from cueboard.table.journal import read_lines
from cueboard.table.mqtt.paced_link import PacedLink
from tests.helpers.daemon import table_config
from tests.helpers.mosquitto import Message, Mosquitto, Subscriber, make_tls_files
from tests.table.test_command_path import config_for
from tests.table.test_reliability import KEYMAP, PINS, PREFIX, TIMEOUT, Daemon

pytestmark = pytest.mark.system


USERS = {"t1": "table-one-pw", "t1.scorers": "table-one-pw", "t1.commands": "table-one-pw", "desk": "desk-pw",
         "scorer-t1": "scorer-pw"}
"""``t1.scorers``, ``t1.commands``: the table's paced links (cueboard.table.mqtt.paced_link), with its password."""


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    tls = make_tls_files(tmp_path / "tls")
    with Mosquitto(tmp_path / "broker", users=USERS, tls=tls) as running:
        running.tls_files = tls  # type: ignore[attr-defined]
        yield running


def login(broker: Mosquitto, user: str) -> mqtt.Client:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"cueboard-{user}-test",
                         protocol=mqtt.MQTTv5)
    client.username_pw_set(user, USERS[user])
    client.tls_set(ca_certs=str(broker.tls_files.ca))  # type: ignore[attr-defined]
    client.connect("localhost", broker.port)
    client.loop_start()
    return client


def answers(broker: Mosquitto) -> Subscriber:
    """The desk's view of the table's answers."""
    return Subscriber([f"{PREFIX}/event", f"{PREFIX}/rejected"], port=broker.port, host="localhost",
                      username="desk", password=USERS["desk"],
                      ca=broker.tls_files.ca).wait_subscribed()  # type: ignore[attr-defined]


def running(tmp_path: Path, broker: Mosquitto, **sections: Any) -> Daemon:
    return Daemon(config_for(tmp_path, broker, **sections), boards=[], control=False, pin_factory=MockFactory())


def subscribed(broker: Mosquitto, since: int = 0) -> None:
    """The daemon's command subscription is in place (from log line ``since``: a restarted
    daemon subscribes again)."""
    broker.wait_for_log(lambda line: line.endswith(f"{PREFIX}/command/+"), TIMEOUT, since=since)


def answer_to(sub: Subscriber, ident: str) -> Message:
    return sub.wait_for(lambda m: m.json().get("id") == ident)


def test_the_user_goes_with_the_event_onto_the_answer_and_into_the_journal(tmp_path: Path,
                                                                          broker: Mosquitto) -> None:
    sub = answers(broker)
    desk = login(broker, "desk")
    try:
        with running(tmp_path, broker) as daemon:
            subscribed(broker)
            desk.publish(f"{PREFIX}/command/desk", json.dumps({"type": "no_pot", "id": "d1"}),
                         qos=1).wait_for_publish(TIMEOUT)
            event = answer_to(sub, "d1")
            assert event.topic == f"{PREFIX}/event"
            assert event.json()["user"] == "desk" and event.json()["event"]["type"] == "no_pot"
            journal = daemon.table.journal.path
            assert journal is not None
        last = json.loads(read_lines(journal)[-1])
        assert (last["type"], last["id"], last["user"]) == ("no_pot", "d1", "desk")
        since = len(broker.log)
        with running(tmp_path, broker) as again:  # the journal with its users replays
            assert again.state()["seq"] == 1
            subscribed(broker, since)
            desk.publish(f"{PREFIX}/command/desk", json.dumps({"type": "no_pot", "id": "d1"}),
                         qos=1).wait_for_publish(TIMEOUT)  # a retry after the restart: not applied again
            repeat = answer_to(sub, "d1").json()
            assert "applied already" in repeat["reason"] and repeat["user"] == "desk"
            desk.publish(f"{PREFIX}/command/desk", json.dumps({"type": "undo", "id": "d2"}),
                         qos=1).wait_for_publish(TIMEOUT)
            assert answer_to(sub, "d2").json()["event"]["type"] == "undo"
            assert again.state()["seq"] == 0
    finally:
        desk.disconnect()
        desk.loop_stop()
        sub.close()


NESTED = b'{"type": "pot", "id": "deep", "balls": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
DEEP = b'{"type": "pot", "id": "deep", "balls": ' + b"[" * 8000 + b"]" * 8000 + b"}"  # under commands.max_bytes
HUGE = b'{"type": "match", "id": "big", "sides": ["' + b"x" * 1_000_000 + b'", "Bob"]}'


@pytest.mark.parametrize(("payload", "ident", "kind", "why"), [
    pytest.param(b'{"type": "no_pot", "id": "inf", "t": 1e999}', "inf", "no_pot", "a number JSON cannot carry",
                 id="1e999"),
    pytest.param(b'{"type": "no_pot", "id": "nan", "t": NaN}', "nan", "no_pot", "NaN is not JSON", id="NaN"),
    pytest.param(NESTED, "deep", "pot", "too long: 200040 bytes", id="100000-nested-arrays"),
    pytest.param(DEEP, "deep", "pot", "nested too deep", id="8000-nested-arrays"),
    pytest.param(b'{"type": "no_pot", "id": "utf", "t": "\xff\xfe"}', "utf", "no_pot", "not UTF-8",
                 id="not-utf-8"),
    pytest.param(HUGE, "big", "match", f"too long: {len(HUGE)} bytes", id="one-megabyte"),
    pytest.param(json.dumps({"type": "match", "id": "name", "game": "snooker",
                             "sides": ["y" * 10_000, "Bob"]}).encode(), "name", "match", "10000 characters",
                 id="a-long-name-under-the-limit"),
    pytest.param(b'[1, 2, 3]', None, None, "send one JSON object", id="not-an-object"),
])
def test_every_input_gets_exactly_one_bounded_answer(tmp_path: Path, broker: Mosquitto, payload: bytes,
                                                     ident: str | None, kind: str | None, why: str) -> None:
    sub = answers(broker)
    scorer = login(broker, "scorer-t1")
    try:
        with running(tmp_path, broker) as daemon:
            subscribed(broker)
            topic = f"{PREFIX}/command/scorer-t1"
            scorer.publish(topic, payload, qos=1).wait_for_publish(TIMEOUT)
            scorer.publish(topic, json.dumps({"type": "state", "id": "after"}), qos=1).wait_for_publish(TIMEOUT)
            first = sub.get()
            refusal = first.json()
            assert first.topic == f"{PREFIX}/rejected", refusal
            assert why in refusal["reason"], refusal
            assert (refusal["id"], refusal["type"], refusal["user"]) == (ident, kind, "scorer-t1")
            assert len(first.payload) < 3 * 1024  # at most 1 KiB of the input, however long it was
            if len(payload) > 1024:
                assert refusal["event"] is None and refusal["length"] > 1024  # its bytes (as read, when JSON)
                assert len(refusal["input"].encode()) <= 3 * 1024 and len(refusal["input"]) <= 1024
            # The line after it: nothing else was said of the first in between (exactly one answer).
            daemon.on_engine(lambda: None)
            assert daemon.state()["seq"] == 0
            assert daemon.on_engine(lambda: daemon.table.refused) == 1
    finally:
        scorer.disconnect()
        scorer.loop_stop()
        sub.close()
    assert sub.messages.empty(), [m.payload[:200] for m in sub.seen]


def test_the_bare_command_topic_is_refused_naming_the_key(tmp_path: Path, broker: Mosquitto) -> None:
    sub = answers(broker)
    desk = login(broker, "desk")
    try:
        with running(tmp_path, broker) as daemon:
            subscribed(broker)
            desk.publish(f"{PREFIX}/command", json.dumps({"type": "no_pot", "id": "old"}),
                         qos=1).wait_for_publish(TIMEOUT)
            refusal = answer_to(sub, "old").json()
            assert "mqtt.unnamed_commands" in refusal["reason"] and "user" not in refusal
            assert daemon.state()["seq"] == 0
    finally:
        desk.disconnect()
        desk.loop_stop()
        sub.close()


def test_older_tools_on_the_bare_topic_when_the_venue_opts_in(tmp_path: Path, broker: Mosquitto,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    sub = answers(broker)
    desk = login(broker, "desk")
    config = config_for(tmp_path, broker)
    config = type(config)(**{**vars(config), "mqtt": type(config.mqtt)(**{**vars(config.mqtt),
                                                                           "unnamed_commands": True})})
    try:
        with Daemon(config, boards=[], control=False, pin_factory=MockFactory()) as daemon:
            subscribed(broker)
            desk.publish(f"{PREFIX}/command", json.dumps({"type": "no_pot", "id": "old"}),
                         qos=1).wait_for_publish(TIMEOUT)
            event = answer_to(sub, "old")
            assert event.topic == f"{PREFIX}/event" and "user" not in event.json()
            assert daemon.state()["seq"] == 1
    finally:
        desk.disconnect()
        desk.loop_stop()
        sub.close()
    assert any("mqtt.unnamed_commands = true" in r.getMessage() for r in caplog.records)


def test_a_flooding_scorer_never_locks_the_desk_out(tmp_path: Path, broker: Mosquitto,
                                                    finding: Callable[..., None]) -> None:
    """The measured failure: every publisher shared one rate, and during a 20,000-line flood all
    10 desk commands were refused, none with its own answer. Now each login has its own. (This
    flood comes on the command topic, read on the table's commands' link no faster than answered,
    each login in turn: tests/table/test_command_link.py floods it as a desk login. A scorer's topic is
    read the same way: the next test.)"""
    sub = answers(broker)
    desk, scorer = login(broker, "desk"), login(broker, "scorer-t1")
    flood = 3000
    try:
        with running(tmp_path, broker) as daemon:
            subscribed(broker)
            done = threading.Event()

            def flooding() -> None:
                for n in range(flood):  # pink with red on: illegal, whatever gets through the rate
                    scorer.publish(f"{PREFIX}/command/scorer-t1",
                                   json.dumps({"type": "pot", "balls": ["pink"], "id": f"f{n}"}), qos=0)
                done.set()

            thread = threading.Thread(target=flooding)
            thread.start()
            for n in range(10):
                desk.publish(f"{PREFIX}/command/desk", json.dumps({"type": "no_pot", "id": f"d{n}"}),
                             qos=1).wait_for_publish(TIMEOUT)
            thread.join(TIMEOUT)
            assert done.is_set()
            desk_answers: dict[str, dict[str, Any]] = {}
            flood_answers: dict[str, int] = {}
            while len(desk_answers) < 10:
                message = sub.get()
                body = message.json()
                ident = body.get("id") or ""
                if ident.startswith("d"):
                    assert ident not in desk_answers
                    desk_answers[ident] = {"topic": message.topic, **body}
                elif ident.startswith("f"):
                    flood_answers[ident] = flood_answers.get(ident, 0) + 1
            assert all(a["topic"] == f"{PREFIX}/event" and a["user"] == "desk" for a in desk_answers.values())
            assert daemon.state()["seq"] == 10  # the desk's ten, none of the flood's
            assert all(count == 1 for count in flood_answers.values())  # none answered twice
            feed = daemon.table.feed
            assert feed is not None
            # (The rest of the flood's answers: each line's own, the oldest dropped once the login's
            # lane was full. Not counted here: under load the broker may drop messages for this
            # test's slow subscriber, which says nothing of the table.)
            finding(f"a scorer flooding {flood} lines while the desk sent 10 commands with ids: all 10 answered "
                    f"and applied, none of the flood's; {len(flood_answers)} flood lines answered by their id by "
                    f"the desk's last answer; {feed.dropped} answers dropped from the scorer's own lane",
                    flood=flood, flood_answered_by_then=len(flood_answers),
                    dropped=feed.dropped)  # type: ignore[attr-defined]
    finally:
        for client in (desk, scorer):
            client.disconnect()
            client.loop_stop()
        sub.close()


def test_a_match_line_and_a_clock_command_are_answered_on_event_by_their_id(tmp_path: Path,
                                                                             broker: Mosquitto) -> None:
    """Every command gets exactly one answer: a match line and ``clock`` (not events of the log)
    were answered only by the state, so a desk waiting for its id never heard. Now each is on
    ``event`` with its id and user: the match line as journalled (``seq`` 0), ``clock`` marked
    ``"logged": false`` (in no log: a history leaves it out)."""
    sub = answers(broker)
    desk = login(broker, "desk")
    try:
        with running(tmp_path, broker) as daemon:
            subscribed(broker)
            for line in ({"type": "match", "game": "blackball", "sides": ["Ann", "Bob"], "id": "m1"},
                         {"type": "clock", "action": "start", "id": "c1"},
                         {"type": "clock", "action": "resume", "id": "c2"},  # not held: refused
                         {"type": "new_match", "id": "m2"},
                         {"type": "no_pot", "id": "end"}):
                desk.publish(f"{PREFIX}/command/desk", json.dumps(line), qos=1).wait_for_publish(TIMEOUT)
            answer_to(sub, "end")  # the last line's answer: every answer before it is in
            got = {ident: [m for m in sub.seen if m.json().get("id") == ident] for ident in ("m1", "c1", "c2", "m2")}
            assert all(len(found) == 1 for found in got.values()), got  # exactly one answer each
            match, clock, refused, again = (got[ident][0] for ident in ("m1", "c1", "c2", "m2"))
            body = match.json()
            assert match.topic == f"{PREFIX}/event", body["reason"]
            assert (body["seq"], body["user"], body["event"]["type"], body["event"]["game"]) == (
                0, "desk", "match", "blackball")
            assert "logged" not in body
            assert clock.topic == f"{PREFIX}/event"
            assert clock.json()["event"] == {"type": "clock", "action": "start", "id": "c1", "user": "desk"}
            assert clock.json()["logged"] is False and clock.json()["seq"] == 0
            assert refused.topic == f"{PREFIX}/rejected" and "not held" in refused.json()["reason"]
            assert again.topic == f"{PREFIX}/event" and again.json()["event"]["type"] == "match"
            assert daemon.state()["game"] == "snooker"  # new_match: the table's own format
    finally:
        desk.disconnect()
        desk.loop_stop()
        sub.close()


def test_a_scorer_flooding_its_own_topic_gets_every_line_answered_and_never_delays_the_desk(
        tmp_path: Path, broker: Mosquitto, finding: Callable[..., None]) -> None:
    """Spec item 5: a scorer writes ``score/<user>``, which the table reads on a connection of its
    own (cueboard.table.mqtt.paced_link), no faster than it answers: the desk's commands on their own
    connection are not queued behind the flood, and every flood line the table reads gets exactly
    one answer by its id, none dropped from its lane. The lane is 100 here (``mqtt.queue``), so
    the link hands the scorer's lines on while fewer than 50 answers wait, keeps up to 100 more in
    the scorer's backlog, and does not read the rest: those are counted and said in a summary,
    never answered one by one, and every line sent is one or the other."""
    sub = answers(broker)
    desk, scorer = login(broker, "desk"), login(broker, "scorer-t1")
    flood = 300
    mqtt_section = {"host": "localhost", "port": broker.port, "username": "t1", "password": USERS["t1"],
                    "command": True, "tls": {"ca": str(broker.tls_files.ca)}, "queue": 100}  # type: ignore[attr-defined]
    config = table_config(tmp_path, mqtt=mqtt_section, referee_box=[{"pins": PINS[0], "keymap": str(KEYMAP)}])
    try:
        with Daemon(config, boards=[], control=False, pin_factory=MockFactory()) as daemon:
            subscribed(broker)
            broker.wait_for_log(lambda line: line.endswith(f"{PREFIX}/score/+"), TIMEOUT)
            link = daemon.table.links["mqtt_scorers"]
            assert isinstance(link, PacedLink)
            read: list[str | None] = []
            on_line = link._on_line

            def reading(payload: bytes, retained: bool, user: str | None) -> None:
                read.append(json.loads(payload).get("id"))
                on_line(payload, retained, user)

            link._on_line = reading  # type: ignore[method-assign]
            for n in range(flood):  # pink with red on: illegal, whatever gets through the rate
                scorer.publish(f"{PREFIX}/score/scorer-t1", json.dumps({"type": "pot", "balls": ["pink"],
                                                                        "id": f"f{n}"}), qos=0)
            for n in range(10):
                desk.publish(f"{PREFIX}/command/desk", json.dumps({"type": "no_pot", "id": f"d{n}"}),
                             qos=1).wait_for_publish(TIMEOUT)
            desk_answers = [answer_to(sub, f"d{n}") for n in range(10)]
            assert all(a.topic == f"{PREFIX}/event" and a.json()["user"] == "desk" for a in desk_answers)
            # Every line sent reaches the link (300 is well within the broker's queue for it): each is
            # handed on or not read.
            assert link.wait_until(lambda: link.taken + link.unread == flood, TIMEOUT * 2), (link.taken, link.unread)
            table, feed = daemon.table, daemon.table.feed
            assert feed is not None and feed.flush(TIMEOUT * 2)

            def scorers() -> list[dict[str, Any]]:
                return [m.json() for m in list(sub.seen) if m.json().get("user") == "scorer-t1"]

            def said_unread() -> int:
                return sum(int(a["reason"].split()[0]) for a in scorers() if " not read: " in a["reason"])

            def settled() -> bool:
                return {a.get("id") for a in scorers()} >= set(read) and said_unread() == link.unread

            if not settled():
                sub.wait_for(lambda m: settled(), TIMEOUT * 2)
            got = [a for a in scorers() if a.get("id") is not None]
            ids = [a["id"] for a in got]
            assert len(read) == len(set(read)) == link.taken  # each line handed on once
            assert len(ids) == len(set(ids)) == table.refused == len(read)  # each refusal answered once, by its id
            assert set(ids) == set(read)
            assert not any("not answered one by one" in a["reason"] for a in scorers())  # no rate summary instead
            assert all(a["source"] == "scorer" for a in got)
            assert feed.dropped == 0
            assert daemon.state()["seq"] == 10  # the desk's ten, none of the flood's
            finding(f"a scorer flooding {flood} lines on score/<user> (its lane of answers 100) while the desk sent 10 "
                    f"commands: the desk's 10 answered and applied; the table read {len(read)} flood lines and "
                    f"answered each once by its id; {link.unread} not read, said in summaries; 0 dropped",
                    flood=flood, read=len(read), unread=link.unread)
    finally:
        for client in (desk, scorer):
            client.disconnect()
            client.loop_stop()
        sub.close()
