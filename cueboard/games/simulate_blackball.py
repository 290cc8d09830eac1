"""Candidate blackball events for a state, for random walks (property tests, fuzzing, the benchmark);
listed in :data:`cueboard.games.kits.KITS`.

It reads the engine's typed state (:class:`~cueboard.engine.state.BlackballState`) and
proposes engine events (the frozen dataclasses of ``cueboard.engine.events`` and
``cueboard.engine.blackball.events``) with relative weights, in the shape
``cueboard.games.simulate`` takes. Proposing an illegal event is harmless: the
walker asks the engine (``match.check``) and skips it; a few are proposed on purpose.
Weights keep the strokes heavy and the frame-ending oddities rare, so frames finish.
"""

from __future__ import annotations

import random

from cueboard.engine import Event
from cueboard.engine.blackball.events import TIME, Foul, Loss, NoPot, Rerack
from cueboard.engine.events import Award, Concede, NextFrame, Pot
from cueboard.engine.json_value import JsonObject
from cueboard.engine.state import BlackballState, State

Candidate = tuple[float, Event]

GROUPS = ("red", "yellow")


def _pot(*balls: str) -> Pot:
    return Pot(balls=balls)


def blackball_candidates(state: State) -> list[Candidate]:
    """Weighted events for ``state``: mostly pots of the striker's group and misses, some
    fouls, rarely a loss, concession, award or rerack."""
    assert isinstance(state, BlackballState)
    if state.frame_over:
        return [(20.0, NextFrame()), (0.05, Award(side=0, match=True)), (0.05, Award(side=1, match=True)),
                (0.5, _pot("red"))]
    balls = {"red": state.balls.red, "yellow": state.balls.yellow, "black": state.balls.black}
    striker = state.striker
    assert striker is not None
    own = state.sides[striker].group
    theirs = state.sides[1 - striker].group
    out: list[Candidate] = [(20.0, NoPot())]
    if state.break_shot:
        out += [(6.0, NoPot(legal=False)), (0.5, _pot("black")), (0.3, Foul(balls=("black",)))]
    else:
        out.append((0.3, NoPot(legal=False)))  # refused: only the break
    # Pots: the striker's own balls (any colour on an open table), one or two at a time.
    mine = [g for g in GROUPS if balls[g]] if own is None else ([own] if balls[own] else [])
    for g in mine:
        out.append((30.0, _pot(g)))
        if balls[g] > 1:
            out.append((2.0, _pot(g, g)))
    if state.open_table and balls["red"] and balls["yellow"]:
        out.append((1.5, _pot("red", "yellow")))  # rule 4e(d): the table stays open
    if theirs is not None and balls[theirs]:
        out.append((4.0 if state.free_shot else 0.5, _pot(theirs)))  # refused unless free shot
        if own is not None and balls[own]:
            out.append((1.0, _pot(own, theirs)))  # rule 4j(a)
    # The black: heavy when it is on (win), light otherwise (rule 7b: a loss).
    if balls["black"]:
        out.append((25.0 if state.black_on else 0.2, _pot("black")))
        if own is not None and balls[own] and balls[own] <= 2:
            out.append((3.0, _pot(*[own] * balls[own], "black")))  # rule 4j(b)
    # Fouls, with or without balls going down.
    out.append((3.0, Foul()))
    for g in GROUPS:
        if balls[g]:
            out.append((0.7, Foul(balls=(g,))))
    if balls["black"]:
        out.append((0.1, Foul(balls=("black",))))
    if state.shot_clock is not None:
        out.append((0.3, Foul(reason=TIME)))
    out.append((0.1, Foul(balls=("red",), reason=TIME)))  # refused
    out += [(0.05, Loss(reason="7c")), (0.05, Concede()), (0.01, Concede(match=True)), (0.05, Award(side=0)),
            (0.05, Award(side=1)), (0.01, Award(side=0, match=True)), (0.08, Rerack()),
            (0.03, Rerack(nine_ball=True)), (0.03, Rerack(breaker=1 - state.breaker)), (0.2, NextFrame())]
    return out


def blackball_setup(rng: random.Random) -> JsonObject:
    """A random blackball match line: singles or doubles, race to / best of, who breaks, the clock."""
    setup: JsonObject = {"type": "match", "game": "blackball"}
    setup["sides"] = [["A1", "A2"], ["B1", "B2"]] if rng.random() < 0.25 else ["Ann", "Bob"]
    if rng.random() < 0.5:
        setup["race_to"] = rng.randint(1, 3)
    else:
        setup["best_of"] = rng.choice((1, 3, 5))
    if rng.random() < 0.3:
        setup["first"] = 1
    clock = rng.random()
    if clock < 0.2:
        setup["shot_clock"] = None
    elif clock < 0.3:
        setup["shot_clock"] = {"seconds": 10, "first": 15, "call": None}
    elif clock < 0.4:
        setup["shot_clock"] = 45
    return setup
