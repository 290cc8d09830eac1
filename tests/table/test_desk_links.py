"""One session per desk login at the table (issue 38 row 11, issue 37's command lane), on the
venue's broker exactly as ``cueboard venue init`` writes it (TLS, the ACL, the password files)
with a real table daemon: a desk login flooding its command topic never costs another desk
login's commands; a desk added while the table runs reaches it on its own link; a revoked desk's
link is closed; a line that comes on two links is applied once. Every wait is for the message or
the link change it causes, within the helpers' generous TIMEOUT, never a time the test measures.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from typing import Any

import pytest

from cueboard.table.config import Config
from cueboard.table.mqtt.desk_links import DeskLinks
from tests.helpers.mosquitto import TIMEOUT, Subscriber
from tests.table.test_handoffs import T1, Club, Person
from tests.table.test_reliability import Daemon

pytestmark = [pytest.mark.system, pytest.mark.club(desks=["flood"])]

FLOOD = """
import sys, threading
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
host, port, login, password, ca, topic = sys.argv[1:7]
client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="cueboard-flood-" + login, protocol=mqtt.MQTTv5)
client.username_pw_set(login, password)
client.tls_set(ca)
client.max_queued_messages_set(10000)
client.connect(host, int(port))
client.loop_start()
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
n = 0
while not stop.is_set():  # until the test closes our stdin: the desk's commands all come during it
    if client.publish(topic, b"not JSON %d" % n if n % 2 else b'{"type": "foul", "points": 3}', qos=0).rc == 0:
        n += 1
print(n)
client.disconnect()
client.loop_stop()
"""


def with_desks(config: Config, *desks: str) -> Config:
    """``config`` with ``mqtt.desks`` as ``cueboard venue`` writes it into the table's section."""
    assert config.mqtt is not None
    return dataclasses.replace(config, mqtt=dataclasses.replace(config.mqtt, desks=desks))


def desk_links(daemon: Daemon) -> DeskLinks:
    links = daemon.table.desk_links
    assert links is not None
    return links


def answers(sub: Subscriber, ident: str) -> list[dict[str, Any]]:
    """Every answer seen so far to the line ``ident`` (on event or rejected)."""
    return [m.json() for m in sub.seen if m.topic in (f"{T1}/event", f"{T1}/rejected") and m.payload
            and m.json().get("id") == ident]


def command(desk: Person, sub: Subscriber, ident: str) -> dict[str, Any]:
    """A desk's ``no_pot`` with ``ident`` and its answer (the event: applied)."""
    assert desk.publish(f"{T1}/command/{desk.login}", {"type": "no_pot", "id": ident}) in (0, 16)
    got: dict[str, Any] = sub.wait_for(lambda m: m.topic in (f"{T1}/event", f"{T1}/rejected") and bool(m.payload)
                                       and m.json().get("id") == ident).json()
    return got


