"""A keymap as text: which key is which action, for a terminal (``cueboard keypad-sim``,
``cueboard demo``). The pictures of docs/img/ are the same thing drawn (tools/keymap_pictures.py).

>>> from cueboard.table.keymap import Keymap
>>> km = Keymap.from_toml('game = "snooker"\\nlayout = [["RED", "FOUL", "SHIFT", "UNDO"]]\\n'
...                       '[hold]\\nFOUL = "MISS"\\n[shift]\\nUNDO = "REDO"')
>>> print("\\n".join(legend_lines(km)))
 0 RED   1 FOUL        2 SHIFT   3 UNDO
                                   shift REDO
           hold MISS
"""

from __future__ import annotations

from collections.abc import Sequence

from cueboard.games.key_sequences import legend
from cueboard.table.keymap import Keymap

__all__ = ["key_text", "legend_lines"]


def key_text(keymap: Keymap, action: str) -> str:
    """A key's legend; a digit says what it is: a ball (``1 red`` on a snooker keypad) or a
    side (``SIDE 1``)."""
    if not action:
        return "-"
    if action.isdigit():
        ball = keymap.grammar.ball(action)
        return f"{action} {ball}" if ball else f"SIDE {action}"
    return legend(action)


def legend_lines(keymap: Keymap, labels: Sequence[str] | None = None) -> list[str]:
    """The keys as they sit, a row of cells a row of keys: each cell the key's number (or
    its entry of ``labels``, e.g. the computer key that presses it) and legend, with its
    shifted action (``shift: X``) and its action when held (``hold: X``) under it."""
    columns = keymap.columns
    cells: list[list[str]] = []
    for index in range(keymap.size):
        action = keymap.action(index)
        label = labels[index] if labels is not None else str(index)
        cell = [f"{label:>2} {key_text(keymap, action)}"]
        shifted = keymap.shift.get(action)
        held = keymap.hold.get(action)
        cell.append(f"{'':3}shift {key_text(keymap, shifted)}" if shifted else "")
        cell.append(f"{'':3}hold {key_text(keymap, held)}" if held else "")
        cells.append(cell)
    widths = [max(len(line) for cell in cells[c::columns] for line in cell) + 2 for c in range(columns)]
    lines = []
    for row in range(keymap.size // columns):
        group = cells[row * columns:(row + 1) * columns]
        for part in range(3):
            if part and not any(cell[part] for cell in group):
                continue
            lines.append("".join(cell[part].ljust(w) for cell, w in zip(group, widths, strict=True)).rstrip())
    return lines
