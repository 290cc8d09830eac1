"""Nobody but the desk changes a score (issue 16, finding 2; docs/security.md): the command
topic is subscribed only over TLS with a username (or a client certificate). Against a
broker that lets anyone in, a table configured with ``command = true`` and only a user
name does not start (status 2, naming the key) and subscribes to nothing; the venue can
say ``insecure_commands = true``, which is logged as a warning at every start."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from cueboard.table.mqtt.feed import Feed, MqttConfig, MqttConfigError, TlsConfig, parse_mqtt
from tests.helpers.feed import HealthLog
from tests.helpers.mosquitto import Mosquitto, TlsFiles

pytestmark = pytest.mark.system


PREFIX = "cueboard/club/t1"


def daemon_config(tmp_path: Path, broker: Mosquitto, mqtt_lines: str) -> Path:
    path = tmp_path / "cueboard.toml"
    path.write_text(f"""
[table]
venue = "club"
name = "t1"
[journal]
dir = "{tmp_path}/journal"
[control]
socket = "{tmp_path}/control.sock"
[mqtt]
host = "127.0.0.1"
port = {broker.port}
{mqtt_lines}
""")
    return path


def anonymous_command(broker: Mosquitto, payload: bytes) -> None:
    """What anyone on the venue's network can do against a broker that lets anyone in."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="cueboard-stranger")
    client.connect(broker.host, broker.port)
    client.loop_start()
    try:
        client.publish(f"{PREFIX}/command/desk", payload, qos=1).wait_for_publish(30)
    finally:
        client.disconnect()
        client.loop_stop()


def test_a_table_with_only_a_username_does_not_take_commands(mosquitto_broker: Mosquitto, tmp_path: Path) -> None:
    """The measured attack: an anonymous client started a new match on a table whose command
    topic was on "because it had a username". Now the daemon refuses to start that way."""
    config = daemon_config(tmp_path, mosquitto_broker, 'username = "t1"\ncommand = true')
    run = subprocess.run([sys.executable, "-m", "cueboard.cli", "run", "--config", str(config)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2, run.stderr
    assert run.stderr.startswith(f"cueboard: {config}: mqtt.command: needs mqtt.tls: the command topic changes "
                                 "the score"), run.stderr
    assert "mqtt.insecure_commands = true" in run.stderr
    assert not any("SUBSCRIBE" in line for line in mosquitto_broker.log), mosquitto_broker.log


@pytest.mark.parametrize(("section", "missing"), [
    ({"command": True}, "mqtt.tls and mqtt.username"),
    ({"command": True, "username": "t1"}, "mqtt.tls"),
    ({"command": True, "tls": "ca"}, "mqtt.username"),
])
def test_commands_need_tls_and_a_username(section: dict[str, Any], missing: str, tls_files: TlsFiles) -> None:
    if section.get("tls") == "ca":
        section = {**section, "tls": {"ca": str(tls_files.ca)}}
    with pytest.raises(MqttConfigError, match=rf"^mqtt\.command: needs {missing}: "):
        parse_mqtt(section, venue="club", table="t1")


def test_a_client_certificate_is_authentication_enough(tls_files: TlsFiles) -> None:
    tls = {"ca": str(tls_files.ca), "cert": str(tls_files.client_cert), "key": str(tls_files.client_key)}
    assert parse_mqtt({"command": True, "tls": tls}, venue="club", table="t1").command


def test_insecure_commands_must_not_outlive_tls(tls_files: TlsFiles) -> None:
    """Left on once TLS is there, the switch would let commands in again the day TLS goes."""
    with pytest.raises(MqttConfigError, match=r"^mqtt\.insecure_commands: not needed: the table has TLS"):
        parse_mqtt({"command": True, "insecure_commands": True, "username": "t1", "tls": {"ca": str(tls_files.ca)}},
                   venue="club", table="t1")


def test_insecure_commands_is_said_at_every_start(mosquitto_broker: Mosquitto,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    """The venue's explicit choice: commands without TLS, from anyone who reaches the broker
    (the risk the warning names), and a warning each time the feed starts."""
    config = parse_mqtt({"host": mosquitto_broker.host, "port": mosquitto_broker.port, "command": True,
                         "insecure_commands": True}, venue="club", table="t1")
    commands = HealthLog()
    health = HealthLog()
    caplog.set_level(logging.WARNING, logger="cueboard.table.mqtt.feed")
    for start in range(2):
        feed = Feed(config, table="t1", on_command=lambda payload, retained, user: commands(payload.decode()),
                    on_health=health)
        since = len(mosquitto_broker.log)
        feed.start()
        try:
            health.wait_for("ok")
            assert feed.flush(30)
            mosquitto_broker.wait_for_log(lambda line: line.endswith(f"cueboard-club-t1 1 {PREFIX}/command/+"),
                                          since=since)
            payload = f'{{"type": "new_match", "n": {start}}}'
            anonymous_command(mosquitto_broker, payload.encode())
            assert commands.wait_for("{") == payload
        finally:
            feed.stop()
    warnings = [r.getMessage() for r in caplog.records if "insecure_commands" in r.getMessage()]
    assert len(warnings) == 2, warnings
    assert warnings[0] == (f"mqtt.insecure_commands = true: {PREFIX}/command/+ is subscribed without TLS and "
                           f"authentication: anyone who can publish to 127.0.0.1:{mosquitto_broker.port} can change "
                           "this table's score")


def test_without_commands_nothing_is_subscribed(mosquitto_broker: Mosquitto) -> None:
    feed = Feed(MqttConfig(prefix=PREFIX, host=mosquitto_broker.host, port=mosquitto_broker.port,
                           client_id="cueboard-club-t1"), table="t1", on_command=lambda payload, retained, user: None)
    feed.start()
    try:
        feed.publish_state({"schema": 1, "seq": 1})
        assert feed.flush(30)
    finally:
        feed.stop()
    assert not any("SUBSCRIBE" in line for line in mosquitto_broker.log)


def test_tls_and_a_username_take_commands(mosquitto_factory: Any, tls_files: TlsFiles) -> None:
    broker = mosquitto_factory(users={"t1": "t1-pw", "desk": "desk-pw"}, tls=tls_files)
    commands = HealthLog()
    health = HealthLog()
    config = MqttConfig(prefix=PREFIX, host=broker.host, port=broker.port, username="t1", password="t1-pw",
                        tls=TlsConfig(str(tls_files.ca)), command=True, client_id="cueboard-club-t1")
    feed = Feed(config, table="t1", on_command=lambda payload, retained, user: commands(payload.decode()),
                on_health=health)
    feed.start()
    try:
        health.wait_for("ok")
        assert feed.flush(30)
        broker.wait_for_log(lambda line: line.endswith(f"cueboard-club-t1 1 {PREFIX}/command/+"))
        desk = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="cueboard-desk")
        desk.username_pw_set("desk", "desk-pw")
        desk.tls_set(str(tls_files.ca))
        desk.connect(broker.host, broker.port)
        desk.loop_start()
        try:
            desk.publish(f"{PREFIX}/command/desk", b'{"type": "no_pot"}', qos=1).wait_for_publish(30)
        finally:
            desk.disconnect()
            desk.loop_stop()
        assert commands.wait_for("{") == '{"type": "no_pot"}'
    finally:
        feed.stop()
