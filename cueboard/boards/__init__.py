"""LED scoreboard layouts: the state of docs/state.md drawn on boards of 32x8, 64x16, 128x32
and the hall's HUB75 sizes, knowing nothing of the hardware. How it is organised:
docs/boards.md, "How the drawing is organised".
"""

from __future__ import annotations

from cueboard.boards.board import FLASH, Board, Device, DeviceFactory
from cueboard.boards.catalogue import LAYOUTS
from cueboard.boards.layout import SIZES, Layout, LayoutOptions, parse_size
from cueboard.boards.render import Renderer, layout_for, render
from cueboard.boards.scene import Motion

__all__ = ["FLASH", "LAYOUTS", "SIZES", "Board", "Device", "DeviceFactory", "Layout", "LayoutOptions", "Motion",
           "Renderer", "layout_for", "parse_size", "render"]
