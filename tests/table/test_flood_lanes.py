"""A login flooding one of a table's value lanes (issue 37, rows 2 and 3), on the venue's broker
exactly as ``cueboard venue init`` writes it (TLS, the ACL, the password files) with a real table
daemon: a scorer's ``presence``, the desk's ``message`` and ``next``.

What must hold: nothing of the flood enters the table's own input lane (``Table.submit``, taken
before everything: the referee's buttons, the keypad); the values wait as the newest per key
(never queued: the inbox holds at most one per key), and the newest is the one applied in the end;
the desk's commands are answered and the state reaches a venue subscriber during and after the
flood; nothing is left waiting for a PUBACK. The flood is a count of lines from another process
(as fast as one paho client sends), not a time; every wait is for the message it causes.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from typing import Any

import pytest

from cueboard.table.inputs import Call, Input
from cueboard.table.latest_inputs import MAX_KEYS
from tests.helpers.mosquitto import TIMEOUT
from tests.table.test_handoffs import T1, Club, Person, handoff
from tests.table.test_reliability import Daemon

pytestmark = [pytest.mark.system, pytest.mark.club(scorers=["t1"])]

LINES = 20_000
"""Lines of flood: at this machine's rate some seconds' worth, far more than the engine takes."""

FLOOD = """
import json, sys
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
host, port, login, password, ca, topic, count, lane, last = sys.argv[1:10]
client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="cueboard-flood-" + lane, protocol=mqtt.MQTTv5)
client.username_pw_set(login, password)
client.tls_set(ca)
client.max_queued_messages_set(10000)
client.connect(host, int(port))
client.loop_start()
def payload(n):
    if n % 2:
        return b"not JSON %d" % n
    if lane == "presence":
        return json.dumps({"schema": 1, "online": n % 4 == 0, "ts": "2026-11-29T00:00:00Z"}).encode()
    if lane == "message":
        return json.dumps({"schema": 1, "text": "flood %d" % n}).encode()
    return json.dumps({"schema": 1, "fixture": "F%d" % n, "competition": "Cup", "sides": ["Ann", "Bob"],
                       "format": {"game": "snooker", "best_of": 3}, "handed_by": "desk"}).encode()
sent = 0
while sent < int(count):
    if client.publish(topic, payload(sent), qos=0).rc == 0:
        sent += 1
client.publish(topic, last.encode(), qos=1, retain=True).wait_for_publish(30)
client.disconnect()
client.loop_stop()
"""


def last_value(lane: str) -> dict[str, Any]:
    """The flood's last line, sent after all the others: the value the table must end with."""
    if lane == "presence":
        return {"schema": 1, "online": False, "ts": "2026-11-29T00:00:01Z"}
    if lane == "message":
        return {"schema": 1, "text": "the last word"}
    return handoff("F-last", ["Cy", "Di"])


def applied(lane: str, state: dict[str, Any], devices: dict[str, Any]) -> bool:
    if lane == "presence":
        return devices.get("scorer:scorer-t1") == "lost"
    if lane == "message":
        return state.get("message", {}).get("text") == "the last word"
    return state.get("next", {}).get("fixture") == "F-last"


class OwnLane:
    """Every input put in the table's own lane, by name (wrapping ``Inbox.put``), and the most
    network values seen waiting at once."""

    def __init__(self, daemon: Daemon) -> None:
        self.names: list[str] = []
        self.most_waiting = 0
        inbox = daemon.table.inbox
        put, put_latest = inbox.put, inbox.put_latest

        def own(item: Input) -> None:
            self.names.append(item.source if isinstance(item, Call) else type(item).__name__)
            put(item)

        def latest(key: str, item: Input) -> bool:
            kept = put_latest(key, item)
            self.most_waiting = max(self.most_waiting, inbox.waiting())
            return kept

        inbox.put = own  # type: ignore[method-assign]
        inbox.put_latest = latest  # type: ignore[method-assign]


