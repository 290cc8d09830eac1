"""Random *legal* event sequences for a match: for property tests, fuzzing and benchmarks.

The engine stays pure; all randomness lives here. The generator is game-agnostic: for the
match's current ``state()`` a per-game function proposes candidate events, each with a
weight, and the first candidate the engine accepts (``match.check``), in a weighted random
order, is the next event. Proposing an illegal candidate is harmless (it is just skipped),
so a game's candidate function may be generous and need not re-implement the rules.

>>> import random
>>> log = random_log({"type": "match", "game": "snooker", "sides": ["A", "B"], "reds": 6},
...                  random.Random(1), events=40)
>>> log[0]["type"], len(log) <= 41
('match', True)

Each game's part (its candidate function and random match line, in ``simulate_snooker``
and ``simulate_blackball``) is listed with the rest of the game in ``cueboard.games``.

``undo`` and ``redo`` are added by :func:`candidates` for every game (they are the
engine's, not the game's). Weights are relative: keep the strokes heavy (pots, misses)
and frame-ending oddities (concede, award, rerack) rare, so that frames actually finish.

:func:`final_log` is a deterministic, realistic best-of-35 snooker final (breaks, safety
exchanges, fouls and misses, conceded frames) for the benchmark in ``bench/engine.py``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

from .engine import IllegalEvent, Match
from .engine.state import SnookerState
from .games import KITS, Candidate, CandidateFn, Event, SetupFn
from .simulate_snooker import VALUE

__all__ = ["CANDIDATES", "SETUPS", "Candidate", "CandidateFn", "Event", "SetupFn", "accepts", "blackball_log",
           "candidates", "choose", "final_log", "legal_events", "random_log", "random_setup",
           "realistic_log", "weighted_order"]

CANDIDATES: Mapping[str, CandidateFn] = MappingProxyType({n: k.simulator.candidates for n, k in KITS.items()})
"""Game name -> candidate function (from ``cueboard.games``)."""

SETUPS: Mapping[str, SetupFn] = MappingProxyType({n: k.simulator.setup for n, k in KITS.items()})
"""Game name -> random match line (from ``cueboard.games``)."""

UNDO_WEIGHT = 1.5
REDO_WEIGHT = 6.0


# -- the game-agnostic part -------------------------------------------------------------


def candidates(match: Match, *, undo: bool = True) -> list[Candidate]:
    """The weighted candidate events for ``match`` now: its game's, then undo and redo."""
    out = list(CANDIDATES[match.setup.game](match.state()))
    if undo:
        if match.can_undo:
            out.append((UNDO_WEIGHT, {"type": "undo"}))
        if match.can_redo:
            out.append((REDO_WEIGHT, {"type": "redo"}))
    return out


def weighted_order(pool: list[Candidate], rng: random.Random) -> Iterator[Event]:
    """The events of ``pool`` in a random order where heavier ones tend to come first
    (a weighted shuffle, drawn lazily: one ``rng.random()`` per event taken)."""
    pool = [c for c in pool if c[0] > 0]
    while pool:
        x = rng.random() * sum(w for w, _ in pool)
        index = len(pool) - 1
        for i, (w, _) in enumerate(pool):
            x -= w
            if x < 0:
                index = i
                break
        yield pool.pop(index)[1]


def accepts(match: Match, obj: Event) -> bool:
    """Whether the match would accept this event JSON now (parse and check; nothing changes)."""
    try:
        match.check(match.parse(obj))
    except IllegalEvent:
        return False
    return True


def choose(match: Match, rng: random.Random, *, undo: bool = True) -> Event | None:
    """A random event the match accepts now, or None when no candidate is legal
    (in practice: the match is over and undo is off). ``match`` is not changed."""
    for obj in weighted_order(candidates(match, undo=undo), rng):
        if accepts(match, obj):
            return obj
    return None


def legal_events(match: Match, rng: random.Random, *, undo: bool = True) -> Iterator[Event]:
    """Play random legal events on ``match``, yielding each event's JSON after applying it.

    Stops once the match is over (undo is then not offered, so every sequence ends), or
    when no candidate is legal. ``undo``: also offer ``undo``/``redo`` lines.
    """
    while not match.state().match_over:
        obj = choose(match, rng, undo=undo)
        if obj is None:
            return
        match.apply(match.parse(obj))
        yield obj


def random_setup(game: str, rng: random.Random) -> dict[str, Any]:
    """A random match line for ``game`` (see :data:`SETUPS`)."""
    return SETUPS[game](rng)


