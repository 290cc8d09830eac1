"""The games cueboard plays: one explicit registry, :data:`KITS`, an entry a game listing every
part the product needs of it, checked on import. What an entry holds and why:
:func:`registry`, and docs/layers.md.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from cueboard.boards.catalogue import LAYOUTS, LayoutsBySize
from cueboard.boards.layout import Layout
from cueboard.engine import GAMES, Event, Game, find_game
from cueboard.engine.blackball import Blackball
from cueboard.engine.json_value import Json, JsonObject
from cueboard.engine.record import SHEETS, Sheet
from cueboard.engine.registry import GameType
from cueboard.engine.snooker import Snooker
from cueboard.engine.state import State
from cueboard.games.key_sequences import BlackballKeys, Grammar, SnookerKeys
from cueboard.games.sheet_lines import BlackballPrinted, PrintedSheet, SnookerPrinted
from cueboard.games.simulate_blackball import blackball_candidates, blackball_setup
from cueboard.games.simulate_snooker import snooker_candidates, snooker_setup, snooker_stroke

__all__ = ["KITS", "Candidate", "CandidateFn", "Demo", "GameKit", "IncompleteGame", "SetupFn",
           "Simulator", "StrokeFn", "kit", "registry"]

Candidate = tuple[float, Event]
"""A proposed engine event and its relative weight."""

CandidateFn = Callable[[State], list[Candidate]]

SetupFn = Callable[[random.Random], JsonObject]

StrokeFn = Callable[[State, random.Random, Event | None, tuple[float, float]], Event]
"""From the match's typed state, the previous event and the striker's skill (a pot's chance at
the start of a visit and within a break) to the next event a good player would make."""


class IncompleteGame(TypeError):
    """A game's entry lacks a part, or a part is of another game: a programming error (not
    bad input, so not under ``cueboard.common.errors.CueboardError``), raised when this module is
    imported."""


@dataclass(frozen=True)
class Simulator:
    """A game's part of the simulator (``cueboard.games.simulate``): ``candidates`` from the match's
    typed ``state()`` to weighted candidate engine events, ``setup`` from a ``random.Random`` to
    a random match line, and ``stroke``, a model of good play for ``realistic_log`` (the demo,
    the benches) from the typed state to an engine event; a game without one is played there by
    weighted legal candidates."""

    candidates: CandidateFn
    setup: SetupFn
    stroke: StrokeFn | None = None


@dataclass(frozen=True)
class Demo:
    """What ``cueboard demo`` sets up for the game: the shipped keymaps of its referee box and
    keypad (files in ``examples/keymaps``) and its match line's fields besides ``game``."""

    referee_box: str
    keypad: str
    match: Mapping[str, Json]


@dataclass(frozen=True)
class GameKit:
    """Everything the product knows of one game: every part required, checked on creation."""

    rules: GameType
    keys: Grammar
    """The key sequences of its referee boxes and keypads."""
    simulator: Simulator
    """Random legal matches, for the demo, the benches and the property tests."""
    printed: PrintedSheet
    """What its printed result sheet (``cueboard.league.result_sheet``) shows of it."""
    demo: Demo
    """What ``cueboard demo`` plays it with."""
    layouts_by_size: LayoutsBySize = field(init=False, repr=False, compare=False)
    """Its board layouts by (width, height): the boards' list (``cueboard.boards.catalogue``)."""
    sheet: Sheet = field(init=False, repr=False, compare=False)
    """What its match record writes of it: the engine's (``cueboard.engine.record``)."""

    def __post_init__(self) -> None:
        name = getattr(self.rules, "name", None)
        if not (isinstance(self.rules, type) and issubclass(self.rules, Game) and isinstance(name, str)):
            raise IncompleteGame(f"a game's rules are a named engine Game, not {self.rules!r}")
        parts: dict[str, tuple[object, type]] = {
            "keys": (self.keys, Grammar), "simulator": (self.simulator, Simulator),
            "printed": (self.printed, PrintedSheet), "demo": (self.demo, Demo)}
        for part, (value, kind) in parts.items():
            if not isinstance(value, kind):
                raise IncompleteGame(f"game {name!r}: its {part} must be a {kind.__name__}, not {value!r}")
            game = getattr(value, "game", name)  # a simulator or a demo is the game's by where it is listed
            if game != name:
                raise IncompleteGame(f"game {name!r}: its {part} are of the game {game!r}")
        layouts = LAYOUTS.get(name)
        if not layouts:
            raise IncompleteGame(f"game {name!r}: it has no board layouts (LAYOUTS in cueboard/boards/catalogue.py)")
        sheet = SHEETS.get(name)
        if sheet is None:
            raise IncompleteGame(f"game {name!r}: it has no record sheet (SHEETS in engine/record.py)")
        object.__setattr__(self, "layouts_by_size", layouts)
        object.__setattr__(self, "sheet", sheet)

    @property
    def name(self) -> str:
        return self.rules.name

    @property
    def layouts(self) -> tuple[type[Layout], ...]:
        """Its board layouts, one a size."""
        return tuple(self.layouts_by_size.values())


