"""cueboard: the scoreboard controller for snooker and blackball tables."""

__version__ = "0.1.0"