def random_log(setup: dict[str, Any], rng: random.Random, events: int, *,
               undo: bool = True) -> list[Event]:
    """The match line and up to ``events`` random legal events (fewer if the match ends).

    With ``undo`` the log may contain ``undo``/``redo`` lines: replaying it with
    ``Match.apply`` line by line gives the same match.
    """
    match = Match.from_json(setup)
    log: list[Event] = [dict(setup)]
    for obj in legal_events(match, rng, undo=undo):
        log.append(obj)
        if len(log) > events:
            break
    return log


# -- a realistic snooker match, for the benchmark ----------------------------------------


def _realistic_stroke(state: SnookerState, rng: random.Random, last: Event | None,
                      skill: tuple[float, float]) -> Event:
    """The next event of a professional-looking frame: long pots at the start of a visit or
    a safety, breaks of pots at ``skill`` per stroke, an occasional foul or miss."""
    if state.frame_over:
        return {"type": "next_frame"}
    if state.striker is None:
        return {"type": "respotted_black", "striker": rng.randrange(2)}
    side = state.striker
    on, reds, brk = state.ball_on, state.reds, state.brk
    needs = state.snookers_required
    if last is not None and last["type"] == "foul":
        if last.get("miss") and rng.random() < 0.7:
            return {"type": "replace"}
        if rng.random() < 0.08:
            return {"type": "play_again"}
    if (brk == 0 and needs is not None and needs.side == side
            and (needs.count is None or needs.count > 1 or reds == 0 or rng.random() < 0.5)):
        return {"type": "concede"}
    if brk == 0 and state.colours == ("black",) and rng.random() < 0.5:
        lead = state.sides[side].score - state.sides[1 - side].score
        if lead > 7 and not state.aggregate:
            return {"type": "claim"}
    u = rng.random()
    if u < (0.035 if brk == 0 else 0.008):
        least = max(4, VALUE.get(on or "", 4))  # 4 on a red or any colour (Section 3 Rule 10)
        foul: Event = {"type": "foul", "points": rng.choice((least, least, max(least, 5), 7))}
        if reds and rng.random() < 0.1:
            foul["reds_off"] = 1
        if brk == 0 and state.colours != ("black",) and rng.random() < 0.4:
            foul["miss"] = True
        if state.colours != ("black",) and rng.random() < 0.1:
            foul["free_ball"] = True
        return foul
    if brk == 0 and not state.free_ball and rng.random() < 0.6:
        return {"type": "no_pot"}  # a safety
    if rng.random() > (skill[0] if brk == 0 else skill[1]):
        return {"type": "no_pot"}  # missed
    if state.free_ball and rng.random() < 0.8:
        return {"type": "pot", "balls": ["free"]}
    if on == "red":
        return {"type": "pot", "balls": ["red", "red"] if reds > 1 and rng.random() < 0.03 else ["red"]}
    if on == "colour":
        x = rng.random()
        colour = "black" if x < 0.62 else "pink" if x < 0.85 else "blue" if x < 0.95 else "brown"
        return {"type": "pot", "balls": [colour]}
    return {"type": "pot", "balls": [on]}


def realistic_log(setup: dict[str, Any], rng: random.Random, events: int | None = None) -> list[Event]:
    """A snooker match played to its end (or for ``events`` events) by two strong players.

    Every event is checked by the engine as it is made; should the model ever propose an
    illegal one, a random legal candidate is taken instead.
    """
    match = Match.from_json(setup)
    log: list[Event] = [dict(setup)]
    skills = ((0.55, 0.9), (0.5, 0.88))
    last: Event | None = None
    while not match.state().match_over and (events is None or len(log) <= events):
        state = match.state()
        assert isinstance(state, SnookerState)
        striker = state.striker
        obj = _realistic_stroke(state, rng, last, skills[striker if striker is not None else 0])
        try:
            match.push(match.parse(obj))
        except IllegalEvent:
            fallback = choose(match, rng, undo=False)
            if fallback is None:
                break
            obj = fallback
            match.push(match.parse(obj))
        log.append(obj)
        last = obj
    return log


def final_log(best_of: int = 35, seed: int = 2025) -> list[Event]:
    """A deterministic synthetic snooker final, best of ``best_of`` frames, played to its end."""
    setup = {"type": "match", "game": "snooker", "sides": ["Ronnie", "Judd"], "best_of": best_of}
    return realistic_log(setup, random.Random(seed))


def blackball_log(race_to: int = 25, seed: int = 2025) -> list[Event]:
    """A deterministic blackball match, race to ``race_to``, played to its end: for the benchmark."""
    setup = {"type": "match", "game": "blackball", "sides": ["Ann", "Bob"], "race_to": race_to}
    rng = random.Random(seed)
    match = Match.from_json(setup)
    log: list[Event] = [setup]
    while not match.state().match_over:
        obj = choose(match, rng, undo=False)
        if obj is None:
            break
        match.apply(match.parse(obj))
        log.append(obj)
    return log
