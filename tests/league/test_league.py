"""A league: a venue's broker bridged to the league's broker (examples/mosquitto/venue.conf
and league.conf, run as shipped but for ports, certificates and passwords). A table's state
reaches the league's screens through the bridge; a venue whose link to the league drops
catches up with the retained state, and the queued events, when the link returns; the
league's ACL keeps each venue to its own topics."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from cueboard.table.mqtt.feed import Feed, MqttConfig, TlsConfig
from tests.helpers.feed import example_states
from tests.helpers.findings import Finding
from tests.helpers.mosquitto import HOST, Message, Mosquitto, Subscriber, TlsFiles, free_port

pytestmark = pytest.mark.system


ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "mosquitto"
BRIDGE_STATE = "$SYS/broker/connection/venue-club/state"  # the bridge's notifications: 1 up, 0 down

Factory = Callable[..., Mosquitto]


class Cable:
    """The venue's link to the league: a TCP forwarder that can be pulled (every connection
    closed, new ones refused, as when the venue's internet goes) and plugged back in."""

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.port = free_port()
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self.plug()

    def plug(self) -> None:
        self._listener = socket.create_server((HOST, self.port))
        threading.Thread(target=self._accept, args=(self._listener,), daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                near, _ = listener.accept()
            except OSError:
                return
            try:
                far = socket.create_connection((HOST, self.target), timeout=30)
            except OSError:
                near.close()
                continue
            far.settimeout(None)
            with self._lock:
                self._sockets += [near, far]
            for source, sink in ((near, far), (far, near)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        for s in (source, sink):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def pull(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
            listener.close()
        with self._lock:
            sockets, self._sockets = self._sockets, []
        for s in sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()


def league_config(port: int, ws_port: int, tls: TlsFiles, passwords: Path) -> str:
    """examples/mosquitto/league.conf with this test's ports, certificates and files."""
    text = (EXAMPLE / "league.conf").read_text()
    for placeholder, value in {
        "listener 8883\n": f"listener {port} 127.0.0.1\n",
        "listener 8884\n": f"listener {ws_port} 127.0.0.1\n",
        "/etc/mosquitto/certs/league-ca.crt": str(tls.ca),
        "password_file /etc/mosquitto/league-passwords": f"password_file {passwords}",
    }.items():
        assert text.count(placeholder) == 1, f"{placeholder!r} is not in league.conf once"
        text = text.replace(placeholder, value)
    assert text.count("/etc/mosquitto/league-acl") == 2  # one a listener
    text = text.replace("/etc/mosquitto/league-acl", str(EXAMPLE / "league-acl"))
    return text.replace("/etc/mosquitto/certs/league.crt", str(tls.server_cert)).replace(
        "/etc/mosquitto/certs/league.key", str(tls.server_key))


@dataclass
class League:
    league: Mosquitto
    ws_port: int
    venue: Mosquitto
    cable: Cable
    tls: TlsFiles
    screens: int = 0

    def table(self, name: str = "t1") -> Feed:
        config = MqttConfig(prefix=f"cueboard/club/{name}", host=self.venue.host, port=self.venue.port,
                            username=name, password=f"{name}-pw", tls=TlsConfig(str(self.tls.ca)), reconnect_max=1,
                            client_id=f"cueboard-club-{name}")  # the venue broker's clientid_prefixes
        return Feed(config, table=name)

    def screen(self, topics: str | list[str]) -> Subscriber:
        """A league screen: anonymous, over secure WebSockets."""
        self.screens += 1  # an id of its own, cueboard-...: the league takes no other (clientid_prefixes)
        return Subscriber(topics, port=self.ws_port, transport="websockets", ca=self.tls.ca,
                          client_id=f"cueboard-screen-{self.screens}").wait_subscribed()


def test_a_tables_state_reaches_the_league_through_the_bridge(league: League) -> None:
    state = example_states("snooker-frame")[-1]
    feed = league.table()
    with league.screen("cueboard/+/+/state") as screen, \
            Subscriber("$share/results/cueboard/+/+/event", port=league.league.port, ca=league.tls.ca,
                       username="results", password="results-pw",
                       client_id="cueboard-results-1").wait_subscribed() as results:
        feed.start()
        try:
            feed.publish_state(state)
            feed.publish_event(state["seq"], {"type": "pot", "balls": ["black"]})
            got = screen.wait_topic("cueboard/club/t1/state")
            assert got.json() == {**state, "table": "t1", "ts": got.json()["ts"]}
            event = results.wait_topic("cueboard/club/t1/event").json()
            assert event["seq"] == state["seq"] and event["event"] == {"type": "pot", "balls": ["black"]}
            with league.screen("cueboard/club/t1/state") as late:
                retained = late.get()
            assert retained.retain and retained.payload == got.payload
        finally:
            feed.stop()


def table_state(seq: int) -> Callable[[Message], bool]:
    return lambda m: m.topic == "cueboard/club/t1/state" and m.json()["seq"] == seq


def test_a_venue_whose_link_drops_catches_up_when_it_returns(league: League, finding: Finding) -> None:
    states = example_states("snooker-frame")
    feed = league.table()
    with league.screen(["cueboard/+/+/state", "cueboard/+/+/event", BRIDGE_STATE]) as screen:
        screen.wait_topic(BRIDGE_STATE, b"1")  # retained: the bridge is up
        feed.start()
        try:
            feed.publish_state(states[1])
            screen.wait_for(table_state(1))
            league.cable.pull()
            screen.wait_topic(BRIDGE_STATE, b"0")  # the bridge's will: the league knows the venue is away
            # The venue plays on: the table's broker is in the room.
            for n in range(2, 8):
                feed.publish_state(states[n])
                feed.publish_event(n, {"type": "no_pot", "n": n})
            assert feed.flush(30)
            away = len(screen.seen)
            plugged = time.monotonic()
            league.cable.plug()
            screen.wait_topic(BRIDGE_STATE, b"1")
            newest = screen.wait_for(table_state(7))
            caught_up = time.monotonic() - plugged
            with league.screen("cueboard/club/t1/state") as late:  # a screen that opens now
                retained = late.get()
            events = [m.json()["event"]["n"] for m in screen.seen[away:] if m.topic.endswith("/event")]
            while len(events) < 6:  # the events queued while away (cleansession false), in order
                m = screen.wait_for(lambda m: m.topic.endswith("/event"))
                events.append(m.json()["event"]["n"])
        finally:
            feed.stop()
    finding(f"venue-to-league link pulled: the league saw the bridge's state go 0; 6 states and 6 events "
            f"published at the venue meanwhile; link back: the league's screen had the newest state "
            f"{caught_up:.2f} s later (the bridge's restart_timeout 1-2 s) and the {len(events)} queued events in "
            f"order; a screen opening then got the retained seq {retained.json()['seq']}",
            caught_up_s=round(caught_up, 3), events=events, retained_seq=retained.json()["seq"])
    assert retained.retain and retained.json()["seq"] == 7 and retained.payload == newest.payload
    assert events == [2, 3, 4, 5, 6, 7]
    # Nothing reached the league while the cable was out.
    assert [m.topic for m in screen.seen[:away] if m.topic.endswith("/event")] == []


def test_the_league_keeps_each_venue_to_its_own_topics(league: League) -> None:
    """A venue's bridge user may write its own venue's topics only (league-acl)."""
    with league.screen("cueboard/#") as screen:
        rogue = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="cueboard-rogue")
        rogue.username_pw_set("venue-club", "change-me")
        rogue.tls_set(str(league.tls.ca))
        rogue.connect(league.league.host, league.league.port)
        rogue.loop_start()
        try:
            rogue.publish("cueboard/rival/t1/state", b'{"forged": true}', qos=1).wait_for_publish(30)
            rogue.publish("cueboard/club/t9/status", b"online", qos=1).wait_for_publish(30)
            got = screen.wait_for(lambda m: m.topic.startswith("cueboard/club/t9/") or "rival" in m.topic)
        finally:
            rogue.disconnect()
            rogue.loop_stop()
    assert got.topic == "cueboard/club/t9/status"  # in order: the forged one, sent first, never came
    assert not [m for m in screen.seen if "rival" in m.topic]
    league.league.wait_for_log(lambda line: "Denied PUBLISH" in line and "'cueboard/rival/t1/state'" in line)


def test_a_long_outage_overflows_the_venues_queue_and_the_league_still_ends_on_the_newest_state(
        league: League, finding: Finding) -> None:
    """Longer away than the venue's broker queues for the bridge (max_queued_messages, 1000
    messages): the newest queued ones are dropped, then the retained state of every topic is
    sent again on reconnecting, after the queue, so the league ends on the newest state."""
    states = example_states("snooker-frame")
    feed = league.table()
    with league.screen(["cueboard/+/+/state", "cueboard/+/+/event", BRIDGE_STATE]) as screen:
        screen.wait_topic(BRIDGE_STATE, b"1")
        feed.start()
        try:
            feed.publish_state(states[1])
            screen.wait_for(table_state(1))
            league.cable.pull()
            screen.wait_topic(BRIDGE_STATE, b"0")
            last = 1200  # 1,200 events (and some states): more than the queue holds
            for n in range(2, last + 1):
                feed.publish_state({**states[n % len(states)], "seq": n})
                feed.publish_event(n, {"type": "no_pot", "n": n})
                if n % 50 == 0:
                    assert feed.flush(30)  # the feed keeps only the newest state while one is on its way
            assert feed.flush(30)
            away = len(screen.seen)
            league.cable.plug()
            screen.wait_topic(BRIDGE_STATE, b"1")
            screen.wait_for(table_state(last))
            with league.screen("cueboard/club/t1/state") as late:
                retained = late.get()
            # Flush the live screen: a message sent through the venue now comes after all of it.
            feed.publish_event(last + 1, {"type": "no_pot", "n": last + 1})
            screen.wait_for(lambda m: m.topic.endswith("/event") and m.json()["event"]["n"] == last + 1)
        finally:
            feed.stop()
    after = screen.seen[away:]
    events = [m.json()["event"]["n"] for m in after if m.topic.endswith("/event")]
    states_after = [m.json()["seq"] for m in after if m.topic == "cueboard/club/t1/state"]
    assert retained.json()["seq"] == last
    assert states_after[-1] == last  # the live screen too ends on the newest
    assert events == sorted(events) and events[0] == 2  # the oldest queued first, in order
    queued = [n for n in events if n <= last]
    finding(f"venue-to-league link pulled while the table published {last - 1} events and their states: back, "
            f"the league got {len(queued)} of the events (the oldest, in order: the venue's queue for the bridge "
            f"holds 1000 messages), then the newest state; live screen's last state seq {states_after[-1]}, "
            f"retained seq {retained.json()['seq']} (newest {last})", published_events=last - 1,
            delivered_events=len(queued), live_last_seq=states_after[-1], retained_seq=retained.json()["seq"])
    assert len(queued) < last - 1, "the venue's queue for the bridge (max_queued_messages) should have overflowed"


def test_the_league_bench_bridges_as_venue_conf_ships_it(mosquitto_factory: Factory) -> None:
    """bench/league.py runs venue.conf's own bridge lines (turned on, on loopback, without TLS
    and the password), and a venue's broker starts with them: when the file's bridge changed
    the bench must not quietly run another (it once read the lines after they were commented
    out, and mosquitto refused to start: "no remote addresses defined")."""
    import importlib.util

    from tests.helpers.venue_broker import BRIDGE

    spec = importlib.util.spec_from_file_location("league_bench", ROOT / "bench" / "league.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    league_port = free_port()
    left_out = ("bridge_cafile", "remote_username", "remote_password")
    wanted = [line.replace("mqtt.league.example:8883", f"127.0.0.1:{league_port}").replace("venue-club", "venue-v1")
              for line in BRIDGE if line.split(" ", 1)[0] not in left_out]
    bridge = bench.venue_bridge("v1", league_port)
    assert bridge.splitlines() == wanted
    venue = mosquitto_factory(extra=bridge)  # raises, with mosquitto's words, if it does not start
    assert venue.port


def test_the_shipped_league_config_reloads_without_dropping_the_bridge(league: League) -> None:
    """league.conf recommends `systemctl reload mosquitto`: SIGHUP it, as systemd does."""
    import signal

    since = len(league.league.log)
    venue_since = len(league.venue.log)
    assert league.league._process is not None
    league.league._process.send_signal(signal.SIGHUP)
    league.league.wait_for_log(lambda line: "Reloading config" in line, since=since)
    with league.screen(BRIDGE_STATE) as states:  # the broker answers again: the reload is done
        assert states.get().payload == b"1"
    assert not any("Error" in line or "Duplicate" in line for line in league.league.log[since:])
    assert not any("Connecting bridge" in line for line in league.venue.log[venue_since:])  # never dropped
