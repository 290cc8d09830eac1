"""What a layout puts on a board: text, bars, shapes and pages, as frozen values.

A layout turns a :class:`~.state.BoardView` into a tuple of items (a *scene*); this module
draws a scene on a Pillow ``ImageDraw`` (inside luma's ``with canvas(device)``) at a given
time. Only two things move with time: a :class:`Text` too wide for its box scrolls (a
marquee: hold, scroll, hold), and :class:`Pages` show one page after another. Both are
pure functions of the time since they appeared, so a test or a preview can draw any
instant, and :func:`phase` says when the picture would differ, so the board redraws only
then (and a scene with nothing moving is drawn once).

Colours are names (``"text"``, ``"score"``, ``"red"`` ...), turned into pixels by a
:class:`Palette`: full colour on an RGB panel, on or off on a MAX7219.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from PIL import Image, ImageDraw

from cueboard.boards.fonts import Font

__all__ = ["SHAPES", "Disc", "Fill", "Item", "Motion", "Pages", "Palette", "Shape", "Text", "draw_scene",
           "next_change", "phase"]

Align = Literal["left", "right", "centre"]
Colour = str
"""A colour name of :data:`RGB`; ``"off"`` is an unlit pixel."""


@dataclass(frozen=True)
class Text:
    """``text`` in ``font`` in a box ``w`` pixels wide at (``x``, ``y``): aligned when it fits,
    else scrolled (``scroll``) or cut at the box's right edge. ``speed``: pixels a second for
    this text's marquee (None: the board's ``Motion``)."""

    x: int
    y: int
    w: int
    text: str
    font: Font
    colour: Colour = "text"
    align: Align = "left"
    scroll: bool = True
    speed: float | None = None


@dataclass(frozen=True)
class Fill:
    x: int
    y: int
    w: int
    h: int
    colour: Colour = "text"


@dataclass(frozen=True)
class Shape:
    """One of :data:`SHAPES` with its top-left corner at (``x``, ``y``)."""

    x: int
    y: int
    name: str
    colour: Colour = "text"


@dataclass(frozen=True)
class Disc:
    """A ball ``d`` pixels across with its top-left corner at (``x``, ``y``), its edge
    anti-aliased (the big RGB boards); ``"colours"``: striped in the colours (any colour on).
    ``letter`` (in ``font``) is cut out of it, unlit, in its middle: the ball or group named,
    not told by its colour alone (red and brown, green and brown look alike to about one man
    in twelve)."""

    x: int
    y: int
    d: int
    colour: Colour = "text"
    letter: str = ""
    font: Font | None = None


@dataclass(frozen=True)
class Pages:
    """Pages shown in turn, each for ``seconds`` (longer when a marquee on it needs it).

    ``key`` says which pages these are: while a new scene has pages with the same key, the
    turn goes on where it was (a score changing does not send the board back to page 0);
    a new key starts again from the first page.
    """

    key: Hashable
    pages: tuple[tuple[Item, ...], ...]
    seconds: float = 2.5


Item = Text | Fill | Shape | Disc | Pages


@dataclass(frozen=True)
class Motion:
    """How fast things move: marquee speed (pixels a second) and its holds at each end."""

    scroll_speed: float = 15.0
    hold: float = 1.0

    @property
    def step_ms(self) -> int:
        """Milliseconds a marquee takes to move one pixel (0: it does not move)."""
        return max(1, round(1000 / self.scroll_speed)) if self.scroll_speed > 0 else 0

    @property
    def hold_ms(self) -> int:
        return round(self.hold * 1000)


def _shape(rows: list[str]) -> Image.Image:
    image = Image.new("1", (len(rows[0]), len(rows)))
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            if ch == "#":
                image.putpixel((x, y), 1)
    return image


SHAPES: dict[str, Image.Image] = {
    "right": _shape(["#..", "##.", "###", "##.", "#.."]),
    "left": _shape(["..#", ".##", "###", ".##", "..#"]),
    "right7": _shape(["#...", "##..", "###.", "####", "###.", "##..", "#..."]),
    "left7": _shape(["...#", "..##", ".###", "####", ".###", "..##", "...#"]),
    "disc": _shape([".###.", "#####", "#####", "#####", ".###."]),
    "ring": _shape([".###.", "#...#", "#...#", "#...#", ".###."]),
    "disc7": _shape(["..###..", ".#####.", "#######", "#######", "#######", ".#####.", "..###.."]),
    "ring7": _shape(["..###..", ".#...#.", "#.....#", "#.....#", "#.....#", ".#...#.", "..###.."]),
    "dot": _shape(["##", "##"]),
    "ring_dot": _shape(["###", "#.#", "###"]),
    "cross": _shape(["#...#", ".#.#.", "..#..", ".#.#.", "#...#"]),
    "pause": _shape(["#.#", "#.#", "#.#", "#.#", "#.#"]),  # a held shot clock where no word fits
}

RGB: dict[Colour, tuple[int, int, int]] = {
    "off": (0, 0, 0),
    "text": (235, 235, 235),
    "score": (255, 255, 255),
    "frames": (0, 190, 255),
    "label": (175, 175, 175),
    "alert": (255, 30, 0),
    "call": (255, 150, 0),  # amber: a call being keyed in, waiting for its next key
    "notice": (90, 200, 255),  # sky blue: UNDO or REDO acknowledged (neither a call nor a refusal)
    "win": (0, 230, 60),
    "red": (255, 0, 0),
    "yellow": (255, 200, 0),
    "green": (0, 200, 40),
    "brown": (170, 80, 20),
    "blue": (30, 80, 255),
    "pink": (255, 100, 170),
    "black": (110, 110, 110),  # an unlit LED is black: the black ball is drawn grey
}
"""Colours for LEDs: saturated, and none so dark that it reads as off."""

BALL_ROWS = ("yellow", "green", "brown", "blue", "pink", "black", "black")
"""'Any colour' (the ball on after a red) drawn as a disc striped in the colours."""


@dataclass(frozen=True)
class Palette:
    """Colour names to pixel values for one image mode; ``inverted`` for the refusal flash."""

    mode: str
    inverted: bool = False
    _cache: dict[Colour, int | tuple[int, int, int]] = field(default_factory=dict, compare=False,
                                                           repr=False)

    @property
    def colour(self) -> bool:
        return self.mode != "1"

    def background(self) -> int | tuple[int, int, int] | None:
        """What to fill the board with first (``None``: leave it unlit)."""
        return self._pixel("text", force=True) if self.inverted else None

    def __call__(self, name: Colour) -> int | tuple[int, int, int]:
        if self.inverted:
            return self._pixel("off")
        return self._pixel(name)

    def _pixel(self, name: Colour, force: bool = False) -> int | tuple[int, int, int]:
        cached = self._cache.get(name)
        if cached is not None and not force:
            return cached
        rgb = RGB.get(name, RGB["text"])
        value: int | tuple[int, int, int]
        if self.mode == "1":
            value = 0 if name == "off" else 1
        elif self.mode == "L":
            value = 0 if name == "off" else max(rgb)
        else:
            value = rgb
        self._cache[name] = value
        return value


# -- time -------------------------------------------------------------------------------
#
# Time inside a scene is whole milliseconds since an item appeared: the phase at a time
# and the time of the next change are then the same integer arithmetic, so a board never
# wakes a hair before a change and finds nothing to do (see ``Renderer.next_change``).


def _marquee(item: Text) -> int:
    """How far the text must scroll (0: it fits, or it is cut rather than scrolled)."""
    if not item.scroll:
        return 0
    return max(0, item.font.width(item.text) - item.w)


def _step_ms(item: Text, motion: Motion) -> int:
    """Milliseconds ``item``'s marquee takes to move one pixel (0: it does not move)."""
    if item.speed is None:
        return motion.step_ms
    return max(1, round(1000 / item.speed)) if item.speed > 0 else 0


