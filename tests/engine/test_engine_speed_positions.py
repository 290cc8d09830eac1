"""What the engine's speed-ups rest on, checked without timing anything.

- Each game's ``_stroke`` builds its ``Position`` with ``_replace`` (keywords: a new field can
  never shift the others, as the positional build it replaced could): it must give exactly
  what ``_replace`` with the same changes gives.
- ``Match`` reuses the position ``check()`` worked out when the same event is pushed on the
  same position: pushing after a check must give what pushing alone gives.
- ``state()`` is a frozen value (its sides reused while they do not change); its ``to_json()``
  is a new object each call that the caller may change freely.
- ``Match.state()`` gives the last state again while the position and ``seq`` are the same: it
  must be what the game's ``view`` of the position gives, after any push, undo, redo or amend.
- Each game's ``view`` builds its state with its ``new_state``, positionally, one slot store a
  field (the dataclass's keyword-only ``__init__`` matches every keyword by name): it must take
  the fields in their order, set every one, and give the very value the public constructor
  gives. The state is a slotted dataclass that mypy, not the runtime, holds frozen
  (``engine/value.py``): no state a match gave may change later.

Positions come from random legal matches of ``cueboard.games.simulate`` (fixed seeds).
"""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from cueboard.engine import IllegalEvent, Match
from cueboard.engine.blackball import Blackball
from cueboard.engine.blackball import Position as BlackballPosition
from cueboard.engine.blackball.state import new_state as new_blackball_state
from cueboard.engine.blackball.visits import NextStroke, end_of_visit, penalty, play_on
from cueboard.engine.snooker import Position as SnookerPosition
from cueboard.engine.snooker import Snooker
from cueboard.engine.snooker.balls import COLOURS, VALUE
from cueboard.engine.snooker.remaining import colours_value
from cueboard.engine.snooker.state import new_state as new_snooker_state
from cueboard.engine.state import BlackballState, SnookerState, State
from cueboard.games.simulate import random_log, random_setup

SEEDS = range(12)


def positions(game: str) -> list[Any]:
    """Every position of a few random matches of ``game`` (undo and redo included)."""
    out = []
    for seed in SEEDS:
        rng = random.Random(seed)
        log = random_log(random_setup(game, rng), rng, events=150)
        m = Match.from_json(log[0])
        out.append(m.position)
        for obj in log[1:]:
            m.apply(m.parse(obj))
            out.append(m.position)
    return out


def test_snooker_stroke_is_replace() -> None:
    rng = random.Random(7)
    for p in positions("snooker"):
        assert isinstance(p, SnookerPosition)
        changes: dict[str, Any] = {
            "turn": rng.choice([None, 0, 1]), "scores": (rng.randrange(99), rng.randrange(99)),
            "high_breaks": (rng.randrange(99), rng.randrange(99)), "brk": rng.randrange(99),
            "reds": rng.randrange(16), "colours": COLOURS[rng.randrange(7):],
            "ball_on": rng.choice([None, "red", "colour", "pink"]),
        }
        extra: dict[str, Any] = rng.choice([
            {}, {"free_ball": True}, {"misses": 2, "offender": 1, "before_miss": p},
        ])
        expected = p._replace(**changes, **extra, from_replaced=False, strokes=p.strokes + 1,
                              **{k: v for k, v in {"free_ball": False, "misses": 0, "offender": None,
                                                   "before_miss": None}.items() if k not in extra})
        assert Snooker._stroke(p, **changes, **extra) == expected


def test_blackball_stroke_is_replace() -> None:
    rng = random.Random(7)
    for p in positions("blackball"):
        assert isinstance(p, BlackballPosition)
        if p.turn is None:
            continue
        for then, bad_break in itertools.product((play_on(p), end_of_visit(p), penalty(p),
                                                  NextStroke(0, 3, True, False)), (False, True)):
            balls = {"red": rng.randrange(8), "yellow": rng.randrange(8), "black": rng.randrange(2),
                     "groups": rng.choice([None, ("red", "yellow"), ("yellow", "red")])}
            expected = p._replace(**balls, **then._asdict(), break_shot=False, after_bad_break=bad_break)
            assert Blackball._stroke(p, then, **balls, after_bad_break=bad_break) == expected


def test_colours_value_is_the_sum() -> None:
    for i in range(len(COLOURS) + 1):
        assert colours_value(COLOURS[i:]) == sum(VALUE[c] for c in COLOURS[i:])
    assert colours_value(("black",)) == 7


@pytest.mark.parametrize("game", ["snooker", "blackball"])
def test_push_after_check_is_push(game: str) -> None:
    """The daemon checks, journals, then applies: the same event object on the same position."""
    for seed in SEEDS:
        rng = random.Random(seed)
        log = random_log(random_setup(game, rng), rng, events=150)
        checked, plain = Match.from_json(log[0]), Match.from_json(log[0])
        for obj in log[1:]:
            event = checked.parse(obj)
            checked.check(event)
            checked.apply(event)
            plain.apply(plain.parse(obj))
            assert checked.position == plain.position and checked.seq == plain.seq
            assert checked.state().to_json() == plain.state().to_json()


