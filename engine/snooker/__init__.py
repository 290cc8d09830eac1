"""Snooker: the WPBSA rules, registered as the game ``"snooker"``."""

from .position import Position
from .rules import Snooker

__all__ = ["Position", "Snooker"]
