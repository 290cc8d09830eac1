"""A match record as the archive takes it: checked, its ``match_id`` settled, its digest made.

A record comes from a table's ``<prefix>/record`` topic (``docs/record.md``, with the feed's
``table`` and ``ts``) or from a log (``cueboard archive import``). Everything the archive
stores from it is checked here first, so a malformed record is refused whole, with the
field and the reason, and never half-stored.

The match's identity is its ``match_id`` (``record.md``: the same match always has the same
one). A record without one (a daemon older than the field, or a log) gets
``<venue>/<table>/<started>``, the contract's own shape, from the topic it came on or the
import's ``--venue``/``--table``; a log with neither gets ``log:`` and a digest of its
match line and first event, which is the same on every import of that log.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from cueboard.common.errors import NotYet, RecordError

MAX_RECORD = 1024 * 1024
"""Bytes a record payload may have: a best-of-35 final's is some 30 KB."""
MAX_ID = 200
"""Characters a match id, a fixture id or a competition's name may have."""
FEED_FIELDS = ("ts",)
"""Fields the feed adds that do not change the match: left out of the digest, so the same
record published again later is known as the same."""


@dataclass(frozen=True)
class Record:
    """A record ready to store."""

    match_id: str
    data: dict[str, Any]
    digest: str
    published: str | None  # the feed's ts: which of two versions of a match is newer
    venue: str | None
    table: str | None

    @property
    def finished(self) -> bool:
        return self.data.get("winner") is not None

    @property
    def sides(self) -> list[dict[str, Any]]:
        sides: list[dict[str, Any]] = self.data["sides"]
        return sides


def parse_payload(payload: bytes, *, venue: str | None = None, table: str | None = None) -> Record:
    """A record from an MQTT payload (UTF-8 JSON), or :class:`RecordError`."""
    if len(payload) > MAX_RECORD:
        raise RecordError(f"{len(payload)} bytes, more than the {MAX_RECORD} a record may have")
    try:
        data = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise RecordError(f"not UTF-8 JSON: {exc}") from None
    return checked(data, venue=venue, table=table)


def checked(data: Any, *, venue: str | None = None, table: str | None = None,
            fallback_id: str | None = None) -> Record:
    """The record ``data`` checked, with its match id settled (see the module's docstring)."""
    if not isinstance(data, dict):
        raise RecordError("not a JSON object")
    game = data.get("game")
    if not isinstance(game, str) or not game:
        raise RecordError("'game' is missing")
    sides = data.get("sides")
    if not (isinstance(sides, list) and len(sides) == 2 and all(_side_ok(s) for s in sides)):
        raise RecordError("'sides' must be two objects, each with a 'name' and a list of 'players'")
    frames = data.get("frames")
    if not isinstance(frames, list) or not all(_frame_ok(f) for f in frames):
        raise RecordError("'frames' must be a list of frames, each with 'frame', 'winner' and 'breaks'")
    frames_won = data.get("frames_won")
    if not (isinstance(frames_won, list) and len(frames_won) == 2 and all(_count(n) for n in frames_won)):
        raise RecordError("'frames_won' must be two counts")
    if data.get("winner") not in (None, 0, 1):
        raise RecordError("'winner' must be 0, 1 or null")
    for key in ("started", "ended", "ts", "match_id", "venue", "table", "fixture", "competition", "how"):
        value = data.get(key)
        if value is not None and not (isinstance(value, str) and 0 < len(value) <= MAX_ID and value.isprintable()):
            raise RecordError(f"'{key}' must be printable text of 1 to {MAX_ID} characters, or null")
    corrections = data.get("corrections", [])
    if not isinstance(corrections, list) or not all(isinstance(c, dict) for c in corrections):
        raise RecordError("'corrections' must be a list of objects")
    venue = data.get("venue") or venue
    table = data.get("table") or table
    match_id = data.get("match_id")
    if match_id is None:
        started = data.get("started")
        if venue and table and started:
            match_id = f"{venue}/{table}/{started}"
        elif fallback_id is not None:
            match_id = fallback_id
        elif not frames and data.get("winner") is None:
            raise NotYet("nothing to archive yet: no frame ended and no time to know the match by")
        else:
            raise RecordError("no 'match_id', and no venue, table and start time to make one from")
    # The contract's fields (record.md), filled in where the record came without them, so
    # every stored record says which match it is and where it was played.
    data = {**data, "match_id": match_id, "venue": venue, "table": table,
            "fixture": data.get("fixture"), "competition": data.get("competition")}
    stable = {k: v for k, v in data.items() if k not in FEED_FIELDS}
    digest = hashlib.sha256(json.dumps(stable, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    return Record(match_id=match_id, data=data, digest=digest, published=data.get("ts"), venue=venue, table=table)


def log_id(first_lines: list[str]) -> str:
    """``log:`` and a digest of a log's match line and first event, each as parsed JSON (so
    spacing does not matter): the same on every import of the log, however far it has run."""
    canonical = [json.dumps(json.loads(line), sort_keys=True) for line in first_lines[:2]]
    return "log:" + hashlib.sha256("\n".join(canonical).encode()).hexdigest()[:24]


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _text(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= MAX_ID and value.isprintable()


def _side_ok(side: Any) -> bool:
    return (isinstance(side, dict) and _text(side.get("name")) and isinstance(side.get("players"), list)
            and all(_text(p) for p in side["players"]))


def _frame_ok(frame: Any) -> bool:
    if not isinstance(frame, dict) or not _count(frame.get("frame")) or frame.get("winner") not in (None, 0, 1):
        return False
    breaks = frame.get("breaks", [])
    return isinstance(breaks, list) and all(
        isinstance(b, dict) and b.get("side") in (0, 1) and _text(b.get("player")) and _count(b.get("points"))
        for b in breaks)
