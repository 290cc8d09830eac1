"""Reading an image's pixels, on the Pi's Pillow and a newer one alike."""

from __future__ import annotations

from typing import Any

from PIL import Image

__all__ = ["pixel_values"]


def pixel_values(image: Image.Image) -> list[Any]:
    """The pixels of ``image`` row by row (Pillow 13 renamed ``getdata``; the Pi's may be older)."""
    flat = getattr(image, "get_flattened_data", None)
    return list(flat() if flat is not None else image.getdata())
