"""The one registry of games (``cueboard.games``): every game of the engine with all its parts,
listed explicitly; a missing or mismatched part is an error when the registry is built."""

from __future__ import annotations

import importlib
import subprocess
import sys
from dataclasses import replace
from typing import Any, cast

import pytest

from cueboard.boards.catalogue import BLACKBALL_LAYOUTS, SNOOKER_LAYOUTS
from cueboard.engine import GAMES
from cueboard.engine.record import BlackballSheet
from cueboard.games import KITS, GameKit, IncompleteGame, registry
from cueboard.key_sequences import BlackballKeys


def test_every_engine_game_has_every_part() -> None:
    assert set(KITS) == set(GAMES) == {"snooker", "blackball"}
    for name, entry in KITS.items():
        assert entry.rules is GAMES[name]
        assert entry.keys.game == name and entry.sheet.game == name
        assert entry.layouts and all(cls.game == name for cls in entry.layouts)
        assert callable(entry.simulator.candidates) and callable(entry.simulator.setup)


def test_a_missing_part_is_an_error_naming_the_game_and_the_part() -> None:
    snooker = KITS["snooker"]
    with pytest.raises(IncompleteGame, match="game 'snooker': its keys must be a Grammar, not None"):
        replace(snooker, keys=cast(Any, None))
    with pytest.raises(IncompleteGame, match="game 'snooker': it has no board layouts"):
        replace(snooker, layouts=())


def test_a_part_of_another_game_is_an_error() -> None:
    snooker = KITS["snooker"]
    with pytest.raises(IncompleteGame, match="game 'snooker': its keys are of the game 'blackball'"):
        replace(snooker, keys=BlackballKeys())
    with pytest.raises(IncompleteGame, match="game 'snooker': its sheet are of the game 'blackball'"):
        replace(snooker, sheet=BlackballSheet())
    with pytest.raises(IncompleteGame, match="layout Blackball32x8 draws 'blackball'"):
        replace(snooker, layouts=(*SNOOKER_LAYOUTS, BLACKBALL_LAYOUTS[0]))


def test_the_registry_lists_exactly_the_engine_games_once() -> None:
    with pytest.raises(IncompleteGame, match="no parts listed for the engine's game"):
        registry(KITS["snooker"])
    with pytest.raises(IncompleteGame, match="'snooker' is listed twice"):
        registry(KITS["snooker"], KITS["snooker"], KITS["blackball"])
    with pytest.raises(IncompleteGame, match="not those the boards draw it with"):
        registry(replace(KITS["snooker"], layouts=SNOOKER_LAYOUTS[:1]), KITS["blackball"])
    assert dict(registry(*KITS.values())) == dict(KITS)


def test_the_kit_is_complete_without_importing_anything_else() -> None:
    """No part arrives as a side effect of another import: a fresh interpreter that imports
    only ``cueboard.games`` sees every part of every game."""
    code = ("import cueboard.games as g; "
            "print(sorted((n, type(k.keys).__name__, len(k.layouts)) for n, k in g.KITS.items()))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[('blackball', 'BlackballKeys', 6), ('snooker', 'SnookerKeys', 6)]"


def test_the_engine_lists_its_games_without_registration() -> None:
    registry_module = importlib.import_module("cueboard.engine.registry")
    assert not hasattr(registry_module, "register")
    with pytest.raises(TypeError):
        cast(dict[str, Any], GAMES)["pool"] = GAMES["snooker"]  # read-only
    assert isinstance(KITS["snooker"], GameKit)