def _marquee_period(item: Text, motion: Motion) -> int:
    distance = _marquee(item)
    step = _step_ms(item, motion)
    if distance == 0 or step == 0:
        return 0
    return 2 * motion.hold_ms + distance * step


def _offset(item: Text, ms: int, motion: Motion) -> int:
    period = _marquee_period(item, motion)
    if period == 0:
        return 0
    ms %= period
    return max(0, min(_marquee(item), (ms - motion.hold_ms) // _step_ms(item, motion)))


# An item is a frozen value and its motion depends on it and the board's Motion only, while a
# board asks again for the same items (the names, the labels) at every state, every tick and
# every phase: worked out once, not at each press (issue 41: this was a fifth of Board.show).
# Bounded: a few scenes' items; a long night's scrolling names do not pile up.
@lru_cache(maxsize=1024)
def _page_durations(item: Pages, motion: Motion) -> tuple[int, ...]:
    seconds = round(item.seconds * 1000)
    return tuple(max([seconds] + [duration(i, motion) for i in page]) for page in item.pages)


@lru_cache(maxsize=4096)
def duration(item: Item, motion: Motion) -> int:
    """Milliseconds ``item``'s animation takes before it repeats (0: it does not move)."""
    if isinstance(item, Text):
        return _marquee_period(item, motion)
    if isinstance(item, Pages):
        if len(item.pages) > 1:
            return sum(_page_durations(item, motion))
        return max([0] + [duration(i, motion) for p in item.pages for i in p])
    return 0


def moves(item: Item, motion: Motion) -> bool:
    return duration(item, motion) > 0


def _page_at(item: Pages, ms: int, motion: Motion) -> tuple[int, int, int | None]:
    """The page shown ``ms`` into the pages: its index, the time into it, its end (None: no end)."""
    if len(item.pages) <= 1:
        period = duration(item, motion)
        return 0, ms % period if period else ms, None
    durations = _page_durations(item, motion)
    ms %= sum(durations)
    start = 0
    for index, d in enumerate(durations):
        if ms < start + d:
            return index, ms - start, d
        start += d
    raise AssertionError("unreachable: ms is below the sum of the durations")


def phase(item: Item, ms: int, motion: Motion) -> Hashable:
    """What of ``item`` shows ``ms`` milliseconds after it appeared: equal phases, equal pictures."""
    if isinstance(item, Text):
        return _offset(item, ms, motion)
    if isinstance(item, Pages):
        if not item.pages:
            return None
        index, local, _ = _page_at(item, ms, motion)
        return index, tuple(phase(i, local, motion) for i in item.pages[index] if moves(i, motion))
    return None


def next_change(item: Item, ms: int, motion: Motion) -> int | None:
    """The first millisecond after ``ms`` when the item's phase changes (None: never)."""
    if isinstance(item, Text):
        period = _marquee_period(item, motion)
        if period == 0:
            return None
        base = ms - ms % period
        offset = _offset(item, ms, motion)
        if offset < _marquee(item):
            return base + motion.hold_ms + (offset + 1) * _step_ms(item, motion)
        return base + period
    if isinstance(item, Pages):
        if not item.pages:
            return None
        index, local, length = _page_at(item, ms, motion)
        start = ms - local
        times = [t for t in (next_change(i, local, motion) for i in item.pages[index]) if t is not None]
        if length is not None:
            times.append(length)
        return start + min(times) if times else None
    return None


# -- drawing ----------------------------------------------------------------------------


@lru_cache(maxsize=32)
def _disc_mask(d: int) -> Image.Image:
    """A disc ``d`` pixels across as an ``L`` mask, drawn 4 times larger and scaled down
    (Pillow's ellipse has no anti-aliasing of its own)."""
    big = Image.new("L", (4 * d, 4 * d))
    ImageDraw.Draw(big).ellipse((0, 0, 4 * d - 1, 4 * d - 1), fill=255)
    return big.resize((d, d), Image.Resampling.BOX)


def draw_scene(draw: ImageDraw.ImageDraw, items: Iterable[Item], palette: Palette, motion: Motion,
               times: Iterable[int], origin: tuple[int, int] = (0, 0)) -> None:
    """Draw ``items`` (each at its own time in milliseconds, from ``times``) with ``origin``
    as (0, 0)."""
    for item, t in zip(items, times, strict=True):
        _draw(draw, item, t, palette, motion, origin)


def _draw(draw: ImageDraw.ImageDraw, item: Item, t: int, palette: Palette, motion: Motion,
          origin: tuple[int, int]) -> None:
    ox, oy = origin
    if isinstance(item, Text):
        mask = item.font.render(item.text)
        if mask.width <= item.w:
            if item.align == "right":
                x = item.x + item.w - mask.width
            elif item.align == "centre":
                x = item.x + (item.w - mask.width) // 2
            else:
                x = item.x
            draw.bitmap((ox + x, oy + item.y), mask, fill=palette(item.colour))
        elif item.w > 0:
            left = _offset(item, t, motion)
            draw.bitmap((ox + item.x, oy + item.y), mask.crop((left, 0, left + item.w, mask.height)),
                        fill=palette(item.colour))
    elif isinstance(item, Fill):
        if item.w > 0 and item.h > 0:
            draw.rectangle((ox + item.x, oy + item.y, ox + item.x + item.w - 1, oy + item.y + item.h - 1),
                           fill=palette(item.colour))
    elif isinstance(item, Shape):
        mask = SHAPES[item.name]
        if item.colour == "colours" and palette.colour and not palette.inverted:
            # Any colour is on: a disc striped in the colours.
            for row in range(mask.height):
                band = mask.crop((0, row, mask.width, row + 1))
                draw.bitmap((ox + item.x, oy + item.y + row), band,
                            fill=palette(BALL_ROWS[row % len(BALL_ROWS)]))
        else:
            draw.bitmap((ox + item.x, oy + item.y), mask, fill=palette(item.colour))
    elif isinstance(item, Disc):
        mask = _disc_mask(item.d)
        if item.colour == "colours" and palette.colour and not palette.inverted:
            bands = BALL_ROWS[:6]
            for k, name in enumerate(bands):
                top, bottom = item.d * k // len(bands), item.d * (k + 1) // len(bands)
                draw.bitmap((ox + item.x, oy + item.y + top), mask.crop((0, top, item.d, bottom)),
                            fill=palette(name))
        else:
            draw.bitmap((ox + item.x, oy + item.y), mask, fill=palette(item.colour))
        if item.letter and item.font is not None:
            glyph = item.font.render(item.letter)
            gx = item.x + (item.d - glyph.width + 1) // 2
            gy = item.y + (item.d - glyph.height + 1) // 2
            draw.bitmap((ox + gx, oy + gy), glyph, fill=palette("off") if not palette.inverted else palette("text"))
    elif isinstance(item, Pages) and item.pages:
        index, local, _ = _page_at(item, t, motion)
        for inner in item.pages[index]:
            _draw(draw, inner, local, palette, motion, origin)
