"""``cueboard replay``: apply an event log and print the state (``state.md``).

:func:`replay` is the one way a log is applied: by the command, and by the journal when
the daemon starts (``cueboard.table.journal``, which first sets a torn last line aside)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import TextIO

from cueboard.common.errors import RejectedLine
from cueboard.engine import IllegalEvent, Match, decode
from cueboard.engine.state import State


def lines_of(raw: Iterable[bytes]) -> Iterator[tuple[int, str]]:
    """(line number, text) for each non-blank line; a line that is not UTF-8 is rejected.

    A last line of zero bytes only is the end of the log: a running daemon's journal file
    has its space preallocated with zeros after the lines (``cueboard.table.journal``). A line
    running into zeros is a line torn by a power cut.
    """
    for number, data in enumerate(raw, start=1):
        if b"\0" in data:
            if not data.strip(b"\0") and not data.endswith(b"\n"):
                return
            raise RejectedLine(number, "torn: it runs into zero bytes (the journal's preallocated space; "
                               "a power cut?)")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RejectedLine(number, f"not UTF-8 ({exc.reason} at byte {exc.start})") from None
        if text.strip():
            yield number, text


def replay(raw: Iterable[bytes]) -> Iterator[tuple[Match, int]]:
    """Apply a log line by line, yielding the match after the match line and after each
    event, with the line number; RejectedLine at the first line the engine refuses."""
    match: Match | None = None
    number = 0
    for number, text in lines_of(raw):
        try:
            obj = decode(text)  # a line's user (who sent it) is the engine's to read: an amend keeps it
            if match is None:
                match = Match.from_json(obj)
            else:
                match.apply(match.parse(obj))
        except IllegalEvent as exc:
            raise RejectedLine(number, str(exc)) from None
        yield match, number
    if match is None:
        raise RejectedLine(number + 1, "the log is empty: its first line sets the match up "
                           '({"type": "match", ...})')


def dumps(state: State) -> str:
    """The state as ``cueboard replay`` prints it: its JSON object (``state.md``) on one line."""
    return json.dumps(state.to_json(), ensure_ascii=False)


def run(raw: Iterable[bytes], out: TextIO, err: TextIO, each: bool) -> int:
    """The command: 0 when the whole log applies, 2 at a rejected line."""
    last: Match | None = None
    try:
        for index, (match, _) in enumerate(replay(raw)):
            last = match
            if each and index:  # one line after every event, not after the match line
                out.write(dumps(match.state()) + "\n")
    except RejectedLine as exc:
        err.write(f"{exc}\n")
        return 2
    if not each and last is not None:
        out.write(dumps(last.state()) + "\n")
    return 0
