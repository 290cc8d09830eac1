"""Candidate snooker events for a state, for random walks (property tests, fuzzing, the benchmark):
the snooker part of the simulator, listed in :data:`cueboard.games.KITS`.

It reads the engine's typed state (:class:`~cueboard.engine.state.SnookerState`) and proposes
event objects of ``events.md`` with relative weights (see :mod:`cueboard.simulate`).
"""

from __future__ import annotations

import random
from typing import Any

from .engine.state import SnookerState, State

Event = dict[str, Any]
Candidate = tuple[float, Event]

_COLOURS = ("yellow", "green", "brown", "blue", "pink", "black")
VALUE = {"red": 1, "yellow": 2, "green": 3, "brown": 4, "blue": 5, "pink": 6, "black": 7}
_COLOUR_WEIGHT = {"yellow": 2.0, "green": 2.0, "brown": 3.0, "blue": 5.0, "pink": 8.0, "black": 20.0}


def _orders(state: SnookerState) -> list[list[str]]:
    """Every order of play an ``order`` event may give in four-handed snooker (Rule 17(a))."""
    sides = [list(s.players) for s in state.sides]
    if len(sides[0]) != 2:
        return []
    first, other = sides[state.breaker], sides[1 - state.breaker]
    return [[a, b, c, d] for a, c in (first, first[::-1]) for b, d in (other, other[::-1])]


def snooker_candidates(state: State) -> list[Candidate]:
    """Weighted snooker events for ``state``; mostly pots and misses, rarely anything drastic."""
    assert isinstance(state, SnookerState)
    out: list[Candidate] = []
    sides = state.sides
    if state.frame_over:
        out.append((20.0, {"type": "next_frame"}))
        out += [(0.05, {"type": "award", "side": i, "match": True}) for i in (0, 1)]
        return out
    if state.striker is None:  # a re-spotted black waits for the lot
        for i in (0, 1):
            out.append((5.0, {"type": "respotted_black", "striker": i}))
            if len(sides[i].players) > 1:
                out += [(1.0, {"type": "respotted_black", "striker": i, "player": p})
                        for p in sides[i].players]
        out += [(0.1, {"type": "award", "side": i}) for i in (0, 1)]
        out.append((0.05, {"type": "rerack"}))
        return out

    on, reds, free = state.ball_on, state.reds, state.free_ball
    out.append((25.0, {"type": "no_pot"}))
    if on == "red":
        out += [(40.0, {"type": "pot", "balls": ["red"]}), (3.0, {"type": "pot", "balls": ["red", "red"]}),
                (0.5, {"type": "pot", "balls": ["red"] * 3})]
        if free:
            out += [(20.0, {"type": "pot", "balls": ["free"]}),
                    (3.0, {"type": "pot", "balls": ["free", "red"]})]
    elif on == "colour":
        out += [(_COLOUR_WEIGHT[c] * 2, {"type": "pot", "balls": [c]}) for c in _COLOURS]
    elif on is not None:
        out.append((40.0, {"type": "pot", "balls": [on]}))
        # Steer towards a tie on the last black now and then (the re-spotted black, Rule 4):
        # clear the colours when that would leave the scores level.
        lead = sides[state.striker].score - sides[1 - state.striker].score
        if lead + sum(VALUE[c] for c in state.colours) == 0:
            out.append((100.0, {"type": "pot", "balls": [on]}))
        if state.colours == ("black",) and lead == 7:
            out.append((40.0, {"type": "foul", "points": 7}))
        if free:
            out += [(20.0, {"type": "pot", "balls": ["free"]}),
                    (3.0, {"type": "pot", "balls": ["free", on]})]
    # Fouls: the engine refuses a penalty below the ball on's value, so offer 4 to 7. Once a
    # miss has been called, more misses and replacements: sequences of misses (Rule 14(c)).
    misses = 8.0 if state.misses else 1.0
    for points in range(4, 8):
        foul: Event = {"type": "foul", "points": points}
        out += [(0.5, foul), (0.25 * misses, {**foul, "miss": True}), (0.15, {**foul, "free_ball": True}),
                (0.05, {**foul, "miss": True, "free_ball": True})]
        if reds:
            out += [(0.1, {**foul, "reds_off": 1}), (0.03, {**foul, "reds_off": min(reds, 2)}),
                    (0.05 * misses, {**foul, "reds_off": 1, "miss": True})]
    out += [(4.0, {"type": "play_again"}), (6.0 * misses, {"type": "replace"})]
    # Ending a frame: concede when snookers are needed, claim with only the black left.
    needs = state.snookers_required
    behind = needs is not None and needs.side == state.striker
    out.append((4.0 if behind else 0.1, {"type": "concede"}))
    out.append((0.01, {"type": "concede", "match": True}))
    out.append((10.0, {"type": "claim"}))
    out += [(0.05, {"type": "award", "side": i}) for i in (0, 1)]
    out += [(0.01, {"type": "award", "side": i, "match": True}) for i in (0, 1)]
    out.append((0.05, {"type": "rerack"}))
    out += [(0.5, {"type": "order", "players": order}) for order in _orders(state)]
    return out


