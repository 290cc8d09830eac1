"""Matches for the archive's tests: real records of simulated matches, played by the engine.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from cueboard.engine import Match
from cueboard.engine.record import record_of
from cueboard.games.simulate import realistic_log
from cueboard.venue.pairings import round_robin

EPOCH = 1_795_000_000.0  # 2026-11-18: the events' "t", so each match has its start time


def match_log(home: str | list[str], away: str | list[str], *, seed: int, best_of: int = 3,
              start: float = EPOCH) -> list[dict[str, Any]]:
    """A snooker match played to its end, each event 20 s after the last."""
    setup = {"type": "match", "game": "snooker", "sides": [home, away], "best_of": best_of}
    log = realistic_log(setup, random.Random(seed))
    return [log[0], *({**event, "t": start + 20 * i} for i, event in enumerate(log[1:], start=1))]


def record(log: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    match = Match.from_json(log[0])
    for obj in log[1:]:
        match.apply(match.parse(obj))
    return {**record_of(match), **extra}


def write_log(path: Path, log: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in log))
    return path


def season(players: list[str], *, seed: int = 1, competition: str = "Division 1",
           venue: str = "club") -> list[dict[str, Any]]:
    """A round robin of ``players``, every match played to its end, records with the match
    id the table's feed gives them (``<venue>/<table>/<started>``)."""
    records = []
    for r, pairs in enumerate(round_robin(players)):
        for k, (home, away) in enumerate(pairs):
            start = EPOCH + 86_400 * r + 3600 * k
            log = match_log(home, away, seed=seed * 1000 + r * 10 + k, start=start)
            rec = record(log, competition=competition, fixture=f"R{r + 1}-{k + 1}", venue=venue, table=f"t{k + 1}")
            rec["match_id"] = f"{venue}/t{k + 1}/{rec['started']}"
            records.append(rec)
    return records
