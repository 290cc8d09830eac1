"""The games cueboard plays: one registry.

The engine's registry (:data:`cueboard.engine.GAMES`) says which games there are and holds
their rules; everything else a game needs in the product hangs off its entry here, in the
manner of python-chess's variants: the key grammar of its keymaps
(``cueboard.key_sequences``), its board layouts (``cueboard.boards``) and its simulator
(``cueboard.simulate``). Each of those modules registers its part when it is imported; a
name the engine does not know is refused, naming the games there are.

>>> import cueboard.key_sequences
>>> kit("snooker").keys.game
'snooker'
>>> kit("pool")
Traceback (most recent call last):
...
cueboard.engine.errors.IllegalEvent: match: 'game' must be one of 'blackball', 'snooker', not 'pool'
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from .engine import GAMES, Game, find_game

if TYPE_CHECKING:  # types only: these modules import this one to register their part
    from .boards.layout import Layout
    from .key_sequences import Grammar
    from .simulate import Simulator

__all__ = ["KITS", "GameKit", "PartView", "kit"]


@dataclass
class GameKit:
    """Everything the product knows of one game, besides its rules."""

    rules: type[Game[Any]]
    keys: Grammar | None = None
    """The key sequences of its referee boxes and keypads."""
    layouts: dict[tuple[int, int], type[Layout]] = field(default_factory=dict)
    """Its board layouts by size (width, height)."""
    simulator: Simulator | None = None
    """Random legal matches, for the demo, the benches and the property tests."""


KITS: dict[str, GameKit] = {name: GameKit(rules) for name, rules in GAMES.items()}
"""One entry for each game of the engine's registry, and no other."""


def kit(name: Any) -> GameKit:
    """The entry of game ``name``; IllegalEvent naming the games there are if there is none."""
    find_game(name)
    entry: GameKit = KITS[name]
    return entry


V = TypeVar("V")


class PartView(Mapping[str, V]):
    """One part of every entry, by game name, for the games that have it: a read-only view
    of :data:`KITS` (``cueboard.key_sequences.GRAMMARS`` is the key grammars), not a
    registry of its own.

    >>> import cueboard.simulate
    >>> sorted(PartView(lambda entry: entry.simulator))
    ['blackball', 'snooker']
    """

    def __init__(self, part: Callable[[GameKit], V | None]) -> None:
        self._part = part

    def __getitem__(self, name: str) -> V:
        entry = KITS.get(name)
        value = None if entry is None else self._part(entry)
        if value is None:
            raise KeyError(name)
        return value

    def __iter__(self) -> Iterator[str]:
        return (name for name, entry in KITS.items() if self._part(entry) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)
