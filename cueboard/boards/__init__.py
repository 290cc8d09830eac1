"""LED scoreboard layouts: the state of ``state.md`` drawn on boards of 32x8, 64x16, 128x32.

What a board draws is a :class:`~.shown.Shown`: the engine's typed state (``Match.state()``)
with what the table adds to it (the match handed on, the desk's message, the shot clock's
call and hold); each game's layouts read that game's state.

The drawing code knows nothing of the hardware: it draws with Pillow inside luma's
``with canvas(device)`` on whatever luma device it is given -- a MAX7219 chain, a WS2812
panel, luma's ``dummy`` in the tests, an emulator on a laptop (``cueboard.table.devices``
opens those from the configuration).

:class:`Renderer` holds what one board shows: the last state and shot clock, their scene,
and when each moving part (pages, scrolling names) appeared, so that it can say whether
the picture changed (:meth:`Renderer.phase`) and when it next will
(:meth:`Renderer.next_change`). Time is always passed in, never read. It also holds the
conversation bar (:mod:`.bar`): the call being keyed in, a lapsed call, a refused key's
reason and when that goes.

>>> from cueboard.boards.shown import Shown
>>> from cueboard.engine import Match
>>> match = Match.from_json({"type": "match", "game": "snooker", "sides": ["Ann", "Bob"]})
>>> image = render(Shown(match.state()), 32, 8, mode="1")
>>> image.size, image.mode
((32, 8), '1')
"""

from __future__ import annotations

from cueboard.boards.board import FLASH, Board, Device, DeviceFactory
from cueboard.boards.catalogue import LAYOUTS
from cueboard.boards.layout import SIZES, Layout, LayoutOptions, parse_size
from cueboard.boards.render import Renderer, layout_for, render
from cueboard.boards.scene import Motion

__all__ = ["FLASH", "LAYOUTS", "SIZES", "Board", "Device", "DeviceFactory", "Layout", "LayoutOptions", "Motion",
           "Renderer", "layout_for", "parse_size", "render"]
