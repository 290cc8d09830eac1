"""The journal: every accepted event, appended and synced before anyone sees its state.
One JSON Lines file a match, preallocated with zeros so an event's write changes no metadata.
Layout and recovery: docs/daemon.md, "The journal"; why, for a power cut: docs/reliability.md,
"The journal on disk".
"""

from __future__ import annotations

import errno
import logging
import os
import re
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import Any

from cueboard.common.errors import RejectedLine
from cueboard.contract.wire import encode
from cueboard.engine import Match
from cueboard.games.replay import replay

log = logging.getLogger(__name__)

NAME = re.compile(r"^match-(\d{6,})\.jsonl$")

CHUNK = 64 * 1024
"""Bytes of zeros written ahead of the events at a time: some 700 events (a line is about
90 bytes), so a best-of-7 match fits in one and a long final takes a few."""

SPARE = 16 * CHUNK
"""Free space a chunk of zeros must leave on the disk: the last megabyte is not taken ahead
of need (the events then go in line by line until one does not fit, as without zeros)."""


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


def written(data: bytes) -> tuple[int, int]:
    """Where a journal file's content ends: ``(whole, end)``. ``end`` is the first zero byte
    (the preallocated space begins there) or the end of the data; ``whole`` is the end of
    the last whole line before it. Bytes from ``whole`` to ``end`` are a torn line.

    >>> written(b'{"a":1}\\n{"b"\\0\\0\\0')
    (8, 12)
    >>> written(b'{"a":1}\\n')
    (8, 8)
    """
    end = data.find(b"\0")
    if end < 0:
        end = len(data)
    return data.rfind(b"\n", 0, end) + 1, end


def _write_all(fd: int, data: bytes | memoryview, at: int, flags: int = 0) -> int:
    """Write all of ``data`` at ``at`` (a short write goes on where it stopped); the end."""
    view = memoryview(data)
    while view:
        done = os.pwritev(fd, [view], at, flags) if flags else os.pwrite(fd, view, at)
        view, at = view[done:], at + done
    return at


def read_lines(path: Path) -> list[str]:
    """The whole lines of a journal file, live or closed: without the preallocated zeros and
    without a torn last line. For reading a running table's journal (a :class:`Journal`
    would cut the file the table has open)."""
    data = path.read_bytes()
    return data[:written(data)[0]].decode("utf-8").splitlines()


