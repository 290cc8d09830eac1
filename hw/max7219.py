"""A MAX7219 chain that sends only the digit rows that changed: luma's ``max7219``, faster
(same bytes for a row, one table lookup a bit). How, and why it matches luma exactly:
:class:`Max7219Chain`.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

# the ignore below: luma ships no type hints (no py.typed, no stubs)
from luma.led_matrix.device import max7219  # type: ignore[import-untyped]  # luma ships no type hints (no py.typed, no stubs)
from PIL import Image

from .pixels import pixel_values

__all__ = ["Max7219Chain"]

_ONE = bytes([0] + [1] * 255)
"""``bytes.translate`` table: any lit pixel value -> 1."""
_REVERSED = bytes(int(f"{b:08b}"[::-1], 2) for b in range(256))
"""``bytes.translate`` table: each byte's bits in the other order."""


def _runs(order: list[int], width: int, height: int) -> tuple[bool, bool, itemgetter[Any]] | None:
    """When every byte the chain receives is 8 pixels in a row (or a column) of the image,
    starting at a multiple of 8, it is a byte of the image packed 8 pixels a byte (of the
    image turned on its diagonal, for columns): then encoding is one lookup a byte, not a
    bit. Returns (transpose, reverse bits, lookup), or None when the wiring is not so kind."""
    for transpose in (False, True):
        w = height if transpose else width
        for reverse in (True, False):
            sources = []
            for k in range(0, len(order), 8):
                xs, ys = [], []
                for p in order[k:k + 8]:
                    x, y = p % width, p // width
                    if transpose:
                        x, y = y, x
                    xs.append(x)
                    ys.append(y)
                # Bit i of the chain's byte is pixel x0 + i (reverse: the packed byte's MSB
                # is its first pixel) or x0 + 7 - i.
                expected = [xs[0] + i for i in range(8)] if reverse else [xs[0] - i for i in range(8)]
                x0 = xs[0] if reverse else xs[7]
                if len(set(ys)) != 1 or xs != expected or x0 % 8:
                    break
                sources.append(ys[0] * (w // 8) + x0 // 8)
            else:
                return transpose, reverse, itemgetter(*sources)
    return None


class Max7219Chain(max7219):  # type: ignore[misc]  # luma's class is untyped (Any): a subclass of it
    """luma's ``max7219`` sending only changed digit rows.

    luma's :class:`luma.led_matrix.device.max7219` sends the whole frame on every
    ``display``: eight writes (one a *digit*, the chip's name for a row of its 8x8 block),
    each two bytes for every chip in the chain, so 1,024 bytes for a 128x32 wall of 64
    chips. :class:`Max7219Chain` is that same class (same constructor, same initialisation,
    same bytes for a row) with ``display`` replaced:

    - a digit row goes out only if it differs from what the chain last received; a row
      cannot be sent to one chip alone (a write shifts through the whole chain), so the
      saving is by whole rows: the shot clock's last digit, a page turning on one line;
    - the frame is encoded with one table lookup a bit instead of luma's pixel loop: the
      table maps each bit the chain receives to its pixel, and it is built by running an
      image of pixel numbers through luma's own ``preprocess`` (rotation, block orientation,
      blocks in reverse order), so it places pixels exactly as luma does -- the tests compare
      the bytes with luma's own class for every orientation;
    - :meth:`resync` sends the set-up registers and every row again: a MAX7219 that browned
      out or caught noise on a long cable shows garbage until it is told again.

    ``bytes_sent`` counts every byte handed to the serial interface (for the benchmark).
    """

    def __init__(self, serial_interface: Any = None, **kwargs: Any) -> None:
        # Set before luma's constructor: it sends the set-up and a blank frame through us.
        self._sent: list[bytes | None] = [None] * 8
        self._gather: itemgetter[Any] | None = None
        self._fast: tuple[bool, bool, itemgetter[Any]] | None = None
        self._row_bytes = 0
        self._contrast_level = int(kwargs.get("contrast", 0x70))
        self.bytes_sent = 0
        super().__init__(serial_interface, **kwargs)

    # -- what reaches the serial interface ---------------------------------------------

    def data(self, data: Any) -> None:
        self.bytes_sent += len(data)
        super().data(data)

    def contrast(self, value: int) -> None:
        if not 0 <= value <= 255:
            raise ValueError(f"MAX7219 brightness is 0 to 255, not {value}")
        self._contrast_level = value
        super().contrast(value)

    # -- frames ------------------------------------------------------------------------

    def _build_gather(self) -> None:
        """The table from each bit the chain receives to the pixel it shows (see module doc)."""
        w, h = self.width, self.height
        numbers = Image.new("I", (w, h))
        numbers.putdata(range(w * h))
        physical = pixel_values(self.preprocess(numbers))
        order: list[int] = []
        for digit in range(8):
            for offset in self._offsets:
                order.extend(physical[offset + digit + y * self._w] for y in range(8))
        self._gather = itemgetter(*order)
        self._row_bytes = self.cascaded
        self._fast = _runs(order, w, h)

    def encode(self, image: Image.Image) -> list[bytes]:
        """The eight digit rows for ``image`` as the chain receives them:
        ``[register, value] * cascaded`` each, the chip furthest down the chain first."""
        if image.mode != self.mode or image.size != self.size:
            raise ValueError(f"a {self.width}x{self.height} mode {self.mode!r} image is needed, not "
                             f"{image.width}x{image.height} mode {image.mode!r}")
        if self._gather is None:
            self._build_gather()
        assert self._gather is not None
        if self._fast is not None:
            # Each byte the chain receives is a run of 8 pixels the image packs into one byte.
            transpose, reverse, getter = self._fast
            packed = (image.transpose(Image.Transpose.TRANSPOSE) if transpose else image).tobytes()
            values = bytes(getter(packed))
            if reverse:
                values = values.translate(_REVERSED)
        else:
            pixels = image.convert("L").tobytes()
            bits = bytes(self._gather(pixels)).translate(_ONE)
            # Eight bits a byte, bit y the pixel of row y: planes shifted into place and added
            # (each byte of a plane is 0 or 1, so no sum carries into the next byte).
            value = 0
            for y in range(8):
                value |= int.from_bytes(bits[y::8], "big") << y
            values = value.to_bytes(len(bits) // 8, "big")
        n = self._row_bytes
        rows = []
        for digit in range(8):
            row = bytearray(2 * n)
            row[0::2] = bytes([self._const.DIGIT_0 + digit]) * n
            row[1::2] = values[digit * n:(digit + 1) * n]
            rows.append(bytes(row))
        return rows

    def display(self, image: Image.Image) -> None:
        """Send the digit rows of ``image`` that differ from what the chain has."""
        for digit, row in enumerate(self.encode(image)):
            if row != self._sent[digit]:
                self._sent[digit] = None  # unknown until the write returns
                self.data(list(row))
                self._sent[digit] = row

    def display_test(self, on: bool) -> None:
        """Light every LED of every chip with the display-test register (0x0F), whatever the
        digit, intensity and shutdown registers hold (the datasheet's "display-test mode"),
        or (``on=False``) show them again. It alters no register, so the frame comes back as
        it was. ``cueboard hwtest`` uses it; anything that leaves it on must turn it off."""
        self.data([self._const.DISPLAYTEST, 1 if on else 0] * self.cascaded)

    def forget(self) -> None:
        """Assume nothing about what the chain shows: the next frame goes out whole."""
        self._sent = [None] * 8

    def resync(self) -> None:
        """Send the set-up registers and every row again (what a power-on would need)."""
        c = self._const
        rows = list(self._sent)
        self.forget()
        self.data([c.SCANLIMIT, 7] * self.cascaded)
        self.data([c.DECODEMODE, 0] * self.cascaded)
        self.data([c.DISPLAYTEST, 0] * self.cascaded)
        self.contrast(self._contrast_level)
        for digit, row in enumerate(rows):
            if row is not None:
                self.data(list(row))
                self._sent[digit] = row
        self.show()
