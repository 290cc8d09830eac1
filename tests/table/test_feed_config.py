"""The ``[mqtt]`` configuration (``parse_mqtt``), and the feed without a broker: calls that
never block, the bounded queue, health. No network here except refused connections."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from cueboard.contract.codes import Reason
from cueboard.table.mqtt.feed import Feed, MqttConfig, MqttConfigError, TlsConfig, parse_mqtt
from tests.helpers.feed import HealthLog

TIMEOUT = 30.0


def parse(section: dict[str, Any]) -> MqttConfig:
    return parse_mqtt(section, venue="club", table="t1")


# -- parse_mqtt ---------------------------------------------------------------------------


def test_defaults() -> None:
    config = parse({})
    assert config == MqttConfig(prefix="cueboard/club/t1", host="localhost", port=1883,
                                client_id="cueboard-club-t1")
    assert (config.keepalive, config.queue, config.protocol, config.command) == (30, 1000, "3.1.1", False)
    assert config.topic("state") == "cueboard/club/t1/state"


def test_every_key(tmp_path: Path, tls_paths: dict[str, str]) -> None:
    config = parse({"host": "broker.lan", "port": 8884, "username": "t1", "password": "pw", "tls": tls_paths,
                    "prefix": "league/club/table-1", "command": True, "keepalive": 10, "queue": 50,
                    "client_id": "table-1", "protocol": "5", "reconnect_max": 5})
    assert config.tls == TlsConfig(**tls_paths)
    assert (config.host, config.port, config.username, config.password) == ("broker.lan", 8884, "t1", "pw")
    assert (config.prefix, config.command) == ("league/club/table-1", True)
    assert (config.keepalive, config.queue) == (10, 50)
    assert (config.client_id, config.protocol, config.reconnect_max) == ("table-1", "5", 5)
    assert "pw" not in repr(config)


def test_tls_port_is_8883(tls_paths: dict[str, str]) -> None:
    assert parse({"tls": {"ca": tls_paths["ca"]}}).port == 8883
    assert parse({"tls": {"ca": tls_paths["ca"]}, "port": 1884}).port == 1884


def test_protocol_5_as_a_number() -> None:
    assert parse({"protocol": 5}).protocol == "5"


@pytest.fixture
def tls_paths(tls_files: Any) -> dict[str, str]:
    return {"ca": str(tls_files.ca), "cert": str(tls_files.client_cert), "key": str(tls_files.client_key)}


@pytest.mark.parametrize(("section", "message"), [
    ({"hots": "x"}, "mqtt.hots: unknown key"),
    ({"port": 0}, "mqtt.port: must be a whole number from 1 to 65535"),
    ({"port": 65536}, "mqtt.port: must be a whole number from 1 to 65535"),
    ({"port": "1883"}, "mqtt.port: must be a whole number from 1 to 65535"),
    ({"port": True}, "mqtt.port: must be a whole number from 1 to 65535"),
    ({"host": ""}, "mqtt.host:"),
    ({"host": 5}, "mqtt.host:"),
    ({"keepalive": 0}, "mqtt.keepalive: must be a whole number from 5 to 65535"),
    ({"queue": 0}, "mqtt.queue: must be a whole number from 1 to 1000000"),
    ({"protocol": "3.1"}, "mqtt.protocol: must be one of '3.1.1', '5', not '3.1'"),
    ({"command": "yes", "username": "u"}, "mqtt.command: must be true or false"),
    ({"command": True}, "mqtt.command: needs mqtt.tls and mqtt.username: the command topic changes the score"),
    ({"command": True, "username": "t1", "password": "pw"}, "mqtt.command: needs mqtt.tls: "),
    ({"insecure_commands": True}, "mqtt.insecure_commands: only with mqtt.command = true"),
    ({"insecure_commands": "yes", "command": True}, "mqtt.insecure_commands: must be true or false"),
    ({"password": "pw"}, "mqtt.password: needs mqtt.username"),
    ({"username": ""}, "mqtt.username: must be a non-empty string"),
    ({"username": 7}, "mqtt.username: must be a non-empty string, not 7"),
    ({"client_id": ""}, "mqtt.client_id: must be a non-empty string"),
    ({"prefix": "cueboard/+/t1"}, "mqtt.prefix:"),
    ({"prefix": "cueboard/club/"}, "mqtt.prefix:"),
    ({"prefix": ""}, "mqtt.prefix:"),
    ({"tls": "yes"}, "mqtt.tls: must be a table"),
    ({"tls": {}}, "mqtt.tls.ca: required (the CA certificate file"),
    ({"tls": {"ca": "/nonexistent/ca.crt"}}, "mqtt.tls.ca: cannot load /nonexistent/ca.crt"),
    ({"tls": {"ca": "x", "insecure": True}}, "mqtt.tls.insecure: unknown key"),
    ({"reconnect_max": 0}, "mqtt.reconnect_max: must be a whole number from 1 to 3600"),
    ({"password_file": "/nonexistent/pw", "username": "u"},
     "mqtt.password_file: cannot read /nonexistent/pw"),
    ({"password_file": "/p", "password": "x", "username": "u"}, "mqtt.password_file: give mqtt.password or"),
])
def test_bad_values_name_the_key(section: dict[str, Any], message: str) -> None:
    with pytest.raises(MqttConfigError) as info:
        parse(section)
    assert str(info.value).startswith(message), str(info.value)
    assert isinstance(info.value, ValueError)


def test_key_without_cert(tls_files: Any) -> None:
    with pytest.raises(MqttConfigError, match=r"^mqtt\.tls\.key: needs mqtt\.tls\.cert"):
        parse({"tls": {"ca": str(tls_files.ca), "key": str(tls_files.client_key)}})


def test_unloadable_client_certificate(tls_files: Any) -> None:
    with pytest.raises(MqttConfigError, match=r"^mqtt\.tls\.cert: cannot load"):
        parse({"tls": {"ca": str(tls_files.ca), "cert": str(tls_files.ca)}})  # a certificate without its key


@pytest.mark.parametrize("table", ["t/1", "+", "#", ""])
def test_venue_and_table_must_be_topic_levels(table: str) -> None:
    with pytest.raises(MqttConfigError, match=r"^mqtt\.table:"):
        parse_mqtt({}, venue="club", table=table)
    with pytest.raises(MqttConfigError, match=r"^mqtt\.venue:"):
        parse_mqtt({}, venue=table, table="t1")


def test_password_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "mqtt").write_text("s3cret\n")
    (tmp_path / "mqtt").chmod(0o600)
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(tmp_path))
    config = parse({"username": "t1", "password_file": "${CREDENTIALS_DIRECTORY}/mqtt"})
    assert config.password == "s3cret"
    (tmp_path / "two").write_text("a\nb\n")
    (tmp_path / "two").chmod(0o600)
    with pytest.raises(MqttConfigError, match=r"^mqtt\.password_file: .* on one line"):
        parse({"username": "t1", "password_file": str(tmp_path / "two")})


# -- the feed without a broker ------------------------------------------------------------


def closed_port() -> int:
    """A loopback port where nothing listens (connections are refused at once)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


