"""Comparing a drawn sheet of board pictures with its golden PNG, picture by picture, so that
a failure names the states (and pages or moments) that differ. ``CUEBOARD_UPDATE_GOLDEN=1``
redraws the golden instead (look at it before committing)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from PIL import Image

UPDATE = os.environ.get("CUEBOARD_UPDATE_GOLDEN", "") not in ("", "0")


def compare_sheet(drawn: Image.Image, path: Path, corners: Sequence[Sequence[tuple[int, int]]],
                  names: Sequence[str], size: tuple[int, int], what: str = "page") -> None:
    """Each picture of ``drawn`` (at ``corners``, a row a name) against ``path``'s."""
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        drawn.save(path, optimize=True)
    with Image.open(path) as saved:
        golden = saved.convert(drawn.mode) if saved.mode != drawn.mode and drawn.mode != "1" else saved.copy()
    assert golden.mode == drawn.mode, f"{path.name}: {golden.mode} pictures, not {drawn.mode}"
    wrong = []
    for name, row in zip(names, corners, strict=True):
        for k, (x, y) in enumerate(row, start=1):
            box = (x, y, x + size[0], y + size[1])
            if drawn.crop(box).tobytes() != golden.crop(box).tobytes():
                wrong.append(f"{name} {what} {k}")
    assert drawn.size == golden.size, f"{what}s added or gone: redraw {path.name} (see the module's doc)"
    assert not wrong, f"{path.name}: {', '.join(wrong)} differ (see the module's doc to redraw)"