def registry(*kits: GameKit) -> Mapping[str, GameKit]:
    """The kits by game name: exactly the engine's games, each once; IncompleteGame naming the
    game otherwise (a game of the engine with no kit, a kit of no engine game, one twice, board
    layouts or a record sheet for a game with no kit).

    Each game is one entry listing every part the product needs of it, in the manner of
    python-chess's variants: its rules (the engine's :class:`~cueboard.engine.Game`), the key
    grammar of its referee boxes and keypads (``cueboard.games.key_sequences``), its simulator
    (``cueboard.games.simulate_snooker``, ``cueboard.games.simulate_blackball``), its printed result sheet
    (``cueboard.games.sheet_lines``) and its demo (``cueboard demo``'s keymaps and match). Two parts
    are listed below this registry, where the layer that uses them picks them by the game's
    name, and the entry reads them from there rather than listing them again: the board layouts
    (``LAYOUTS`` in ``cueboard.boards.catalogue``, the boards being below this module) and the
    sheet of the match record (``SHEETS`` in ``cueboard.engine.record``). Nothing registers
    itself on import: a new game is its folders and one entry here. Every part is required and
    checked when this module is imported (:class:`GameKit`, :func:`registry`), so a game missing
    a part is an error naming the game and the part, never a ``None`` later; a name the engine
    does not know is refused, naming the games there are.
    """
    out: dict[str, GameKit] = {}
    for entry in kits:
        if entry.name in out:
            raise IncompleteGame(f"game {entry.name!r} is listed twice")
        if GAMES.get(entry.name) is not entry.rules:
            raise IncompleteGame(f"game {entry.name!r} is not the engine's game of that name")
        out[entry.name] = entry
    missing = sorted(set(GAMES) - set(out))
    if missing:
        raise IncompleteGame(f"no parts listed for the engine's game(s) {', '.join(map(repr, missing))}")
    for where, listed in (("board layouts (cueboard/boards/catalogue.py)", LAYOUTS),
                          ("record sheets (engine/record.py)", SHEETS)):
        stray = sorted(set(listed) - set(out))
        if stray:
            raise IncompleteGame(f"{where} for {', '.join(map(repr, stray))}, which the registry does not list")
    return MappingProxyType(out)


KITS: Mapping[str, GameKit] = registry(
    GameKit(Snooker, SnookerKeys(), Simulator(snooker_candidates, snooker_setup, snooker_stroke), SnookerPrinted(),
            Demo("referee-box-12.toml", "keypad-4x5.toml", {"sides": ["Ronnie", "Judd"], "best_of": 7})),
    GameKit(Blackball, BlackballKeys(), Simulator(blackball_candidates, blackball_setup), BlackballPrinted(),
            Demo("referee-box-12-blackball.toml", "keypad-4x5-blackball.toml",
                 {"sides": ["Ann", "Bob"], "race_to": 5})),
)
"""Every game, one entry each, with all its parts."""


def kit(name: object) -> GameKit:
    """The entry of game ``name``; IllegalEvent naming the games there are if there is none.

    >>> kit("snooker").keys.game
    'snooker'
    >>> kit("pool")
    Traceback (most recent call last):
    ...
    cueboard.engine.errors.IllegalEvent: match: 'game' must be one of 'blackball', 'snooker', not 'pool'
    """
    return KITS[find_game(name).name]
