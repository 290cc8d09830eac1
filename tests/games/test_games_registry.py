"""The one registry of games (``cueboard.games.kits``): every game of the engine with all its parts,
listed explicitly; a missing or mismatched part is an error when the registry is built."""

from __future__ import annotations

import importlib
import subprocess
import sys
from dataclasses import replace
from typing import Any, cast

import pytest

import cueboard.games.kits as games_module
from cueboard.boards.catalogue import LAYOUTS
from cueboard.common.resources import examples_dir
from cueboard.engine import GAMES
from cueboard.engine.record import SHEETS
from cueboard.games.key_sequences import BlackballKeys
from cueboard.games.kits import KITS, GameKit, IncompleteGame, registry
from cueboard.games.sheet_lines import BlackballPrinted

KEYMAPS = examples_dir() / "keymaps"


def test_every_engine_game_has_every_part() -> None:
    assert set(KITS) == set(GAMES) == {"snooker", "blackball"}
    for name, entry in KITS.items():
        assert entry.rules is GAMES[name]
        assert entry.keys.game == name and entry.sheet.game == name and entry.printed.game == name
        assert entry.layouts and all(cls.game == name for cls in entry.layouts)
        assert entry.layouts_by_size is LAYOUTS[name] and entry.sheet is SHEETS[name]  # read, not listed again
        assert callable(entry.simulator.candidates) and callable(entry.simulator.setup)
        assert {entry.demo.referee_box, entry.demo.keypad} <= {p.name for p in KEYMAPS.iterdir()}


def test_a_missing_part_is_an_error_naming_the_game_and_the_part() -> None:
    snooker = KITS["snooker"]
    with pytest.raises(IncompleteGame, match="game 'snooker': its keys must be a Grammar, not None"):
        replace(snooker, keys=cast(Any, None))
    with pytest.raises(IncompleteGame, match="game 'snooker': its printed must be a PrintedSheet, not None"):
        replace(snooker, printed=cast(Any, None))
    with pytest.raises(IncompleteGame, match="game 'snooker': its demo must be a Demo"):
        replace(snooker, demo=cast(Any, ("referee-box-12.toml", "keypad-4x5.toml")))


@pytest.mark.parametrize(("listed", "part"), [("LAYOUTS", "board layouts"), ("SHEETS", "record sheet")])
def test_a_game_the_boards_or_the_record_lack_is_an_error(monkeypatch: pytest.MonkeyPatch, listed: str,
                                                           part: str) -> None:
    monkeypatch.setattr(games_module, listed, {"blackball": getattr(games_module, listed)["blackball"]})
    with pytest.raises(IncompleteGame, match=f"game 'snooker': it has no {part}"):
        replace(KITS["snooker"])


def test_a_part_of_another_game_is_an_error() -> None:
    snooker = KITS["snooker"]
    with pytest.raises(IncompleteGame, match="game 'snooker': its keys are of the game 'blackball'"):
        replace(snooker, keys=BlackballKeys())
    with pytest.raises(IncompleteGame, match="game 'snooker': its printed are of the game 'blackball'"):
        replace(snooker, printed=BlackballPrinted())


def test_the_registry_lists_exactly_the_engine_games_once() -> None:
    with pytest.raises(IncompleteGame, match="no parts listed for the engine's game"):
        registry(KITS["snooker"])
    with pytest.raises(IncompleteGame, match="'snooker' is listed twice"):
        registry(KITS["snooker"], KITS["snooker"], KITS["blackball"])
    assert dict(registry(*KITS.values())) == dict(KITS)


def test_layouts_or_a_sheet_of_a_game_the_registry_lacks_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(games_module, "LAYOUTS", {**LAYOUTS, "pool": LAYOUTS["snooker"]})
    with pytest.raises(IncompleteGame, match=r"board layouts \(cueboard/boards/catalogue.py\) for 'pool'"):
        registry(*KITS.values())


@pytest.mark.system
def test_a_game_with_no_layouts_stops_the_import_of_the_registry() -> None:
    """The error comes when ``cueboard.games.kits`` is imported (a fresh interpreter whose boards
    list no blackball layout), naming the game and where its layouts are listed."""
    code = ("import cueboard.boards.catalogue as c; c.LAYOUTS = {'snooker': c.LAYOUTS['snooker']}; "
            "import cueboard.games.kits")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 1
    assert run.stderr.strip().splitlines()[-1] == (
        "cueboard.games.kits.IncompleteGame: game 'blackball': it has no board layouts "
        "(LAYOUTS in cueboard/boards/catalogue.py)")


@pytest.mark.system
def test_the_kit_is_complete_without_importing_anything_else() -> None:
    """No part arrives as a side effect of another import: a fresh interpreter that imports
    only ``cueboard.games.kits`` sees every part of every game."""
    code = ("import cueboard.games.kits as g; "
            "print(sorted((n, type(k.keys).__name__, len(k.layouts)) for n, k in g.KITS.items()))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[('blackball', 'BlackballKeys', 6), ('snooker', 'SnookerKeys', 6)]"


def test_the_engine_lists_its_games_without_registration() -> None:
    registry_module = importlib.import_module("cueboard.engine.registry")
    assert not hasattr(registry_module, "register")
    with pytest.raises(TypeError):
        cast(dict[str, Any], GAMES)["pool"] = GAMES["snooker"]  # read-only
    assert isinstance(KITS["snooker"], GameKit)
