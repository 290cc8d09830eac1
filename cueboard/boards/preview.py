"""Pictures of boards for people: each pixel drawn as a round LED, unlit ones dimly.

What a board image is for a test (one pixel an LED) is too small for a person to judge;
:func:`leds` draws it as the board looks: round LEDs on a dark face, the lit ones in
their colour (a MAX7219 module's are red), the unlit ones dim grey.

>>> from PIL import Image
>>> leds(Image.new("1", (32, 8)), scale=4).size
(128, 32)
"""

from __future__ import annotations

from PIL import Image, ImageDraw

__all__ = ["MONO_LED", "leds"]

MONO_LED = (255, 45, 30)
"""The colour of a lit LED on a one-colour board (the usual red MAX7219 module)."""

FACE = (12, 12, 12)
UNLIT = (38, 38, 38)


def _dots(size: tuple[int, int], scale: int) -> Image.Image:
    """A mask of one round dot a pixel, ``scale`` pixels apart."""
    dot = Image.new("L", (scale, scale))
    margin = max(1, scale // 8)
    ImageDraw.Draw(dot).ellipse((margin, margin, scale - 1 - margin, scale - 1 - margin), fill=255)
    w, h = size
    mask = Image.new("L", (w * scale, h * scale))
    for y in range(h):
        for x in range(w):
            mask.paste(dot, (x * scale, y * scale))
    return mask


def leds(image: Image.Image, *, scale: int = 8, mono: tuple[int, int, int] = MONO_LED) -> Image.Image:
    """``image`` (mode ``1``, ``L`` or ``RGB``) as LEDs, ``scale`` picture pixels an LED."""
    if scale < 2:
        return image.convert("RGB")
    if image.mode == "1":
        lit = image.convert("L")
        colour = Image.new("RGB", image.size, mono)
        colour = Image.composite(colour, Image.new("RGB", image.size, UNLIT), lit)
    else:
        colour = image.convert("RGB")
        lit = colour.convert("L").point(lambda v: 255 if v else 0)
        colour = Image.composite(colour, Image.new("RGB", image.size, UNLIT), lit)
    big = colour.resize((image.width * scale, image.height * scale), Image.Resampling.NEAREST)
    dots = _dots(image.size, scale)
    face = Image.new("RGB", big.size, FACE)
    return Image.composite(big, face, dots)

