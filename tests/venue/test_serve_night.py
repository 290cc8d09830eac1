"""``cueboard venue serve`` runs a knockout with no desk open (issue 38, row 3): 4 players on 2
real daemons (mock pins) on the venue's own broker (TLS, the venue tool's ACL); the service,
logged in as the desk-role login ``venue``, hands each ready match to a free table (its
retained ``next``), moves the winners on from the tables' records, is stopped and started
again mid-night and goes on, keeps the final for the table reserved for it, and its archive
(SQLite in the venue's folder) stores each match once. Here a test login plays the referees:
it begins a handed match (``start_next``, as NEW MATCH at the table) and concedes it.
"""

from __future__ import annotations

import json
import ssl
import subprocess
import sys
import threading
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from cueboard.contract.topics import VenueTopics
from cueboard.league.http import CONTENT_SECURITY_POLICY
from cueboard.venue.competition import from_draw
from tests.helpers.venue import Venue
from tests.helpers.venue_service import VenueService as Service
from tests.screen.test_desk import Table, started

# The archive's login and the referees', made before the broker starts (mosquitto 2.0.11 can lose
# a reload that comes while it reloads); the service's, `venue`, venue init writes itself.
LOGINS = ("archive", "referee")
pytestmark = [pytest.mark.system, pytest.mark.club(tables=2, desks=LOGINS)]

TABLES = ("t1", "t2")
WAIT = 120.0
"""Seconds a step may take before the test gives up: a guard against a hang, never a figure."""


class Watch:
    """A referee's desk-role login on the venue's people listener: the latest retained value of
    every venue topic, waited on by condition; and the lines a referee sends."""

    def __init__(self, venue: Venue, user: str) -> None:
        self.topics = VenueTopics("club")
        self.user = user
        self.values: dict[str, Any] = {}
        self.cond = threading.Condition()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"cueboard-{user}")
        self.client.username_pw_set(user, venue.password(user))
        self.client.tls_set(str(venue.ca))
        self.client.on_message = self._message
        self.client.on_connect = lambda c, *_: c.subscribe(self.topics.everything, 1)
        self.client.connect("localhost", venue.ports["people"])
        self.client.loop_start()
        self.n = 0

    def _message(self, client: Any, userdata: Any, message: Any) -> None:
        raw = bytes(message.payload)
        try:
            value = json.loads(raw) if raw and not message.topic.endswith("/status") else raw.decode() or None
        except ValueError:
            value = raw.decode()
        with self.cond:
            self.values[message.topic] = value
            self.cond.notify_all()

    def until(self, what: str, check: Callable[[dict[str, Any]], Any]) -> Any:
        with self.cond:
            found = self.cond.wait_for(lambda: check(self.values), timeout=WAIT)
        assert found, f"{what}: not seen; the venue's topics: {json.dumps(self.values, default=str)[:3000]}"
        return found

    def get(self, topic: str) -> Any:
        with self.cond:
            return self.values.get(topic)

    def send(self, table: str, line: dict[str, Any]) -> None:
        self.n += 1
        body = {**line, "id": f"{self.user}-{self.n}"}
        self.client.publish(self.topics.table(table).command(self.user), json.dumps(body), qos=1).wait_for_publish(WAIT)

    def publish(self, topic: str, body: Any) -> None:
        self.client.publish(topic, json.dumps(body), qos=1, retain=True).wait_for_publish(WAIT)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@dataclass
class Page:
    url: str
    text: str
    headers: Any


def results_page(service: Service, venue: Venue, path: str) -> Page:
    """A page of the service's server over HTTPS, the venue's CA trusted (its certificate names localhost)."""
    port = service.url.rsplit(":", 1)[1].split("/")[0]
    context = ssl.create_default_context(cafile=str(venue.ca))
    with urllib.request.urlopen(f"https://localhost:{port}{path}", context=context, timeout=WAIT) as answer:
        return Page(answer.url, answer.read().decode(), answer.headers)