def test_a_check_is_not_reused_on_another_position() -> None:
    m = Match.from_json({"type": "match", "game": "snooker", "sides": ["Ann", "Bob"], "reds": 6})
    red = m.parse({"type": "pot", "balls": ["red"]})
    m.check(red)  # Ann at the table
    m.apply(m.parse({"type": "no_pot"}))
    m.push(red)  # Bob's red, not the one checked for Ann
    assert (m.state().to_json()["sides"][1]["score"], m.state().to_json()["striker"]) == (1, 1)
    with pytest.raises(IllegalEvent, match="colour is on"):
        m.check(red)
    with pytest.raises(IllegalEvent, match="colour is on"):
        m.push(red)
    # Back to the very position the first check was made on: the same event gives the same.
    m.pop()
    m.pop()
    m.push(red)
    state = m.state()
    assert (state.sides[0].score, state.sides[1].score, state.striker) == (1, 0, 0)


@pytest.mark.parametrize("game", ["snooker", "blackball"])
def test_state_is_new_each_call(game: str) -> None:
    rng = random.Random(3)
    log = random_log(random_setup(game, rng), rng, events=60)
    m = Match.from_json(log[0])
    for obj in log[1:]:
        m.apply(m.parse(obj))
        first = m.state().to_json()
        frozen = json.dumps(first)
        # Change everything a caller could: the next state is untouched.
        for key in list(first):
            value = first[key]
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, dict):
                        for k in list(item):
                            if isinstance(item[k], list):
                                item[k].append("x")
                            item[k] = "changed"
                value.append("x")
            elif isinstance(value, dict):
                value["x"] = 1
            first[key] = "changed"
        first["extra"] = True
        assert json.dumps(m.state().to_json()) == frozen


@pytest.mark.parametrize("game", ["snooker", "blackball"])
def test_the_state_kept_is_the_state_of_the_position(game: str) -> None:
    rng = random.Random(11)
    log = random_log(random_setup(game, rng), rng, events=200)
    m = Match.from_json(log[0])

    def check() -> None:
        state = m.state()
        # A fresh view of the same position: neither the state kept nor the sides kept used.
        fresh = type(m.game)(m.setup).view(m.position, m.seq)
        assert state == fresh and json.dumps(state.to_json()) == json.dumps(fresh.to_json())
        assert m.state() is state

    for obj in log[1:]:
        m.apply(m.parse(obj))
        check()
        if m.can_undo:
            # Back to a position shown before, and forward again to this one.
            m.pop()
            check()
            m.redo()
            check()


@pytest.mark.parametrize("game", ["snooker", "blackball"])
def test_the_view_is_the_public_constructor(game: str) -> None:
    for seed in SEEDS:
        rng = random.Random(seed)
        log = random_log(random_setup(game, rng), rng, events=150)
        m = Match.from_json(log[0])
        for obj in [None, *log[1:]]:
            if obj is not None:
                m.apply(m.parse(obj))
            state = m.state()
            assert type(state) is {"snooker": SnookerState, "blackball": BlackballState}[game]
            public = type(state)(**{f.name: getattr(state, f.name) for f in dataclasses.fields(state)})
            # Equal, field for field, hashing alike, printed alike, slotted alike.
            assert state == public and dataclasses.astuple(state) == dataclasses.astuple(public)
            assert hash(state) == hash(public) and repr(state) == repr(public)
            assert dataclasses.replace(state, seq=state.seq + 1) == dataclasses.replace(public, seq=public.seq + 1)
            assert not hasattr(state, "__dict__")


@pytest.mark.parametrize("cls,build", [(SnookerState, new_snooker_state), (BlackballState, new_blackball_state)])
def test_new_state_takes_the_fields_in_order(cls: type[State], build: Callable[..., State]) -> None:
    """A field added to the state and not to ``new_state`` (or two swapped) fails here."""
    fields = [f.name for f in dataclasses.fields(cls)]
    assert list(inspect.signature(build).parameters) == fields
    values = [object() for _ in fields]
    state = build(*values)
    assert type(state) is cls
    assert [getattr(state, name) for name in fields] == values


@pytest.mark.parametrize("game", ["snooker", "blackball"])
def test_no_state_given_out_changes_later(game: str) -> None:
    """The states are not frozen at run time (engine/value.py): every state a match gave,
    kept to the end of the match as the record and the daemon keep them, is still what it was
    when given, while the match goes on, undoes, redoes and amends."""
    kept: list[tuple[State, str]] = []
    for seed in SEEDS[:4]:
        rng = random.Random(seed)
        log = random_log(random_setup(game, rng), rng, events=150)
        m = Match.from_json(log[0])
        for obj in log[1:]:
            m.apply(m.parse(obj))
            for state in (m.state(), m.state_at(m.seq // 2)):
                kept.append((state, repr(state)))
    assert len(kept) > 150
    assert [(state.seq, before) for state, before in kept if repr(state) != before] == []