STATE = {"schema": 1, "game": "snooker", "seq": 3,
         "sides": [{"name": "A", "score": 12}, {"name": "B", "score": 0}]}
LOCAL = "127.0.0.1"


def test_broker_down_health_and_scoring_goes_on() -> None:
    port = closed_port()
    health = HealthLog()
    feed = Feed(MqttConfig(prefix="cueboard/club/t1", host=LOCAL, port=port), table="t1", on_health=health)
    assert feed.health == "down: not started"
    feed.start()
    try:
        down = health.wait_for("down:")
        assert down.startswith(f"down: cannot connect to 127.0.0.1:{port} (")
        assert "refused" in down.lower()
        for seq in range(1, 201):
            feed.publish_state({**STATE, "seq": seq})
            feed.publish_event(seq, {"type": "no_pot"})
        feed.publish_rejected({"type": "pot", "balls": ["pink"]}, Reason("red is on", "not_on"), "keypad")
        feed.publish_devices({"buttons": "ok", "mqtt": feed.health})
        assert feed.waiting == 201 and feed.dropped == 0
        assert not feed.connected
    finally:
        feed.stop(timeout=30)
    assert feed.health == "down: stopped"


def test_queue_is_bounded_and_drops_the_oldest() -> None:
    feed = Feed(MqttConfig(prefix="cueboard/club/t1", host=LOCAL, port=closed_port(), queue=10), table="t1")
    for seq in range(1, 26):
        feed.publish_event(seq, {"type": "no_pot"})
    assert (feed.waiting, feed.dropped) == (10, 15)
    feed.publish_rejected(None, Reason("not JSON", "not_json"), "command")
    assert (feed.waiting, feed.dropped) == (10, 16)


def test_start_never_blocks_on_a_black_hole(tls_files: Any) -> None:
    """A listener that completes the TCP handshake and then never answers: paho's thread
    sits in the TLS handshake until its connect timeout; the caller never waits for it."""
    with socket.socket() as hole:
        hole.bind(("127.0.0.1", 0))
        hole.listen(16)  # never accepted: the kernel completes the handshakes, nobody answers
        port = hole.getsockname()[1]
        tls = TlsConfig(str(tls_files.ca))
        config = MqttConfig(prefix="cueboard/club/t1", host=LOCAL, port=port, tls=tls)
        feed = Feed(config, table="t1")
        feed.start()
        for seq in range(1, 501):
            feed.publish_state({**STATE, "seq": seq})
            feed.publish_event(seq, {"type": "no_pot"})
            feed.publish_devices({"buttons": "ok", "keypad": "ok" if seq % 2 else "lost"})
        # paho's connection attempt is still hanging (it gives up after 5 s): start and the
        # publishes returned before it ended, so nothing waited on it (had they waited, the
        # attempt would have failed first and the health would say "down").
        assert feed.health == "connecting"
        assert feed.waiting > 0
        feed.stop(timeout=1)  # not a wall-clock limit: stop's own bound; the test asserts nothing after it


def test_publish_before_start_is_kept() -> None:
    feed = Feed(MqttConfig(prefix="cueboard/club/t1"), table="t1")
    feed.publish_state(STATE)
    feed.publish_event(1, {"type": "no_pot"})
    assert feed.waiting == 1
    feed.stop()  # never started: nothing to do
    assert feed.health == "down: not started"


def test_devices_payload_is_validated() -> None:
    feed = Feed(MqttConfig(prefix="cueboard/club/t1"), table="t1")
    with pytest.raises(ValueError, match="devices"):
        feed.publish_devices({"schema": "ok"})
    with pytest.raises(ValueError, match="devices"):
        feed.publish_devices({"keypad": 1})  # type: ignore[dict-item]

