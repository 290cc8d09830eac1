"""Pictures of keymaps: an SVG of the keys as they sit, drawn from the keymap file itself.

People look at a keypad, they don't read a table; drawing the picture from the TOML
keeps the two from drifting apart (tests/table/test_keymap.py checks that the pictures in
docs/img/ are what this draws). ``python tools/keymap_pictures.py`` redraws them.
"""

from __future__ import annotations

import sys
from html import escape
from pathlib import Path

from cueboard.games.key_sequences import SHIFT, SNOOKER_BALLS, legend
from cueboard.table.keymap import Keymap, load_keymap

ROOT = Path(__file__).resolve().parent.parent

PICTURES: dict[str, tuple[str, str]] = {
    # picture: (keymap, shape of the keys)
    "docs/img/referee-box.svg": ("examples/keymaps/referee-box-12.toml", "round"),
    "docs/img/keypad.svg": ("examples/keymaps/keypad-4x5.toml", "square"),
    "docs/img/referee-box-blackball.svg": ("examples/keymaps/referee-box-12-blackball.toml", "round"),
    "docs/img/keypad-blackball.svg": ("examples/keymaps/keypad-4x5-blackball.toml", "square"),
}

BALL_COLOURS = {
    "red": "#c62828", "yellow": "#f9d71c", "green": "#2e7d32", "brown": "#6d4c41",
    "blue": "#1565c0", "pink": "#f48fb1", "black": "#151515",
}
DARK_TEXT = {"yellow", "pink"}
FOUL_COLOUR = "#6a1b9a"  # not red: red is a ball
KEY_COLOURS = {
    "FOUL": FOUL_COLOUR, "MISS": FOUL_COLOUR, "TIME": FOUL_COLOUR, "LOSS": FOUL_COLOUR,
    "ILLEGAL_BREAK": FOUL_COLOUR, "UNDO": "#37474f", "REDO": "#37474f", "CLEAR": "#37474f", SHIFT: "#e65100",
}
SHIFT_COLOUR = "#e65100"
PLAIN = "#546e7a"

W, H, GAP, MARGIN, TOP = 124, 92, 14, 24, 64


def _ball(game: str, action: str) -> str | None:
    name = action.lower()
    if name in BALL_COLOURS and (game == "snooker" or name in ("red", "yellow", "black")):
        return name
    if game == "snooker" and action.isdigit() and 1 <= int(action) <= 7:
        return SNOOKER_BALLS[int(action) - 1]
    return None


