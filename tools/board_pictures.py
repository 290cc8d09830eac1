"""Sheets of board pictures: every layout showing a set of states, page by page.

A sheet has a row a state and a column a page (what the board shows at 0, 2.5, 5 ...
seconds, pictures that repeat left out), the boards one pixel an LED with a 2-pixel
gap between them. The golden tests compare such sheets with ``tests/golden/``, and the
pictures in ``docs/img/`` are sheets drawn as LEDs. ``python tools/board_pictures.py``
redraws the pictures in ``docs/img/`` from the states of ``tests/golden/states.json``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from cueboard.boards import LayoutOptions, render
from cueboard.boards.preview import leds

__all__ = ["GAP", "PICTURES", "Case", "led_sheet", "load_cases", "pages", "pictures", "sheet"]

ROOT = Path(__file__).resolve().parent.parent
STATES = ROOT / "tests" / "golden" / "states.json"
GAP = 2
MAX_PAGES = 4
SAMPLES = 6


@dataclass(frozen=True)
class Case:
    """A state to draw, with the shot clock's seconds left (None: not running)."""

    name: str
    state: dict[str, Any]
    clock: float | None = None


def load_cases(path: Path = STATES) -> dict[str, list[Case]]:
    """The named states of each game in ``path`` (``tests/golden/states.json``)."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    return {game: [Case(c["name"], c["state"], c.get("clock")) for c in cases] for game, cases in raw.items()}


def pages(case: Case, width: int, height: int, mode: str, *, size: tuple[int, int] | None = None,
          options: LayoutOptions | None = None) -> list[Image.Image]:
    """The pictures ``case`` shows in turn (sampled every ``page_seconds``), repeats left out."""
    seconds = (options or LayoutOptions()).page_seconds
    out: list[Image.Image] = []
    seen: set[bytes] = set()
    for k in range(SAMPLES):
        image = render(case.state, width, height, mode=mode, clock=case.clock, at=k * seconds, size=size,
                       options=options)
        data = image.tobytes()
        if data not in seen:
            seen.add(data)
            out.append(image)
        if len(out) == MAX_PAGES:
            break
    return out


def sheet(cases: Sequence[Case], width: int, height: int, mode: str, *,
          size: tuple[int, int] | None = None) -> tuple[Image.Image, list[list[tuple[int, int]]]]:
    """The sheet of ``cases`` and, for each case, the top-left corner of each of its pages."""
    rows = [pages(c, width, height, mode, size=size) for c in cases]
    columns = max(len(r) for r in rows)
    image = Image.new(mode, (columns * (width + GAP) - GAP, len(rows) * (height + GAP) - GAP))
    corners: list[list[tuple[int, int]]] = []
    for r, row in enumerate(rows):
        corners.append([])
        for c, page in enumerate(row):
            xy = (c * (width + GAP), r * (height + GAP))
            image.paste(page, xy)
            corners[-1].append(xy)
    return image, corners


PICTURES: dict[str, tuple[str, tuple[int, int], str, tuple[str, ...]]] = {
    # picture: (game, board size, mode, the cases it shows)
    "docs/img/board-snooker-32x8.png": ("snooker", (32, 8), "1", ("break", "free-ball", "snookers")),
    "docs/img/board-snooker-64x16.png": ("snooker", (64, 16), "RGB", ("break", "snookers", "match-over")),
    "docs/img/board-snooker-128x32.png": ("snooker", (128, 32), "RGB", ("break", "snookers", "respotted-black")),
    "docs/img/board-blackball-32x8.png": ("blackball", (32, 8), "1", ("groups", "free-shot", "match-over")),
    "docs/img/board-blackball-64x16.png": ("blackball", (64, 16), "RGB", ("groups", "free-shot", "match-over")),
    "docs/img/board-blackball-128x32.png": ("blackball", (128, 32), "RGB", ("groups", "free-shot",
                                                                             "match-over")),
}
"""The pictures in ``docs/img/``: a few telling states of each layout, as LEDs."""


def led_sheet(rows: Sequence[Sequence[Image.Image]], scale: int, margin: int = 12) -> Image.Image:
    """Boards as LEDs (:func:`~.preview.leds`), a row of pages a state, on a grey ground."""
    drawn = [[leds(page, scale=scale) for page in row] for row in rows]
    cell_w = max(d.width for row in drawn for d in row)
    cell_h = max(d.height for row in drawn for d in row)
    columns = max(len(row) for row in drawn)
    image = Image.new("RGB", (margin + columns * (cell_w + margin), margin + len(drawn) * (cell_h + margin)),
                      (72, 72, 78))
    for r, row in enumerate(drawn):
        for c, board in enumerate(row):
            image.paste(board, (margin + c * (cell_w + margin), margin + r * (cell_h + margin)))
    return image


def pictures(root: Path = ROOT) -> dict[str, Image.Image]:
    """Each picture of :data:`PICTURES`, drawn."""
    cases = load_cases(root / "tests" / "golden" / "states.json")
    out = {}
    for path, (game, (w, h), mode, names) in PICTURES.items():
        rows = [pages(c, w, h, mode) for c in cases[game] if c.name in names]
        out[path] = led_sheet(rows, scale=8 if w <= 64 else 6)
    return out


def main() -> int:
    for path, image in pictures().items():
        image.save(ROOT / path, optimize=True)
        print(path, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
