"""``cueboard report LOG [LOG ...]``: the match record of each log (``docs/record.md``).

Prints each log's record as one JSON line; ``--html FILE`` writes the printable result
sheet instead (:mod:`cueboard.league.result_sheet`). Every log is read and worked out before anything is
written: at the first refused line of any log it prints ``FILE line N: reason`` on standard
error and exits with status 2, having printed and written nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Iterable, Sequence
from datetime import tzinfo
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from cueboard.common.errors import RejectedLine, ReportError
from cueboard.engine import Match
from cueboard.engine.record import BREAKS_FROM, record_of
from cueboard.games.replay import replay

STDIN = "-"


def record_of_log(raw: Iterable[bytes], *, breaks_from: int = BREAKS_FROM) -> dict[str, Any]:
    """The record of a log's lines; :class:`~cueboard.games.replay.RejectedLine` at a refused one."""
    last: Match | None = None
    for match, _ in replay(raw):
        last = match
    assert last is not None  # replay() rejects an empty log
    return record_of(last, breaks_from=breaks_from)


def read_records(paths: Sequence[str], *, stdin: BinaryIO | None = None,
                 breaks_from: int = BREAKS_FROM) -> list[dict[str, Any]]:
    """The record of each log (``-``: standard input), or :class:`ReportError` at the first
    that cannot be read or has a refused line, naming the file."""
    records = []
    for path in paths:
        name = "standard input" if path == STDIN else path
        try:
            if path == STDIN:
                records.append(record_of_log(stdin if stdin is not None else sys.stdin.buffer,
                                             breaks_from=breaks_from))
            else:
                with open(path, "rb") as f:
                    records.append(record_of_log(f, breaks_from=breaks_from))
        except RejectedLine as exc:
            raise ReportError(f"{name} {exc}", 2) from None
        except OSError as exc:
            raise ReportError(f"cueboard report: cannot read {name}: {exc.strerror or exc}", 1) from None
    return records


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (a temporary file, then renamed)."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def run(paths: Sequence[str], out: TextIO, err: TextIO, *, html: str | None = None,
        breaks_from: int = BREAKS_FROM, title: str | None = None, tz: tzinfo | None = None,
        stdin: BinaryIO | None = None, lang: str = "en", venue: str | None = None,
        table: str | None = None) -> int:
    """The command: 0 when done, 1 when a file cannot be read or written, 2 at a refused line."""
    if breaks_from < 1:
        err.write("cueboard report: --breaks-from must be at least 1\n")
        return 2
    try:
        records = read_records(paths, stdin=stdin, breaks_from=breaks_from)
    except ReportError as exc:
        err.write(f"{exc}\n")
        return exc.status
    if html is None:
        out.write("".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records))
        return 0
    from cueboard.league.result_sheet import result_sheets

    page = result_sheets(records, title=title, tz=tz, lang=lang, venue=venue, table=table)
    if html == STDIN:
        out.write(page)
        return 0
    try:
        write_atomically(Path(html), page)
    except OSError as exc:
        err.write(f"cueboard report: cannot write {html}: {exc.strerror or exc}\n")
        return 1
    return 0
