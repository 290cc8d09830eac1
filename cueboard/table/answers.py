"""Exactly once for remote lines: the answer given to each ``id`` of the current match, so a
line whose id was answered is answered again, not applied again, even after a restart (the
refused ids kept beside the journal). docs/events.md, "Any input: an id for retries".
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from pathlib import Path

from cueboard.contract.codes import Reason
from cueboard.engine import IllegalEvent
from cueboard.engine.json_value import Json, JsonObject

__all__ = ["ID_MAX", "Answers", "check_id"]

log = logging.getLogger("cueboard")

ID_MAX = 64


def check_id(value: Json) -> str | None:
    """The line's ``id``, or None without one; IllegalEvent saying what an id is otherwise."""
    if value is None:
        return None
    if not isinstance(value, str) or not 1 <= len(value) <= ID_MAX or not value.isprintable():
        raise IllegalEvent(f"'id' is a string of 1 to {ID_MAX} printable characters chosen by the sender, "
                           f"not {value!r}"[:200], short="invalid")
    return value


class Answers:
    """The answers of the current match by id; thread-safe (input threads ask, the engine
    thread records). A line refused by a limit before anybody looked at it (the rate, a full
    queue: :mod:`cueboard.contract.limits`) is not remembered: its sender may send it again,
    same id.

    >>> answers = Answers()
    >>> check_id("desk-42"), check_id(None)
    ('desk-42', None)
    >>> answers.remember("desk-42", {"ok": True}); answers.known("desk-42")
    {'ok': True}
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._answers: dict[str, JsonObject] = {}
        self._queued: set[str] = set()
        self._refused_file: Path | None = None

    def start(self, journal_file: Path | None) -> None:
        """A match begins or is resumed from ``journal_file``: its applied ids from the journal,
        its refused ones from the file beside it."""
        with self._lock:
            self._answers.clear()
            self._queued.clear()
            self._refused_file = None if journal_file is None else journal_file.with_suffix(".refused.jsonl")
        if journal_file is None:
            return
        for line in _lines(journal_file)[1:]:
            ident = line.get("id")
            if isinstance(ident, str):
                self.remember(ident, {"ok": True, "repeat": True, "event": {k: v for k, v in line.items()
                                                                            if k not in ("id", "t", "user")}})
        assert self._refused_file is not None
        for line in _lines(self._refused_file):
            ident = line.get("id")
            if isinstance(ident, str):
                self.remember(ident, {"ok": False, **Reason.of_answer(line).codes()})

    def known(self, ident: str) -> JsonObject | None:
        with self._lock:
            return self._answers.get(ident)

    def queue(self, ident: str) -> bool:
        """Mark ``ident`` as waiting in the queue; False if it is answered or waiting already."""
        with self._lock:
            if ident in self._answers or ident in self._queued:
                return False
            self._queued.add(ident)
            return True

    def queued(self, ident: str) -> bool:
        with self._lock:
            return ident in self._queued

    def release(self, ident: str) -> None:
        """``ident`` answered without being kept (an amend's preview): not waiting any more, and
        free for the line it previewed."""
        with self._lock:
            self._queued.discard(ident)

    def remember(self, ident: str, answer: JsonObject) -> None:
        with self._lock:
            self._answers.setdefault(ident, answer)
            self._queued.discard(ident)

    def refused(self, ident: str, reason: Reason) -> None:
        """Remember a refusal (its words and its short form), on disk before the answer goes out."""
        path = self._refused_file
        if path is not None:
            try:
                with path.open("a", encoding="utf-8") as f:
                    line = {"id": ident, "reason": reason, "short": reason.short}
                    f.write(json.dumps(line, ensure_ascii=False) + "\n")
                    f.flush()
                    os.fsync(f.fileno())
            except OSError as exc:  # the refusal stands; a retry after a restart is judged again
                log.warning("cannot keep the refusal of id %r in %s: %s", ident, path, exc)
        self.remember(ident, {"ok": False, **reason.codes()})


def _lines(path: Path) -> list[JsonObject]:
    """The JSON objects of a log file, up to its end or the journal's preallocated zeros."""
    with contextlib.suppress(FileNotFoundError):
        data = path.read_bytes().split(b"\0", 1)[0]
        out = []
        for raw in data.splitlines():
            with contextlib.suppress(ValueError):
                obj = json.loads(raw)
                if isinstance(obj, dict):
                    out.append(obj)
        return out
    return []
