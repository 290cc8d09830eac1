"""The current match's history for the desk: a bounded retained snapshot on ``<prefix>/history``
every :data:`SNAPSHOT_EVERY` lines, and each line as it comes on one of :data:`RECENT` retained
slots (:meth:`History.line`). The payloads and how a page reads them: docs/mqtt.md, "The match's history".
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping
from typing import Any

from cueboard.contract.times import timestamp
from cueboard.contract.topics import history_slot
from cueboard.contract.wire import encode

__all__ = ["HISTORY_BYTES", "RECENT", "SNAPSHOT_EVERY", "SNAPSHOT_LINES", "History", "source_kind"]

SNAPSHOT_LINES = 64
"""The most lines the retained snapshot holds (the newest; the desk shows the last 30 strokes)."""

SNAPSHOT_EVERY = 48
"""The snapshot is republished when the match's line count is a multiple of this."""

RECENT = 64
"""Retained slots of single lines, ``<prefix>/history/0`` ... ``/63``: more than
:data:`SNAPSHOT_EVERY`, so a snapshot published a little late (the feed sends each retained
topic's newest value once the one before is acknowledged) still meets the slots."""

HISTORY_BYTES = 1_000_000
"""The longest history payload: under the 1 MiB ``message_size_limit`` of every broker cueboard
ships (the venue's, the league's, the demo's), with room for the topic and MQTT's header."""


def source_kind(source: str) -> str:
    """Where an input came from, as the desk names it.

    >>> [source_kind(s) for s in ("referee_box:1", "keypad", "command", "control", "scorer", "clock")]
    ['referee', 'keypad', 'desk', 'control', 'scorer', 'clock']
    """
    if source.startswith("referee_box"):
        return "referee"
    return {"command": "desk"}.get(source, source)


class History:
    """The lines of the current match, each encoded once (a long match is not encoded again at
    every stroke)."""

    def __init__(self, limit: int = HISTORY_BYTES, keep: int = SNAPSHOT_LINES) -> None:
        self.limit = limit
        self.keep = keep
        self.match_id: str | None = None
        self.epoch = secrets.token_hex(4)
        """New at each :meth:`begin` (a new match, a restart): a slot of another epoch is stale."""
        self._lines: list[bytes] = []
        self.first_t: float | None = None
        """The time of the match's first line: its ``match_id`` (as the record's) is made of it."""

    def begin(self, match_id: str | None, lines: Iterable[tuple[int, Mapping[str, Any], str | None]] = ()) -> None:
        """A new match (or the one recovered after a restart: ``lines`` are its journal's
        ``(seq, line, source)``)."""
        self.match_id = match_id
        self.epoch = secrets.token_hex(4)
        self._lines = []
        self.first_t = None
        for seq, line, source in lines:
            self.add(seq, line, source)

    def add(self, seq: int, line: Mapping[str, Any], source: str | None) -> None:
        t = line.get("t")
        user = line.get("user")
        if self.first_t is None and isinstance(t, int | float) and not isinstance(t, bool):
            self.first_t = float(t)
        self._lines.append(encode({
            "seq": seq, "event": dict(line), "ts": timestamp(t) if isinstance(t, int | float) else None,
            "source": None if source is None else source_kind(source), "user": user if isinstance(user, str) else None,
        }))

    def __len__(self) -> int:
        return len(self._lines)

    def due(self) -> bool:
        """Whether the snapshot is to be republished after the line just added."""
        return len(self._lines) % SNAPSHOT_EVERY == 0

    def slot(self) -> str:
        """The topic (under the prefix) of the newest line's slot."""
        return history_slot(len(self._lines) % RECENT)

    def line(self) -> bytes:
        """The newest line's slot payload: ``{"schema", "epoch", "n", "line"}``."""
        return (b'{"schema":1,"epoch":' + encode(self.epoch) + b',"n":' + str(len(self._lines)).encode()
                + b',"line":' + self._lines[-1] + b"}")

    def payload(self) -> bytes:
        """The retained snapshot: the newest :attr:`keep` lines that fit in :attr:`limit` bytes."""
        head = b'{"schema":1,"match_id":' + encode(self.match_id) + b',"events":['
        tail = (b',"lines":' + str(len(self._lines)).encode() + b',"epoch":' + encode(self.epoch)
                + b',"recent":' + str(RECENT).encode() + b"}")
        # room for the tail with the widest count of lines left out
        room = self.limit - len(head) - len(b'],"truncated":') - len(tail) - len(str(len(self._lines)))
        kept: list[bytes] = []
        for line in reversed(self._lines):
            if len(kept) >= self.keep:
                break
            need = len(line) + (1 if kept else 0)
            if need > room:
                break
            room -= need
            kept.append(line)
        kept.reverse()
        left_out = len(self._lines) - len(kept)
        return head + b",".join(kept) + b'],"truncated":' + str(left_out).encode() + tail