@pytest.mark.parametrize("lane", ["presence", "message", "next"])
def test_a_flood_of_values_waits_as_the_newest_and_never_delays_the_table(hall: Club, lane: str) -> None:
    login = "scorer-t1" if lane == "presence" else "desk"
    topic = {"presence": f"{T1}/score/scorer-t1/presence", "message": f"{T1}/message", "next": f"{T1}/next"}[lane]
    with Daemon(hall.config("t1"), boards=[], control=False) as t1, \
            hall.subscriber(f"{T1}/state", f"{T1}/devices", f"{T1}/event") as sub:
        hall.wait_listening()
        lane_log = OwnLane(t1)
        desk = Person(hall, "desk")
        flood = subprocess.Popen([sys.executable, "-c", FLOOD, "localhost", str(hall.ports["people"]), login,
                                  hall.password(login), str(hall.ca), topic, str(LINES), lane,
                                  json.dumps(last_value(lane))], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            # During the flood: the desk's commands are answered, each by its own state at the venue.
            for n in range(3):
                assert desk.publish(f"{T1}/command/desk", {"type": "no_pot", "id": f"during{n}"}) in (0, 16)
                sub.wait_for(lambda m, n=n: m.topic.endswith("/event") and m.json().get("id") == f"during{n}")
            _, err = flood.communicate(timeout=300)
            assert flood.returncode == 0, err
        finally:
            if flood.poll() is None:
                flood.kill()
        # The newest value is the one the table ends with (a venue subscriber sees it).
        seen: dict[str, dict[str, Any]] = {"state": {}, "devices": {}}

        def ended(message: Any) -> bool:
            kind = message.topic.rsplit("/", 1)[1]
            if kind in seen:
                seen[kind] = message.json()
            return applied(lane, seen["state"], seen["devices"])

        sub.wait_for(ended)
        seq = t1.state()["seq"]
        assert desk.publish(f"{T1}/command/desk", {"type": "no_pot", "id": "after"}) in (0, 16)
        sub.wait_for(lambda m: m.topic.endswith("/state") and m.json()["seq"] == seq + 1)
        feed = t1.table.feed
        assert feed is not None and feed.flush(TIMEOUT)
        desk.close()
        replaced = t1.table.inbox.replaced
        # The desk's values came on the scorers' link, and the feed's session stopped reading them.
        assert t1.table.topics.desk_values_proven == (lane != "presence")
    assert not {"presence", "message", "next"} & set(lane_log.names), "a network value in the table's own lane"
    assert lane_log.most_waiting <= MAX_KEYS
    assert replaced > 0, "the flood was taken one by one, not as the newest per key"


def test_values_wait_as_the_newest_per_key_in_turn_with_the_lines() -> None:
    """The inbox's side, without a broker: a thousand values of one key hold one slot; the
    table's own input still goes first; a line and a value take turns."""
    from cueboard.table.inbox import Inbox
    from cueboard.table.inputs import Command

    inbox = Inbox()
    taken: list[str] = []
    for n in range(1000):
        assert inbox.put_latest("message", Call("message", lambda n=n: taken.append(f"message {n}")))
    assert inbox.waiting() == 1 and inbox.replaced == 999
    inbox.put_remote(Command("command", {"type": "undo"}), "command/desk", lambda waiting: waiting < 8)
    inbox.put(Call("press", lambda: taken.append("press")))
    first, second, third = (inbox.take(0) for _ in range(3))
    assert isinstance(first, Call) and first.source == "press"
    names = {type(second).__name__, type(third).__name__}
    assert names == {"Call", "Command"} and inbox.take(0) is False
    for item in (first, second, third):
        if isinstance(item, Call):
            item.run()
    assert taken == ["press", "message 999"]
    done = threading.Event()
    assert inbox.put_latest("message", Call("message", done.set))  # within VALUE_EVERY of the last: waits, then comes
    item = inbox.take(TIMEOUT)
    assert isinstance(item, Call)
    item.run()
    assert done.is_set()


def test_a_flood_of_one_value_wakes_the_engine_thread_once_not_for_each() -> None:
    """A value replacing one waiting never changes when the engine thread must take it, so a
    thousand of them wake that thread once (the key's first), not a thousand times: each wake-up
    took the interpreter from the referee's presses during a flood (issue 37)."""
    from cueboard.table.inbox import Inbox

    inbox = Inbox()
    wake_ups = 0
    notify = inbox._cv.notify

    def counted(n: int = 1) -> None:  # the engine thread sleeps on this condition (Inbox.take)
        nonlocal wake_ups
        wake_ups += 1
        notify(n)

    inbox._cv.notify = counted  # type: ignore[method-assign]
    for _ in range(1000):
        assert inbox.put_latest("message", Call("message", lambda: None))
    assert wake_ups == 1 and inbox.replaced == 999
    assert isinstance(inbox.take(0), Call)
    for _ in range(1000):  # taken within VALUE_EVERY: the next waits; its first put wakes the thread to
        assert inbox.put_latest("message", Call("message", lambda: None))  # sleep until then
    assert wake_ups == 2
    inbox.put(Call("press", lambda: None))  # the table's own inputs wake it, each
    assert wake_ups == 3


def test_an_older_venue_whose_link_may_not_read_the_values_still_gets_them(hall: Club) -> None:
    """A venue's ACL from before issue 37 (``t1.scorers`` reads ``score/#`` only): the broker
    refuses the link's subscription to ``message`` and ``next``, and the table takes them on its
    own session, as before (with a warning); the desk's message still shows."""
    acl = hall.directory / "mosquitto" / "acl"
    text = acl.read_text()
    values = "topic read cueboard/club/t1/next\ntopic read cueboard/club/t1/message\n"
    assert f"user t1.scorers\ntopic read cueboard/club/t1/score/#\n{values}" in text
    acl.write_text(text.replace(f"topic read cueboard/club/t1/score/#\n{values}",
                                "topic read cueboard/club/t1/score/#\n"))
    since = len(hall.broker.log)
    process = hall.broker._process
    assert process is not None
    process.send_signal(signal.SIGHUP)
    hall.broker.wait_for_log(lambda line: "Reloading config" in line, since=since)
    with Daemon(hall.config("t1"), boards=[], control=False) as t1, hall.subscriber(f"{T1}/state") as sub:
        desk = Person(hall, "desk")
        assert desk.publish(f"{T1}/message", {"schema": 1, "text": "still here"}, retain=True) in (0, 16)
        sub.wait_for(lambda m: m.json().get("message", {}).get("text") == "still here")
        assert not t1.table.topics.desk_values_proven
        desk.close()


def test_the_table_clients_dispatch_a_line_without_garbage_and_as_paho_does() -> None:
    """Issue 37: paho's matcher made a reference cycle for every message dispatched (a collection
    every 150 or so lines of a flood, many inside the referee's presses); the table's clients'
    matcher makes none, and matches each topic to the same callbacks in the same order."""
    import gc

    from paho.mqtt.matcher import MQTTMatcher

    from cueboard.table.mqtt.client import open_client
    from cueboard.table.mqtt.config import MqttConfig
    from cueboard.table.mqtt.matcher import TopicMatcher

    filters = ["a/b/c", "a/+/c", "a/#", "#", "+/+/+", "a/b/#", "$SYS/#", "+/b", "a/b", "+", "a/+", "$SYS/x/+"]
    topics = ["a/b/c", "a/b", "a", "x/b", "$SYS/x/y", "$SYS/b", "a/b/c/d", "", "a/", "cueboard/club/t1/command/d"]
    for chosen in (filters, filters[:4], filters[5:]):
        theirs, ours = MQTTMatcher(), TopicMatcher()
        for f in chosen:
            theirs[f] = ours[f] = f
        for topic in topics:
            assert list(ours.iter_match(topic)) == list(theirs.iter_match(topic)), topic

    client = open_client(MqttConfig(prefix="cueboard/club/t1", username="t1"), client_id="", protocol=5,
                         username="t1")
    got: list[str] = []
    client.message_callback_add("cueboard/club/t1/command/+", lambda c, u, m: got.append(m.topic))
    from paho.mqtt.client import MQTTMessage

    message = MQTTMessage(topic=b"cueboard/club/t1/command/flood")
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for _ in range(1000):
            client._handle_on_message(message)
        gc.collect()
        garbage = len(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()
    assert len(got) == 1000
    assert garbage == 0  # paho's own matcher: 6 objects a line (a closure, its cells)
