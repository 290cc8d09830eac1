"""Random *legal* event sequences for a match, for property tests, fuzzing and benchmarks:
all randomness lives here, the engine stays pure. How the generator works: :func:`choose`.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from types import MappingProxyType

from cueboard.engine import Event, IllegalEvent, Match, to_json
from cueboard.engine.events import Redo, Undo
from cueboard.engine.json_value import JsonObject
from cueboard.games.kits import KITS, Candidate, CandidateFn, SetupFn

__all__ = ["CANDIDATES", "SETUPS", "Candidate", "CandidateFn", "SetupFn", "accepts", "blackball_log",
           "candidates", "choose", "final_log", "legal_events", "random_log", "random_setup",
           "realistic_log", "weighted_order"]

CANDIDATES: Mapping[str, CandidateFn] = MappingProxyType({n: k.simulator.candidates for n, k in KITS.items()})
"""Game name -> candidate function (from ``cueboard.games.kits``)."""

SETUPS: Mapping[str, SetupFn] = MappingProxyType({n: k.simulator.setup for n, k in KITS.items()})
"""Game name -> random match line (from ``cueboard.games.kits``)."""

UNDO_WEIGHT = 1.5
REDO_WEIGHT = 6.0


# -- the game-agnostic part -------------------------------------------------------------


def candidates(match: Match, *, undo: bool = True) -> list[Candidate]:
    """The weighted candidate events for ``match`` now: its game's, then undo and redo."""
    out = list(CANDIDATES[match.setup.game](match.state()))
    if undo:
        if match.can_undo:
            out.append((UNDO_WEIGHT, Undo()))
        if match.can_redo:
            out.append((REDO_WEIGHT, Redo()))
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


def accepts(match: Match, event: Event) -> bool:
    """Whether the match would accept this event now (nothing changes)."""
    try:
        match.check(event)
    except IllegalEvent:
        return False
    return True


def choose(match: Match, rng: random.Random, *, undo: bool = True) -> Event | None:
    """A random event the match accepts now, or None when no candidate is legal
    (in practice: the match is over and undo is off). ``match`` is not changed.

    The engine stays pure; all randomness lives here. The generator is game-agnostic: for the
    match's current typed ``state()`` a per-game function proposes candidate engine events (frozen
    dataclasses), each with a weight, and the first candidate the engine accepts (``match.check``),
    in a weighted random order, is the next event. Proposing an illegal candidate is harmless (it
    is just skipped), so a game's candidate function may be generous and need not re-implement
    the rules. A log (:func:`random_log`, :func:`realistic_log`) is what a journal holds: the match
    line, then each event's JSON (``to_json``).

    Each game's part (its candidate function and random match line, in ``simulate_snooker``
    and ``simulate_blackball``) is listed with the rest of the game in ``cueboard.games.kits``.

    ``undo`` and ``redo`` are added by :func:`candidates` for every game (they are the
    engine's, not the game's). Weights are relative: keep the strokes heavy (pots, misses)
    and frame-ending oddities (concede, award, rerack) rare, so that frames actually finish.

    :func:`final_log` is a deterministic, realistic best-of-35 snooker final (breaks, safety
    exchanges, fouls and misses, conceded frames) for the benchmark in ``bench/engine.py``.
    """
    for event in weighted_order(candidates(match, undo=undo), rng):
        if accepts(match, event):
            return event
    return None


def legal_events(match: Match, rng: random.Random, *, undo: bool = True) -> Iterator[Event]:
    """Play random legal events on ``match``, yielding each event after applying it.

    Stops once the match is over (undo is then not offered, so every sequence ends), or
    when no candidate is legal. ``undo``: also offer ``undo``/``redo`` lines.
    """
    while not match.state().match_over:
        event = choose(match, rng, undo=undo)
        if event is None:
            return
        match.apply(event)
        yield event


def random_setup(game: str, rng: random.Random) -> JsonObject:
    """A random match line for ``game`` (see :data:`SETUPS`)."""
    return SETUPS[game](rng)


def random_log(setup: JsonObject, rng: random.Random, events: int, *,
               undo: bool = True) -> list[JsonObject]:
    """The match line and up to ``events`` random legal events (fewer if the match ends).

    With ``undo`` the log may contain ``undo``/``redo`` lines: replaying it with
    ``Match.apply`` line by line gives the same match.

    >>> import random
    >>> log = random_log({"type": "match", "game": "snooker", "sides": ["A", "B"], "reds": 6},
    ...                  random.Random(1), events=40)
    >>> log[0]["type"], len(log) <= 41
    ('match', True)
    """
    match = Match.from_json(setup)
    log: list[JsonObject] = [dict(setup)]
    for event in legal_events(match, rng, undo=undo):
        log.append(to_json(event))
        if len(log) > events:
            break
    return log


# -- a realistic match, for the demo and the benchmarks -----------------------------------


def realistic_log(setup: JsonObject, rng: random.Random, events: int | None = None) -> list[JsonObject]:
    """A match played to its end (or for ``events`` events) by two strong players: the game's
    model of play (its simulator's ``stroke``), or weighted legal candidates for a game with
    none.

    Every event is checked by the engine as it is made; should the model ever propose an
    illegal one, a random legal candidate is taken instead.
    """
    match = Match.from_json(setup)
    stroke = KITS[match.setup.game].simulator.stroke
    log: list[JsonObject] = [dict(setup)]
    skills = ((0.55, 0.9), (0.5, 0.88))
    last: Event | None = None
    while not match.state().match_over and (events is None or len(log) <= events):
        event: Event | None = None
        if stroke is not None:
            state = match.state()
            striker = state.striker
            event = stroke(state, rng, last, skills[striker if striker is not None else 0])
            try:
                match.push(event)
            except IllegalEvent:
                event = None
        if event is None:
            event = choose(match, rng, undo=False)
            if event is None:
                break
            match.push(event)
        log.append(to_json(event))
        last = event
    return log


def final_log(best_of: int = 35, seed: int = 2025) -> list[JsonObject]:
    """A deterministic synthetic snooker final, best of ``best_of`` frames, played to its end."""
    setup: JsonObject = {"type": "match", "game": "snooker", "sides": ["Ronnie", "Judd"], "best_of": best_of}
    return realistic_log(setup, random.Random(seed))


def blackball_log(race_to: int = 25, seed: int = 2025) -> list[JsonObject]:
    """A deterministic blackball match, race to ``race_to``, played to its end: for the benchmark."""
    setup: JsonObject = {"type": "match", "game": "blackball", "sides": ["Ann", "Bob"], "race_to": race_to}
    return realistic_log(setup, random.Random(seed))
