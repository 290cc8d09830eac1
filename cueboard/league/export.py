"""A stored match in the shapes results systems read.

**CueScore**: CueScore publishes no documented API. Its web pages read each tournament's
matches as JSON from ``https://api.cuescore.com/tournament/?id=<id>``, publicly served and
read by many third-party tools; the shape here is the per-match object those tools read
(``matchId``, ``playerA``/``playerB`` with ``name``, ``scoreA``/``scoreB`` in frames,
``raceTo``, ``matchstatus`` ``"playing"`` or ``"finished"``, ``startTime``, ``table``),
so a site that already reads CueScore's matches can read ours. It is our reading of an
undocumented format, not an import CueScore offers (docs/league.md says so).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def cuescore_match(record: Mapping[str, Any]) -> dict[str, Any]:
    """One record as a CueScore-style match object."""
    sides = record["sides"]
    frames_won = record["frames_won"]
    race_to = record.get("race_to")
    if race_to is None and isinstance(record.get("best_of"), int):
        race_to = record["best_of"] // 2 + 1
    winner = record.get("winner")
    started = record.get("started")
    return {
        "matchId": record.get("match_id"),
        "playerA": {"playerId": None, "name": sides[0]["name"]},
        "playerB": {"playerId": None, "name": sides[1]["name"]},
        "scoreA": frames_won[0],
        "scoreB": frames_won[1],
        "raceTo": race_to,
        "matchstatus": "playing" if winner is None else "finished",
        "winner": None if winner is None else ("A" if winner == 0 else "B"),
        "startTime": started.replace("Z", "") if isinstance(started, str) else None,
        "stopTime": record["ended"].replace("Z", "") if isinstance(record.get("ended"), str) else None,
        "table": {"tableId": None, "name": record.get("table")},
        "tournamentName": record.get("competition"),
        "discipline": record.get("game"),
    }


def cuescore_competition(name: str | None, records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """A whole competition as a CueScore-style tournament object: its name and every match
    (``matches``, oldest first, each as :func:`cuescore_match`), the list a reader of
    CueScore's tournament JSON walks."""
    return {"tournamentName": name, "matches": [cuescore_match(r) for r in records]}
