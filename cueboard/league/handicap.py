"""Handicap suggestions: the points start that makes a frame between two players an even
chance, from the league's own frames and its ratings (docs/league.md, "Handicaps"). The
secretary decides; each suggestion shows its figures and why.

The even start between two players is the margin by which the stronger wins a level frame
as often as not: give the weaker that many points and each wins half the frames. Each
player's margin figure comes from every snooker frame rated: a frame's margin on the table
(its scores less the starts) is taken as the difference of the two sides' figures, fitted
by least squares (a points rating; a pair's figure is its players' mean). The start is the
difference of the two figures; the ratings' chance of a level frame is shown beside it, and
the frames already played with a start: how often the receiver won, and what the ratings
gave him level."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from cueboard.league.ratings import FrameResult, Ratings

MAX_START = 147
MIN_FRAMES = 20
"""Scored frames the figures need before anything is suggested."""


@dataclass(frozen=True)
class Fit:
    """What the league's frames say: each player's margin figure, the scored frames they rest
    on and a frame's spread about them; the frames played with a start, and how the receivers did."""

    figures: dict[str, float]  # a player's margin figure, points; empty below MIN_FRAMES
    frames: int
    spread: float | None  # standard deviation of a frame's margin about the figures, points
    started_frames: int
    receiver_won: float | None  # share of frames with a start the receiver won
    receiver_level_chance: float | None  # the ratings' chance for the receivers, level


@dataclass(frozen=True)
class Suggestion:
    stronger: str
    weaker: str
    chance: float  # the stronger's chance in a level frame, by the ratings
    start: int  # points the weaker receives
    reason: str

    def as_dict(self) -> dict[str, object]:
        return {"stronger": self.stronger, "weaker": self.weaker, "level_chance": round(self.chance, 4),
                "start": self.start, "reason": self.reason}


def fit(ratings: Ratings) -> Fit:
    """The players' margin figures and the started frames' record (module docstring)."""
    scored = [r for r in ratings.results if r.scores is not None]
    won: list[int] = []
    chance: list[float] = []
    for result in ratings.results:
        diff = result.starts[1] - result.starts[0]
        if diff:
            receiver = 1 if diff > 0 else 0
            won.append(int(result.winner == receiver))
            chance.append(ratings.win_chance(result.sides[receiver], result.sides[1 - receiver]))
    figures = _margins(scored) if len(scored) >= MIN_FRAMES else {}
    spread = None
    if figures:
        residuals = [_margin(r) - (_side(figures, r.sides[0]) - _side(figures, r.sides[1])) for r in scored]
        spread = math.sqrt(sum(e * e for e in residuals) / max(1, len(residuals) - 1))
    return Fit(figures, len(scored), spread, len(won), sum(won) / len(won) if won else None,
               sum(chance) / len(chance) if chance else None)


def _margin(r: FrameResult) -> int:
    assert r.scores is not None
    return (r.scores[0] - r.starts[0]) - (r.scores[1] - r.starts[1])


def _side(figures: dict[str, float], side: Sequence[str]) -> float:
    return sum(figures.get(p, 0.0) for p in side) / len(side)


def _margins(results: Sequence[FrameResult], rounds: int = 500) -> dict[str, float]:
    """Least-squares figures (Gauss-Seidel, players in name order, so the same frames give
    the same figures), their mean 0; a pair's frame moves both players by its share."""
    players = sorted({p for r in results for side in r.sides for p in side})
    figures = dict.fromkeys(players, 0.0)
    by_player: dict[str, list[tuple[FrameResult, int]]] = {p: [] for p in players}
    for r in results:
        for s, side in enumerate(r.sides):
            for p in side:
                by_player[p].append((r, s))
    for _ in range(rounds):
        moved = 0.0
        for p in players:
            total = weight = 0.0
            for r, s in by_player[p]:
                share = 1 / len(r.sides[s])
                sign = 1 if s == 0 else -1
                # the margin this player's side would need, less what the others already explain
                rest = _side(figures, r.sides[s]) - figures[p] * share
                other = _side(figures, r.sides[1 - s])
                target = (sign * _margin(r) + other - rest) / share
                total += target * share * share
                weight += share * share
            new = total / weight
            moved = max(moved, abs(new - figures[p]))
            figures[p] = new
        if moved < 0.001:
            break
    mean = sum(figures.values()) / len(figures)
    return {p: v - mean for p, v in figures.items()}


def suggest(ratings: Ratings, players: Sequence[str], league_fit: Fit | None = None) -> list[Suggestion]:
    """A suggestion for every pair of ``players`` (in the order given), strongest first in each;
    none when the league has fewer than :data:`MIN_FRAMES` scored frames."""
    f = league_fit or fit(ratings)
    if not f.figures:
        return []
    so_far = ""
    if f.started_frames and f.receiver_won is not None and f.receiver_level_chance is not None:
        so_far = (f" In the {f.started_frames} frames played with a start so far, the receiver won "
                  f"{f.receiver_won:.1%}, where level the ratings gave him {f.receiver_level_chance:.1%}.")
    out: list[Suggestion] = []
    for a, b in combinations(players, 2):
        fa, fb = f.figures.get(a, 0.0), f.figures.get(b, 0.0)
        stronger, weaker = (a, b) if (fa, b) >= (fb, a) else (b, a)
        margin = abs(fa - fb)
        chance = ratings.win_chance([stronger], [weaker])
        start = min(MAX_START, round(margin))
        reason = (f"Over this league's {f.frames} scored frames, {stronger} outscores {weaker} by "
                  f"{margin:.1f} points a frame on the table (figures {f.figures.get(stronger, 0.0):+.1f} and "
                  f"{f.figures.get(weaker, 0.0):+.1f}; a frame's spread about them {f.spread or 0:.0f} points), so "
                  f"a start of {start} for {weaker} makes the frame even; level, the ratings (mu "
                  f"{ratings.rating(stronger).mu:.2f} v {ratings.rating(weaker).mu:.2f}) give {stronger} "
                  f"{chance:.1%}.{so_far}")
        out.append(Suggestion(stronger, weaker, chance, start, reason))
    return out


def _mu(ratings: Ratings, side: Sequence[str]) -> float:
    return sum(ratings.rating(p).mu for p in side) / len(side)


__all__ = ["Fit", "FrameResult", "Suggestion", "fit", "suggest"]
