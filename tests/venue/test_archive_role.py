"""The archive's own login (``cueboard venue add-user NAME --role archive``, issue 38 row 5): on
the venue's real mosquitto with the ACL the tool writes, it reads what the archive needs (every
table's records, state, events and status) and can write nothing but its acknowledgements:
every other write it tries is refused by the broker (MQTT 5 PUBACK reason 135)."""

from __future__ import annotations

import json
import threading
import uuid
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from cueboard.contract.topics import VenueTopics
from cueboard.venue.plan import Venue as Plan
from tests.helpers.mosquitto import TIMEOUT
from tests.helpers.venue import Venue, venue_run
from tests.table.test_handoffs import WATCHER, Club, Person
from tests.table.test_roles import NOT_AUTHORISED

pytestmark = [pytest.mark.system, pytest.mark.club(desks=[WATCHER])]

T1 = VenueTopics("club").table("t1")
T2 = VenueTopics("club").table("t2")


def every_write(login: str) -> list[str]:
    """Each topic anyone writes at the venue (a table's, the desk's, a scorer's, the venue's),
    for both tables, and another archive's acknowledgements."""
    topics = []
    for t in (T1, T2):
        topics += [t.state, t.event, t.rejected, t.status, t.devices, t.input, t.record, t.match_record("k"),
                   t.history, t.history_slot(3), t.preview, t.next, t.message, t.command(login), t.command("desk"),
                   t.unnamed_command, t.score(login), t.presence(login), t.archived("other-archive")]
    v = VenueTopics("club")
    return [*topics, v.competition, v.presets, v.players, v.results, "cueboard/club/anything", "$SYS/broker/x"]


def test_the_archive_login_reads_the_records_and_writes_only_its_acknowledgements(club: Venue, tmp_path: Path,
                                                                                   finding: object) -> None:
    hall = Club(club.directory, club.broker, club.ports, tmp_path)
    out = club.change("add-user", "archive", "--role", "archive")
    assert "cueboard archive run" in out and "--username archive" in out and str(club.ca.resolve()) in out
    archive = Person(hall, "archive")
    tried: dict[str, int] = {}
    try:
        for topic in every_write("archive"):
            tried[topic] = archive.publish(topic, b"{}")
        allowed = {T1.archived("archive"), T2.archived("archive")}
        for topic in allowed:
            tried[topic] = archive.publish(topic, b"{}")
        refused = {t for t, code in tried.items() if code == NOT_AUTHORISED}
        assert refused == set(tried) - allowed, {t: c for t, c in tried.items() if t not in allowed}
        assert not refused & allowed
    finally:
        archive.close()
    # What it reads: a table's records (current and kept), state, event, status; not its commands.
    with hall.subscriber("cueboard/club/#", login="archive") as sub:
        with hall.subscriber(T1.under("#")) as desk_sees:
            desk = Person(hall, "desk")
            try:
                assert desk.publish(T1.command("desk"), {"type": "state", "id": "x"}) != NOT_AUTHORISED
                assert desk.publish(T1.message, b"") != NOT_AUTHORISED
            finally:
                desk.close()
            desk_sees.wait_topic(T1.command("desk"))
        writer = Table(hall)
        try:
            for topic in (T1.state, T1.event, T1.status, T1.record, T1.match_record("2026-11-29T01:02:03Z")):
                writer.publish(topic, json.dumps({"topic": topic}).encode())
            got = {sub.wait_for(lambda m, t=topic: m.topic == t).topic
                   for topic in (T1.state, T1.event, T1.status, T1.record, T1.match_record("2026-11-29T01:02:03Z"))}
            writer.publish(T1.devices, b"{}")
        finally:
            writer.close()
        seen = {m.topic for m in sub.seen}
    assert len(got) == 5
    assert T1.command("desk") not in seen and T1.devices not in seen, seen
    finding(f"the archive login tried {len(tried)} writes: {len(tried) - 2} refused by the broker, its two "
            "acknowledgements taken; it read records, state, event and status, not commands or devices",
            refused=len(tried) - 2)


class Table(Person):
    """t1's own login on the tables' listener, as its daemon writes."""

    def __init__(self, hall: Club) -> None:
        self.login = "t1"
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"cueboard-t1-{uuid.uuid4().hex[:8]}",
                                  protocol=mqtt.MQTTv5)
        self.client.username_pw_set("t1", hall.password("t1"))
        self.client.tls_set(str(hall.ca))
        self._acks: dict[int, int] = {}
        self._acked = threading.Condition()
        connected = threading.Event()
        self.client.on_connect = lambda *args: connected.set()
        self.client.on_publish = self._on_publish
        self.client.connect("localhost", hall.ports["tables"])
        self.client.loop_start()
        assert connected.wait(TIMEOUT), "t1: no CONNACK"


def test_add_user_archive_takes_no_table_and_the_plan_knows_the_role(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    plan = Plan(name="club", hosts=["localhost"])
    plan.add_table("t1")
    assert plan.add_user("archive", "archive").role == "archive"
    status, out = venue_run("init", "--dir", str(tmp_path / "v"), "--venue", "club", "--tables", "1", "--host",
                            "localhost")
    assert status == 0, out
    before = (tmp_path / "v" / "mosquitto" / "acl").read_text()
    status, out = venue_run("add-user", "arch", "--role", "archive", "--table", "t1", "--dir", str(tmp_path / "v"),
                            "--no-reload")
    said = capsys.readouterr().err
    assert status == 2 and "--table: only for a scorer (the archive reaches every table)" in said, said
    assert (tmp_path / "v" / "mosquitto" / "acl").read_text() == before  # refused: nothing changed
