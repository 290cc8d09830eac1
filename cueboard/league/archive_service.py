"""``cueboard archive run``: every table's record from a broker into the archive, once each
(an MQTT 5 client, a persistent session, QoS 1, acknowledged only once committed).
Why nothing is lost or stored twice: docs/league.md, "What 'stored once' means".
"""

from __future__ import annotations

import hashlib
import json
import logging
import queue
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from cueboard.common.errors import NotYet, RecordError
from cueboard.contract.payloads import archived_payload
from cueboard.contract.times import timestamp
from cueboard.contract.topics import MATCH_RECORDS, RECORD, RECORDS, TableTopics
from cueboard.contract.wire import encode
from cueboard.league.records import Record, parse_payload
from cueboard.league.store import Archive, Stored

log = logging.getLogger(__name__)

TOPIC = RECORDS
TOPICS = (RECORDS, MATCH_RECORDS)
"""The current match's record of every table, and each match's record a table keeps until an
archive says it stored it (``<prefix>/record/<key>``): the catch-up of whatever ended while the
archive was away (docs/league.md, "Never a match missed")."""
LOGIN = "archive"
"""The last level of the acknowledgements' topic without a ``username`` (a broker with no logins)."""
BATCH = 500
"""Records stored in one transaction at most: a commit costs a disk flush, shared by the batch;
a burst's records are stored in a few commits."""
RECEIVE_MAXIMUM = 65535
"""Records the broker may send before the archive acknowledges one (MQTT 5's largest): a burst
of a whole league's match ends is taken, not queued at the broker (see the module)."""
SESSION_EXPIRY = 7 * 24 * 3600
"""Seconds the broker keeps the archive's session (its subscription and queue) while it is
away: a week, past any outage the archive is expected to come back from."""
RESYNC = 60.0
"""Seconds between two subscriptions again (every table's retained record: the catch-up)."""
CLIENT_ID = "cueboard-archive"
"""The session's name at the broker: it must stay the same from run to run (a venue broker
takes client ids that start with ``cueboard-``)."""


@dataclass
class Connection:
    host: str = "127.0.0.1"
    port: int = 1883
    client_id: str = CLIENT_ID
    username: str | None = None
    password: str | None = None
    ca: str | None = None  # TLS with this CA file
    topics: Sequence[str] = field(default_factory=lambda: list(TOPICS))
    keepalive: int = 30
    resync: float = RESYNC


@dataclass(frozen=True)
class _Item:
    """A message received, to store and then acknowledge on the client that received it."""

    client: Any
    topic: str
    payload: bytes
    mid: int
    qos: int


def kept_key(topic: str) -> str | None:
    """The key of a ``<prefix>/record/<key>`` topic (a match's record kept until archived), or None.

    >>> kept_key("cueboard/club/t3/record/2026-11-22T19:02:39Z"), kept_key("cueboard/club/t3/record")
    ('2026-11-22T19:02:39Z', None)
    """
    parts = topic.split("/")
    return parts[-1] or None if len(parts) >= 3 and parts[-2] == RECORD else None


def where(topic: str) -> tuple[str | None, str | None]:
    """The venue and table of a ``.../<venue>/<table>/record`` topic, or of its
    ``.../record/<key>`` (the default prefix ``cueboard/<venue>/<table>``, mqtt.md).

    >>> where("cueboard/club/t3/record"), where("cueboard/club/t3/record/2026-11-22T19:02:39Z")
    (('club', 't3'), ('club', 't3'))
    """
    if kept_key(topic) is not None:
        topic = topic.rsplit("/", 1)[0]
    parts = topic.split("/")
    if len(parts) < 3:
        return None, parts[-2] if len(parts) == 2 else None
    return parts[-3] or None, parts[-2] or None


