"""Never a match missed (issue 38, row 5): an archive that was away catches up every match that
ended meanwhile and stores each once. Real table daemons on mock pins behind the venue's broker
exactly as ``cueboard venue`` writes it (TLS, its ACL, the archive's own login made by
``add-user --role archive``), into SQLite and a real PostgreSQL. Each step waits for the message
or the store it causes; the database is polled only where nothing else can tell.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from cueboard.league.archive_service import ArchiveService, Connection, serve_archive
from cueboard.league.store import Archive, Stored
from tests.helpers.archive import match_log, record
from tests.helpers.mosquitto import TIMEOUT, Mosquitto, Subscriber
from tests.helpers.venue import Venue
from tests.league.test_archive_service import publisher, wait_until
from tests.table.test_handoffs import WATCHER, Club
from tests.table.test_reliability import Daemon

pytestmark = [pytest.mark.system, pytest.mark.club(desks=[WATCHER])]

KEPT = "cueboard/club/+/record/+"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/archive.db"
    url: str = request.getfixturevalue("postgres_url")
    return url


class Kept:
    """What the broker holds on every table's ``record/<key>`` (the newest payload of each), as
    seen by a desk login's subscriber; waits on its messages."""

    def __init__(self, sub: Subscriber) -> None:
        self.sub = sub
        self.now: dict[str, bytes] = {}

    def until(self, check: Callable[[dict[str, bytes]], bool], what: str) -> dict[str, bytes]:
        while not check(self.now):
            try:
                message = self.sub.get()
            except TimeoutError:
                raise TimeoutError(f"not within {TIMEOUT} s: {what} (kept: {sorted(self.now)})") from None
            self.now[message.topic] = message.payload
        return dict(self.now)

    def held(self) -> set[str]:
        return {topic for topic, payload in self.now.items() if payload}


class Stores:
    """The archive's outcomes as it commits them (its ``on_stored``)."""

    def __init__(self) -> None:
        self.seen: list[Stored] = []
        self._cond = threading.Condition()

    def __call__(self, stored: Stored) -> None:
        with self._cond:
            self.seen.append(stored)
            self._cond.notify_all()

    def wait(self, check: Callable[[list[Stored]], bool], what: str) -> None:
        with self._cond:
            assert self._cond.wait_for(lambda: check(self.seen), TIMEOUT), f"{what}: {self.seen}"


@contextmanager
def archive_running(venue: Venue, archive: Archive, stores: Stores, **options: Any) -> Iterator[ArchiveService]:
    """``cueboard archive run`` with the archive's own login, on the people's listener."""
    service = ArchiveService(archive, Connection(host="localhost", port=venue.ports["people"], username="archive",
                                                 password=venue.password("archive"), ca=str(venue.ca), **options),
                             on_stored=stores)
    service.start()
    try:
        assert service.subscribed.wait(TIMEOUT), "the archive did not subscribe"
        yield service
    finally:
        service.stop()


def play(daemon: Daemon, home: str, away: str) -> None:
    """A match begun and conceded at once: a match that ended."""
    assert daemon.send({"type": "match", "game": "snooker", "sides": [home, away], "best_of": 1}).get("ok")
    assert daemon.send({"type": "concede", "match": True}).get("ok")


