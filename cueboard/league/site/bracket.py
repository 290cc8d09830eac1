"""A knockout's bracket, where the archive knows one: a competition whose every match carries a
knockout tie's fixture id (``<competition>-R<round>-<n>``, as the desk's draw names them,
cueboard/venue/competition.py) and whose matches are shaped like one (round ``r`` has at most
``2**(last - r)`` ties, nobody plays twice in a round, nobody plays on after losing). A round
robin's ids (``R1-1``, ``R1-2``, ... every round as wide as the first) fail the shape and get no
bracket. Pure: records in, rounds out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

TIE = re.compile(r"(?:^|-)R([1-9][0-9]?)-([1-9][0-9]{0,3})$")


@dataclass(frozen=True)
class Tie:
    round: int
    number: int
    record: Mapping[str, Any] | None  # None: not played (yet), or a bye


@dataclass(frozen=True)
class Bracket:
    rounds: tuple[tuple[Tie, ...], ...]  # first round first; the last is the final

    def name_key(self, index: int) -> tuple[str, int]:
        """The word for round ``index`` (0 first) and its number: final, semi, quarter, round n."""
        from_end = len(self.rounds) - 1 - index
        return (("round.final", "round.semi", "round.quarter")[from_end], 0) if from_end < 3 else ("round.n", index + 1)


def bracket_of(records: Sequence[Mapping[str, Any]]) -> Bracket | None:
    """The bracket of one competition's records, or None when they are not a knockout's."""
    ties: dict[tuple[int, int], Mapping[str, Any]] = {}
    for record in records:
        found = TIE.search(str(record.get("fixture") or ""))
        if found is None:
            return None
        key = (int(found.group(1)), int(found.group(2)))
        if key in ties:
            return None
        ties[key] = record
    if not ties:
        return None
    last = max(max(r for r, _ in ties), *(r + (n - 1).bit_length() for r, n in ties))
    if last > 12 or any(n > 2 ** (last - r) for r, n in ties):
        return None
    out_after: dict[str, int] = {}  # a player -> the round they lost in
    for r in range(1, last + 1):
        seen: set[str] = set()
        for (tr, _), record in sorted(ties.items()):
            if tr != r:
                continue
            names = [s["name"] for s in record["sides"]]
            if seen & set(names) or any(out_after.get(n, r) < r for n in names):
                return None
            seen |= set(names)
            winner = record.get("winner")
            if winner in (0, 1):
                out_after[names[1 - winner]] = r
    return Bracket(tuple(tuple(Tie(r, n, ties.get((r, n))) for n in range(1, 2 ** (last - r) + 1))
                         for r in range(1, last + 1)))
