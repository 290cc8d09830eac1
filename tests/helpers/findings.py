"""The ``finding`` fixture's type (tests/conftest.py), for the tests that annotate it."""

from __future__ import annotations

from collections.abc import Callable

Finding = Callable[..., None]
"""The ``finding`` fixture's type: ``finding(sentence, **figures)``."""