def night_standings(service: Service, venue: Venue, competition: str, matches: int) -> list[dict[str, Any]]:
    """/results/standings once the archive has ``matches`` of ``competition`` (asked until then)."""
    path = f"/results/standings?competition={urllib.parse.quote(competition)}"
    for _ in range(300):
        rows: list[dict[str, Any]] = json.loads(results_page(service, venue, path).text)
        if sum(r["played"] for r in rows) // 2 >= matches:
            return rows
        threading.Event().wait(0.2)  # not a wall-clock limit: a pause between asks
    raise AssertionError(f"the archive's standings never had {matches} matches: {rows}")


@pytest.fixture
def hall(club: Venue, tmp_path: Path) -> Iterator[dict[str, Any]]:
    with ExitStack() as stack:
        tables = started(stack, club, tmp_path, TABLES)
        watch = Watch(club, "referee")
        stack.callback(watch.close)
        yield {"venue": club, "tables": tables, "watch": watch}


def competition(watch: Watch) -> dict[str, Any]:
    """Tonight's knockout of 4, handed by itself (``auto``), as a desk would publish it."""
    made = from_draw({"kind": "knockout", "name": "Club Cup", "seeded": True,
                      "players": [{"name": n, "handicap": 0} for n in ("Ann", "Bob", "Cat", "Dan")]})
    return {"schema": 1, "id": "knockout-test", "name": "Club Cup", "kind": "knockout",
            "format": {"game": "snooker", "best_of": 1, "reds": 6},
            "created": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"), "rounds": made["rounds"],
            "handicaps": made["handicaps"], "seed": None, "seeded": True, "matches": made["matches"], "rev": 1,
            "by": watch.user, "auto": True}


def test_a_knockout_runs_to_its_winner_with_no_desk_open_through_a_restart(hall: dict[str, Any]) -> None:
    venue: Venue = hall["venue"]
    watch: Watch = hall["watch"]
    tables: dict[str, Table] = hall["tables"]
    v = watch.topics
    # A fresh table plays its [match] default (issue 38 row 1, another helper's): conceded first.
    for name in TABLES:
        watch.until(f"{name} online", lambda s, n=name: s.get(v.table(n).status) == "online")
        watch.send(name, {"type": "concede", "match": True})
        watch.until(f"{name} idle", lambda s, n=name: (s.get(v.table(n).state) or {}).get("match_over"))
    service = Service(venue.directory)
    try:
        watch.until("the service online", lambda s: (s.get(v.service) or {}).get("online"))
        draw = competition(watch)
        final = draw["matches"][-1]
        assert final["label"] == "F" or final["round"] == 2, final
        final["reserved"] = "t2"  # without it the final would go to t1, first in the venue's order
        watch.publish(v.competition, draw)
        restarted = False
        played: dict[str, str] = {}
        while True:
            c = watch.until("a match handed, or the final won", lambda s: (
                (s.get(v.competition) or {}).get("matches", [{}])[-1].get("winner") is not None
                or any((s.get(v.table(n).next) or {}).get("fixture") not in (None, *played) for n in TABLES))
                and s.get(v.competition))
            if c["matches"][-1].get("winner") is not None:
                break
            for name in TABLES:
                handed = watch.get(v.table(name).next)
                if not handed or handed["fixture"] in played:
                    continue
                fixture = handed["fixture"]
                played[fixture] = name
                # The referee begins it (NEW MATCH at the table) and the striker concedes it.
                watch.send(name, {"type": "start_next", "fixture": fixture})
                watch.until(f"{fixture} begun on {name}",
                            lambda s, n=name: not s.get(v.table(n).next)
                            and (s.get(v.table(n).state) or {"match_over": True}).get("match_over") is False)
                watch.send(name, {"type": "concede", "match": True})
                watch.until(f"{fixture} won", lambda s, f=fixture: any(
                    m["fixture"] == f and m.get("winner") is not None for m in (s.get(v.competition) or {})
                    .get("matches", [])))
                if not restarted:
                    # Mid-night: the service stops (its presence says so) and starts again.
                    assert service.stop() == 0, "".join(service.log)
                    watch.until("the service gone", lambda s: (s.get(v.service) or {}).get("online") is False)
                    service = Service(venue.directory)
                    watch.until("the service back", lambda s: (s.get(v.service) or {}).get("online"))
                    restarted = True
        c = watch.get(v.competition)
        assert all(m.get("winner") is not None for m in c["matches"]), c
        assert played[final["fixture"]] == "t2", played
        assert len(played) == 3 and set(played.values()) == set(TABLES), played
        champion = c["matches"][-1]["sides"][c["matches"][-1]["winner"]]
        assert champion in ("Ann", "Bob", "Cat", "Dan")
        assert all(tables[n].daemon is not None for n in TABLES)
        # The night's standings on the service's own server (/results/, the archive's pages):
        # asked until the archive has the final (a bounded count of asks), then the page itself.
        standings = night_standings(service, venue, "Club Cup", 3)
        assert standings[0]["name"] == champion and standings[0]["won"] == 2, standings
        page = results_page(service, venue, "/results/?competition=Club%20Cup")
        assert "<h1>Club Cup</h1>" in page.text and f"<td class=name>{champion}</td>" in page.text, page.text
        assert "3 matches played" in page.text, page.text
        # The archive's headers and content policy (no script), the pages' server's own headers.
        assert page.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
        assert page.headers["X-Content-Type-Options"] == "nosniff" and page.headers["Server"] == "cueboard"
        assert results_page(service, venue, "/results").url.endswith("/results/")  # sent on to the page
    finally:
        assert service.stop() == 0, "".join(service.log)
    # The archive in the venue's folder stored the night's 3 matches (and the conceded defaults), once each.
    run = subprocess.run([sys.executable, "-m", "cueboard.cli", "archive", "matches", "--db",
                          f"sqlite:///{venue.directory / 'archive.db'}", "--competition", "Club Cup"],
                         capture_output=True, text=True, check=True)
    records = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    assert sorted(r.get("fixture") for r in records) == sorted(played), records


