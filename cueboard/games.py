"""The games cueboard plays: one explicit registry, :data:`KITS`.

Each game is one entry listing every part the product needs of it, in the manner of
python-chess's variants: its rules (the engine's :class:`~cueboard.engine.Game`), the key
grammar of its referee boxes and keypads (``cueboard.key_sequences``), its board layouts
(``cueboard.boards.catalogue``), its simulator (``cueboard.simulate_snooker``,
``cueboard.simulate_blackball``) and the sheet of its match record
(``cueboard.engine.record``). Nothing registers itself on import: a new game is its folders
and one entry here. Every part is required and checked when this module is imported
(:class:`GameKit`), so a game missing a part is an error naming the game and the part, never
a ``None`` later; a name the engine does not know is refused, naming the games there are.

>>> kit("snooker").keys.game
'snooker'
>>> kit("pool")
Traceback (most recent call last):
...
cueboard.engine.errors.IllegalEvent: match: 'game' must be one of 'blackball', 'snooker', not 'pool'
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from .boards.catalogue import BLACKBALL_LAYOUTS, LAYOUTS, SNOOKER_LAYOUTS
from .boards.layout import Layout
from .engine import GAMES, Game, find_game
from .engine.blackball import Blackball
from .engine.record import SHEETS, BlackballSheet, Sheet, SnookerSheet
from .engine.snooker import Snooker
from .engine.state import State
from .key_sequences import BlackballKeys, Grammar, SnookerKeys
from .simulate_blackball import blackball_candidates, blackball_setup
from .simulate_snooker import snooker_candidates, snooker_setup

__all__ = ["KITS", "Candidate", "CandidateFn", "Event", "GameKit", "IncompleteGame", "SetupFn", "Simulator",
           "kit"]

Event = dict[str, Any]
"""An event as the JSON object of the log."""

Candidate = tuple[float, Event]
"""A proposed event and its relative weight."""

CandidateFn = Callable[[State], list[Candidate]]

SetupFn = Callable[[random.Random], dict[str, Any]]


class IncompleteGame(TypeError):
    """A game's entry lacks a part, or a part is of another game: a programming error (not
    bad input, so not under ``cueboard.errors.CueboardError``), raised when this module is
    imported."""


@dataclass(frozen=True)
class Simulator:
    """A game's part of the simulator (``cueboard.simulate``): ``candidates`` from the match's
    ``state()`` to weighted candidate events, and ``setup`` from a ``random.Random`` to a
    random match line."""

    candidates: CandidateFn
    setup: SetupFn


@dataclass(frozen=True)
class GameKit:
    """Everything the product knows of one game: every part required, checked on creation."""

    rules: type[Game[Any]]
    keys: Grammar
    """The key sequences of its referee boxes and keypads."""
    layouts: tuple[type[Layout], ...]
    """Its board layouts, one a size."""
    simulator: Simulator
    """Random legal matches, for the demo, the benches and the property tests."""
    sheet: Sheet
    """What its match record (``cueboard.engine.record``) writes of it."""

    def __post_init__(self) -> None:
        name = getattr(self.rules, "name", None)
        if not (isinstance(self.rules, type) and issubclass(self.rules, Game) and isinstance(name, str)):
            raise IncompleteGame(f"a game's rules are a named engine Game, not {self.rules!r}")
        parts: dict[str, tuple[object, type]] = {
            "keys": (self.keys, Grammar), "simulator": (self.simulator, Simulator), "sheet": (self.sheet, Sheet)}
        for part, (value, kind) in parts.items():
            if not isinstance(value, kind):
                raise IncompleteGame(f"game {name!r}: its {part} must be a {kind.__name__}, not {value!r}")
            game = getattr(value, "game", name)  # a simulator is the game's by where it is listed
            if game != name:
                raise IncompleteGame(f"game {name!r}: its {part} are of the game {game!r}")
        if not self.layouts:
            raise IncompleteGame(f"game {name!r}: it has no board layouts")
        for layout in self.layouts:
            if layout.game != name:
                raise IncompleteGame(f"game {name!r}: layout {layout.__name__} draws {layout.game!r}")

    @property
    def name(self) -> str:
        return self.rules.name

    @property
    def layouts_by_size(self) -> Mapping[tuple[int, int], type[Layout]]:
        """Its layouts by (width, height)."""
        return {(cls.width, cls.height): cls for cls in self.layouts}


def registry(*kits: GameKit) -> Mapping[str, GameKit]:
    """The kits by game name: exactly the engine's games, each once; IncompleteGame naming the
    game otherwise (a game of the engine with no kit, a kit of no engine game, one twice)."""
    out: dict[str, GameKit] = {}
    for entry in kits:
        if entry.name in out:
            raise IncompleteGame(f"game {entry.name!r} is listed twice")
        if GAMES.get(entry.name) is not entry.rules:
            raise IncompleteGame(f"game {entry.name!r} is not the engine's game of that name")
        if LAYOUTS.get(entry.name, {}) != entry.layouts_by_size:
            raise IncompleteGame(f"game {entry.name!r}: its layouts are not those the boards draw it with")
        if type(SHEETS.get(entry.name)) is not type(entry.sheet):
            raise IncompleteGame(f"game {entry.name!r}: its sheet is not the one its match record is written with")
        out[entry.name] = entry
    missing = sorted(set(GAMES) - set(out))
    if missing:
        raise IncompleteGame(f"no parts listed for the engine's game(s) {', '.join(map(repr, missing))}")
    return MappingProxyType(out)


KITS: Mapping[str, GameKit] = registry(
    GameKit(Snooker, SnookerKeys(), SNOOKER_LAYOUTS, Simulator(snooker_candidates, snooker_setup), SnookerSheet()),
    GameKit(Blackball, BlackballKeys(), BLACKBALL_LAYOUTS, Simulator(blackball_candidates, blackball_setup),
            BlackballSheet()),
)
"""Every game, one line each, with all its parts."""


def kit(name: Any) -> GameKit:
    """The entry of game ``name``; IllegalEvent naming the games there are if there is none."""
    find_game(name)
    return KITS[name]
