"""A desk login flooding ``<prefix>/command/<user>`` (issue 26), on the venue ``cueboard venue init``
writes (TLS, its logins and ACL) and a real table's daemon.

The table reads the commands on a paced connection of their own (cueboard.table.mqtt.paced_link, login
``t1.commands``), no faster than each user's answers go out, each user in turn; the feed's own
connection carries the state and its acknowledgements, never a flood. While one desk login floods
(:data:`FLOOD_RATE` lines a second, each with an id):

- the referee's presses are drawn and their state reaches a venue screen (anonymous, WebSockets);
- another desk login's commands with ids each get their own answer and are applied;
- every flood line the table read gets exactly one answer by its id; the lines it did not read
  (the flooder's backlog full) are counted and said in a summary, never answered twice.

Each of these is checked against the flood itself, not a clock: the flood goes on until they are
all seen (bounded by :data:`FLOOD_MAX` lines), so a table that held them behind the flood fails.
An older venue, whose files lack ``t1.commands``: the daemon takes the commands on its own
connection, saying so in its log and on ``devices``.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from gpiozero.pins.mock import MockFactory
from paho.mqtt.enums import CallbackAPIVersion

from cueboard.contract.lines import peek_id
from cueboard.hw.clock import ManualClock
from cueboard.table.mqtt.paced_link import PacedLink
from tests.helpers.daemon import table_config
from tests.helpers.mosquitto import TIMEOUT, Mosquitto, Subscriber, require_mosquitto
from tests.helpers.venue import Venue, init_venue, running_venue, venue_cli
from tests.table.test_command_path import Shown
from tests.table.test_reliability import KEYMAP, PINS, Daemon

pytestmark = pytest.mark.system


PREFIX = "cueboard/club/t1"
RED, UNDO = 0, 11  # referee-box-12.toml
FLOOD_RATE = 2000
"""Lines a second the flood sends: far past what the table answers (50 a second a user) and what
a desk may send (5 a second), within what the table reads on a busy machine. (A flood faster than
the table reads it queues in the broker's stream to the commands' link, which the desk logins
share, and mosquitto drops that session's messages past its queue whoever sent them: measured by
bench/flood.py --by desk, docs/mqtt.md.)"""
FLOOD_MAX = 400_000
"""Lines the flood sends at most; it stops sooner, once everything it must not delay was seen."""
QUEUE = 100
"""``mqtt.queue``: a user's lane of answers, and its backlog on the commands' link."""


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[Venue]:
    with running_venue(tmp_path, tables=1) as running:
        running.change("add-user", "desk2", "--role", "desk")
        running.change("add-user", "desk3", "--role", "desk")  # the answers' watcher: a device of its own
        yield running


def config(tmp_path: Path, venue: Venue) -> Any:
    mqtt_section = {"host": "localhost", "port": venue.ports["tables"], "username": "t1",
                    "password": venue.password("t1"), "command": True, "tls": {"ca": str(venue.ca)},
                    "queue": QUEUE, "desks": ["desk", "desk2"]}
    return table_config(tmp_path, table={"venue": "club", "name": "t1"}, mqtt=mqtt_section,
                        referee_box=[{"pins": PINS[0], "keymap": str(KEYMAP)}])


def login(venue: Venue, user: str) -> mqtt.Client:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"cueboard-{user}-test", protocol=mqtt.MQTTv5)
    client.username_pw_set(user, venue.password(user))
    client.tls_set(str(venue.ca))
    client.max_queued_messages_set(1000)  # the flood sends what the broker takes, never more than it can hold
    connected = threading.Event()
    client.on_connect = lambda *args: connected.set()
    client.connect("localhost", venue.ports["people"])
    client.loop_start()
    assert connected.wait(TIMEOUT)
    return client


def screen(venue: Venue) -> Subscriber:
    """A venue screen: anonymous, secure WebSockets, reading the state."""
    return Subscriber([f"{PREFIX}/state", f"{PREFIX}/devices"], host="localhost", port=venue.ports["screens"],
                      ca=venue.ca, transport="websockets", client_id="cueboard-screen-test").wait_subscribed()


def answers(venue: Venue) -> Subscriber:
    """A third desk's view of the table's answers (one login a device: not desk2's session)."""
    return Subscriber([f"{PREFIX}/event", f"{PREFIX}/rejected"], host="localhost", port=venue.ports["people"],
                      username="desk3", password=venue.password("desk3"), ca=venue.ca,
                      client_id="cueboard-desk3-answers").wait_subscribed()


def until(sub: Subscriber, done: Callable[[], bool]) -> None:
    """Wait until ``done()``, asked again at each message ``sub`` gets (at once if it holds now)."""
    if not done():
        sub.wait_for(lambda m: done())


class Flood:
    """The desk's login publishing fouls of 3 points (never legal) with ids, QoS 0, at
    :data:`FLOOD_RATE` lines a second, until :meth:`stop` (or :data:`FLOOD_MAX` lines)."""

    def __init__(self, client: mqtt.Client) -> None:
        self.client = client
        self.sent = 0
        self.ended = threading.Event()  # ran out of lines before it was stopped
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        start = time.monotonic()
        while not self._stop.is_set():
            if self.sent >= FLOOD_MAX:
                self.ended.set()
                return
            for _ in range(20):
                line = b'{"type": "foul", "points": 3, "id": "f%d"}' % self.sent
                if self.client.publish(f"{PREFIX}/command/desk", line, qos=0).rc == mqtt.MQTT_ERR_SUCCESS:
                    self.sent += 1
            # Paced: the next 20 lines when their time comes (a rate, not a wait for an event).
            self._stop.wait(max(0.0, start + self.sent / FLOOD_RATE - time.monotonic()))

    def stop(self) -> bool:
        """Stopped; whether it was still flooding (had not run out of lines) until then."""
        self._stop.set()
        self._thread.join(TIMEOUT)
        return not self.ended.is_set()


def test_a_desk_login_flooding_its_commands_delays_neither_the_referee_nor_another_desk(
        tmp_path: Path, venue: Venue, finding: Any) -> None:
    link_subscribed_since = len(venue.broker.log)
    pins, clock, board = MockFactory(), ManualClock(start=1000.0), Shown()
    seen = screen(venue)
    sub = answers(venue)
    flooder, desk2 = login(venue, "desk"), login(venue, "desk2")
    try:
        with Daemon(config(tmp_path, venue), boards=[board], pin_factory=pins, button_clock=clock,
                    control=False) as daemon:
            venue.broker.wait_for_log(lambda line: line.endswith(f"{PREFIX}/command/+") and "t1.commands" in line,
                                      TIMEOUT, since=link_subscribed_since)
            shared = daemon.table.links["mqtt_commands"]
            assert isinstance(shared, PacedLink) and shared.health == "ok" and not shared.refused
            # Each desk login's commands on a link of its own (cueboard.table.mqtt.desk_links): the flood's.
            desks = daemon.table.desk_links
            assert desks is not None and desks.wait_until(lambda: desks.live("desk") and desks.live("desk2"),
                                                          TIMEOUT)
            link = desks.links["desk"]
            read: dict[str, int] = {}  # the flood's ids the table read, and how often
            on_line = link._on_line

            def reading(payload: bytes, retained: bool, user: str | None) -> None:
                if user == "desk":
                    ident = peek_id(payload) or "?"
                    read[ident] = read.get(ident, 0) + 1
                on_line(payload, retained, user)

            # The first flood line comes on both links (the handover), taken from whichever is first.
            link._on_line = shared._on_line = reading  # type: ignore[method-assign]
            seen.wait_for(lambda m: m.topic.endswith("/state"))  # the retained state of the start
            flood = Flood(flooder)
            # (a) The referee's presses, each drawn and its state at the screen, while the flood goes on.
            for n in range(6):
                pin = pins.pin(PINS[0][RED if n % 2 == 0 else UNDO])
                pin.drive_low()
                clock.advance(0.05)
                pin.drive_high()
                clock.advance(0.05)
                seq = 1 if n % 2 == 0 else 0
                state = seen.wait_for(lambda m, seq=seq: m.topic.endswith("/state") and m.json()["seq"] == seq
                                      and m.json()["sides"][0]["score"] == seq)
                assert board.states[-1]["seq"] == seq and state.json()["sides"][0]["score"] == seq
            # (b) Another desk login's commands with ids: each answered and applied.
            for n in range(10):
                desk2.publish(f"{PREFIX}/command/desk2", json.dumps({"type": "no_pot", "id": f"d{n}"}),
                              qos=1).wait_for_publish(TIMEOUT)
            desk_answers = [sub.wait_for(lambda m, n=n: m.json().get("id") == f"d{n}") for n in range(10)]
            still_flooding = flood.stop()
            assert still_flooding, f"all {FLOOD_MAX} flood lines were sent before the presses and desk2 got through"
            assert all(a.topic == f"{PREFIX}/event" and a.json()["user"] == "desk2" for a in desk_answers)
            assert daemon.state()["seq"] == 10  # desk2's ten no_pots (after the presses' undo), none of the flood's
            # (c) Every flood line read: exactly one answer by its id (the summary of those not read aside).
            assert link.drained(TIMEOUT * 4)
            feed = daemon.table.feed
            assert feed is not None and feed.flush(TIMEOUT * 4)
            ids = set(read)

            def flood_answers() -> list[dict[str, Any]]:
                return [m.json() for m in list(sub.seen) if m.json().get("user") == "desk" and m.json().get("id")]

            until(sub, lambda: {a["id"] for a in flood_answers()} >= ids)
            got = [a["id"] for a in flood_answers()]
            assert all(count == 1 for count in read.values())  # the link handed each line on once
            assert len(got) == len(set(got)) and set(got) == ids  # one answer each, and only to lines read
            assert feed.dropped == 0  # no answer pushed out of the flooder's lane

            def summaries() -> list[int]:  # the lines not read are said, never answered one by one
                return [int(m.json()["reason"].split()[0]) for m in list(sub.seen)
                        if m.json().get("user") == "desk" and "not read" in m.json()["reason"]]

            until(sub, lambda: sum(summaries()) == link.unread)
            finding(f"a desk login flooding command/desk ({flood.sent} lines with ids, QoS 0, {FLOOD_RATE} a second) "
                    "while the referee "
                    f"pressed 6 times and desk2 sent 10 commands: every press drawn and at the screen, desk2's 10 "
                    f"answered and applied, all during the flood; the table read {len(ids)} flood lines and answered "
                    f"each once by its id; {link.unread} not read (said in {len(summaries())} summaries); "
                    "0 answers dropped", sent=flood.sent, read=len(ids), unread=link.unread)
    finally:
        for client in (flooder, desk2):
            client.disconnect()
            client.loop_stop()
        seen.close()
        sub.close()


@pytest.fixture
def older_venue(tmp_path: Path) -> Iterator[Venue]:
    """The venue of :func:`running_venue` as an older ``cueboard venue`` wrote it: no
    ``t1.commands`` in its password file or ACL."""
    require_mosquitto()
    directory = tmp_path / "venue"
    ports = init_venue(directory, 1)
    venue_cli("add-user", "desk2", "--role", "desk", "--dir", str(directory), "--no-reload")
    venue_cli("add-user", "desk3", "--role", "desk", "--dir", str(directory), "--no-reload")
    m = directory / "mosquitto"
    for name in ("tables.passwd", "acl"):
        text = (m / name).read_text()
        assert ".commands" in text
        (m / name).write_text("".join(line for line in text.splitlines(keepends=True) if ".commands" not in line))
    config = (m / "venue.conf").read_text()
    with Mosquitto(tmp_path / "broker", port=ports["tables"], config=config) as broker:
        yield Venue(directory, broker, ports)


def test_an_older_venue_without_the_commands_login_still_has_its_commands_taken(
        tmp_path: Path, older_venue: Venue, caplog: pytest.LogCaptureFixture) -> None:
    """A venue whose files were written before ``t1.commands``: the broker refuses that login. The
    daemon says so (log and ``devices``) and takes the commands on its own connection, unpaced."""
    venue = older_venue
    caplog.set_level(logging.WARNING, logger="cueboard")
    seen = screen(venue)
    sub = answers(venue)
    desk2 = login(venue, "desk2")
    try:
        with Daemon(config(tmp_path, venue), boards=[], pin_factory=MockFactory(), control=False) as daemon:
            devices = seen.wait_for(lambda m: m.topic.endswith("/devices")
                                    and m.json().get("mqtt_commands", "").startswith("down: refused"))
            link = daemon.table.links["mqtt_commands"]
            assert isinstance(link, PacedLink) and link.refused
            assert "taken on the table's own connection" in devices.json()["mqtt_commands"]
            venue.broker.wait_for_log(lambda line: line.endswith(f"{PREFIX}/command/+") and "t1.commands" not in line,
                                      TIMEOUT)
            desk2.publish(f"{PREFIX}/command/desk2", json.dumps({"type": "no_pot", "id": "old1"}),
                          qos=1).wait_for_publish(TIMEOUT)
            answer = sub.wait_for(lambda m: m.json().get("id") == "old1")
            assert answer.topic == f"{PREFIX}/event" and answer.json()["user"] == "desk2"
            assert daemon.state()["seq"] == 1
    finally:
        desk2.disconnect()
        desk2.loop_stop()
        seen.close()
        sub.close()
    said = [r.getMessage() for r in caplog.records]
    assert any("t1.commands" in line and "refused by the broker" in line for line in said), said
    assert any("taken on the table's own connection" in line and "not paced" in line for line in said), said
