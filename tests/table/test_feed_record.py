"""``Feed.publish_record`` against a real mosquitto (tests/helpers/mosquitto.py): the match record
on ``<prefix>/record``, retained, QoS 1, a latest value like the state: a results site that
subscribes late gets the newest record at once, and a broker that forgot it while away is
given the newest again on reconnect, never the ones made in between."""

from __future__ import annotations

import json
import queue
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from cueboard.engine import Match
from cueboard.engine.record import Recorder
from cueboard.table.mqtt.feed import Feed, MqttConfig, record_payload
from tests.helpers.feed import HealthLog
from tests.helpers.mosquitto import Mosquitto, Subscriber

pytestmark = pytest.mark.system


ROOT = Path(__file__).resolve().parents[2]
PREFIX = "cueboard/club/t1"
FIXED_NOW = 1_700_000_000.25  # 2023-11-14T22:13:20.250Z
RECORD = jsonschema.Draft202012Validator(json.loads((ROOT / "schema" / "record.schema.json").read_text()))


def records_of_example() -> list[dict[str, Any]]:
    """The record after each frame's end of ``examples/snooker-match.jsonl``, as the daemon
    publishes it (a :class:`Recorder` following the log says when)."""
    lines = (ROOT / "examples" / "snooker-match.jsonl").read_text().splitlines()
    match = Match.from_line(lines[0])
    recorder = Recorder(match.setup, match.state())
    out = [recorder.record()]
    for line in lines[1:]:
        event = match.parse_line(line)
        match.apply(event)
        if recorder.apply(event, match.state()):
            out.append(recorder.record())
    return out


@pytest.fixture
def feed(mosquitto_broker: Mosquitto) -> Iterator[tuple[Feed, HealthLog]]:
    health = HealthLog()
    made = Feed(MqttConfig(prefix=PREFIX, host=mosquitto_broker.host, port=mosquitto_broker.port,
                           client_id="cueboard-club-t1", reconnect_max=2),
                table="t1", on_health=health, now=lambda: FIXED_NOW)
    made.start()
    yield made, health
    made.stop(timeout=30)


def test_the_record_is_retained_with_qos_1(mosquitto_broker: Mosquitto, feed: tuple[Feed, HealthLog]) -> None:
    publisher, _ = feed
    records = records_of_example()
    assert len(records) == 7  # the match begins, then six frames end (the last ends the match)
    for record in records:
        publisher.publish_record(record)
    assert publisher.flush(30)
    # A results site that subscribes now, at QoS 1, gets the newest record, retained, at QoS 1.
    got: queue.Queue[mqtt.MQTTMessage] = queue.Queue()
    client = mqtt.Client(CallbackAPIVersion.VERSION2)
    client.on_connect = lambda c, *_: c.subscribe("cueboard/club/+/record", qos=1)
    client.on_message = lambda c, u, message: got.put(message)
    client.connect(mosquitto_broker.host, mosquitto_broker.port)
    client.loop_start()
    try:
        message = got.get(timeout=30)
    finally:
        client.disconnect()
        client.loop_stop()
    assert message.topic == f"{PREFIX}/record" and message.retain and message.qos == 1
    payload = json.loads(message.payload)
    assert payload == {**records[-1], "table": "t1", "ts": "2023-11-14T22:13:20.250Z"}
    assert payload == record_payload(records[-1], table="t1", ts="2023-11-14T22:13:20.250Z")
    assert payload["winner"] == 0 and payload["frames_won"] == [4, 2] and len(payload["frames"]) == 6
    RECORD.validate(payload)


def test_the_newest_record_is_published_again_after_the_broker_forgot_it(
        mosquitto_broker: Mosquitto, feed: tuple[Feed, HealthLog]) -> None:
    """Without persistence a restarted broker has no retained record: the feed gives it the
    newest on reconnect, not the records made while it was away."""
    publisher, health = feed
    records = records_of_example()
    health.wait_for("ok")
    publisher.publish_record(records[1])
    assert publisher.flush(30)
    mosquitto_broker.stop()
    health.wait_for("down:")
    for record in records[2:5]:
        publisher.publish_record(record)
    with Subscriber(f"{PREFIX}/record", port=mosquitto_broker.port) as late:
        mosquitto_broker.start()
        health.wait_for("ok")
        assert publisher.flush(30)
        message = late.get()
        assert message.json()["frames"] == records[4]["frames"] and len(message.json()["frames"]) == 4
        assert publisher.flush(30) and late.messages.empty()  # the stale ones never sent
    for record in records:
        RECORD.validate(record_payload(record, table="t1", ts="2023-11-14T22:13:20.250Z"))
