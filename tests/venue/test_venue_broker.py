"""The shipped venue broker (``examples/mosquitto/venue.conf`` and ``acl``, run as shipped with
the test's ports, certificates made now, and password file) keeps the score the desk's
(issue 16, findings 2, 4 and 5; docs/security.md):

- only the desk (and tablets) can write a table's command topic: not an anonymous screen,
  not another table;
- nobody can knock a table offline by connecting with its client id;
- no password is accepted over plain WebSockets, and nobody connects over TLS without one;
- the bridge to a league is off until the venue turns it on.
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from cueboard.table.mqtt.feed import Feed, MqttConfig, TlsConfig
from cueboard.venue.pages import make_server, serve_in_thread
from tests.helpers.feed import HealthLog, example_states
from tests.helpers.mosquitto import TIMEOUT, Mosquitto, Subscriber, TlsFiles, free_port, make_password_file
from tests.helpers.venue_broker import BRIDGE, VENUE_CONF, venue_config
from tests.screen.test_screen import CHROMIUM, E2E, _require_browser

pytestmark = pytest.mark.system


PREFIX = "cueboard/club/t1"
PASSWORDS = {"t1": "t1-pw", "t2": "t2-pw", "desk": "desk-pw"}


@dataclass
class Venue:
    broker: Mosquitto
    port: int  # MQTT over TLS
    ws_port: int  # WebSockets, for screens
    tls: TlsFiles


@pytest.fixture
def venue(mosquitto_factory: Callable[..., Mosquitto], tls_files: TlsFiles, tmp_path: Path) -> Venue:
    passwords = make_password_file(tmp_path / "passwords", PASSWORDS)
    port, ws_port = free_port(), free_port()
    broker = mosquitto_factory(port=port, config=venue_config(port, ws_port, tls_files, passwords))
    return Venue(broker, port, ws_port, tls_files)


class Client:
    """An MQTT client of the venue: ``reason`` is the broker's answer to its CONNECT."""

    def __init__(self, venue: Venue, client_id: str, *, username: str | None = None, password: str | None = None,
                 websockets: bool = False) -> None:
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                                  transport="websockets" if websockets else "tcp")
        if username is not None:
            self.client.username_pw_set(username, password)
        if not websockets:
            self.client.tls_set(str(venue.tls.ca))
        answered = threading.Event()
        self.reason = ""

        def on_connect(client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
            self.reason = str(reason)
            answered.set()

        self.client.on_connect = on_connect
        self.client.connect(venue.broker.host, venue.ws_port if websockets else venue.port)
        self.client.loop_start()
        if not answered.wait(TIMEOUT):
            raise TimeoutError(f"{client_id}: no CONNACK")

    def publish(self, topic: str, payload: bytes) -> None:
        sent = self.client.publish(topic, payload, qos=1)
        sent.wait_for_publish(TIMEOUT)  # PUBACK: the broker has handled it
        assert sent.is_published(), f"no PUBACK for {topic} within {TIMEOUT} s"

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def clients() -> Iterator[Callable[..., Client]]:
    made: list[Client] = []

    def make(*args: Any, **kwargs: Any) -> Client:
        made.append(Client(*args, **kwargs))
        return made[-1]

    yield make
    for client in made:
        client.close()


@dataclass
class Table:
    feed: Feed
    commands: HealthLog  # each command's payload, decoded
    health: HealthLog


@pytest.fixture
def table(venue: Venue) -> Iterator[Table]:
    """Table t1, as its daemon connects: TLS, its user name and password, commands on."""
    commands, health = HealthLog(), HealthLog()
    config = MqttConfig(prefix=PREFIX, host=venue.broker.host, port=venue.port, username="t1",
                        password=PASSWORDS["t1"], tls=TlsConfig(str(venue.tls.ca)), command=True,
                        client_id="cueboard-club-t1")
    feed = Feed(config, table="t1", on_command=lambda payload, retained, user: commands(payload.decode()),
                on_health=health)
    feed.start()
    try:
        health.wait_for("ok")
        feed.publish_state(example_states("snooker-frame")[-1])
        assert feed.flush(TIMEOUT)  # the SUBSCRIBE before "online" is done too
        venue.broker.wait_for_log(lambda line: line.endswith(f" 1 {PREFIX}/command/+"))
        yield Table(feed, commands, health)
    finally:
        feed.stop()


def denied(venue: Venue, who: str, topic: str) -> bool:
    """Whether the broker logged the denial: waited for, since its log is read by a thread of
    its own and may lag behind the PUBACK on a busy machine (the test once failed so)."""
    try:
        venue.broker.wait_for_log(lambda line: f"Denied PUBLISH from {who} " in line and f"'{topic}'" in line)
    except TimeoutError:
        return False
    return True


def test_only_the_desk_writes_commands(venue: Venue, table: Table, clients: Callable[..., Client]) -> None:
    screen = clients(venue, "cueboard-screen-bar", websockets=True)
    assert screen.reason == "Success"
    screen.publish(f"{PREFIX}/command/desk", b'{"type": "new_match", "from": "a screen"}')
    assert denied(venue, "cueboard-screen-bar", f"{PREFIX}/command/desk"), venue.broker.log
    other_table = clients(venue, "cueboard-club-t2", username="t2", password=PASSWORDS["t2"])
    assert other_table.reason == "Success"
    other_table.publish(f"{PREFIX}/command/desk", b'{"type": "new_match", "from": "t2"}')
    other_table.publish(f"{PREFIX}/state", b'{"forged": true}')
    assert denied(venue, "t2", f"{PREFIX}/command/desk"), venue.broker.log
    assert denied(venue, "t2", f"{PREFIX}/state"), venue.broker.log
    assert clients(venue, "cueboard-stranger").reason == "Not authorized"  # no anonymous client over TLS

    desk = clients(venue, "cueboard-desk", username="desk", password=PASSWORDS["desk"])
    assert desk.reason == "Success"
    desk.publish(f"{PREFIX}/command/desk", b'{"type": "no_pot", "from": "the desk"}')
    # The broker handled the others' commands first (each was acknowledged before the desk's was
    # sent): had one come through, it would be the first the table got.
    assert table.commands.wait_for("{") == '{"type": "no_pot", "from": "the desk"}'
    assert table.commands.history == ['{"type": "no_pot", "from": "the desk"}']


def test_nobody_knocks_a_table_offline_with_its_client_id(venue: Venue, table: Table,
                                                          clients: Callable[..., Client]) -> None:
    """The measured attack: connecting as cueboard-club-t1 closed the table's connection. The
    table's connection is known by its user name; an id a client chooses starts "cueboard-"."""
    assert clients(venue, "cueboard-club-t1", websockets=True).reason == "Success"  # a screen, known by that id
    assert clients(venue, "t1", websockets=True).reason == "Not authorized"  # the table's real id: not to be chosen
    assert clients(venue, "t1", username="t2", password=PASSWORDS["t2"]).reason == "Not authorized"
    desk = clients(venue, "cueboard-club-t1", username="desk", password=PASSWORDS["desk"])
    assert desk.reason == "Success"  # known as "desk"
    # Each CONNACK came after the broker had looked for a client of that id: none was closed.
    assert not any("already connected" in line for line in venue.broker.log), venue.broker.log
    with Subscriber(f"{PREFIX}/status", port=venue.ws_port, transport="websockets",
                    client_id="cueboard-screen-1") as screen:
        assert screen.get().payload == b"online"
    table.feed.publish_devices({"keypad": "ok"})
    assert table.feed.flush(TIMEOUT)
    assert table.health.history == ["connecting", "ok"]


@pytest.mark.parametrize(("username", "password"), [("t1", "t1-pw"), ("desk", "desk-pw"), ("t1", None),
                                                    ("t1", "wrong")])
def test_no_password_over_plain_websockets(venue: Venue, table: Table, clients: Callable[..., Client],
                                           username: str, password: str | None) -> None:
    """A table's or the desk's password sent over ws:// (in clear) is refused, and with it
    the user's rights; screens read there without one."""
    assert clients(venue, "cueboard-tablet", username=username, password=password,
                   websockets=True).reason == "Not authorized"
    with Subscriber(f"{PREFIX}/state", port=venue.ws_port, transport="websockets",
                    client_id="cueboard-screen-1") as screen:
        assert screen.get().json()["table"] == "t1"


def test_the_bridge_is_off_as_shipped(venue: Venue) -> None:
    lines = VENUE_CONF.read_text().splitlines()
    for line in BRIDGE:
        assert f"#{line}" in lines, f"#{line}"
        assert line not in lines
    assert not any(line.startswith(("connection ", "address ", "remote_")) for line in lines)
    assert "remove the '#' in front of the nine" in VENUE_CONF.read_text()  # how to turn it on
    assert not any("Connecting bridge" in line for line in venue.broker.log), venue.broker.log


def test_the_shipped_files_are_what_the_tests_run() -> None:
    """venue_config only puts the test's ports and files in; every other line is as shipped."""
    shipped = [line for line in VENUE_CONF.read_text().splitlines() if line and not line.startswith("#")]
    run = venue_config(1, 2, TlsFiles(*(Path(f"/t/{n}") for n in range(6))), Path("/t/passwords")).splitlines()
    changed = [line for line in shipped if line not in run]
    assert changed == ["listener 8883", "cafile /etc/mosquitto/certs/venue-ca.crt",
                       "certfile /etc/mosquitto/certs/broker.crt", "keyfile /etc/mosquitto/certs/broker.key",
                       "password_file /etc/mosquitto/passwords", "acl_file /etc/mosquitto/acl",
                       "listener 9001", "acl_file /etc/mosquitto/acl"]


def test_the_screen_page_reads_the_venue_broker(venue: Venue, table: Table, tmp_path: Path) -> None:
    """The page's client id starts "cueboard-", so the shipped broker lets it read (headless
    Chromium, tests/screen/screen_e2e.mjs in its smoke mode: the table shows, and plays on)."""
    _require_browser()
    server = make_server("127.0.0.1", 0, broker_ws=f"ws://127.0.0.1:{venue.ws_port}")  # the page's only broker
    serve_in_thread(server)
    states = example_states("snooker-frame")
    stop = threading.Event()

    def play() -> None:  # the table plays on, a stroke every 0.2 s, while the page looks
        # The frame again from its start once it is over: a page slow to open (a busy machine)
        # still finds the table playing, never only the frame's last state.
        while True:
            for state in states:
                table.feed.publish_state(state)
                if stop.wait(0.2):  # not a wall-clock limit: the publisher's pace
                    return

    player = threading.Thread(target=play, daemon=True)
    player.start()
    try:
        plan = {"scenario": "smoke", "url": f"http://127.0.0.1:{server.server_address[1]}/", "venue": "club",
                "ws_port": venue.ws_port, "chromium": CHROMIUM, "smoke": "t1"}
        (tmp_path / "plan.json").write_text(json.dumps(plan))
        run = subprocess.run(["node", str(E2E), str(tmp_path / "plan.json")], capture_output=True, text=True,
                             timeout=120)
        print(run.stdout)
        assert run.returncode == 0, run.stdout + run.stderr
        assert any("New client connected" in line and " as cueboard-screen-" in line for line in venue.broker.log)
    finally:
        stop.set()
        player.join(TIMEOUT)
        server.shutdown()
        server.server_close()


def test_the_shipped_config_reloads_without_dropping_the_table(venue: Venue, table: Table) -> None:
    """`systemctl reload mosquitto` (SIGHUP): mosquitto 2.0.11 refused the file as shipped before
    ("Duplicate auto_id_prefix value") and kept the old ACL and passwords."""
    import signal

    since = len(venue.broker.log)
    assert venue.broker._process is not None
    venue.broker._process.send_signal(signal.SIGHUP)
    venue.broker.wait_for_log(lambda line: "Reloading config" in line, since=since)
    table.feed.publish_devices({"keypad": "reloaded"})
    assert table.feed.flush(TIMEOUT)  # the broker answers again: the reload is done
    assert not any("Error" in line or "Duplicate" in line for line in venue.broker.log[since:]), \
        venue.broker.log[since:]
    assert venue.broker.running and table.health.history == ["connecting", "ok"]
