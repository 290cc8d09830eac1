"""The engine's state is typed (issue 25): values never changed per game (slotted dataclasses
that mypy holds frozen, ``engine/value.py``), no ``Any`` in the engine's
public types, JSON only through each state's ``to_json()``.

The schema side (``schema/state.schema.json`` validates the ``to_json()`` of every state of
many random logs) is ``tests/table/test_feed_schema.py``; byte-for-byte output of old logs is
``tests/table/test_replay.py``'s goldens.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import random
import re
import types
import typing
from collections.abc import Iterator
from typing import Any

import pytest

import cueboard.engine as engine
from cueboard.engine import GAMES, Game, Match, MatchSetup, parse_match
from cueboard.engine import state as state_module
from cueboard.engine.blackball import Blackball
from cueboard.engine.snooker import Snooker
from cueboard.engine.state import BlackballState, SnookerState, State
from cueboard.engine.value import value
from cueboard.games.simulate import SETUPS, random_log

STATE_CLASSES = [getattr(state_module, name) for name in state_module.__all__
                 if inspect.isclass(getattr(state_module, name))]
NAMES = {**vars(state_module), "State": State}


def hints(obj: Any) -> dict[str, Any]:
    """The resolved annotations of ``obj`` (the state's names given: ``game.py`` imports them
    for type checking only, as the states' packages import it)."""
    return typing.get_type_hints(obj, globalns={**vars(inspect.getmodule(obj)), **NAMES})


def any_in(hint: Any) -> bool:
    """Whether ``hint`` is ``Any`` or has ``Any`` anywhere inside it (an alias, a union, a
    generic's arguments)."""
    if hint is Any:
        return True
    if isinstance(hint, typing.TypeAliasType if hasattr(typing, "TypeAliasType") else ()):
        return any_in(hint.__value__)
    if isinstance(hint, typing.ForwardRef):
        return False  # the recursive alias Json names itself
    return any(any_in(arg) for arg in typing.get_args(hint))


def public_callables() -> Iterator[tuple[str, Any]]:
    """Every public function of the engine's package and every public method of the classes
    it exports and of the state classes."""
    for name in (*engine.__all__, *(c.__name__ for c in STATE_CLASSES)):
        obj = getattr(engine, name, None) or getattr(state_module, name)
        if inspect.isfunction(obj):
            yield name, obj
        elif inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_") and attr != "__init__":
                    continue
                if isinstance(member, classmethod | staticmethod):
                    member = member.__func__
                if isinstance(member, property):
                    member = member.fget
                if inspect.isfunction(member):
                    yield f"{name}.{attr}", member


def test_any_in_finds_any_nested() -> None:
    # The check itself can fail: Any is found inside a union, a container and an alias.
    assert any_in(dict[str, Any]) and any_in(int | list[Any]) and any_in(Any)
    assert not any_in(dict[str, int]) and not any_in(state_module.Json)


def test_value_is_frozen_to_type_checkers() -> None:
    transform = value.__dataclass_transform__  # type: ignore[attr-defined]
    # Python 3.11's typing keeps frozen_default among the extra kwargs; 3.12 and later name it.
    assert transform.get("frozen_default", transform["kwargs"].get("frozen_default")) is True


@pytest.mark.parametrize("cls", STATE_CLASSES, ids=lambda c: c.__name__)
def test_each_state_class_is_a_value_and_has_no_any(cls: type) -> None:
    # Declared with engine/value.py's value: frozen to mypy; slotted and hashed by its fields.
    assert dataclasses.is_dataclass(cls) and "__slots__" in vars(cls)
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    assert params.unsafe_hash and params.eq
    fields = hints(cls)
    assert fields, cls
    assert [name for name, hint in fields.items() if any_in(hint)] == []


def test_the_engines_state_api_has_no_any() -> None:
    checked = {
        "Match.state": hints(Match.state), "Match.state_at": hints(Match.state_at),
        "Game.view": hints(Game.view), "Snooker.view": hints(Snooker.view), "Blackball.view": hints(Blackball.view),
        **{name: hints(fn) for name, fn in public_callables() if name.split(".")[0] in state_module.__all__},
    }
    assert len(checked) > 10
    assert {name: h for name, h in checked.items() if any(any_in(v) for v in h.values())} == {}
    assert hints(Match.state)["return"] == State
    assert hints(Snooker.view)["return"] is SnookerState and hints(Blackball.view)["return"] is BlackballState


def states(game: str, seed: int) -> Iterator[State]:
    rng = random.Random(seed)
    log = random_log(SETUPS[game](rng), rng, events=150)
    match = Match.from_json(log[0])
    yield match.state()
    for obj in log[1:]:
        match.apply(match.parse(obj))
        yield match.state()


@pytest.mark.parametrize("game", ["snooker", "blackball"])
def test_the_state_is_frozen_and_its_json_is_plain_json(game: str) -> None:
    for state in states(game, seed=7):
        assert state.game == game
        with pytest.raises(AttributeError):
            state.extra = 99  # type: ignore[attr-defined]  # slotted: no field but its own
        out = state.to_json()
        # Plain JSON: lists not tuples, no dataclass left inside, a round trip gives it back.
        assert json.loads(json.dumps(out)) == out
        assert out["seq"] == state.seq and out["game"] == game
        assert [side["name"] for side in out["sides"]] == [side.name for side in state.sides]


def test_the_snooker_state_json_keeps_the_order_of_state_md() -> None:
    out = Match.from_json({"type": "match", "game": "snooker", "sides": ["A", "B"]}).state().to_json()
    assert list(out)[:4] == ["schema", "game", "seq", "sides"] and "break" in out and "brk" not in out


def test_no_type_is_a_module() -> None:
    # Guards the walk above: it visits functions, not modules re-exported by name.
    assert not any(isinstance(fn, types.ModuleType) for _, fn in public_callables())


def test_the_engines_public_api_has_no_any() -> None:
    # Every public function and method of the engine's package, of the classes it exports and of
    # the state classes: the game looked up by name is one of a closed union (registry.GameType),
    # a match line's game options are registry-wide typed values (match_setup.OptionValue).
    found = {name for name, fn in public_callables() if any(any_in(h) for h in hints(fn).values())}
    assert len(list(public_callables())) > 40
    assert found == set()


def test_the_registry_and_the_match_setup_are_typed() -> None:
    # The three that kept Any until issue 25 was closed, named so that a rename cannot skip them.
    checked = dict(public_callables())
    for name in ("find_game", "parse_setup", "MatchSetup.__init__", "MatchSetup.option", "MatchSetup.option_int",
                 "MatchSetup.option_bool", "MatchSetup.option_pair", "Match.position"):
        assert name in checked and not any(any_in(h) for h in hints(checked[name]).values()), name
    assert not any(any_in(h) for h in hints(MatchSetup).values())
    assert [name for name, cls in GAMES.items() for check in cls.setup_fields.values()
            if any(any_in(h) for h in hints(check).values())] == []


def test_a_game_option_is_read_as_its_type() -> None:
    setup = parse_match({"type": "match", "game": "snooker", "sides": ["A", "B"], "reds": 10,
                         "handicap": [7, 0], "aggregate": True, "best_of": 2})
    assert (setup.option_int("reds", 15), setup.option_pair("handicap", (0, 0)),
            setup.option_bool("aggregate", False)) == (10, (7, 0), True)
    assert setup.option("shot_clock") is None and setup.option_int("absent", 3) == 3
    # A game asking for an option as another type than its check keeps is a programming error, said clearly.
    with pytest.raises(TypeError, match="match option 'reds' is 10, not true or false"):
        setup.option_bool("reds", False)
    with pytest.raises(TypeError, match="match option 'aggregate' is True, not a whole number"):
        setup.option_int("aggregate", 0)
    with pytest.raises(TypeError, match="match option 'reds' is 10, not a pair"):
        setup.option_pair("reds", (0, 0))


def test_a_match_hands_its_game_only_its_own_positions() -> None:
    snooker = Match.from_json({"type": "match", "game": "snooker", "sides": ["A", "B"]})
    blackball = Match.from_json({"type": "match", "game": "blackball", "sides": ["A", "B"]})
    assert isinstance(snooker.position, snooker.game.position_type)
    with pytest.raises(TypeError, match=re.escape("snooker was given a position of another game: "
                                                  "cueboard.engine.blackball.position.Position")):
        snooker.game.view_of(blackball.position, 0)
