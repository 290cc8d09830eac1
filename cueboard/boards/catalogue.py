"""Which layout draws which game on which board: the layouts of each game, listed.

Nothing registers itself: :data:`LAYOUTS` names every layout of every game, once; the game
registry (``cueboard.games.kits``, above the boards) reads each game's from it and refuses a game
with none, or layouts of a game it does not list. :func:`find_layout` picks one for a
board: the layout of the board's size, else the largest that fits (drawn in the middle),
else :class:`~.layout.TinyLayout`, which shows the two numbers in the 3x5 font on anything
from 8x5 up.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from cueboard.boards.blackball import Blackball32x8, Blackball64x16, Blackball128x32
from cueboard.boards.hall import HALL_BLACKBALL, HALL_SNOOKER
from cueboard.boards.layout import Layout, LayoutOptions, TinyLayout, fitting_size
from cueboard.boards.snooker import Snooker32x8, Snooker64x16, Snooker128x32
from cueboard.engine.state import State

__all__ = ["LAYOUTS", "LayoutsBySize", "by_size", "find_layout"]

LayoutsBySize = Mapping[tuple[int, int], type[Layout]]


def by_size(game: str, layouts: tuple[type[Layout], ...]) -> LayoutsBySize:
    """``layouts`` by (width, height); ValueError on a layout of another game or two of one size."""
    out: dict[tuple[int, int], type[Layout]] = {}
    for cls in layouts:
        size = (cls.width, cls.height)
        if cls.game != game:
            raise ValueError(f"layout {cls.__name__} draws {cls.game!r}, listed for {game!r}")
        if size in out:
            raise ValueError(f"two {game} layouts of {size[0]}x{size[1]}: {out[size].__name__}, {cls.__name__}")
        out[size] = cls
    return MappingProxyType(out)


LAYOUTS: Mapping[str, LayoutsBySize] = MappingProxyType({
    "snooker": by_size("snooker", (Snooker32x8, Snooker64x16, Snooker128x32, *HALL_SNOOKER)),
    "blackball": by_size("blackball", (Blackball32x8, Blackball64x16, Blackball128x32, *HALL_BLACKBALL)),
})
"""game -> {(width, height): layout class}: every board layout, listed once."""


def find_layout(state: State, width: int, height: int,
                options: LayoutOptions | None = None) -> Layout:
    """The layout for ``state`` on a ``width`` x ``height`` board (see the module's doc)."""
    size = fitting_size(width, height)
    if size is None:
        return TinyLayout(width, height, options)
    cls = LAYOUTS.get(state.game, {}).get(size)
    return cls(options) if cls is not None else TinyLayout(width, height, options)