class ArchiveService:
    """The subscriber. :meth:`run` blocks until :meth:`stop` (or SIGTERM under ``run``)."""

    def __init__(self, archive: Archive, connection: Connection,
                 on_stored: Callable[[Stored], None] | None = None) -> None:
        self.archive = archive
        self.connection = connection
        self.on_stored = on_stored
        self.counts: Counter[str] = Counter()
        self.busy: dict[str, float] = {"read": 0.0, "store": 0.0, "acknowledge": 0.0}
        """Seconds the writer spent in each stage (``read``: parsing and checking the messages,
        ``store``: the transactions, ``acknowledge``: the acknowledgements): where the archive's
        time goes, logged at the end and read by bench/archive.py (issue 41)."""
        self.batches = 0  # transactions committed
        self.connected = threading.Event()
        self.subscribed = threading.Event()
        self._stopping = False
        self._broken = threading.Event()  # a write failed: this connection is given up
        self._pause = 1.0  # before the next connection after a failed write; doubles to 30 s
        self._inbox: queue.Queue[_Item] = queue.Queue()
        self._writer_stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._client = self._new_client()

    def _new_client(self) -> Any:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=self.connection.client_id,
                             protocol=mqtt.MQTTv5, manual_ack=True)
        if self.connection.username is not None:
            client.username_pw_set(self.connection.username, self.connection.password)
        if self.connection.ca is not None:
            client.tls_set(self.connection.ca)
        client.reconnect_delay_set(1, 30)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_subscribe = self._on_subscribe
        client.on_message = self._on_message
        return client

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            log.error("the broker %s:%s refused the archive: %s", self.connection.host, self.connection.port, reason)
            return
        log.info("connected to %s:%s (session %s, %s)", self.connection.host, self.connection.port,
                 self.connection.client_id, "resumed" if flags.session_present else "new")
        self.connected.set()
        # Again on every connect, even with the session resumed: the broker then sends every
        # table's retained record too, the catch-up for whatever a queue could not hold.
        client.subscribe([(t, 1) for t in self.connection.topics])

    def _on_subscribe(self, *args: Any) -> None:
        self.subscribed.set()

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self.connected.clear()
        self.subscribed.clear()
        if not self._stopping:
            log.warning("lost the broker %s:%s (%s); reconnecting", self.connection.host, self.connection.port,
                        reason)

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        if self._broken.is_set():
            return  # not acknowledged: it comes again on the next connection
        self._inbox.put(_Item(client, message.topic, bytes(message.payload), message.mid, message.qos))

    def _write(self) -> None:
        """The writer thread: the messages waiting, up to :data:`BATCH`, stored in one
        transaction, then each acknowledged. A batch the database fails is not acknowledged,
        and the connection is given up (:meth:`serve` makes a new one after a pause): MQTT
        sends a session's unacknowledged messages again on its next connection."""
        while not self._writer_stop.is_set():
            try:
                first = self._inbox.get(timeout=0.2)
            except queue.Empty:
                continue
            batch = [first]
            while len(batch) < BATCH:
                try:
                    batch.append(self._inbox.get_nowait())
                except queue.Empty:
                    break
            if self._broken.is_set():
                continue  # the connection is given up: these come again on the next one
            if self.store(batch):
                started = time.perf_counter()
                for item in batch:
                    self._archived(item)
                    item.client.ack(item.mid, item.qos)
                self.busy["acknowledge"] += time.perf_counter() - started
                self.batches += 1
            else:
                self._broken.set()

    def store(self, batch: list[_Item]) -> bool:
        """Store the records of a batch of messages in one transaction; False when the
        database failed (the batch is to come again)."""
        started = time.perf_counter()
        records: list[tuple[Record, str]] = []
        for item in batch:
            if not item.payload:
                self.counts["empty"] += 1  # a retained record cleared: nothing to store
                continue
            venue, table = where(item.topic)
            try:
                records.append((parse_payload(item.payload, venue=venue, table=table), item.topic))
            except NotYet:
                # The table's record of a match just begun (record.md, "On the feed"): nothing to
                # store until a frame ends or play begins, and nothing wrong.
                self.counts["not_yet"] += 1
                log.debug("%s: a match just begun, nothing to archive yet", item.topic)
            except RecordError as exc:
                self.counts["refused"] += 1
                log.warning("%s: record refused, not stored: %s", item.topic, exc)
        for record, topic in records:
            log.debug("storing %s from %s", record.match_id, topic)
        writing = time.perf_counter()
        self.busy["read"] += writing - started
        try:
            results = self.archive.put_many(records)
        except Exception as exc:  # the database is down or failing: keep the messages
            self.counts["failed"] += 1
            log.error("the database failed storing %d records (%s); they will come again", len(records), exc)
            return False
        finally:
            self.busy["store"] += time.perf_counter() - writing
        self._pause = 1.0
        for stored, (_, topic) in zip(results, records, strict=True):
            self.counts[stored.outcome] += 1
            if stored.outcome in ("stored", "replaced"):
                log.info("%s %s (%s)", stored.outcome, stored.match_id, topic)
            if self.on_stored is not None:
                self.on_stored(stored)
        return True

    def _archived(self, item: _Item) -> None:
        """Tell the table that a record it keeps until archived (``<prefix>/record/<key>``) is
        stored (or was refused: never tried for ever), once committed: it then clears that
        retained record if it still holds these very bytes (cueboard/table/unarchived.py). Sent
        again each time the record comes again (a resync, a reconnect), so a word the table
        missed while it was away is said again."""
        key = kept_key(item.topic)
        if key is None or not item.payload:
            return
        prefix = item.topic.rsplit("/", 2)[0]
        login = self.connection.username or LOGIN
        try:
            said = json.loads(item.payload)
            match_id = said.get("match_id") if isinstance(said, dict) else None
        except ValueError:  # refused, and acknowledged all the same (logged by store)
            match_id = None
        payload = archived_payload(key, hashlib.sha256(item.payload).hexdigest(),
                                   match_id=match_id if isinstance(match_id, str) else None,
                                   ts=timestamp(time.time()))
        item.client.publish(TableTopics(prefix).archived(login), encode(payload), qos=1)
        self.counts["acknowledged"] += 1

    def handle(self, topic: str, payload: bytes) -> bool:
        """Store one message's record (as the writer thread does); False when the database failed."""
        return self.store([_Item(None, topic, payload, 0, 0)])

    def _resync(self) -> None:
        """Subscribe again every ``resync`` seconds: the broker sends every table's retained
        record, so a record a full queue dropped (the league broker keeps at most
        ``max_queued_messages`` for a client that falls behind) is caught up while its table's
        match is still the retained one. The same records cost a digest comparison each."""
        while not self._writer_stop.wait(self.connection.resync):
            if self.connected.is_set():
                self._client.subscribe([(t, 1) for t in self.connection.topics])

    def start(self) -> None:
        """Connect, and run the network loop and the writer in threads of their own."""
        self._stopping = False
        self._inbox = queue.Queue()
        self._writer_stop.clear()
        self._threads = [threading.Thread(target=self._write, name="archive-writer", daemon=True)]
        if self.connection.resync > 0:
            self._threads.append(threading.Thread(target=self._resync, name="archive-resync", daemon=True))
        for thread in self._threads:
            thread.start()
        from paho.mqtt.packettypes import PacketTypes
        from paho.mqtt.properties import Properties

        # paho's Properties takes an unannotated packet type: called as the typed callable it is.
        properties = cast(Callable[[int], Properties], Properties)(PacketTypes.CONNECT)
        properties.SessionExpiryInterval = SESSION_EXPIRY
        properties.ReceiveMaximum = RECEIVE_MAXIMUM
        self._client.connect_async(self.connection.host, self.connection.port, keepalive=self.connection.keepalive,
                                   clean_start=False, properties=properties)
        self._client.loop_start()

    def stop(self) -> None:
        """Disconnect; what was received and not yet stored is not acknowledged (it comes again)."""
        self._stopping = True
        self._client.disconnect()
        self._client.loop_stop()
        self._writer_stop.set()
        for thread in self._threads:
            thread.join()

    def run(self) -> None:
        """Connect and serve until SIGTERM or SIGINT."""
        done = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: done.set())
        self.serve(done)

    def serve(self, done: threading.Event) -> None:
        """Connect and serve until ``done`` is set; after a failed write, a new connection (and
        a new connection to the database) after a pause that doubles up to 30 s."""
        self.start()
        try:
            while not done.is_set():
                if not self._broken.wait(0.2):
                    continue
                self.stop()  # the failed write's message stays at the broker, unacknowledged
                if done.wait(self._pause):
                    break
                self._pause = min(self._pause * 2, 30.0)
                try:
                    self.archive.db.reconnect()
                except Exception as exc:  # still down: the next message's write will say so
                    log.error("the database is still out of reach: %s", exc)
                self._client = self._new_client()
                self._broken.clear()
                self.start()
        finally:
            self.stop()
            log.info("stopped: %s", dict(self.counts))
            log.info("busy seconds: %s", json.dumps({**{k: round(v, 3) for k, v in self.busy.items()},
                                                     "batches": self.batches}))


def serve_archive(db: str, connection: Connection, done: threading.Event,
                  on_stored: Callable[[Stored], None] | None = None) -> None:
    """The archive's start as one call: the database ``db`` (``sqlite:///PATH`` or
    ``postgresql://...``) opened and migrated, then every record from the broker of
    ``connection`` stored once until ``done`` is set. For a service that runs the archive in a
    thread of its own (``cueboard archive run`` is the same with SIGTERM as ``done``)."""
    with Archive.open(db) as archive:
        ArchiveService(archive, connection, on_stored).serve(done)
