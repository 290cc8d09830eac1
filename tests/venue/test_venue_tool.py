"""``cueboard venue`` (issue 26, docs/security.md): a venue's broker set up by one command, run
as written on a real mosquitto with TLS, then attacked on loopback.

- the files it writes: the CA and the broker's certificate, a login for each table and the
  desk, the ACL; secrets readable by their owner only;
- a table's daemon connects with its login and takes the desk's commands, named;
- the desk on two laptops at once; a scorer writes its own table's command topic under its own
  name only; a screen writes nothing; no client takes a table's id;
- ``add-table``, ``add-user`` and ``revoke`` take effect on a reload (SIGHUP, as ``systemctl
  reload mosquitto`` sends it) without dropping a table;
- every listener is bound to the address the venue gave, WebSockets too (read from
  /proc/net/tcp);
- a message over the broker's size limit is refused by the broker, with an answer.
"""

from __future__ import annotations

import json
import stat
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from cueboard.table.mqtt.feed import Feed, MqttConfig, TlsConfig
from cueboard.table.mqtt.paced_link import COMMANDS, SCORES, LineKind, PacedLink
from tests.helpers import venue as venue_helpers
from tests.helpers.feed import HealthLog
from tests.helpers.mosquitto import TIMEOUT, require_mosquitto
from tests.helpers.venue import venue_run

pytestmark = pytest.mark.system



class Venue(venue_helpers.Venue):
    def change(self, *argv: str) -> str:
        """:meth:`venue_helpers.Venue.change`, done when the broker answers again: a round trip through it."""
        out = super().change(*argv)
        with Client(self, "screens", None, client_id="cueboard-probe"):
            pass
        return out


Club = venue_helpers.Venue
"""What the club fixture gives (tests/conftest.py)."""


def changed(club: Club, *argv: str) -> str:
    """``changed(club, *argv)`` (the club fixture, tests/conftest.py), done when the broker answers again."""
    return Venue(club.directory, club.broker, club.ports).change(*argv)


