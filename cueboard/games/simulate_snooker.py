"""Candidate snooker events for a state, for random walks (property tests, fuzzing, the benchmark):
the snooker part of the simulator, listed in :data:`cueboard.games.kits.KITS`.

It reads the engine's typed state (:class:`~cueboard.engine.state.SnookerState`) and proposes
engine events (the frozen dataclasses of ``cueboard.engine.events`` and
``cueboard.engine.snooker.events``) with relative weights (see :mod:`cueboard.games.simulate`).
"""

from __future__ import annotations

import random

from cueboard.engine import Event
from cueboard.engine.events import Award, Concede, NextFrame, Pot
from cueboard.engine.json_value import JsonObject
from cueboard.engine.snooker.events import Claim, Foul, NoPot, Order, PlayAgain, Replace, Rerack, RespottedBlack
from cueboard.engine.state import SnookerState, State

Candidate = tuple[float, Event]

_COLOURS = ("yellow", "green", "brown", "blue", "pink", "black")
VALUE = {"red": 1, "yellow": 2, "green": 3, "brown": 4, "blue": 5, "pink": 6, "black": 7}
_COLOUR_WEIGHT = {"yellow": 2.0, "green": 2.0, "brown": 3.0, "blue": 5.0, "pink": 8.0, "black": 20.0}


def _orders(state: SnookerState) -> list[tuple[str, ...]]:
    """Every order of play an ``order`` event may give in four-handed snooker (Rule 17(a))."""
    sides = [s.players for s in state.sides]
    if len(sides[0]) != 2:
        return []
    first, other = sides[state.breaker], sides[1 - state.breaker]
    return [(a, b, c, d) for a, c in (first, first[::-1]) for b, d in (other, other[::-1])]


def _pot(*balls: str) -> Pot:
    return Pot(balls=balls)


def snooker_candidates(state: State) -> list[Candidate]:
    """Weighted snooker events for ``state``; mostly pots and misses, rarely anything drastic."""
    assert isinstance(state, SnookerState)
    out: list[Candidate] = []
    sides = state.sides
    if state.frame_over:
        out.append((20.0, NextFrame()))
        out += [(0.05, Award(side=i, match=True)) for i in (0, 1)]
        return out
    if state.striker is None:  # a re-spotted black waits for the lot
        for i in (0, 1):
            out.append((5.0, RespottedBlack(striker=i)))
            if len(sides[i].players) > 1:
                out += [(1.0, RespottedBlack(striker=i, player=p)) for p in sides[i].players]
        out += [(0.1, Award(side=i)) for i in (0, 1)]
        out.append((0.05, Rerack()))
        return out

    on, reds, free = state.ball_on, state.reds, state.free_ball
    out.append((25.0, NoPot()))
    if on == "red":
        out += [(40.0, _pot("red")), (3.0, _pot("red", "red")), (0.5, _pot(*["red"] * 3))]
        if free:
            out += [(20.0, _pot("free")), (3.0, _pot("free", "red"))]
    elif on == "colour":
        out += [(_COLOUR_WEIGHT[c] * 2, _pot(c)) for c in _COLOURS]
    elif on is not None:
        out.append((40.0, _pot(on)))
        # Steer towards a tie on the last black now and then (the re-spotted black, Rule 4):
        # clear the colours when that would leave the scores level.
        lead = sides[state.striker].score - sides[1 - state.striker].score
        if lead + sum(VALUE[c] for c in state.colours) == 0:
            out.append((100.0, _pot(on)))
        if state.colours == ("black",) and lead == 7:
            out.append((40.0, Foul(points=7)))
        if free:
            out += [(20.0, _pot("free")), (3.0, _pot("free", on))]
    # Fouls: the engine refuses a penalty below the ball on's value, so offer 4 to 7. Once a
    # miss has been called, more misses and replacements: sequences of misses (Rule 14(c)).
    misses = 8.0 if state.misses else 1.0
    for points in range(4, 8):
        out += [(0.5, Foul(points=points)), (0.25 * misses, Foul(points=points, miss=True)),
                (0.15, Foul(points=points, free_ball=True)), (0.05, Foul(points=points, miss=True, free_ball=True))]
        if reds:
            out += [(0.1, Foul(points=points, reds_off=1)), (0.03, Foul(points=points, reds_off=min(reds, 2))),
                    (0.05 * misses, Foul(points=points, reds_off=1, miss=True))]
    out += [(4.0, PlayAgain()), (6.0 * misses, Replace())]
    # Ending a frame: concede when snookers are needed, claim with only the black left.
    needs = state.snookers_required
    behind = needs is not None and needs.side == state.striker
    out.append((4.0 if behind else 0.1, Concede()))
    out.append((0.01, Concede(match=True)))
    out.append((10.0, Claim()))
    out += [(0.05, Award(side=i)) for i in (0, 1)]
    out += [(0.01, Award(side=i, match=True)) for i in (0, 1)]
    out.append((0.05, Rerack()))
    out += [(0.5, Order(players=order)) for order in _orders(state)]
    return out


