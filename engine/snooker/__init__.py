"""Snooker: the WPBSA rules, listed as the game ``"snooker"`` in ``registry.GAMES``."""

from .position import Position
from .rules import Snooker

__all__ = ["Position", "Snooker"]
