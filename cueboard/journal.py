"""The journal: every accepted event, appended and fsync'd before anyone sees its state.

One JSON Lines file a match (``match-000001.jsonl``, ``match-000002.jsonl`` ...) in the
journal directory: the match line, then each event as it was applied (undo and redo
included), so any of them can be replayed with ``cueboard replay``. The newest file is
the current match; the older ones are kept for the record.

A power cut can tear the last line: on start the torn tail is dropped with a warning and
cut off the file, so the next event is appended to a whole line. A line in the middle that
the engine refuses (a damaged disk) keeps what came before it: the file is renamed
``.damaged`` for the record and the good lines are written again under the original name.
A write that fails (a full or failing disk) is rolled back and raised, so the daemon can
refuse the input instead of showing a state that is not saved.
"""

from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .engine import IllegalEvent, Match, decode

log = logging.getLogger(__name__)

NAME = re.compile(r"^match-(\d{6,})\.jsonl$")


@dataclass
class Recovered:
    """What :meth:`Journal.open` found: the match (None for an empty journal), and warnings."""

    match: Match | None
    warnings: list[str] = field(default_factory=list)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Journal:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path: Path | None = None
        self._fd: int | None = None
        self._good_size = 0

    # -- files -------------------------------------------------------------------------

    def matches(self) -> list[Path]:
        """The journal's match files, oldest first."""
        if not self.directory.is_dir():
            return []
        found = [(int(m.group(1)), p) for p in self.directory.iterdir() if (m := NAME.match(p.name))]
        return [p for _, p in sorted(found)]

    def open(self) -> Recovered:
        """Open the newest match file and replay it; make the directory if needed."""
        self.directory.mkdir(parents=True, exist_ok=True)
        files = self.matches()
        if not files:
            return Recovered(None)
        path = files[-1]
        match, good, warnings = self._replay(path)
        if match is None:
            warnings.append(f"{path.name}: no usable match line; starting afresh")
            path.rename(path.with_name(path.name + ".damaged"))
            return Recovered(None, warnings)
        self._attach(path, good)
        return Recovered(match, warnings)

    def _replay(self, path: Path) -> tuple[Match | None, int, list[str]]:
        data = path.read_bytes()
        warnings: list[str] = []
        match: Match | None = None
        good = 0  # bytes of whole, applied lines
        pos = 0
        number = 0
        while pos < len(data):
            end = data.find(b"\n", pos)
            number += 1
            if end < 0:
                warnings.append(f"{path.name}: line {number} was torn (power cut?): "
                                f"{len(data) - pos} bytes dropped")
                break
            line = data[pos:end]
            try:
                text = line.decode("utf-8")
                if match is None:
                    match = Match.from_json(decode(text))
                else:
                    match.apply(match.parse_line(text))
            except (UnicodeDecodeError, IllegalEvent) as exc:
                last = end + 1 >= len(data)
                what = "was torn" if last else "is damaged"
                warnings.append(f"{path.name}: line {number} {what}: {exc}; it and what follows dropped")
                if not last:
                    damaged = path.with_name(path.name + ".damaged")
                    path.rename(damaged)
                    path.write_bytes(data[:good])
                    warnings.append(f"{path.name}: kept as {damaged.name}; rewritten with lines 1-{number - 1}")
                break
            pos = good = end + 1
        for w in warnings:
            log.warning("journal: %s", w)
        return match, good, warnings

    def _attach(self, path: Path, good: int) -> None:
        self.close()
        # A raw descriptor, not a buffered file: a buffered writer keeps the bytes of a failed
        # write and puts them on the disk with the next one.
        fd = os.open(path, os.O_RDWR)
        os.ftruncate(fd, good)
        os.fsync(fd)
        self._fd, self.path, self._good_size = fd, path, good

    def start(self, match_line: dict[str, Any]) -> Path:
        """A new match: a new file holding its match line. The old files stay."""
        self.directory.mkdir(parents=True, exist_ok=True)
        files = self.matches()
        number = int(NAME.match(files[-1].name).group(1)) + 1 if files else 1  # type: ignore[union-attr]
        path = self.directory / f"match-{number:06d}.jsonl"
        tmp = path.with_suffix(".tmp")
        with open(tmp, "wb") as f:
            f.write(_line(match_line))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        _fsync_dir(self.directory)
        self._attach(path, path.stat().st_size)
        return path

    def append(self, event: dict[str, Any]) -> None:
        """Append one event and fsync it. On failure the file is cut back to its last whole
        line and the OSError raised: the event is not saved and must not be applied."""
        fd = self._fd
        if fd is None:
            raise OSError("journal: no match file open")
        data = memoryview(_line(event))
        try:
            at = self._good_size
            while data:
                written = os.pwrite(fd, data, at)
                data, at = data[written:], at + written
            os.fsync(fd)
        except OSError:
            try:
                os.ftruncate(fd, self._good_size)
            except OSError:
                log.exception("journal: cannot cut back a failed write; cut again on the next one")
            raise
        self._good_size = at

    def close(self) -> None:
        if self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:
                log.exception("journal: closing %s", self.path)
            self._fd = None


def _line(obj: dict[str, Any]) -> bytes:
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
