"""What an input device reports: one value per key press, the same from every device.

The keypad's serial link and the referee boxes on GPIO both report a press the
moment it is recognised (its first edge), and report the *same* press once more
with ``held=True`` if the key is still down after the device's hold time. A
device never reports a release. ``cueboard.table.keymap`` turns these into events:
it acts on the first report, and on the second only for keys that have a hold
action (docs/keymaps.md).

>>> KeyPress(7)
KeyPress(index=7, held=False)
>>> ButtonPress(box=1, button=8, held=True).index
8
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class KeyPress:
    """A key of the marker's keypad. ``index`` = row * columns + column, 0-based, of the
    keypad's grid (a 4-column, 5-row keypad: 0-19, top left first); ``held``: the second
    report of a press still down after the hold time."""

    index: int
    held: bool = False


@dataclass(frozen=True, slots=True)
class ButtonPress:
    """A button of a referee box on GPIO. ``box``: which box of the table (0 or 1);
    ``button``: the button's number, row * columns + column of the box's grid, which is
    also its place in the box's ``pins`` list; ``held`` as for :class:`KeyPress`."""

    box: int
    button: int
    held: bool = False

    @property
    def index(self) -> int:
        """The key index a keymap reads: the button's number."""
        return self.button