class Client:
    """An MQTT 5 client of the venue; ``reason``: the broker's answer to its CONNECT."""

    def __init__(self, venue: Venue, listener: str, username: str | None, *, client_id: str,
                 password: str | None = None, expect_ok: bool = True) -> None:
        websockets = listener in ("pages", "screens")
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5,
                                  transport="websockets" if websockets else "tcp")
        if username is not None:
            self.client.username_pw_set(username, password if password is not None else venue.password(username))
        self.client.tls_set(str(venue.ca))
        self.answered = threading.Event()
        self.dropped = threading.Event()
        self.reason = ""
        self.acks: dict[int, str] = {}
        self._acked = threading.Condition()

        def on_connect(client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
            self.reason = str(reason)
            self.answered.set()

        def on_disconnect(*args: Any) -> None:
            self.dropped.set()
            self.answered.set()

        def on_publish(client: mqtt.Client, userdata: Any, mid: int, reason: Any, properties: Any) -> None:
            with self._acked:
                self.acks[mid] = str(reason)
                self._acked.notify_all()

        self.client.on_connect = on_connect
        self.client.on_disconnect = on_disconnect
        self.client.on_publish = on_publish
        self.client.connect_async(venue.broker.host, venue.ports[listener])
        self.client.loop_start()
        assert self.answered.wait(TIMEOUT), f"{client_id}: no CONNACK"
        if expect_ok:
            assert self.reason == "Success", f"{username} on {listener}: {self.reason}"

    def publish(self, topic: str, payload: bytes, **options: Any) -> str:
        """The broker's PUBACK reason (MQTT 5 says "Not authorized" for what the ACL refuses)."""
        info = self.client.publish(topic, payload, qos=1, **options)
        with self._acked:
            assert self._acked.wait_for(lambda: info.mid in self.acks, TIMEOUT), f"no PUBACK for {topic}"
            return self.acks[info.mid]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class Table:
    feed: Feed
    commands: HealthLog  # "<user> <payload>" of each command
    health: HealthLog


@pytest.fixture
def tables(club: Club) -> Iterator[Callable[[str], Table]]:
    """Tables' feeds, each as its daemon connects with its login from ``cueboard venue``."""
    made: list[Feed] = []

    def make(name: str) -> Table:
        commands, health = HealthLog(), HealthLog()
        config = MqttConfig(prefix=f"cueboard/club/{name}", host="localhost", port=club.ports["tables"],
                            username=name, password=club.password(name), tls=TlsConfig(str(club.ca)),
                            command=True, client_id=f"cueboard-club-{name}")
        feed = Feed(config, table=name, on_health=health,
                    on_command=lambda payload, retained, user: commands(f"{user} {payload.decode()}"))
        made.append(feed)
        since = len(club.broker.log)
        feed.start()
        health.wait_for("ok")
        assert feed.flush(TIMEOUT)
        club.broker.wait_for_log(lambda line: line.endswith(f"cueboard/club/{name}/command/+"), since=since)
        return Table(feed, commands, health)

    yield make
    for feed in made:
        feed.stop()


def test_one_command_writes_a_venue_whose_secrets_only_their_owner_reads(club: Club) -> None:
    d = club.directory
    for secret in ("ca/venue-ca.key", "certs/server.key", "logins/t1.password", "logins/desk.password",
                   "logins/venue.password", "venue.json"):
        mode = stat.S_IMODE((d / secret).stat().st_mode)
        assert mode & 0o007 == 0, f"{secret}: {oct(mode)}"  # nobody but the owner (and the broker's group)
    record = json.loads((d / "venue.json").read_text())
    assert {name: login["role"] for name, login in record["logins"].items()} == {
        "t1": "table", "t2": "table", "desk": "desk", "venue": "desk"}  # venue: the venue service's login
    assert "password" not in (d / "venue.json").read_text()  # hashes only
    status, _ = venue_run("init", "--dir", str(d), "--venue", "club")
    assert status == 2  # a venue is never overwritten


def test_the_desk_on_two_laptops_changes_the_score_by_name(club: Club, tables: Callable[[str], Table]) -> None:
    """Two laptops are two logins of the desk's role (one login a device, its session known by it)."""
    t1 = tables("t1")
    changed(club, "add-user", "desk-laptop2", "--role", "desk")
    with Client(club, "people", "desk", client_id="cueboard-desk-laptop1") as one, \
            Client(club, "pages", "desk-laptop2", client_id="cueboard-desk-laptop2") as two:
        assert one.publish("cueboard/club/t1/command/desk", b'{"type": "no_pot"}') == "Success"
        assert two.publish("cueboard/club/t1/command/desk-laptop2", b'{"type": "undo"}') == "Success"
        assert t1.commands.wait_for("desk") == 'desk {"type": "no_pot"}'
        assert t1.commands.wait_for("desk-laptop2") == 'desk-laptop2 {"type": "undo"}'
        assert not one.dropped.is_set() and not two.dropped.is_set()  # neither knocked the other off
    assert t1.health.history == ["connecting", "ok"]


def test_a_scorer_writes_its_own_table_under_its_own_name_and_nothing_else(
        club: Club, tables: Callable[[str], Table]) -> None:
    changed(club, "add-user", "scorer-t1", "--role", "scorer", "--table", "t1")
    t1, t2 = tables("t1"), tables("t2")
    with Client(club, "people", "scorer-t1", client_id="cueboard-scorer-t1-phone") as scorer:
        assert scorer.publish("cueboard/club/t2/score/scorer-t1", b'{"type": "no_pot"}') == "Not authorized"
        assert scorer.publish("cueboard/club/t2/command/scorer-t1", b'{"type": "no_pot"}') == "Not authorized"
        assert scorer.publish("cueboard/club/t1/score/desk", b'{"type": "no_pot"}') == "Not authorized"
        assert scorer.publish("cueboard/club/t1/command/desk", b'{"type": "no_pot"}') == "Not authorized"
        assert scorer.publish("cueboard/club/t1/command", b'{"type": "no_pot"}') == "Not authorized"
        assert scorer.publish("cueboard/club/t1/state", b'{"fake": true}') == "Not authorized"
        assert scorer.publish("cueboard/club/t1/next", b'{}') == "Not authorized"
        assert scorer.publish("$SYS/broker/connection/venue-club/state", b"0") == "Not authorized"
        # Its lines go on its own score topic (the table takes a marker's keys from there: the role
        # is the topic's), never the command topic of the desk's powers.
        assert scorer.publish("cueboard/club/t1/command/scorer-t1", b'{"type": "no_pot"}') == "Not authorized"
        taken = ("Success", "No matching subscribers")  # (this test's table reads its commands only)
        assert scorer.publish("cueboard/club/t1/score/scorer-t1", b'{"type": "no_pot"}') in taken
        assert scorer.publish("cueboard/club/t1/score/scorer-t1/presence", b'{"schema": 1}') in taken
    assert t1.commands.history == []
    assert t2.commands.history == []
    with Client(club, "tables", "t2", client_id="cueboard-club-t2-again", expect_ok=True) as t2_again:
        # Another table writes nothing of t1's (and, being t2's login, took t2's session: one a table).
        assert t2_again.publish("cueboard/club/t1/state", b"{}") == "Not authorized"
        assert t2_again.publish("cueboard/club/t1/command/t2", b"{}") == "Not authorized"
    t2.health.wait_for("down: connection lost")


def test_a_screen_reads_and_writes_nothing(club: Club, tables: Callable[[str], Table]) -> None:
    t1 = tables("t1")
    t1.feed.publish_state({"schema": 1, "seq": 0})
    assert t1.feed.flush(TIMEOUT)
    got: list[str] = []
    with Client(club, "screens", None, client_id="cueboard-screen-bar") as screen:
        screen.client.on_message = lambda client, userdata, message: got.append(message.topic)
        for topic in ("cueboard/club/t1/command/desk", "cueboard/club/t1/command", "cueboard/club/t1/state",
                      "cueboard/club/t2/next", "$SYS/broker/connection/venue-club/state", "anything"):
            assert screen.publish(topic, b'{"type": "new_match"}') == "Not authorized", topic
    assert t1.commands.history == []
    # A password is not taken on the screens' listener; nor on the tables' without a table's login.
    with Client(club, "screens", "desk", client_id="cueboard-screen-x", expect_ok=False) as refused:
        assert refused.reason != "Success"
    with Client(club, "tables", "desk", client_id="cueboard-desk-x", expect_ok=False) as refused:
        assert refused.reason != "Success"


def test_no_client_takes_a_tables_or_another_devices_id(club: Club, tables: Callable[[str], Table]) -> None:
    """The measured takeovers: an anonymous client with a table's id, a second desk session with
    the first one's, a scorer with a table's."""
    t1 = tables("t1")
    changed(club, "add-user", "scorer-t1", "--role", "scorer", "--table", "t1")
    with Client(club, "people", "desk", client_id="cueboard-desk-laptop1") as desk:
        for listener, login, client_id in [("screens", None, "t1"), ("screens", None, "cueboard-club-t1"),
                                           ("people", "scorer-t1", "t1"), ("pages", "scorer-t1", "t1"),
                                           ("people", "scorer-t1", "desk")]:
            with Client(club, listener, login, client_id=client_id, expect_ok=False) as thief:
                if thief.reason == "Success":  # an id of its own kind only: it took nobody's
                    assert client_id.startswith("cueboard-")
        assert not desk.dropped.is_set()
    assert t1.health.history == ["connecting", "ok"]  # never knocked off


def test_changes_take_effect_on_a_reload_without_dropping_a_table(club: Club,
                                                                 tables: Callable[[str], Table]) -> None:
    t1 = tables("t1")
    out = changed(club, "add-table", "t3")
    assert 'username = "t3"' in out
    t3 = tables("t3")  # its login works at once
    changed(club, "add-user", "desk2", "--role", "desk")
    with Client(club, "people", "desk2", client_id="cueboard-desk2-a") as desk2:
        assert desk2.publish("cueboard/club/t3/command/desk2", b'{"type": "no_pot"}') == "Success"
    assert t3.commands.wait_for("desk2") == 'desk2 {"type": "no_pot"}'
    changed(club, "revoke", "desk2")
    with Client(club, "people", "desk2", client_id="cueboard-desk2-b", password="whatever",
                expect_ok=False) as gone:
        assert gone.reason != "Success"
    old_password = json.loads((club.directory / "venue.json").read_text())["logins"]["desk"]["hash"]
    assert old_password  # the desk's login is untouched by the others' changes
    assert t1.health.history == ["connecting", "ok"] and t3.health.history == ["connecting", "ok"]


def listening(port: int) -> set[str]:
    """The addresses a TCP socket listens on ``port`` (IPv4 and IPv6), from /proc/net/tcp*."""
    found = set()
    for name, width in (("tcp", 8), ("tcp6", 32)):
        for line in Path(f"/proc/net/{name}").read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, _, hex_port = local.partition(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                if width == 8:
                    found.add(".".join(str(b) for b in reversed(bytes.fromhex(address))))
                else:
                    found.add(address)
    return found


def test_every_listener_is_bound_where_the_venue_said(club: Club) -> None:
    """mosquitto 2.0.11 binds `listener 9001 127.0.0.1` with `protocol websockets` to every address
    unless told its socket domain; the venue's file tells it."""
    for name, port in club.ports.items():
        assert listening(port) == {"127.0.0.1"}, name


def test_the_demos_broker_listens_on_loopback_only(tmp_path: Path) -> None:
    from cueboard.tools.local_broker import free_port as demo_port
    from cueboard.tools.local_broker import mosquitto_broker

    require_mosquitto()
    port, ws_port = demo_port(0), demo_port(0)
    with mosquitto_broker(tmp_path, port, ws_port):
        assert listening(port) == {"127.0.0.1"} and listening(ws_port) == {"127.0.0.1"}


def test_a_megabyte_gets_one_short_answer_and_more_is_dropped_by_the_broker(
        club: Club, tables: Callable[[str], Table]) -> None:
    t1 = tables("t1")
    with Client(club, "people", "desk", client_id="cueboard-desk-big") as desk:
        megabyte = b'{"type": "match", "sides": ["' + b"x" * 1_000_000 + b'", "b"]}'
        assert desk.publish("cueboard/club/t1/command/desk", megabyte) == "Success"
        assert t1.commands.wait_for("desk").startswith('desk {"type": "match"')  # the table answers it (short)
    old = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="cueboard-desk-old", protocol=mqtt.MQTTv311)
    old.username_pw_set("desk", club.password("desk"))
    old.tls_set(str(club.ca))
    old.connect("localhost", club.ports["people"])
    old.loop_start()
    try:
        since = len(club.broker.log)
        two = b"y" * 2_000_000
        old.publish("cueboard/club/t1/command/desk", two, qos=1).wait_for_publish(TIMEOUT)
        club.broker.wait_for_log(lambda line: "Dropped too large PUBLISH" in line, since=since)
        old.publish("cueboard/club/t1/command/desk", b'{"type": "no_pot"}', qos=1).wait_for_publish(TIMEOUT)
    finally:
        old.disconnect()
        old.loop_stop()
    assert t1.commands.wait_for("desk") == 'desk {"type": "no_pot"}'  # the 2 MB one never reached it


@pytest.mark.parametrize("kind", [SCORES, COMMANDS], ids=lambda kind: kind.name)
def test_the_tables_paced_links_log_in_and_nobody_takes_their_ids(club: Club, tables: Callable[[str], Table],
                                                                   kind: LineKind) -> None:
    """The table reads ``score/+`` and ``command/+`` on sessions of their own (cueboard.table.mqtt.paced_link)
    as ``t1.scorers`` and ``t1.commands``, with the table's password: the venue tool writes those
    logins (names no person's login can have) with read on t1's ``score/#`` / commands alone. Their
    ids are their logins on the tables' listener: a scorer or a screen cannot take them; they write
    nothing."""
    t1 = tables("t1")
    config = t1.feed.config
    since = len(club.broker.log)
    healths = HealthLog()
    link = PacedLink(config, t1.feed, kind, lambda payload, retained, user: None, on_health=healths)
    link.start()
    login = f"t1.{kind.name}"
    try:
        club.broker.wait_for_log(lambda line: line.endswith(f"cueboard/club/t1/{kind.topics[0]}")
                                 and login in line, since=since)
        healths.wait_for("ok")
        changed(club, "add-user", "scorer-t1", "--role", "scorer", "--table", "t1")
        for listener, thief in [("people", "scorer-t1"), ("screens", None), ("pages", "scorer-t1")]:
            with Client(club, listener, thief, client_id=login, expect_ok=False) as taking:
                assert taking.reason != "Success", (listener, login)
        with Client(club, "tables", login, password=club.password("t1"), client_id="cueboard-x",
                    expect_ok=True) as itself:  # its own login, anew: takes only its own session
            assert itself.publish("cueboard/club/t1/state", b"{}") == "Not authorized"
            assert itself.publish("cueboard/club/t1/score/x", b"{}") == "Not authorized"
            assert itself.publish("cueboard/club/t1/command/x", b"{}") == "Not authorized"
    finally:
        link.stop()
    assert t1.health.history == ["connecting", "ok"]  # the table's own session never knocked off
    assert not link.refused