class Journal:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path: Path | None = None
        self._fd: int | None = None
        self._good_size = 0  # bytes of whole lines: where the next event goes
        self._allocated = 0  # the file's size: whole lines, then zeros (preallocated)
        self._retry_at = 0  # after a failed preallocation, not again until the lines reach this
        self._dsync = getattr(os, "RWF_DSYNC", 0)  # 0: pwrite, then fdatasync

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
        """The match in ``path`` (``cueboard.games.replay`` applies its lines), the bytes of whole,
        applied lines, and warnings for what was dropped."""
        data = path.read_bytes()
        whole, end = written(data)
        lines = data[:whole].split(b"\n")[:-1]
        ends = list(accumulate(len(line) + 1 for line in lines))
        warnings: list[str] = []
        match: Match | None = None
        good = 0  # bytes of whole, applied lines
        stray = bool(data[end:].strip(b"\0"))  # bytes after the first zero: a torn write's, or damage
        refused: RejectedLine | None = None
        try:
            for applied, number in replay(lines):
                match, good = applied, ends[number - 1]
        except RejectedLine as exc:
            refused = exc if exc.line <= len(lines) else None  # not "the log is empty"
        if refused is not None:
            last = refused.line == len(lines) and whole == end and not stray
            what = "was torn" if last else "is damaged"
            warnings.append(f"{path.name}: line {refused.line} {what}: {refused.reason}; it and what follows "
                            "dropped")
            if not last and match is not None:  # without a match line open() keeps it all as .damaged
                self._keep_damaged(path, data, good, refused.line, warnings)
        elif end > whole or stray:
            what = f"line {len(lines) + 1} was torn (power cut?): {end - whole} bytes dropped"
            warnings.append(f"{path.name}: {what}" + (" and stray bytes after the end of the log" if stray else ""))
            if stray and match is not None:
                self._keep_damaged(path, data, good, len(lines) + 1, warnings)
        for w in warnings:
            log.warning("journal: %s", w)
        return match, good, warnings

    @staticmethod
    def _keep_damaged(path: Path, data: bytes, good: int, line: int, warnings: list[str]) -> None:
        """A copy of the whole file as ``.damaged`` for the record, then the good lines under
        the original name; at every moment one of the two holds them."""
        damaged = path.with_name(path.name + ".damaged")
        tmp = path.with_name(path.name + ".tmp")
        for name, content in ((damaged, data), (tmp, data[:good])):
            with open(name, "wb") as f:
                f.write(content)
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
        _fsync_dir(path.parent)
        warnings.append(f"{path.name}: kept as {damaged.name}; rewritten with lines 1-{line - 1}")

    def _attach(self, path: Path, good: int) -> None:
        self.close()
        # A raw descriptor, not a buffered file: a buffered writer keeps the bytes of a failed
        # write and puts them on the disk with the next one.
        fd = os.open(path, os.O_RDWR)
        self._fd, self.path, self._good_size, self._allocated, self._retry_at = fd, path, good, good, 0
        os.ftruncate(fd, good)  # a torn line and the old zeros go; fresh zeros follow
        if not self._preallocate(good):
            os.fsync(fd)

    def start(self, match_line: dict[str, Any]) -> Path:
        """A new match: a new file holding its match line. The old files stay, cut to their lines
        (the current one once the new one is there: if it cannot be made, the match goes on)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        files = self.matches()
        last = NAME.match(files[-1].name) if files else None  # matches() lists only names NAME matches
        number = int(last.group(1)) + 1 if last else 1
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

    def _preallocate(self, end: int) -> bool:
        """Zeros written and synced past ``end`` up to the next multiple of :data:`CHUNK`; False
        if the disk refused them (the file is left as it was: lines are then appended to its end)."""
        fd = self._fd
        assert fd is not None
        target = (end // CHUNK + 1) * CHUNK
        if end < self._retry_at:
            return False
        try:
            disk = os.fstatvfs(fd)
            if disk.f_bavail * disk.f_frsize < target - self._allocated + SPARE:
                raise OSError(errno.ENOSPC, "less than a megabyte would be left on the disk")
            _write_all(fd, bytes(target - self._allocated), self._allocated)
            os.fdatasync(fd)  # the new size and the zeroed blocks: once a chunk, not once an event
        except OSError as exc:
            log.warning("journal: no room to preallocate %s to %d bytes (%s); appending line by line",
                        self.path, target, exc.strerror or exc)
            self._retry_at = target
            try:
                os.ftruncate(fd, self._allocated)
            except OSError:
                log.exception("journal: cannot cut back a failed preallocation")
            return False
        self._allocated = target
        return True

    def append(self, event: dict[str, Any]) -> None:
        """Append one event, on disk when this returns (data, and the file's size if it grew).
        On failure the file is cut back to its last whole line and the OSError raised: the
        event is not saved and must not be applied."""
        fd = self._fd
        if fd is None:
            raise OSError("journal: no match file open")
        data = _line(event)
        at = self._good_size
        if at + len(data) > self._allocated:
            self._preallocate(at + len(data))
        try:
            if self._dsync:
                try:
                    end = _write_all(fd, data, at, self._dsync)
                except OSError as exc:
                    if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL):  # no RWF_DSYNC here
                        raise
                    self._dsync = 0
                    end = _write_all(fd, data, at)
                    os.fdatasync(fd)
            else:
                end = _write_all(fd, data, at)
                os.fdatasync(fd)
        except OSError:
            try:
                os.ftruncate(fd, at)
                self._allocated = at
            except OSError:
                log.exception("journal: cannot cut back a failed write; cut again on the next one")
            raise
        self._good_size = end
        self._allocated = max(self._allocated, end)

    def close(self) -> None:
        """Cut the file to its lines (the zeros past them go) and close it."""
        fd = self._fd
        if fd is None:
            return
        self._fd = None
        try:
            if self._allocated > self._good_size:
                os.ftruncate(fd, self._good_size)
                os.fsync(fd)
        except OSError:
            log.exception("journal: cutting %s to its lines", self.path)  # its next open cuts it
        try:
            os.close(fd)
        except OSError:
            log.exception("journal: closing %s", self.path)


def _line(obj: dict[str, Any]) -> bytes:
    return encode(obj) + b"\n"
