"""The current match's history (``<prefix>/history``, docs/mqtt.md): every line of its log with
when, from where and by whom, for the desk (which shows it after a reload, and picks a stroke to
correct from it).

Retained, republished after each change::

    {"schema": 1, "match_id": "club/t1/2026-11-26T19:30:00.000Z",
     "events": [{"seq": 1, "event": {"type": "pot", "balls": ["red"], "t": ...}, "ts": "...",
                 "source": "referee", "user": null}, ...],
     "truncated": 0}

``seq`` is the one the event had on ``<prefix>/event`` (the state's after it); ``source`` the
kind of input it came from (:func:`source_kind`), ``null`` for a line read back from the journal
after a restart (the journal keeps who, ``user``, not from where). The payload stays under the
broker's message size limit (:data:`HISTORY_BYTES`): the oldest lines are left out then and
counted in ``truncated``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from cueboard.contract.times import timestamp
from cueboard.contract.wire import encode

__all__ = ["HISTORY_BYTES", "History", "source_kind"]

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

    def __init__(self, limit: int = HISTORY_BYTES) -> None:
        self.limit = limit
        self.match_id: str | None = None
        self._lines: list[bytes] = []
        self.first_t: float | None = None
        """The time of the match's first line: its ``match_id`` (as the record's) is made of it."""

    def begin(self, match_id: str | None, lines: Iterable[tuple[int, Mapping[str, Any], str | None]] = ()) -> None:
        """A new match (or the one recovered after a restart: ``lines`` are its journal's
        ``(seq, line, source)``)."""
        self.match_id = match_id
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

    def payload(self) -> bytes:
        """The retained payload, the newest lines that fit in :attr:`limit` bytes."""
        head = b'{"schema":1,"match_id":' + encode(self.match_id) + b',"events":['
        # room for the tail with the widest count of lines left out
        room = self.limit - len(head) - len(b'],"truncated":}') - len(str(len(self._lines)))
        kept: list[bytes] = []
        for line in reversed(self._lines):
            need = len(line) + (1 if kept else 0)
            if need > room:
                break
            room -= need
            kept.append(line)
        kept.reverse()
        left_out = len(self._lines) - len(kept)
        return head + b",".join(kept) + b'],"truncated":' + str(left_out).encode() + b"}"
