"""How each game's state is declared: :func:`state_value`, a slotted dataclass that type
checkers hold frozen.

Why not ``@dataclass(frozen=True)``: CPython 3.11's ``__init__`` of a frozen dataclass sets each
field through ``object.__setattr__``, most of what the state after every event cost
(``bench/engine_instructions.py``; docs/performance.md, issue 25). Without ``frozen`` each field
is one slot store. Nothing may change a state once built: ``Match.state()`` hands out the same
object while the position and ``seq`` are the same, and the record keeps what it was given.
mypy holds every field read-only (``frozen_default``: an assignment is an error), and
``tests/test_engine_speed_positions.py`` checks that every state a match gave stays what the
game's ``view`` of its position gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar, dataclass_transform

T = TypeVar("T")


@dataclass_transform(frozen_default=True, kw_only_default=True)
def state_value(cls: type[T]) -> type[T]:
    """``cls`` as a slotted dataclass built by keyword, hashed by its fields as a frozen one is
    (``unsafe_hash``: the fields are never changed, see the module)."""
    return dataclass(slots=True, kw_only=True, unsafe_hash=True)(cls)