def test_a_desk_logins_flood_never_costs_another_desks_commands(hall: Club) -> None:
    with Daemon(with_desks(hall.config("t1"), "desk", "flood"), boards=[], control=False) as t1, \
            hall.subscriber(f"{T1}/event", f"{T1}/rejected") as sub:
        links = desk_links(t1)
        assert links.wait_until(lambda: links.live("desk") and links.live("flood"), TIMEOUT)
        desk = Person(hall, "desk")
        flood = subprocess.Popen([sys.executable, "-c", FLOOD, "localhost", str(hall.ports["people"]), "flood",
                                  hall.password("flood"), str(hall.ca), f"{T1}/command/flood"],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            flooded = links.links["flood"]
            # The flood is at the table (its link read a thousand of its lines) before the desk starts.
            assert flooded.wait_until(lambda: flooded.taken + flooded.unread >= 1000, TIMEOUT)
            for n in range(10):  # the desk within its burst ([commands] burst 10), each once its answer came
                got = command(desk, sub, f"during{n}")
                assert (got.get("event") or {}).get("type") == "no_pot", got  # applied, not refused
            assert flood.poll() is None, "the flood ended before the desk's commands: not measured during it"
            out, _ = flood.communicate("", timeout=TIMEOUT * 4)
        finally:
            if flood.poll() is None:
                flood.kill()
        assert int(out) > 1000
        # The desk's lines came on its own link, each applied once; the flood's only on the flood's.
        own = links.links["desk"]
        assert own.taken >= 10 and own.unread == 0
        assert flooded.taken + flooded.unread > 1000
        feed = t1.table.feed
        assert feed is not None and feed.flush(TIMEOUT)
        assert t1.state()["seq"] >= 10
        for n in range(10):
            assert len(answers(sub, f"during{n}")) == 1, answers(sub, f"during{n}")
        desk.close()


def test_a_desk_added_while_the_table_runs_gets_its_own_link_and_a_revoked_ones_is_closed(hall: Club) -> None:
    with Daemon(with_desks(hall.config("t1"), "desk"), boards=[], control=False) as t1, \
            hall.subscriber(f"{T1}/event", f"{T1}/rejected") as sub:
        links = desk_links(t1)
        assert links.wait_until(lambda: links.live("desk"), TIMEOUT)
        assert "late" not in links.links
        hall.add_user("late")  # cueboard venue add-user late --role desk, the broker reloaded
        late = Person(hall, "late")
        # Its first command: on the shared link (a warning names it), which opens its own.
        assert command(late, sub, "late-1").get("event", {}).get("type") == "no_pot"
        assert links.wait_until(lambda: links.live("late"), TIMEOUT)
        link = links.links["late"]
        # The next comes on both links (the handover: taken once, from whichever brings it first);
        # from then on its lines are its own link's.
        assert command(late, sub, "late-2").get("event", {}).get("type") == "no_pot"
        taken = link.taken
        assert command(late, sub, "late-3").get("event", {}).get("type") == "no_pot"
        assert link.wait_until(lambda: link.taken > taken, TIMEOUT)  # read on its own link
        feed = t1.table.feed
        assert feed is not None and feed.flush(TIMEOUT)
        assert [len(answers(sub, ident)) for ident in ("late-1", "late-2", "late-3")] == [1, 1, 1]
        assert t1.state()["seq"] == 3
        late.close()
        # Revoked: the reload drops its link's session, whose login is gone; the table closes it.
        hall.change("revoke", "late")
        assert links.wait_until(lambda: "late" not in links.links, TIMEOUT)
        # The other desk's link is untouched and still answers.
        desk = Person(hall, "desk")
        assert command(desk, sub, "after").get("event", {}).get("type") == "no_pot"
        assert links.live("desk")
        desk.close()


def test_a_link_for_a_login_the_venue_did_not_write_is_refused_and_opens_nothing(hall: Club) -> None:
    """A wrong list cannot open anything: the broker refuses ``t1.commands.nobody``; the desk
    listed and real still gets its link."""
    with Daemon(with_desks(hall.config("t1"), "nobody", "desk"), boards=[], control=False) as t1:
        links = desk_links(t1)
        assert links.wait_until(lambda: "nobody" not in links.links and links.live("desk"), TIMEOUT)
        assert not links.open("nobody")  # refused a moment ago: not tried again before RETRY


def test_a_line_on_both_links_during_the_handover_is_taken_once() -> None:
    """The matching of the two links' lines, without a broker: the lines sent after the desk's own
    subscription come on each link in the same order (repeats too), whichever link brings them
    first; each is taken once. A line only on the shared link (sent before that subscription) is
    taken there once; after the handover the desk's lines are its own link's only."""
    from cueboard.table.mqtt.config import MqttConfig
    from cueboard.table.mqtt.desk_links import _Desk

    def fresh() -> DeskLinks:
        links = DeskLinks(MqttConfig(prefix="cueboard/club/t1", username="t1"), feed=None,  # type: ignore[arg-type]
                          on_line=lambda *a: None)
        links._started = True
        links._desks["desk"] = _Desk(link=None)  # type: ignore[arg-type]
        return links

    # The shared link ahead: it brings "before" (sent before the subscription) and the first lines.
    links = fresh()
    assert links.admit_shared("desk", b"before")  # no link of its own yet: the shared link's
    links._subscribed("desk")
    taken = [("shared", p) for p in (b"before2", b"undo", b"undo") if links.admit_shared("desk", p)]
    taken += [("own", p) for p in (b"undo", b"undo", b"pot", b"miss") if links._admit_own("desk", p)]
    taken += [("shared", p) for p in (b"pot", b"miss", b"next") if links.admit_shared("desk", p)]
    taken += [("own", p) for p in (b"next", b"undo") if links._admit_own("desk", p)]
    assert taken == [("shared", b"before2"), ("shared", b"undo"), ("shared", b"undo"), ("own", b"pot"),
                     ("own", b"miss"), ("own", b"next"), ("own", b"undo")]
    # Its own link ahead: the shared link's first twin ends the handover.
    links = fresh()
    links._subscribed("desk")
    taken = [("own", p) for p in (b"undo", b"pot") if links._admit_own("desk", p)]
    taken += [("shared", p) for p in (b"before", b"undo", b"pot", b"undo") if links.admit_shared("desk", p)]
    taken += [("own", p) for p in (b"undo",) if links._admit_own("desk", p)]
    assert taken == [("own", b"undo"), ("own", b"pot"), ("shared", b"before"), ("own", b"undo")]
    assert links.admit_shared(None, b"bare")  # the bare topic of older tools: the shared link's


def test_after_the_handover_a_desks_lines_are_never_digested_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 37: a desk's flood comes on its own link and, on an older venue's ACL, on the shared
    one too; once handed over, neither link makes anything of a line to match it (no digest: the
    shared link drops it by its user, its own takes it as it is)."""
    from cueboard.table.mqtt import desk_links as module
    from cueboard.table.mqtt.config import MqttConfig

    digested: list[bytes] = []
    real = module._digest
    monkeypatch.setattr(module, "_digest", lambda payload: (digested.append(payload), real(payload))[1])
    links = DeskLinks(MqttConfig(prefix="cueboard/club/t1", username="t1"), feed=None,  # type: ignore[arg-type]
                      on_line=lambda *a: None)
    links._started = True
    links._desks["desk"] = module._Desk(link=None)  # type: ignore[arg-type]
    links._subscribed("desk")
    assert links._admit_own("desk", b"first")
    assert not links.admit_shared("desk", b"first")  # the twin: the handover's end
    digested.clear()
    for n in range(100):  # the flood, on both links
        line = b"flood %d" % n
        assert not links.admit_shared("desk", line)
        assert links._admit_own("desk", line)
    assert digested == []


def test_an_over_limit_users_line_is_not_read_by_its_topic_alone() -> None:
    """Issue 37: once a user's backlog is full, its next lines are counted as not read (and said in
    the summary) without their payload being looked at: a flood's line costs the table its topic."""
    from cueboard.table.mqtt.config import MqttConfig
    from cueboard.table.mqtt.paced_link import COMMANDS, PacedLink

    class Full:
        def has_room(self, lane: str) -> bool:
            return False  # the user's lane of answers is full: its lines wait, then are not read

    class Line:
        def __init__(self, user: str, payload: bytes | None) -> None:
            self.topic, self._payload, self.retain = f"cueboard/club/t1/command/{user}", payload, False

        @property
        def payload(self) -> bytes:
            assert self._payload is not None, "an over-limit line's payload was read"
            return self._payload

    link = PacedLink(MqttConfig(prefix="cueboard/club/t1", username="t1", queue=5), Full(),  # type: ignore[arg-type]
                     COMMANDS, lambda *a: None)
    for n in range(5):
        link._on_message(None, None, Line("flood", b"%d" % n))  # type: ignore[arg-type]
    assert link.waiting() == 5 and link.unread == 0
    for _ in range(100):
        link._on_message(None, None, Line("flood", None))  # type: ignore[arg-type]
    assert link.unread == 100 and link._unread == {"flood": 100}
    link._on_message(None, None, Line("desk", b"another user's"))  # type: ignore[arg-type]
    assert link.waiting() == 6  # another user's line still waits its turn
