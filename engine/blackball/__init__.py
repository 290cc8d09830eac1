"""Blackball: the pool game of ``shared/rules/blackball-fr.txt``, registered as ``"blackball"``."""

from .position import Position
from .rules import Blackball

__all__ = ["Blackball", "Position"]