def test_the_archive_on_postgresql_by_db(club: Venue, postgres_url: str, tmp_path: Path) -> None:
    """``--db postgresql://...``: the service's archive stores a match its runner handed, there."""
    with ExitStack() as stack:
        started(stack, club, tmp_path, ("t1",))
        watch = Watch(club, "referee")
        stack.callback(watch.close)
        v = watch.topics
        watch.until("t1 online", lambda s: s.get(v.table("t1").status) == "online")
        watch.send("t1", {"type": "concede", "match": True})  # its [match] default
        watch.until("t1 idle", lambda s: (s.get(v.table("t1").state) or {}).get("match_over"))
        draw = competition(watch)
        draw["matches"] = draw["matches"][:1]  # one match
        draw["matches"][0]["next"] = None
        fixture = draw["matches"][0]["fixture"]
        watch.publish(v.competition, draw)
        service = Service(club.directory, "--db", postgres_url)
        stack.callback(service.stop)
        watch.until("the match handed to t1", lambda s: (s.get(v.table("t1").next) or {}).get("fixture") == fixture)
        watch.send("t1", {"type": "start_next", "fixture": fixture})
        watch.until("begun", lambda s: not s.get(v.table("t1").next)
                    and (s.get(v.table("t1").state) or {"match_over": True}).get("match_over") is False)
        watch.send("t1", {"type": "concede", "match": True})
        watch.until("the winner in the competition",
                    lambda s: (s.get(v.competition) or {})["matches"][0].get("winner") is not None)
        for _ in range(300):  # asked until stored, the service running: a bounded count of asks
            run = subprocess.run([sys.executable, "-m", "cueboard.cli", "archive", "matches", "--db", postgres_url,
                                  "--competition", "Club Cup"], capture_output=True, text=True, check=True, timeout=60)
            records = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
            if any(r.get("winner") is not None for r in records):
                break
            threading.Event().wait(0.2)  # not a wall-clock limit: a pause between asks
        assert service.stop() == 0, "".join(service.log)
    assert [r["fixture"] for r in records if r.get("winner") is not None] == [fixture], records
