"""The idle board: a venue's table waiting for its match (:class:`~.shown.Waiting`) shows the
venue's name, the time of day and the match the desk handed it, never a placeholder 0-0.

Read across a hall: the time is the biggest thing on it, in the board's largest digits; the
venue's name and ``NEXT: ANN V BOB`` in capitals, scrolled when too wide. A board of one line
(32x8) shows them one after another. The time is given (``HH:MM``, the table's clock, kept by
:class:`~.board.Board`): a scene reads no clock.

>>> from cueboard.boards.words import words_for
>>> from cueboard.boards.shown import Handed
>>> say = words_for("en")
>>> [type(i).__name__ for i in idle_scene("riley-hall", "20:15", None, 64, 16, say)]
['Text', 'Text']
>>> idle_scene("riley-hall", "20:15", Handed(("Ann", "Bob")), 32, 8, say)[0].pages[2][0].text
'NEXT: ANN V BOB'
"""

from __future__ import annotations

from cueboard.boards.fonts import LARGE, NARROW, NORMAL, TINY, Font
from cueboard.boards.layout import Say, fit
from cueboard.boards.scene import Item, Pages, Text
from cueboard.boards.shown import Handed
from cueboard.boards.smooth import caps_at, digits_at

__all__ = ["idle_scene", "next_text", "venue_text"]

PAGE_SECONDS = 4.0
"""Each page of a one-line board: long enough to read the time from across the hall."""


def venue_text(venue: str) -> str:
    """A venue's name as a board says it: its topic name (``riley-hall``) in words, capitals."""
    return venue.replace("-", " ").replace("_", " ").upper()


def next_text(handed: Handed, say: Say) -> str:
    """``NEXT: ANN V BOB`` (in the board's language), the competition left to the desk's list."""
    versus = say("notice.versus")[0]
    return f"{say('notice.next')[0]}: {handed.names[0]} {versus} {handed.names[1]}".upper()


def _line(y: int, w: int, text: str, font: Font, colour: str) -> Text:
    return Text(0, y, w, text, font, colour, "centre", True)


def idle_scene(venue: str, time: str, handed: Handed | None, width: int, height: int, say: Say) -> tuple[Item, ...]:
    """The idle board's items on a ``width`` x ``height`` board (``time``: ``"20:15"``, or ``""``
    before the board knows it)."""
    name = venue_text(venue)
    coming = next_text(handed, say) if handed is not None else None
    if height < 16:
        # One line: the time, the venue, the next match, in turn.
        clock, font = fit([time], (NORMAL, NARROW, TINY), width)
        pages: list[tuple[Item, ...]] = [(_line(0, width, clock, font, "score"),),
                                         (_line(0, width, name, NORMAL, "text"),)]
        if coming is not None:
            pages.append((_line(0, width, coming, NORMAL, "notice"),))
        return (Pages("idle", tuple(pages), PAGE_SECONDS),)
    if height < 32:
        # Two lines of 7: the venue above; the time below, taking turns with the next match.
        top = _line(0, width, name, NORMAL, "text")
        below = _line(9, width, time, NORMAL, "score")
        if coming is None:
            return (top, below)
        return (top, Pages("idle", ((below,), (_line(9, width, coming, NORMAL, "notice"),)), PAGE_SECONDS))
    # Three lines: the venue, the time as big as it goes, the next match.
    line = max(8, height // 4)
    big = height - 2 * line - 2
    digits: Font = digits_at(big) if big >= 14 else LARGE
    # Lines of 8 in the crisp 5x7 letters: smooth ones that small read blurred from afar.
    words: Font = caps_at(line) if line >= 12 else NORMAL
    items: list[Item] = [_line(0, width, name, words, "text"),
                         _line(line + 1, width, time, digits, "score")]
    if coming is not None:
        items.append(_line(height - line, width, coming, words, "notice"))
    return tuple(items)
