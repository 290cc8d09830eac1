"""A terminal's text as a PNG: what ``tmux capture-pane -p`` printed, drawn in a monospace font.

For the screenshots of terminal programs in docs/img/ (docs/keymaps.md: the keypad simulator)::

    tmux capture-pane -p -t sim > sim.txt
    python tools/terminal_picture.py sim.txt docs/img/keypad-sim.png

Trailing blank lines are left out. Lines the program printed about the host (``host ...``)
are drawn in green, refusals in orange, so they stand out as they do to the eye on a terminal.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
BACKGROUND, TEXT, HOST, REFUSED = "#1e1e1e", "#e0e0e0", "#8fd18f", "#ffb74d"


def draw(text: str, size: int = 16, margin: int = 16) -> Image.Image:
    lines = text.rstrip("\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    font = ImageFont.truetype(FONT, size)
    cell_w, cell_h = font.getlength("M"), int(size * 1.3)
    width = int(max(len(line) for line in lines) * cell_w) + 2 * margin
    image = Image.new("RGB", (width, len(lines) * cell_h + 2 * margin), BACKGROUND)
    pen = ImageDraw.Draw(image)
    for n, line in enumerate(lines):
        colour = REFUSED if "refused" in line else HOST if line.startswith(("host", "MQTT")) else TEXT
        pen.text((margin, margin + n * cell_h), line, font=font, fill=colour)
    return image


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: terminal_picture.py TEXT_FILE OUT.png", file=sys.stderr)
        return 2
    draw(Path(argv[0]).read_text(encoding="utf-8")).save(argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
