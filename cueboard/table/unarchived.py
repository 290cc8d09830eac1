"""Each match's record kept until an archive says it stored it (:class:`Unarchived`).

``<prefix>/record`` holds only the table's current match: the next match's record replaces the
one before, so an archive that was away missed every match but the last (issue 38). So each
record with a ``match_id`` also goes, retained, on ``<prefix>/record/<key>`` (``key``: the
match id's last level, its start time), a topic of that match alone. An archive that stored it
says so on ``<prefix>/archived/<its login>`` with the SHA-256 of the bytes it read
(:func:`cueboard.contract.payloads.archived_payload`); the table then clears that retained
record, but only if it still holds those very bytes: a newer version (the next frame, an
``amend``) stays until it is stored too. An archive coming back reads every record still kept
and stores each once (by its ``match_id``). Why it holds across restarts: docs/league.md,
"Never a match missed".

The table learns what it kept before a restart by reading its own retained records back
(retained deliveries only: a live copy of what it just published would race its own newer
one). At most :data:`KEEP` are kept: past that (no archive at the venue, or one away for
months) the oldest is cleared, logged; its journal still has it (``cueboard archive import``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections.abc import Callable
from typing import Any, Protocol

from cueboard.contract.payloads import record_payload
from cueboard.contract.times import timestamp
from cueboard.contract.topics import ANY, TableTopics, match_record
from cueboard.contract.wire import encode
from cueboard.engine.json_value import JsonObject

log = logging.getLogger("cueboard")

__all__ = ["KEEP", "Unarchived", "key_of"]

KEEP = 256
"""Records a table keeps for an archive at most: weeks of a busy table's matches."""


class RetainedFeed(Protocol):
    """What :class:`Unarchived` needs of the feed (:class:`cueboard.table.mqtt.feed.Feed`)."""

    def publish_retained(self, name: str, payload: bytes) -> None: ...


def key_of(match_id: object) -> str | None:
    """The topic level a match's record is kept under: its ``match_id``'s last level.

    >>> key_of("club/t3/2026-11-22T19:02:39Z"), key_of(None)
    ('2026-11-22T19:02:39Z', None)
    """
    if not isinstance(match_id, str):
        return None
    key = match_id.rsplit("/", 1)[-1]
    return key if key and not any(c in key for c in "+#\0") else None


class Unarchived:
    """The records this table keeps for an archive: ``keep`` on the engine thread, the
    broker's messages on paho's (see the module)."""

    def __init__(self, feed: RetainedFeed, prefix: str, table: str, wall: Callable[[], float]) -> None:
        self._feed = feed
        self._topics = TableTopics(prefix)
        self._table = table
        self._wall = wall
        self._held: dict[str, str] = {}  # key -> SHA-256 (hex) of the payload kept there
        self._lock = threading.Lock()
        self.cleared = 0
        """Records cleared because an archive stored them."""

    @property
    def held(self) -> dict[str, str]:
        """The keys kept now, with their payload's digest (a copy)."""
        with self._lock:
            return dict(self._held)

    def keep(self, record: JsonObject) -> None:
        """``record`` (with its ``match_id``) retained on ``<prefix>/record/<key>``, replacing
        that match's record kept before. A record without a ``match_id`` (a match just begun)
        is nothing to archive yet."""
        key = key_of(record.get("match_id"))
        if key is None:
            return
        payload = encode(record_payload(record, table=self._table, ts=timestamp(self._wall())))
        with self._lock:
            self._held[key] = hashlib.sha256(payload).hexdigest()
            dropped = self._over()
        self._feed.publish_retained(match_record(key), payload)
        self._drop(dropped)

    def _over(self) -> list[str]:
        """The oldest keys past :data:`KEEP` (under the lock), taken out."""
        extra = sorted(self._held)[:max(0, len(self._held) - KEEP)]
        for key in extra:
            del self._held[key]
        return extra

    def _drop(self, keys: list[str]) -> None:
        for key in keys:
            log.info("record %s: no archive said it stored it, and %d newer ones are kept: cleared (its journal "
                     "has it: cueboard archive import)", self._topics.match_record(key), KEEP)
            self._feed.publish_retained(match_record(key), b"")

    # -- paho's thread ------------------------------------------------------------------------

    def listen(self, client: Any) -> None:
        """Subscribe to the archives' word and to this table's own kept records (at every
        connection: ``Feed.on_every_connect``)."""
        said, kept = self._topics.archived(ANY), self._topics.match_record(ANY)
        client.message_callback_add(said, self._on_archived)
        client.message_callback_add(kept, self._on_kept)
        client.subscribe([(said, 1), (kept, 1)])

    def _on_kept(self, client: Any, userdata: Any, message: Any) -> None:
        """A record kept before this table's start, read back (retained deliveries only)."""
        key = str(message.topic).rsplit("/", 1)[-1]
        payload = bytes(message.payload)
        if not message.retain or not payload:
            return
        with self._lock:
            if key in self._held:  # the table's own since its start is newer
                return
            self._held[key] = hashlib.sha256(payload).hexdigest()
            dropped = self._over()
        self._drop(dropped)

    def _on_archived(self, client: Any, userdata: Any, message: Any) -> None:
        """An archive stored a record: clear it if it is still the one kept. Anything else
        (not JSON, another version, a key not kept) changes nothing."""
        try:
            said = json.loads(bytes(message.payload))
        except ValueError:
            log.debug("%s: not an archive's acknowledgement (not JSON): ignored", message.topic)
            return
        if not isinstance(said, dict) or not isinstance(said.get("record"), str):
            log.debug("%s: not an archive's acknowledgement (no \"record\"): ignored", message.topic)
            return
        key, digest = said["record"], said.get("digest")
        with self._lock:
            if key not in self._held or self._held[key] != digest:
                return  # a newer version is kept (it is acknowledged in turn), or not kept at all
            del self._held[key]
            self.cleared += 1
        log.debug("record %s stored by %s: cleared", key, str(message.topic).rsplit("/", 1)[-1])
        self._feed.publish_retained(match_record(key), b"")
