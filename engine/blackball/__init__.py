"""Blackball: the pool game of ``shared/rules/blackball-fr.txt``, listed as ``"blackball"`` in ``registry.GAMES``."""

from .position import Position
from .rules import Blackball

__all__ = ["Blackball", "Position"]
