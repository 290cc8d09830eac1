"""Pixel fonts for LED boards: every lit pixel is an LED, so no anti-aliasing and no TrueType.
``NORMAL`` (5x7) and ``TINY`` (3x5) are luma.core's legacy fonts with our languages' accented
letters, ``NARROW`` and ``LARGE`` our digits; a string is rendered once into a cached 1-bit
mask. Why: docs/boards.md, "Decisions".
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

# the ignore below: luma ships no type hints (no py.typed, no stubs)
from luma.core.legacy.font import LCD_FONT, TINY_FONT  # type: ignore[import-untyped]  # luma ships no type hints (no py.typed, no stubs)
from PIL import Image

__all__ = ["LARGE", "NARROW", "NORMAL", "TINY", "Font", "ascii_text", "printable"]

DIGITS = "0123456789"


def printable(text: str) -> str:
    """``text`` without control and format characters (Unicode category C): what any font
    draws of a name, whatever a state holds. Raqm, the text layout of the anti-aliased
    fonts, crashes on some of them; a board must never crash on a state (the table's names
    rules refuse them first). Every text meets the glyphs here, in :class:`Font` and
    :class:`~.smooth.Smooth`, once.

    >>> printable("Ann\u0007\u200b Lee")
    'Ann Lee'
    """
    if text.isprintable():
        return text
    return "".join(c for c in text if unicodedata.category(c)[0] != "C")


def ascii_text(text: str) -> str:
    """``text`` as the ASCII the fonts have: accents dropped, anything else as ``?``. (The
    fonts draw the accented letters of our languages' board words themselves, :data:`_ACCENTED`:
    Swedish Å Ä Ö, German Ä Ö Ü ß, French é è, Dutch ë; any other is drawn as its base letter.)

    >>> ascii_text("Ó Súilleabháin")
    'O Suilleabhain'
    """
    decomposed = unicodedata.normalize("NFKD", text)
    out = []
    for ch in decomposed:
        if unicodedata.combining(ch):
            continue
        out.append(ch if " " <= ch <= "~" else "?")
    return "".join(out)


def _glyph(columns: Sequence[int], rows: range) -> Image.Image:
    """A 1-bit image of one glyph from luma's column bytes, keeping ``rows``."""
    image = Image.new("1", (len(columns), len(rows)))
    pixels = image.load()
    assert pixels is not None  # a new image is always loaded
    for x, byte in enumerate(columns):
        for y, row in enumerate(rows):
            if byte >> row & 1:
                pixels[x, y] = 1
    return image


def _trim(columns: Sequence[int]) -> list[int]:
    lit = [i for i, c in enumerate(columns) if c]
    return list(columns[lit[0]:lit[-1] + 1]) if lit else []


def _from_rows(rows: Sequence[str]) -> Image.Image:
    """A glyph drawn as text rows of ``#`` and ``.``."""
    image = Image.new("1", (len(rows[0]), len(rows)))
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            if ch == "#":
                image.putpixel((x, y), 1)
    return image


class Font:
    """A bitmap font: glyph images of one height, ``spacing`` blank columns between them.

    The glyphs are luma.core's legacy fonts (column bytes, bit ``y`` is row ``y``), turned once
    into small 1-bit images. A whole string is rendered once into a 1-bit mask (cached) and
    drawn with one ``ImageDraw.bitmap`` call, in any colour, on a mono or an RGB canvas.

    >>> NORMAL.width("64"), NORMAL.height
    (11, 7)
    >>> TINY.render("BRK").size
    (11, 5)
    """

    def __init__(self, name: str, glyphs: Mapping[str, Image.Image], *, spacing: int = 1,
                 missing: str = "?", upper: bool = False) -> None:
        heights = {g.height for g in glyphs.values()}
        if len(heights) != 1:
            raise ValueError(f"font {name}: glyphs of several heights {sorted(heights)}")
        self.name = name
        self.height = heights.pop()
        self.spacing = spacing
        self.upper = upper
        self._glyphs = dict(glyphs)
        self._missing = self._glyphs[missing]
        # One cache per font (an lru_cache on the method would be shared by all fonts).
        self.render = lru_cache(maxsize=1024)(self._render)
        self.width = lru_cache(maxsize=4096)(self._width)

    def __repr__(self) -> str:
        return f"<Font {self.name} {self.height}px>"

    def _glyph_list(self, text: str) -> list[Image.Image]:
        text = unicodedata.normalize("NFC", printable(text.upper() if self.upper else text))
        out = []
        for ch in text:
            glyph = self._glyphs.get(ch)
            if glyph is not None:
                out.append(glyph)
            else:
                # A letter the font lacks: its base letter (é -> e), else "?".
                out += [self._glyphs.get(c, self._missing) for c in ascii_text(ch)]
        return out

    def _width(self, text: str) -> int:
        """Width in pixels of ``text`` as drawn (no trailing space)."""
        glyphs = self._glyph_list(text)
        if not glyphs:
            return 0
        return sum(g.width for g in glyphs) + self.spacing * (len(glyphs) - 1)

    def _render(self, text: str) -> Image.Image:
        """``text`` as a 1-bit mask, ``width(text)`` by ``height`` (at least 1 pixel wide)."""
        glyphs = self._glyph_list(text)
        image = Image.new("1", (max(1, self.width(text)), self.height))
        x = 0
        for g in glyphs:
            image.paste(g, (x, 0))
            x += g.width + self.spacing
        return image


