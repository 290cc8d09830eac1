"""A club night's draw, as pure functions: a knockout (single elimination, seeded or drawn by
a kept ``seed``, with handicaps) and a round robin (the circle method).
The rules of each: docs/desk.md, "The draw's rules".
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from cueboard.common.errors import DrawError


@dataclass(frozen=True)
class Entrant:
    name: str
    handicap: int = 0


@dataclass(frozen=True)
class Tie:
    """One match of a knockout: ``id`` ``R<round>-<n>``; its sides (``None`` while not
    known, or a bye); the winner once known (0 or 1); where the winner goes next."""

    id: str
    round: int
    sides: tuple[Entrant | None, Entrant | None]
    bye: tuple[bool, bool] = (False, False)
    winner: int | None = None
    next: tuple[str, int] | None = None

    @property
    def ready(self) -> bool:
        return self.winner is None and self.sides[0] is not None and self.sides[1] is not None

    @property
    def handicap(self) -> list[int]:
        a, b = (s.handicap if s is not None else 0 for s in self.sides)
        return [max(0, a - b), max(0, b - a)]

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "round": self.round,
                "sides": [None if s is None else s.name for s in self.sides], "bye": list(self.bye),
                "winner": self.winner, "handicap": self.handicap,
                "next": None if self.next is None else {"tie": self.next[0], "side": self.next[1]}}


@dataclass(frozen=True)
class Bracket:
    rounds: int
    ties: tuple[Tie, ...] = field(default_factory=tuple)

    def tie(self, tie_id: str) -> Tie:
        for t in self.ties:
            if t.id == tie_id:
                return t
        raise DrawError(f"no match {tie_id!r} in this draw")

    def ready(self) -> list[Tie]:
        """The matches that can be played now (both players known, not yet played), in order."""
        return [t for t in self.ties if t.ready]

    @property
    def champion(self) -> Entrant | None:
        final = self.ties[-1]
        return None if final.winner is None else final.sides[final.winner]

    def won(self, tie_id: str, side: int) -> Bracket:
        """The bracket with ``side`` (0 or 1) the winner of ``tie_id``, moved on to its next
        match. A result given again for the same winner changes nothing; a different winner
        for a match whose winner has already played on is refused."""
        tie = self.tie(tie_id)
        if side not in (0, 1):
            raise DrawError(f"{tie_id}: the winner is side 0 or 1, not {side!r}")
        if not tie.ready and tie.winner is None:
            raise DrawError(f"{tie_id}: not ready (a player is still to come from an earlier match)")
        if tie.winner == side:
            return self
        if tie.winner is not None and tie.next is not None and self.tie(tie.next[0]).winner is not None:
            raise DrawError(f"{tie_id}: its winner has already played {tie.next[0]}; correct that first")
        ties = {t.id: t for t in self.ties}
        ties[tie_id] = replace(tie, winner=side)
        if tie.next is not None:
            target, slot = tie.next
            nxt = ties[target]
            sides = list(nxt.sides)
            sides[slot] = tie.sides[side]
            ties[target] = replace(nxt, sides=(sides[0], sides[1]), winner=None)
        return Bracket(self.rounds, tuple(ties[t.id] for t in self.ties))

    def as_dict(self) -> dict[str, Any]:
        champion = self.champion
        return {"rounds": self.rounds, "ties": [t.as_dict() for t in self.ties],
                "champion": None if champion is None else champion.name}


def seeding_ladder(size: int) -> list[int]:
    """The seeds (1-based) in bracket order for ``size`` places, a power of two:
    ``[1, 8, 4, 5, 2, 7, 3, 6]`` for 8 (1 and 2 meet only in the final).

    >>> seeding_ladder(4)
    [1, 4, 2, 3]
    """
    order = [1]
    while len(order) < size:
        n = len(order) * 2
        order = [x for s in order for x in (s, n + 1 - s)]
    return order


def knockout(entrants: Sequence[Entrant], *, seeded: bool = True, seed: int | None = None) -> Bracket:
    """A single-elimination bracket of ``entrants`` (in seeding order when ``seeded``; else
    drawn with ``seed``). Byes are settled at once: their players are in round 2."""
    names = [e.name for e in entrants]
    if len(entrants) < 2:
        raise DrawError("a knockout needs at least 2 players")
    if len(set(names)) != len(names):
        raise DrawError(f"{next(n for n in names if names.count(n) > 1)!r} is entered twice")
    order = list(entrants)
    if not seeded:
        if seed is None:
            raise DrawError("a drawn knockout needs the draw's seed (the desk keeps it)")
        random.Random(seed).shuffle(order)
    size = 1
    while size < len(order):
        size *= 2
    rounds = size.bit_length() - 1
    places: list[Entrant | None] = [order[s - 1] if s <= len(order) else None for s in seeding_ladder(size)]
    ties: list[Tie] = []
    for r in range(1, rounds + 1):
        count = size >> r
        for n in range(count):
            nxt = None if r == rounds else (f"R{r + 1}-{n // 2 + 1}", n % 2)
            sides: tuple[Entrant | None, Entrant | None] = (None, None)
            bye = (False, False)
            if r == 1:
                sides = (places[2 * n], places[2 * n + 1])
                bye = (sides[0] is None, sides[1] is None)
            ties.append(Tie(f"R{r}-{n + 1}", r, sides, bye, None, nxt))
    bracket = Bracket(rounds, tuple(ties))
    for t in ties[:size // 2]:
        if t.bye[1]:
            bracket = _walkover(bracket, t.id, 0)
        elif t.bye[0]:
            bracket = _walkover(bracket, t.id, 1)
    return bracket


def _walkover(bracket: Bracket, tie_id: str, side: int) -> Bracket:
    tie = bracket.tie(tie_id)
    ties = {t.id: t for t in bracket.ties}
    ties[tie_id] = replace(tie, winner=side)
    if tie.next is not None:
        target, slot = tie.next
        sides = list(ties[target].sides)
        sides[slot] = tie.sides[side]
        ties[target] = replace(ties[target], sides=(sides[0], sides[1]))
    return Bracket(bracket.rounds, tuple(ties[t.id] for t in bracket.ties))


def round_robin(players: Sequence[str], *, twice: bool = False) -> list[list[tuple[str, str]]]:
    """The rounds of a round robin, each a list of (home, away) pairings; a player missing
    from a round sits it out. Every pair meets once (``twice``: once more, home and away
    swapped)."""
    if len(players) < 2:
        raise DrawError("a round robin needs at least 2 players")
    if len(set(players)) != len(players):
        raise DrawError(f"{next(p for p in players if players.count(p) > 1)!r} is entered twice")
    ring: list[str | None] = list(players)
    if len(ring) % 2:
        ring.append(None)  # the bye
    n = len(ring)
    rounds: list[list[tuple[str, str]]] = []
    for r in range(n - 1):
        pairs = []
        for i in range(n // 2):
            a, b = ring[i], ring[n - 1 - i]
            if a is not None and b is not None:
                # Alternate who is at home so nobody is at home every round.
                pairs.append((a, b) if (r + i) % 2 == 0 else (b, a))
        rounds.append(pairs)
        ring = [ring[0], ring[-1], *ring[1:-1]]  # the circle turns; the first stays put
    if twice:
        rounds += [[(b, a) for a, b in pairs] for pairs in rounds]
    return rounds
