"""How the engine declares the values it builds on every event (the state, its sides, the
events): :func:`value`, a slotted dataclass that type checkers hold frozen.

Why not ``@dataclass(frozen=True)``: CPython 3.11's ``__init__`` of a frozen dataclass sets each
field through ``object.__setattr__``, most of what the state after every event cost
(``bench/engine_instructions.py``; docs/performance.md, issues 25 and 36). Without ``frozen``
each field is one slot store. Nothing may change such a value once built: ``Match.state()``
hands out the same state while the position and ``seq`` are the same, the record keeps the
states it was given, the match keeps its events. mypy holds every field read-only
(``frozen_default``: an assignment is an error), and ``tests/engine/test_engine_speed_positions.py``
checks that every state a match gave stays what it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar, dataclass_transform

T = TypeVar("T")


@dataclass_transform(frozen_default=True)
def value(*, kw_only: bool = False) -> Callable[[type[T]], type[T]]:
    """A class decorator: the class as a slotted dataclass, hashed by its fields as a frozen one
    is (``unsafe_hash``: the fields are never changed, see the module); ``kw_only`` as
    :func:`dataclasses.dataclass`'s."""
    def make(cls: type[T]) -> type[T]:
        return dataclass(slots=True, kw_only=kw_only, unsafe_hash=True)(cls)
    return make
