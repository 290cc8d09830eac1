"""Venue scale: one broker serves many tables, each daemon on its own; killing one table
fires only its will; the example venue configuration (examples/mosquitto/) runs as shipped,
with its WebSockets listener for screens, its ACL and its bridge to a league's broker."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import jsonschema
import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from cueboard.table.mqtt.feed import Feed, MqttConfig, TlsConfig, parse_mqtt
from tests.helpers.feed import FeedProcess, HealthLog, example_states
from tests.helpers.mosquitto import Mosquitto, Subscriber, TlsFiles, free_port, make_password_file
from tests.helpers.venue_broker import venue_config

pytestmark = pytest.mark.system


ROOT = Path(__file__).resolve().parents[2]
TABLES = [f"t{n:02d}" for n in range(1, 17)]

Factory = Callable[..., Mosquitto]


def state_schema() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads((ROOT / "schema" / "state.schema.json").read_text()))


def test_one_broker_many_tables(mosquitto_broker: Mosquitto) -> None:
    snooker, blackball = example_states("snooker-frame"), example_states("blackball-match")
    expected = {table: (snooker if n % 2 else blackball)[n] for n, table in enumerate(TABLES)}
    with Subscriber("cueboard/club/+/state", port=mosquitto_broker.port).wait_subscribed() as screen:
        feeds = [Feed(parse_mqtt({"host": mosquitto_broker.host, "port": mosquitto_broker.port},
                                 venue="club", table=table), table=table) for table in TABLES]
        try:
            for feed in feeds:
                feed.start()
            for feed in feeds:
                feed.publish_state(expected[feed.table])
            seen: dict[str, dict[str, object]] = {}
            while len(seen) < len(TABLES):
                m = screen.get()
                seen[m.topic] = m.json()
            assert all(feed.flush(30) for feed in feeds)
            feeds[3].stop()  # one table closes for the night
        finally:
            for feed in feeds:
                feed.stop(timeout=30)
    assert set(seen) == {f"cueboard/club/{table}/state" for table in TABLES}
    validator = state_schema()
    for table in TABLES:
        payload = seen[f"cueboard/club/{table}/state"]
        assert payload == {**expected[table], "table": table, "ts": payload["ts"]}
        validator.validate(payload)


def test_killing_one_table_fires_only_its_will(mosquitto_broker: Mosquitto) -> None:
    tables = ["p1", "p2", "p3", "p4"]
    with Subscriber("cueboard/club/+/status", port=mosquitto_broker.port).wait_subscribed() as watcher:
        processes = {t: FeedProcess(t, prefix=f"cueboard/club/{t}", host=mosquitto_broker.host,
                                    port=mosquitto_broker.port, client_id=f"cueboard-club-{t}")
                     for t in tables}
        try:
            for process in processes.values():
                process.wait_line("ready")
            processes["p2"].kill()
            watcher.wait_topic("cueboard/club/p2/status", b"offline")
            with Subscriber("cueboard/club/+/status", port=mosquitto_broker.port) as late:
                status: dict[str, bytes] = {}
                while len(status) < len(tables):
                    m = late.get()
                    status[m.topic.split("/")[2]] = m.payload
            offline = [m.topic for m in watcher.seen if m.payload == b"offline"]
        finally:
            for process in processes.values():
                process.close()
    assert status == {"p1": b"online", "p2": b"offline", "p3": b"online", "p4": b"online"}
    assert offline == ["cueboard/club/p2/status"]


# -- the example venue configuration -------------------------------------------------------


def test_example_venue_config(mosquitto_factory: Factory, tls_files: TlsFiles, tmp_path: Path) -> None:
    """The venue broker of the example, its bridge to a league broker turned on as its comment
    says: a table publishes with TLS and its password, a screen reads over WebSockets without
    one, the league sees the table through the bridge, the desk sends the table a command, and
    the ACL keeps the screens read-only (more in tests/venue/test_venue_broker.py)."""
    league = mosquitto_factory(tls=tls_files)
    passwords = make_password_file(tmp_path / "passwords", {"t1": "t1-pw", "desk": "desk-pw"})
    port, ws_port = free_port(), free_port()
    venue = mosquitto_factory(port=port, config=venue_config(port, ws_port, tls_files, passwords, league=league))
    league.wait_for_log(lambda line: "connected from" in line and " as cueboard-bridge-venue-club " in line)

    commands = HealthLog()  # a queue to wait on
    health = HealthLog()
    config = MqttConfig(prefix="cueboard/club/t1", host=venue.host, port=port, username="t1",
                        password="t1-pw", tls=TlsConfig(str(tls_files.ca)), command=True, reconnect_max=2,
                        client_id="cueboard-club-t1")
    feed = Feed(config, table="t1", on_command=lambda payload, retained, user: commands(payload.decode()),
                on_health=health)
    league_screen = Subscriber("cueboard/#", port=league.port, ca=tls_files.ca)
    screen = Subscriber("cueboard/+/+/state", port=ws_port, transport="websockets", client_id="cueboard-screen-1")
    with league_screen.wait_subscribed(), screen.wait_subscribed():
        feed.start()
        try:
            state = example_states("snooker-frame")[-1]
            feed.publish_state(state)
            assert feed.flush(30), feed.health
            assert screen.get().json() == {**state, "table": "t1", "ts": screen.seen[0].json()["ts"]}
            league_screen.wait_topic("cueboard/club/t1/state")
            with Subscriber("cueboard/club/t1/state", port=league.port, ca=tls_files.ca) as late:
                assert late.get().retain  # the bridge keeps the retained flag
            # An anonymous screen cannot send commands (the ACL); the desk can.
            screen.client.publish("cueboard/club/t1/command/desk", b"from a screen", qos=1).wait_for_publish(30)
            desk = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="cueboard-desk")
            desk.username_pw_set("desk", "desk-pw")
            desk.tls_set(str(tls_files.ca))
            desk.connect(venue.host, port)
            desk.loop_start()
            try:
                desk.publish("cueboard/club/t1/command/desk", b"from the desk", qos=1).wait_for_publish(30)
                assert commands.wait_for("from ") == "from the desk"
            finally:
                desk.disconnect()
                desk.loop_stop()
        finally:
            feed.stop()
        league_screen.wait_topic("cueboard/club/t1/status", b"offline")
    assert health.history[-1] == "down: stopped"
    venue.wait_for_log(lambda line: "Denied PUBLISH" in line and "'cueboard/club/t1/command/desk'" in line)