def snooker_setup(rng: random.Random) -> dict[str, Any]:
    """A random snooker match line: 15/10/6 reds, best of/race to, handicap, aggregate, doubles."""
    setup: dict[str, Any] = {"type": "match", "game": "snooker"}
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


def snooker_stroke(state: dict[str, Any], rng: random.Random, last: Event | None,
                      skill: tuple[float, float]) -> Event:
    """The next event of a professional-looking frame: long pots at the start of a visit or
    a safety, breaks of pots at ``skill`` per stroke, an occasional foul or miss."""
    if state["frame_over"]:
        return {"type": "next_frame"}
    if state["striker"] is None:
        return {"type": "respotted_black", "striker": rng.randrange(2)}
    side = state["striker"]
    on, reds, brk = state["ball_on"], state["reds"], state["break"]
    needs = state["snookers_required"]
    if last is not None and last["type"] == "foul":
        if last.get("miss") and rng.random() < 0.7:
            return {"type": "replace"}
        if rng.random() < 0.08:
            return {"type": "play_again"}
    if (brk == 0 and needs is not None and needs["side"] == side
            and (needs["count"] is None or needs["count"] > 1 or reds == 0 or rng.random() < 0.5)):
        return {"type": "concede"}
    if brk == 0 and state["colours"] == ["black"] and rng.random() < 0.5:
        lead = state["sides"][side]["score"] - state["sides"][1 - side]["score"]
        if lead > 7 and not state["aggregate"]:
            return {"type": "claim"}
    u = rng.random()
    if u < (0.035 if brk == 0 else 0.008):
        least = 4 if on in ("red", "colour") else max(4, VALUE[on])
        foul: Event = {"type": "foul", "points": rng.choice((least, least, max(least, 5), 7))}
        if reds and rng.random() < 0.1:
            foul["reds_off"] = 1
        if brk == 0 and state["colours"] != ["black"] and rng.random() < 0.4:
            foul["miss"] = True
        if state["colours"] != ["black"] and rng.random() < 0.1:
            foul["free_ball"] = True
        return foul
    if brk == 0 and not state["free_ball"] and rng.random() < 0.6:
        return {"type": "no_pot"}  # a safety
    if rng.random() > (skill[0] if brk == 0 else skill[1]):
        return {"type": "no_pot"}  # missed
    if state["free_ball"] and rng.random() < 0.8:
        return {"type": "pot", "balls": ["free"]}
    if on == "red":
        return {"type": "pot", "balls": ["red", "red"] if reds > 1 and rng.random() < 0.03 else ["red"]}
    if on == "colour":
        x = rng.random()
        colour = "black" if x < 0.62 else "pink" if x < 0.85 else "blue" if x < 0.95 else "brown"
        return {"type": "pot", "balls": [colour]}
    return {"type": "pot", "balls": [on]}
