"""The scorer app's icons (screen/score/icon-*.png, docs/scorer.md), drawn from the screen's own
``screen/favicon.svg`` by ``rsvg-convert`` (Debian's librsvg2-bin):

    .venv/bin/python tools/scorer_icons.py

- ``icon-192.png``, ``icon-512.png`` (purpose ``any``): the favicon as it is, rounded corners.
- ``icon-maskable-192.png``, ``icon-maskable-512.png`` (purpose ``maskable``): the same drawing
  with square corners, so a launcher's mask (circle, squircle, rounded square) cuts only felt.
  The ball (radius 22 of 64) lies inside the maskable safe zone, the centred circle of radius
  40 % of the icon (25.6 of 64), so no mask cuts it.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SVG = ROOT / "screen" / "favicon.svg"
OUT = ROOT / "screen" / "score"
SIZES = (192, 512)


def maskable(svg: str) -> str:
    """The favicon with a full-bleed background: the corner radius taken off its first rect."""
    return re.sub(r'(<rect [^>]*?) rx="[^"]*"', r"\1", svg, count=1)


def draw(svg: str, size: int, path: Path) -> None:
    subprocess.run(["rsvg-convert", "--width", str(size), "--height", str(size), "--format", "png",
                    "--output", str(path)], input=svg.encode(), check=True)


def main() -> int:
    svg = SVG.read_text()
    for size in SIZES:
        draw(svg, size, OUT / f"icon-{size}.png")
        draw(maskable(svg), size, OUT / f"icon-maskable-{size}.png")
    print(f"wrote {', '.join(f'icon-{s}.png, icon-maskable-{s}.png' for s in SIZES)} in {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