def _luma_font(name: str, font: Sequence[Sequence[int]], rows: range, *, proportional: bool,
               fixed_digits: bool, chars: Iterable[str], space: int, upper: bool = False) -> Font:
    glyphs: dict[str, Image.Image] = {}
    for ch in chars:
        columns = list(font[ord(ch)])
        if ch == " ":
            glyphs[ch] = Image.new("1", (space, len(rows)))
            continue
        # Proportional: trimmed to the ink; fixed: the glyph's 5-column cell.
        keep_cell = not proportional or (fixed_digits and ch in DIGITS)
        columns = columns[:5] if keep_cell else (_trim(columns) or [0])
        glyphs[ch] = _glyph(columns, rows)
    return Font(name, glyphs, upper=upper)


_PRINTABLE = [chr(c) for c in range(32, 127)]

NORMAL = _luma_font("normal 5x7", LCD_FONT, range(0, 7), proportional=True, fixed_digits=True,
                    chars=_PRINTABLE, space=2)
"""luma's LCD font, 7 pixels high: proportional letters, 5-pixel digits."""
# Its zero is slashed (a programmer's zero); a scoreboard's zero is a plain ring.
NORMAL._glyphs["0"] = _glyph([0x3E, 0x41, 0x41, 0x41, 0x3E], range(0, 7))

TINY = _luma_font("tiny 3x5", TINY_FONT, range(1, 6), proportional=True, fixed_digits=False,
                  chars=[c for c in _PRINTABLE if not c.islower()], space=1, upper=True)
"""luma's tiny font, 5 pixels high, capitals only (lower case is drawn as capitals)."""

_ACCENTED: dict[Font, dict[str, list[str]]] = {
    # 5x7: a capital's diacritic takes its top row (the letter's top drawn a row lower), as
    # 5x7 LED fonts do; a small letter's sits above its x-height.
    NORMAL: {
        "Ä": ["#...#", ".###.", "#...#", "#...#", "#####", "#...#", "#...#"],
        "Å": ["..#..", ".#.#.", ".###.", "#...#", "#####", "#...#", "#...#"],
        "Ö": ["#...#", ".###.", "#...#", "#...#", "#...#", "#...#", ".###."],
        "Ü": ["#...#", ".....", "#...#", "#...#", "#...#", "#...#", ".###."],
        "É": ["...#.", "#####", "#....", "####.", "#....", "#....", "#####"],
        "ä": [".#.#.", ".....", ".###.", "....#", ".####", "#...#", ".####"],
        "å": ["..#..", ".#.#.", ".###.", "....#", ".####", "#...#", ".####"],
        "ö": [".#.#.", ".....", ".###.", "#...#", "#...#", "#...#", ".###."],
        "ü": [".#.#.", ".....", "#...#", "#...#", "#...#", "#..##", ".##.#"],
        "é": ["...#.", "..#..", ".###.", "#...#", "#####", "#....", ".###."],
        "è": [".#...", "..#..", ".###.", "#...#", "#####", "#....", ".###."],
        "ë": [".#.#.", ".....", ".###.", "#...#", "#####", "#....", ".###."],
        "ß": [".##.", "#..#", "#..#", "#.#.", "#..#", "#..#", "#.#."],
    },
    # 3x5 capitals: the diacritic on the top row, the letter in the three at the bottom.
    TINY: {
        "Ä": ["#.#", "...", ".#.", "###", "#.#"],
        "Å": [".#.", "...", ".#.", "###", "#.#"],
        "Ö": ["#.#", "...", "###", "#.#", "###"],
        "Ü": ["#.#", "...", "#.#", "#.#", "###"],
        "É": [".#.", "###", "##.", "#..", "###"],
    },
}
"""The letters with diacritics of the boards' words (``screen/i18n/*.json``), drawn here."""
for _font, _rows in _ACCENTED.items():
    _font._glyphs.update({ch: _from_rows(rows) for ch, rows in _rows.items()})

_NARROW_ROWS = {
    "0": [".##.", "#..#", "#..#", "#..#", "#..#", "#..#", ".##."],
    "1": ["..#.", ".##.", "..#.", "..#.", "..#.", "..#.", ".###"],
    "2": [".##.", "#..#", "...#", "..#.", ".#..", "#...", "####"],
    "3": [".##.", "#..#", "...#", ".##.", "...#", "#..#", ".##."],
    "4": ["..#.", ".##.", "#.#.", "#.#.", "####", "..#.", "..#."],
    "5": ["####", "#...", "###.", "...#", "...#", "#..#", ".##."],
    "6": [".##.", "#...", "#...", "###.", "#..#", "#..#", ".##."],
    "7": ["####", "...#", "...#", "..#.", "..#.", ".#..", ".#.."],
    "8": [".##.", "#..#", "#..#", ".##.", "#..#", "#..#", ".##."],
    "9": [".##.", "#..#", "#..#", ".###", "...#", "...#", ".##."],
    "-": ["....", "....", "....", "####", "....", "....", "...."],
    "?": [".##.", "#..#", "...#", "..#.", "..#.", "....", "..#."],
    " ": ["..", "..", "..", "..", "..", "..", ".."],
}
NARROW = Font("narrow 4x7", {ch: _from_rows(rows) for ch, rows in _NARROW_ROWS.items()})
"""4x7 digits: three-digit scores side by side on 32 pixels."""


def _doubled(font: Font, chars: Iterable[str]) -> Font:
    glyphs = {}
    for ch in chars:
        g = font._glyphs[ch]
        glyphs[ch] = g.resize((g.width * 2, g.height * 2), Image.Resampling.NEAREST)
    return Font(f"{font.name} x2", glyphs, spacing=2)


LARGE = _doubled(NORMAL, DIGITS + "-:? ")
"""The 5x7 digits doubled, 10x14: the big numbers of a 128x32 board."""