def test_an_archive_away_catches_up_every_match_that_ended_and_stores_each_once(
        club: Venue, tmp_path: Path, db_url: str, caplog: pytest.LogCaptureFixture, finding: Any) -> None:
    hall = Club(club.directory, club.broker, club.ports, tmp_path)
    club.add_user("archive", "archive")
    stores = Stores()
    caplog.set_level(logging.DEBUG, logger="cueboard.league")
    with Archive.open(db_url) as archive, hall.subscriber(KEPT) as sub:
        kept = Kept(sub)
        with hall.daemon("t1") as t1, hall.daemon("t2") as t2:
            hall.wait_listening("t1")
            hall.wait_listening("t2")
            # The archive away (never started yet): three matches end on two tables, and t1 begins
            # a fourth, whose record replaces the third's on t1's `record` (the old way's loss).
            play(t1, "Ann Smith", "Bob Jones")
            play(t2, "Cat Lee", "Dan Ross")
            play(t1, "Eve Hart", "Fay Moss")
            assert t1.send({"type": "match", "game": "snooker", "sides": ["Gil", "Hal"], "best_of": 1}).get("ok")
            kept.until(lambda now: len([p for p in now.values() if p]) == 3, "three records kept")
            three = kept.held()
            # The broker restarted without a persistence file (the venue's as the tool writes it):
            # every retained record is gone, and the tables, still up, publish what they keep again.
            club.broker.restart()
            kept.now.clear()
            kept.until(lambda now: kept.held() == three, "the three kept again after the broker's restart")

            with archive_running(club, archive, stores) as service:
                stores.wait(lambda seen: len({s.match_id for s in seen if s.outcome == "stored"}) == 3,
                            "three matches stored")
                kept.until(lambda now: all(now[topic] == b"" for topic in three), "the three cleared by the tables")
            first = dict(service.counts)
            revisions = archive.revisions()
            assert len(revisions) == 3 and set(revisions.values()) == {1}, revisions
            assert t1.table.unarchived is not None and t2.table.unarchived is not None
            assert (t1.table.unarchived.cleared, t2.table.unarchived.cleared) == (2, 1)
            assert t1.table.unarchived.held == {} and t2.table.unarchived.held == {}

            # The archive restarted: nothing comes twice into the database.
            before = len(stores.seen)
            with archive_running(club, archive, stores) as service:
                # t1's `record` is its fourth match, just begun (nothing to archive yet, and no
                # warning), t2's the match already stored.
                wait_until(lambda: service.counts["not_yet"] >= 1 and service.counts["same"] >= 1,
                           "the tables' current records read again")
            again = dict(service.counts)
            assert archive.revisions() == revisions
            assert all(s.outcome == "same" for s in stores.seen[before:]), stores.seen[before:]

            # A table restarted with a record no archive has acknowledged: stored once.
            play(t2, "Ivy", "Jon")
            kept.until(lambda now: len(kept.held()) == 1, "t2's record kept")
            (unacknowledged,) = kept.held()
        with hall.daemon("t2") as t2_again:
            hall.wait_listening("t2")
            assert t2_again.table.unarchived is not None
            key = unacknowledged.rsplit("/", 1)[1]
            wait_until(lambda: key in t2_again.table.unarchived.held, "the restarted t2 knows what it keeps")
            with archive_running(club, archive, stores):
                kept.until(lambda now: now[unacknowledged] == b"", "t2's record cleared once stored")
            assert t2_again.table.unarchived.cleared == 1
        final = archive.revisions()
    assert len(final) == 4 and set(final.values()) == {1}, final
    assert archive_ids(final) == {"t1": 2, "t2": 2}
    refused = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and "refused" in r.getMessage()]
    assert refused == [], refused
    assert any("nothing to archive yet" in r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG)
    finding("an archive started after 3 matches ended on 2 tables (and a broker restart without persistence) "
            "stored all 3 once, the tables cleared each; "
            "restarted, it stored nothing again; a table restarted with an unacknowledged record: stored once",
            first=first, again=again, revisions=final)


def archive_ids(revisions: dict[str, int]) -> dict[str, int]:
    """Matches stored by table, from their ids (``club/<table>/<started>``)."""
    out: dict[str, int] = {}
    for match_id in revisions:
        table = match_id.split("/")[1]
        out[table] = out.get(table, 0) + 1
    return out


def test_serve_archive_is_the_archive_in_one_call_and_says_what_it_stored(mosquitto_broker: Mosquitto,
                                                                           tmp_path: Path) -> None:
    """``serve_archive`` (what a venue service runs in a thread): a kept record on a broker with
    no logins is stored, acknowledged on ``archived/archive``, and the call returns once told."""
    rec = {**record(match_log("Ann", "Bob", seed=3, best_of=1)), "venue": "club", "table": "t1"}
    key = rec["started"]
    payload = json.dumps({**rec, "match_id": f"club/t1/{key}"}).encode()
    url = f"sqlite:///{tmp_path}/a.db"
    stores = Stores()
    done = threading.Event()
    with Subscriber("cueboard/club/t1/archived/+", port=mosquitto_broker.port) as acks:
        acks.wait_subscribed()
        tables = publisher(mosquitto_broker)
        try:
            tables.publish(f"cueboard/club/t1/record/{key}", payload, qos=1, retain=True).wait_for_publish(TIMEOUT)
        finally:
            tables.disconnect()
            tables.loop_stop()
        thread = threading.Thread(target=serve_archive, args=(url, Connection(port=mosquitto_broker.port), done),
                                  kwargs={"on_stored": stores})
        thread.start()
        try:
            stores.wait(lambda seen: [s.outcome for s in seen] == ["stored"], "the kept record stored")
            said = acks.wait_topic("cueboard/club/t1/archived/archive").json()
        finally:
            done.set()
            thread.join(TIMEOUT)
    assert not thread.is_alive()
    assert said["record"] == key and said["digest"] == hashlib.sha256(payload).hexdigest()
    assert said["match_id"] == f"club/t1/{key}"
    with Archive.open(url) as archive:
        assert list(archive.revisions()) == [f"club/t1/{key}"]