def snooker_setup(rng: random.Random) -> JsonObject:
    """A random snooker match line: 15/10/6 reds, best of/race to, handicap, aggregate, doubles."""
    setup: JsonObject = {"type": "match", "game": "snooker"}
    setup["sides"] = [["A1", "A2"], ["B1", "B2"]] if rng.random() < 0.25 else ["A", "B"]
    aggregate = rng.random() < 0.2
    if aggregate:
        setup["best_of"] = rng.randint(1, 4)
        setup["aggregate"] = True
    elif rng.random() < 0.5:
        setup["race_to"] = rng.randint(1, 3)
    else:
        setup["best_of"] = rng.choice((1, 3, 5))
    setup["reds"] = rng.choice((6, 6, 10, 15))
    if rng.random() < 0.3:
        setup["handicap"] = [rng.choice((0, 7, 21)), rng.choice((0, 14, 40))]
    if rng.random() < 0.3:
        setup["first"] = 1
    return setup


def snooker_stroke(state: State, rng: random.Random, last: Event | None, skill: tuple[float, float]) -> Event:
    """The next event of a professional-looking frame: long pots at the start of a visit or
    a safety, breaks of pots at ``skill`` per stroke, an occasional foul or miss."""
    assert isinstance(state, SnookerState)
    if state.frame_over:
        return NextFrame()
    side = state.striker
    if side is None:
        return RespottedBlack(striker=rng.randrange(2))
    on, reds, brk = state.ball_on, state.reds, state.brk
    needs = state.snookers_required
    if isinstance(last, Foul):
        if last.miss and rng.random() < 0.7:
            return Replace()
        if rng.random() < 0.08:
            return PlayAgain()
    if (brk == 0 and needs is not None and needs.side == side
            and (needs.count is None or needs.count > 1 or reds == 0 or rng.random() < 0.5)):
        return Concede()
    only_black = state.colours == ("black",)
    if brk == 0 and only_black and rng.random() < 0.5:
        lead = state.sides[side].score - state.sides[1 - side].score
        if lead > 7 and not state.aggregate:
            return Claim()
    u = rng.random()
    if u < (0.035 if brk == 0 else 0.008):
        least = 4 if on in (None, "red", "colour") else max(4, VALUE[on])
        points = rng.choice((least, least, max(least, 5), 7))
        reds_off = 1 if reds and rng.random() < 0.1 else 0
        miss = brk == 0 and not only_black and rng.random() < 0.4
        free_ball = not only_black and rng.random() < 0.1
        return Foul(points=points, reds_off=reds_off, miss=miss, free_ball=free_ball)
    if brk == 0 and not state.free_ball and rng.random() < 0.6:
        return NoPot()  # a safety
    if rng.random() > (skill[0] if brk == 0 else skill[1]):
        return NoPot()  # missed
    if state.free_ball and rng.random() < 0.8:
        return _pot("free")
    if on == "red":
        return _pot(*(["red", "red"] if reds > 1 and rng.random() < 0.03 else ["red"]))
    if on == "colour":
        x = rng.random()
        colour = "black" if x < 0.62 else "pink" if x < 0.85 else "blue" if x < 0.95 else "brown"
        return _pot(colour)
    assert on is not None, state  # a striker at the table has a ball on
    return _pot(on)
