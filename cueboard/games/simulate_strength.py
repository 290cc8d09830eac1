"""Strength-weighted snooker at the level of points, for the league's ratings and handicaps
(issue 42): players whose true strength is known play frames and whole league seasons, and
the records come out in the archive's shape (docs/record.md).

A player's strength is the chance he pots the ball he attempts. A frame is played ball by
ball, not through the engine (a season of 10,000 frames in about a second): a visit goes on
while pots go in (a red, then a colour: the black half the time, else one of the others; with
the reds gone, the colours in order), a failed attempt ends it, and one in ten failures is a
foul worth 4 to the other side. A tie on the last black is played off on a re-spotted black.
Only the fair-frame figures this gives are claimed, not the play of real snooker."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

FOUL_CHANCE = 0.1
FOUL_POINTS = 4
SECONDS_A_STROKE = 25
BREAKS_FROM = 50
COLOURS = (2, 3, 4, 5, 6, 7)


@dataclass(frozen=True)
class Frame:
    scores: tuple[int, int]
    winner: int
    breaks: tuple[tuple[int, int], ...]  # (side, points) of every break of BREAKS_FROM or more
    high_break: tuple[int, int]
    strokes: int


def play_frame(rng: random.Random, strengths: tuple[float, float], *, starts: tuple[int, int] = (0, 0),
               breaker: int = 0) -> Frame:
    """One frame between pot chances ``strengths``; ``starts`` given to each side."""
    scores = list(starts)
    reds, colour, side, strokes = 15, 0, 1 - breaker, 0
    breaks: list[tuple[int, int]] = []
    high = [0, 0]
    first = True
    while colour < len(COLOURS):
        if first:
            first = False
            side = breaker
        else:
            side = 1 - side
        visit = 0
        s = strengths[side]
        while colour < len(COLOURS):
            strokes += 1
            if rng.random() >= s:
                if rng.random() < FOUL_CHANCE:
                    scores[1 - side] += FOUL_POINTS
                break
            if reds:
                reds -= 1
                visit += 1
                strokes += 1
                if rng.random() >= s:
                    break
                visit += 7 if rng.random() < 0.5 else rng.choice(COLOURS[:-1])
            else:
                visit += COLOURS[colour]
                colour += 1
        scores[side] += visit
        high[side] = max(high[side], visit)
        if visit >= BREAKS_FROM:
            breaks.append((side, visit))
    while scores[0] == scores[1]:  # the re-spotted black: the players take turns until it goes
        side = rng.randrange(2)
        while True:
            strokes += 1
            if rng.random() < strengths[side]:
                scores[side] += 7
                break
            side = 1 - side
    return Frame((scores[0], scores[1]), 0 if scores[0] > scores[1] else 1, tuple(breaks), (high[0], high[1]),
                 strokes)


def match_record(rng: random.Random, players: tuple[str, str], strengths: tuple[float, float], *,
                 best_of: int, start: float, starts: tuple[int, int] = (0, 0), competition: str | None = None,
                 match_id: str | None = None) -> dict[str, Any]:
    """A best-of match played out, as the record the table would publish (docs/record.md)."""
    race_to = best_of // 2 + 1
    won = [0, 0]
    frames: list[dict[str, Any]] = []
    t = start
    while max(won) < race_to:
        number = len(frames) + 1
        f = play_frame(rng, strengths, starts=starts, breaker=(number - 1) % 2)
        ended = t + f.strokes * SECONDS_A_STROKE
        won[f.winner] += 1
        frames.append({"frame": number, "breaker": (number - 1) % 2, "scores": list(f.scores),
                       "winner": f.winner, "how": "potted", "rule": "Section 2 Rule 1(c)",
                       "breaks": [{"side": s, "player": players[s], "points": p} for s, p in f.breaks],
                       "high_break": list(f.high_break), "started": _iso(t), "ended": _iso(ended),
                       "strokes": f.strokes, "reracks": 0})
        t = ended + 120
    all_breaks = [{**b, "frame": fr["frame"]} for fr in frames for b in fr["breaks"]]
    top = max((b["points"] for b in all_breaks), default=0)
    return {"schema": 1, "game": "snooker",
            "sides": [{"name": players[0], "players": [players[0]]}, {"name": players[1], "players": [players[1]]}],
            "best_of": best_of, "race_to": race_to, "aggregate": False, "reds": 15, "handicap": list(starts),
            "breaks_from": BREAKS_FROM, "started": _iso(start), "ended": frames[-1]["ended"], "frames": frames,
            "frames_won": won, "totals": [sum(f["scores"][s] for f in frames) for s in (0, 1)],
            "high_break": [b for b in all_breaks if b["points"] == top],
            "winner": 0 if won[0] > won[1] else 1, "how": "played", "corrections": [],
            "match_id": match_id or f"sim/{players[0]}-{players[1]}/{_iso(start)}", "venue": "sim",
            "table": "t1", "fixture": None, "competition": competition}


StartsFn = Callable[[str, str], tuple[int, int]]


def season(rng: random.Random, strengths: dict[str, float], *, frames_a_player: int, best_of: int = 5,
           competition: str = "Simulated", epoch: float = 1_795_000_000.0,
           starts: StartsFn | None = None) -> list[dict[str, Any]]:
    """Rounds of random pairings (everyone plays a match a round; with an odd number one sits
    out) until every player has played ``frames_a_player`` frames or more; ``starts(home,
    away)`` the points each receives (none by default)."""
    players = sorted(strengths)
    played = dict.fromkeys(players, 0)
    records: list[dict[str, Any]] = []
    day = 0
    while min(played.values()) < frames_a_player:
        order = players[:]
        rng.shuffle(order)
        for k in range(0, len(order) - 1, 2):
            home, away = order[k], order[k + 1]
            given = starts(home, away) if starts else (0, 0)
            rec = match_record(rng, (home, away), (strengths[home], strengths[away]), best_of=best_of,
                               start=epoch + 86_400 * day + 3_600 * k, starts=given, competition=competition,
                               match_id=f"sim/{day}/{k}")
            records.append(rec)
            for p in (home, away):
                played[p] += len(rec["frames"])
        day += 1
    return records


def win_rate(rng: random.Random, strengths: tuple[float, float], starts: tuple[int, int], frames: int) -> float:
    """Side 0's share of ``frames`` frames played with ``starts``, the break alternating."""
    return sum(play_frame(rng, strengths, starts=starts, breaker=i % 2).winner == 0 for i in range(frames)) / frames


def strengths_of(names: Sequence[str], low: float = 0.55, high: float = 0.85) -> dict[str, float]:
    """Evenly spread pot chances from ``low`` to ``high``, the first name the weakest."""
    step = (high - low) / max(1, len(names) - 1)
    return {n: round(low + i * step, 4) for i, n in enumerate(names)}


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


