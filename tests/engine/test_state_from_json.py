"""The strict JSON reader of the state (``state_from_json``, the ``from_json`` of each game's
state): it reads back exactly what ``to_json`` wrote, over random matches of both games, and
refuses a state that does not fit ``docs/state.md``, naming the field."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from cueboard.engine import IllegalEvent, Match
from cueboard.engine.state import SnookerState, state_from_json
from cueboard.games.simulate import random_log, random_setup

GOLDEN = json.loads((Path(__file__).parents[1] / "golden" / "states.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("game", ["snooker", "blackball"])
def test_from_json_reads_back_every_state_of_random_matches(game: str) -> None:
    rng = random.Random(25)
    seen = 0
    for _ in range(12):
        log = random_log(random_setup(game, rng), rng, events=80)
        match = Match.from_json(log[0])
        for obj in [None, *log[1:]]:
            if obj is not None:
                match.apply(match.parse(obj))
            state = match.state()
            text = json.dumps(state.to_json())
            back = state_from_json(json.loads(text))
            assert back == state
            assert json.dumps(back.to_json()) == text  # 60 stays 60, not 60.0: the same bytes
            seen += 1
    assert seen > 200


def test_every_golden_state_is_read() -> None:
    for cases in GOLDEN.values():
        for case in cases:
            assert state_from_json(case["state"]).to_json()["seq"] == case["state"]["seq"]


def _snooker() -> dict[str, Any]:
    return json.loads(json.dumps(GOLDEN["snooker"][1]["state"]))  # "miss": it has missed_by


def test_a_state_without_missed_by_has_the_strikers_misses() -> None:
    state = _snooker()
    del state["missed_by"]
    read = state_from_json(state)
    assert isinstance(read, SnookerState)
    assert read.misses == 1 and read.missed_by == read.striker == 0
    state["misses"] = 0
    assert state_from_json(state).missed_by is None  # state.md: null when misses is 0


def test_fields_the_contract_may_add_are_left_alone() -> None:
    state = {**_snooker(), "table": "t1", "ts": "2026-11-26T20:05:00.000Z", "clock": None, "next": None}
    assert state_from_json(state) == state_from_json(_snooker())


@pytest.mark.parametrize(("change", "said"), [
    (lambda s: s.update(game="pool"), "game must be one of snooker, blackball, not 'pool'"),
    (lambda s: s.update(schema=2), "a snooker state of schema 1, not game 'snooker' schema 2"),
    (lambda s: s.pop("ball_on"), "ball_on is missing"),
    (lambda s: s.update(ball_on="purple"), "ball_on must be one of red, colour, yellow"),
    (lambda s: s["sides"][1].update(score="12"), "sides[1].score must be a whole number of 0 or more, not '12'"),
    (lambda s: s["sides"][0].update(score=True), "sides[0].score must be a whole number of 0 or more, not True"),
    (lambda s: s.update(sides=[s["sides"][0]]), "sides must be a list of two objects"),
    (lambda s: s.update(striker=2), "striker must be a side, 0 or 1, not 2"),
    (lambda s: s.update(reds=16), "reds must be a whole number from 0 to 15, not 16"),
    (lambda s: s.update(colours=["pink", "pink"]), "colours must be a list of distinct words"),
    (lambda s: s.update(snookers_required={"side": 0, "count": 2, "each": 3}),
     "snookers_required.each must be a penalty from 4 to 7, not 3"),
    (lambda s: s.update(shot_clock=0), "shot_clock must be seconds (a number above 0), not 0"),
    (lambda s: s.update(shot_clock=float("nan")), "shot_clock must be seconds"),
    (lambda s: s.update(free_ball=None), "free_ball must be true or false, not None"),
])
def test_a_state_that_does_not_fit_is_refused_naming_the_field(change: Any, said: str) -> None:
    state = _snooker()
    change(state)
    with pytest.raises(IllegalEvent, match="^state: " + said.replace("[", r"\[").replace("]", r"\]")
                       .replace("(", r"\(").replace(")", r"\)")):
        state_from_json(state)


def test_a_blackball_state_is_checked_too() -> None:
    state = json.loads(json.dumps(GOLDEN["blackball"][0]["state"]))
    state["balls"]["black"] = 2
    with pytest.raises(IllegalEvent, match=r"state: balls\.black must be a whole number from 0 to 1, not 2"):
        state_from_json(state)
    with pytest.raises(IllegalEvent, match="state: the state must be an object, not"):
        state_from_json([state])
