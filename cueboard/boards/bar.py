"""The conversation bar: what the table understood of the keys (a call, a lapsed call, a
refusal, a notice), drawn in the box each layout gives it, on one line or two.
What is said, for how long, and how it scrolls: docs/boards.md, "The conversation bar".
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Literal

from cueboard.boards.fonts import NORMAL, TINY, Font
from cueboard.boards.scene import SHAPES, Colour, Item, Motion, Pages, Shape, Text, duration

__all__ = ["READ_SECONDS", "READ_SPEED", "REASON_MAX", "Box", "Talk", "bar_item", "reading_seconds"]

Box = tuple[int, int, int, int]
"""Where the bar goes: x, y, width, height (in the layout's pixels)."""

READ_SECONDS = 3.0
"""The least time a refusal's reason or a lapsed call stays up: long enough to look up and
read a few words after the beep."""

READ_SPEED = 20.0
"""Pixels a second the bar's text scrolls at (at least): some four characters of the 5x7
font a second, so an 80-character reason passes in 15-20 s."""

REASON_MAX = 200
"""A reason longer than this many characters is cut there (with "..."): some 50 s of
scrolling is as long as a bar should hold the board. The whole reason is logged and on MQTT."""

Kind = Literal["call", "lapsed", "refused", "notice"]


@dataclass(frozen=True)
class Talk:
    """What the bar says: a call being keyed in (``keys``, and ``text``: what it waits for),
    a lapsed call (``keys``), a refusal (``text``: the reason; ``forms``: its short forms,
    long to short, of which the bar shows the longest that fits), or a notice (``keys``:
    UNDO, REDO or CORRECTED, ``text``: what it took back, put back or corrected)."""

    kind: Kind
    keys: tuple[str, ...] = ()
    text: str = ""
    forms: tuple[str, ...] = ()

    def fitted(self, width: int, font: Font) -> Talk:
        """This talk with the longest of its ``forms`` that fits ``width`` pixels as its text
        (else the shortest, which scrolls); itself when it has no forms."""
        if not self.forms:
            return self
        text = next((f for f in self.forms if font.width(" ".join(f.split())) <= width), self.forms[-1])
        return Talk(self.kind, self.keys, text)

    @property
    def head(self) -> str:
        """The keys as on the keys, or what the bar is about."""
        if self.kind == "refused":
            return self.keys[0] if self.keys else "REFUSED"
        return " ".join(k.strip() for k in self.keys if k.strip()) or "CALL"

    @property
    def tail(self) -> str:
        """What comes next, that it lapsed, or why it was refused."""
        if self.kind == "lapsed":
            return "lapsed"
        text = " ".join(self.text.split())  # no line breaks or runs of spaces on a marquee
        if self.kind == "refused" and len(text) > REASON_MAX:
            return text[:REASON_MAX - 3].rstrip() + "..."
        return text


def _speed(motion: Motion) -> float:
    return max(READ_SPEED, motion.scroll_speed)


def bar_item(key: Hashable, talk: Talk, box: Box, motion: Motion) -> Pages:
    """The bar saying ``talk`` in ``box``, as one :class:`~.scene.Pages` item whose ``key``
    says which talk it is (a new key starts its marquee from the beginning).

    >>> from cueboard.boards.scene import Pages, duration, Motion
    >>> bar = bar_item(("call", 1), Talk("call", ("FOUL",), "the side: 1 or 2"), (0, 25, 128, 7), Motion())
    >>> [getattr(i, "text", "") for i in bar.pages[0]]
    ['FOUL', '', 'the side: 1 or 2']
    >>> reading_seconds(bar_item(("refused", 2), Talk("refused", (), "the match is over"), (0, 0, 128, 7),
    ...                          Motion()), Motion())
    3.0
    """
    x, y, w, h = box
    speed = _speed(motion)
    if h >= 15:
        items = _two_lines(talk.fitted(w, NORMAL), x, y, w, speed)
    else:
        font = NORMAL if h >= 7 else TINY
        room = w - 7 if talk.kind == "refused" and w >= 48 and font is NORMAL else w
        if talk.kind == "notice":
            room = w - font.width(f"{talk.head}:") - 4
        items = _one_line(talk.fitted(room, font), x, y, w, h, speed)
    return Pages(key, (tuple(items),))


def reading_seconds(bar: Item, motion: Motion) -> float:
    """How long a message in ``bar`` stays: :data:`READ_SECONDS`, or one pass of its
    marquee (still, scrolling, still) if that is longer."""
    return max(READ_SECONDS, duration(bar, motion) / 1000)


def _colours(talk: Talk) -> tuple[Colour, Colour]:
    """The head's colour and the tail's."""
    if talk.kind == "call":
        return "call", "text"
    if talk.kind == "lapsed":
        return "call", "alert"
    if talk.kind == "notice":
        return "notice", "text"
    return "alert", "text"


def _two_lines(talk: Talk, x: int, y: int, w: int, speed: float) -> list[Item]:
    head_colour, tail_colour = _colours(talk)
    head, font = talk.head, NORMAL
    if NORMAL.width(head) > w and TINY.width(head) <= w:
        font = TINY
    items: list[Item] = [_line(x, y, w, head, font, head_colour, speed)]
    if talk.tail:
        items.append(_line(x, y + 8, w, talk.tail, NORMAL, tail_colour, speed))
    return items


def _one_line(talk: Talk, x: int, y: int, w: int, h: int, speed: float) -> list[Item]:
    font = NORMAL if h >= 7 else TINY
    y += max(0, (h - font.height) // 2) if font is TINY else 0
    head_colour, tail_colour = _colours(talk)
    tail = talk.tail
    if talk.kind == "refused":
        if w >= 48 and font is NORMAL:
            return [Shape(x, y + 1, "cross", "alert"), Text(x + 7, y, w - 7, tail, font, tail_colour, speed=speed)]
        return [Text(x, y, w, tail, font, "alert", speed=speed)]
    head = talk.head if talk.kind == "call" else f"{talk.head}:"
    marquee_colour = head_colour if talk.kind in ("call", "notice") else "alert"
    if not tail:
        return [Text(x, y, w, head, font, head_colour, speed=speed)]
    hw = font.width(head)
    # An arrow between two gaps (7 pixels high with the 5x7 font), or a space after the colon.
    arrow, gap = ("right7", 3) if font is NORMAL else ("right", 2)
    mark = 2 * gap + SHAPES[arrow].width if talk.kind == "call" else 4
    if hw <= w // 2 and hw + mark + min(font.width(tail), 24) <= w:
        items: list[Item] = [Text(x, y, hw, head, font, head_colour, scroll=False)]
        if talk.kind == "call":
            items.append(Shape(x + hw + gap, y, arrow, head_colour))
        items.append(Text(x + hw + mark, y, w - hw - mark, tail, font, tail_colour, speed=speed))
        return items
    joined = f"{talk.head} > {tail}" if talk.kind == "call" else f"{head} {tail}"
    return [Text(x, y, w, joined, font, marquee_colour, speed=speed)]


def _line(x: int, y: int, w: int, text: str, font: Font, colour: Colour, speed: float) -> Text:
    """A 7-pixel line at ``y``, scrolling when it does not fit (the 3x5 font a pixel lower)."""
    return Text(x, y + 1 if font is TINY else y, w, text, font, colour, speed=speed)
