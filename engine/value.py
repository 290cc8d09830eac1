"""How the engine declares the values it builds on every event (the state, its sides, the
events): :func:`value`, a slotted dataclass that type checkers hold frozen, not frozen at run
time (a frozen dataclass's ``__init__`` costs each field a call). Why, and what checks that
nothing changes one: docs/engine.md ("API") and docs/performance.md (issues 25 and 36).
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
