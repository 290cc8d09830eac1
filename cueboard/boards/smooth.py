"""Anti-aliased TrueType text (DejaVu Sans Condensed Bold) for the big RGB boards (HUB75
panels, 64x32 and up), as a :class:`~.fonts.Font` to the layouts.
Why this typeface, and how ``height`` is measured: docs/boards.md, "Hall boards: HUB75 panels".
"""

from __future__ import annotations

import io
from functools import cache, lru_cache
from importlib.resources import files

from PIL import Image, ImageDraw, ImageFont

from cueboard.boards.fonts import Font, printable

__all__ = ["FONT_FILE", "Smooth", "caps_at", "digits_at", "text_at"]

FONT_FILE = "DejaVuSansCondensed-Bold.ttf"


@cache
def _face(size: int) -> ImageFont.FreeTypeFont:
    data = (files("cueboard.boards") / "ttf" / FONT_FILE).read_bytes()
    return ImageFont.truetype(io.BytesIO(data), size)


class Smooth(Font):
    """DejaVu Sans Condensed Bold at the size whose line box is ``height`` pixels."""

    def __init__(self, height: int, *, digits: bool, caps: bool = False) -> None:
        # Font's own state, as far as the layouts and the scene read it.
        self.name = f"smooth {'digits' if digits else 'caps' if caps else 'text'} {height}px"
        self.height = height
        self.spacing = 0
        self.upper = False
        self.digits = digits
        probe = "0123456789" if digits else "ÅÄÖÉH" if caps else "ÁÉg|"
        # The largest size whose probe fits the box (text: at least the box's height).
        size = height if not caps else 1
        while True:
            top, bottom = self._extent(size + 1, probe)
            if bottom - top > height:
                break
            size += 1
        self.size = size
        self.face = _face(size)
        top, bottom = self._extent(size, probe)
        self._top = top - (height - (bottom - top)) // 2
        self.render = lru_cache(maxsize=512)(self._render)
        self.width = lru_cache(maxsize=2048)(self._width)

    @staticmethod
    def _extent(size: int, probe: str) -> tuple[int, int]:
        _, top, _, bottom = _face(size).getbbox(probe, anchor="la")
        return int(top), int(bottom)

    def _width(self, text: str) -> int:
        return max(0, round(self.face.getlength(printable(text))))

    def _render(self, text: str) -> Image.Image:
        text = printable(text)
        mask = Image.new("L", (max(1, self.width(text)), self.height))
        ImageDraw.Draw(mask).text((0, -self._top), text, font=self.face, fill=255, anchor="la")
        return mask


@cache
def digits_at(height: int) -> Smooth:
    """Digits (and the odd ``-`` or ``:``) filling a box ``height`` pixels high.

    >>> digits_at(30).height, digits_at(30).width("147") == digits_at(30).width("888")
    (30, True)
    >>> text_at(14).render("Ó Súilleabháin").mode
    'L'
    """
    return Smooth(height, digits=True)


@cache
def caps_at(height: int) -> Smooth:
    """Capitals filling a line ``height`` pixels high, their diacritics inside it (RÖD, not
    ROD): the boards' words, which the catalogues give in capitals."""
    return Smooth(height, digits=False, caps=True)


@cache
def text_at(height: int) -> Smooth:
    """Names and words in a line ``height`` pixels high (accents and descenders inside)."""
    return Smooth(height, digits=False)
