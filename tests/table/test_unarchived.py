"""Each match's record kept until an archive stored it (cueboard/table/unarchived.py), without a
broker: what is kept, what an acknowledgement clears and what it does not. (On real mosquitto
with the venue's ACL and real daemons: tests/league/test_archive_catch_up.py.)"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from cueboard.contract.payloads import archived_payload
from cueboard.table import unarchived
from cueboard.table.unarchived import Unarchived

PREFIX = "cueboard/club/t1"


class FakeFeed:
    def __init__(self) -> None:
        self.sent: list[tuple[str, bytes]] = []

    def publish_retained(self, name: str, payload: bytes) -> None:
        self.sent.append((name, payload))


@dataclass
class Msg:
    topic: str
    payload: bytes
    retain: bool = False


def record(started: str | None, frames: int = 1) -> dict[str, Any]:
    return {"match_id": None if started is None else f"club/t1/{started}", "frames": [{}] * frames, "winner": None}


def ack(kept: Unarchived, key: str, payload: bytes) -> None:
    said = archived_payload(key, hashlib.sha256(payload).hexdigest(), match_id=None, ts="2026-11-29T00:00:00.000Z")
    kept._on_archived(None, None, Msg(f"{PREFIX}/archived/archive", json.dumps(said).encode()))


def test_a_record_is_kept_until_an_archive_acknowledges_those_very_bytes() -> None:
    feed = FakeFeed()
    kept = Unarchived(feed, PREFIX, "t1", lambda: 1_800_000_000.0)
    kept.keep(record(None))  # a match just begun: nothing to keep
    assert feed.sent == []
    kept.keep(record("2026-11-29T01:00:00Z"))
    (topic, first), = feed.sent
    assert topic == "record/2026-11-29T01:00:00Z" and json.loads(first)["table"] == "t1"
    kept.keep(record("2026-11-29T01:00:00Z", frames=2))  # the next frame: a newer version
    newer = feed.sent[-1][1]
    ack(kept, "2026-11-29T01:00:00Z", first)  # the older version stored: the newer stays
    ack(kept, "2026-11-29T02:00:00Z", newer)  # not a key kept here
    kept._on_archived(None, None, Msg(f"{PREFIX}/archived/x", b"{not json"))
    kept._on_archived(None, None, Msg(f"{PREFIX}/archived/x", b"[1]"))
    assert len(feed.sent) == 2 and kept.cleared == 0
    ack(kept, "2026-11-29T01:00:00Z", newer)
    assert feed.sent[-1] == ("record/2026-11-29T01:00:00Z", b"") and kept.cleared == 1 and kept.held == {}
    ack(kept, "2026-11-29T01:00:00Z", newer)  # said again (a resync): nothing more
    assert len(feed.sent) == 3


def test_after_a_restart_the_table_reads_back_what_it_kept_retained_only() -> None:
    feed = FakeFeed()
    kept = Unarchived(feed, PREFIX, "t1", lambda: 1_800_000_000.0)
    old = b'{"match_id": "club/t1/2026-11-28T20:00:00Z"}'
    kept._on_kept(None, None, Msg(f"{PREFIX}/record/2026-11-28T20:00:00Z", old, retain=True))
    kept._on_kept(None, None, Msg(f"{PREFIX}/record/2026-11-28T21:00:00Z", b"live", retain=False))  # its own echo
    kept._on_kept(None, None, Msg(f"{PREFIX}/record/2026-11-28T22:00:00Z", b"", retain=True))
    assert set(kept.held) == {"2026-11-28T20:00:00Z"}
    ack(kept, "2026-11-28T20:00:00Z", old)
    assert feed.sent == [("record/2026-11-28T20:00:00Z", b"")]


def test_at_most_keep_records_the_oldest_cleared_past_that(monkeypatch: Any) -> None:
    monkeypatch.setattr(unarchived, "KEEP", 3)
    feed = FakeFeed()
    kept = Unarchived(feed, PREFIX, "t1", lambda: 1_800_000_000.0)
    for hour in range(10, 15):
        kept.keep(record(f"2026-11-29T{hour}:00:00Z"))
    assert sorted(kept.held) == [f"2026-11-29T{h}:00:00Z" for h in (12, 13, 14)]
    assert ("record/2026-11-29T10:00:00Z", b"") in feed.sent and ("record/2026-11-29T11:00:00Z", b"") in feed.sent