def _lines(text: str) -> list[str]:
    """A legend on one line, or two when it is two words that do not fit."""
    words = text.split(" ")
    if len(text) <= 8 or len(words) == 1:
        return [text]
    return [" ".join(words[: len(words) // 2]), " ".join(words[len(words) // 2:])]


def _text(x: float, y: float, text: str, size: int, fill: str, weight: str = "bold") -> str:
    return (f'<text x="{x:g}" y="{y:g}" font-size="{size}" font-weight="{weight}" fill="{fill}" '
            f'text-anchor="middle">{escape(text)}</text>')


def draw(keymap: Keymap, shape: str = "square") -> str:
    """The SVG of ``keymap``: ``shape`` "round" for the buttons of a referee box, "square"
    for keypad keys. Shifted actions are printed above a key in orange; hold actions
    below it."""
    rows, columns = len(keymap.layout), keymap.columns
    width = 2 * MARGIN + columns * W + (columns - 1) * GAP
    numbers = _numbers(keymap)
    legend_h = 28 * (bool(keymap.shift) + bool(keymap.hold) + bool(numbers))
    height = TOP + rows * (H + GAP) - GAP + MARGIN + legend_h
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Verdana, Arial, sans-serif">',
        f'<rect width="{width}" height="{height}" rx="18" fill="#263238"/>',
        _text(width / 2, 30, keymap.description or f"{keymap.game} keymap", 18, "#eceff1"),
        _text(width / 2, 50, f"key n = row x {columns} + column, from 0 at the top left", 11,
              "#b0bec5", "normal"),
    ]
    index = 0
    for r, row in enumerate(keymap.layout):
        for c, action in enumerate(row):
            x = MARGIN + c * (W + GAP)
            y = TOP + r * (H + GAP)
            out.append(_key(keymap, action, index, x, y, shape))
            index += 1
    y = TOP + rows * (H + GAP) - GAP + 26
    if keymap.shift:
        out.append(_text(width / 2, y, "orange, above a key: press SHIFT first", 13, "#ffb74d", "normal"))
        y += 28
    if keymap.hold:
        out.append(_text(width / 2, y, "below a key: its action when held down", 13, "#eceff1", "normal"))
        y += 28
    if numbers:
        out.append(_text(width / 2, y, f"a side or a player: {numbers}", 13, "#eceff1", "normal"))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _numbers(keymap: Keymap) -> str:
    """Where no key is a digit, the keys that stand for sides and players ("RED 1, YELLOW 2,
    ..."), as the grammar reads them; "" where digits are keys."""
    actions = {a for row in keymap.layout for a in row} | set(keymap.shift.values())
    if any(a.isdigit() for a in actions):
        return ""
    named = []
    for n in range(1, 5):
        key = next((a for row in keymap.layout for a in row if a and keymap.grammar.number(a) == n), None)
        if key is None:
            return ""
        named.append(f"{legend(key)} {n}")
    return ", ".join(named)


def _shift_label(keymap: Keymap, action: str) -> str:
    """A shifted action as printed above its key: a side number says it is one."""
    return f"SIDE {action}" if action.isdigit() and _ball(keymap.game, action) is None else legend(action)


def _key(keymap: Keymap, action: str, index: int, x: float, y: float, shape: str) -> str:
    cx, cy = x + W / 2, y + H / 2
    parts = [f'<g id="key-{index}">']
    ball = _ball(keymap.game, action)
    fill = BALL_COLOURS[ball] if ball else KEY_COLOURS.get(action, PLAIN) if action else "#37474f"
    ink = "#111111" if ball in DARK_TEXT else "#ffffff"
    if shape == "round":
        parts.append(f'<rect x="{x}" y="{y}" width="{W}" height="{H}" rx="12" fill="#37474f"/>')
        parts.append(f'<circle cx="{cx:g}" cy="{cy + 2:g}" r="27" fill="{fill}" stroke="#eceff1" '
                     f'stroke-width="3"/>')
        main_y, main_size = y + 16, 12
        parts.append(_text(cx, cy + 7, str(index), 14, ink if ball else "#ffffff", "normal"))
    else:
        parts.append(f'<rect x="{x}" y="{y}" width="{W}" height="{H}" rx="10" fill="{fill}" '
                     f'stroke="#eceff1" stroke-width="2"/>')
        main_y, main_size = cy + 7, 20
        parts.append(_text(x + W - 10, y + H - 8, str(index), 10, ink, "normal"))
    if action:
        text = legend(action)
        if ball and action.isdigit():
            # A digit key of a snooker keypad: the digit big, the ball it pots below.
            parts.append(_text(cx, main_y + 2, text, 26, ink))
            parts.append(_text(cx, y + H - 10, ball.upper(), 10, ink, "normal"))
        elif shape == "round":
            parts.append(_text(cx, main_y, text, main_size, "#ffffff"))
        else:
            lines = _lines(text)
            size = main_size if len(lines) == 1 and len(text) <= 6 else 14
            first = main_y - (len(lines) - 1) * 9
            for n, line in enumerate(lines):
                parts.append(_text(cx, first + n * 18, line, size, ink))
    shifted = keymap.shift.get(action)
    if shifted:
        parts.append(f'<rect x="{x + 6}" y="{y - 11}" width="{W - 12}" height="18" rx="5" fill="#263238"/>')
        parts.append(_text(cx, y + 3, _shift_label(keymap, shifted), 12, "#ffb74d"))
    held = keymap.hold.get(action)
    if held:
        parts.append(_text(cx, y + H - 6 if shape == "round" else y + H + 12, f"hold: {legend(held)}", 11,
                           "#ffffff"))
    parts.append("</g>")
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    """Redraw the pictures of docs/img/ from examples/keymaps/."""
    for picture, (source, shape) in PICTURES.items():
        (ROOT / picture).parent.mkdir(parents=True, exist_ok=True)
        (ROOT / picture).write_text(draw(load_keymap(ROOT / source), shape), encoding="utf-8")
        print(picture)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
