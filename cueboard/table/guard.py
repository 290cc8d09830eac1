"""An output that fails is logged and reported in its health; scoring goes on."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger("cueboard")

__all__ = ["guard"]


def guard(method: Callable[..., Any], *args: Any) -> None:
    """Call an output (a board, the feed): one that raises is logged, never stops the engine thread."""
    try:
        method(*args)
    except Exception:
        log.exception("%s failed", getattr(method, "__qualname__", method))
