"""Handicap suggestions: the points start that makes a frame between two players an even
chance, from the ratings and this league's own frames (docs/league.md, "Handicaps"). The
secretary decides; each suggestion shows its figures and why.

The even start between two players is the points margin the stronger wins a level frame
by as often as not (the median margin): give the weaker that many points and each wins
half the frames. The league's frames tell how the margin grows with the ratings: over every
snooker frame rated, the margin on the table (scores less the starts) against the
difference of the two sides' ``mu``, a least-squares line through zero, ``points_per_mu``.
A suggestion is that line at the two players' ``mu``. Frames already played with a start
are shown beside it: how often the receiver won, against what the ratings gave him level."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from cueboard.league.stats.ratings import FrameResult, Ratings

MAX_START = 147
MIN_FRAMES = 20
"""Scored frames the line needs before it suggests anything."""


@dataclass(frozen=True)
class Fit:
    """What the league's frames say: points of margin per unit of ``mu``, the frames it rests
    on and the spread about it; the frames played with a start, and how the receivers did."""

    points_per_mu: float | None
    frames: int
    spread: float | None  # standard deviation of a frame's margin about the line, points
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
    """The line and the started frames' record (module docstring), from ``ratings``' frames."""
    xy: list[tuple[float, float]] = []
    won: list[int] = []
    chance: list[float] = []
    for result in ratings.results:
        if result.scores is not None:
            xy.append((_mu(ratings, result.sides[0]) - _mu(ratings, result.sides[1]),
                       (result.scores[0] - result.starts[0]) - (result.scores[1] - result.starts[1])))
        diff = result.starts[1] - result.starts[0]
        if diff:
            receiver = 1 if diff > 0 else 0
            won.append(int(result.winner == receiver))
            chance.append(ratings.win_chance(result.sides[receiver], result.sides[1 - receiver]))
    sxx = sum(x * x for x, _ in xy)
    slope = sum(x * y for x, y in xy) / sxx if len(xy) >= MIN_FRAMES and sxx > 0 else None
    spread = (math.sqrt(sum((y - slope * x) ** 2 for x, y in xy) / (len(xy) - 1))
              if slope is not None else None)
    return Fit(slope, len(xy), spread, len(won), sum(won) / len(won) if won else None,
               sum(chance) / len(chance) if chance else None)


def suggest(ratings: Ratings, players: Sequence[str], league_fit: Fit | None = None) -> list[Suggestion]:
    """A suggestion for every pair of ``players`` (in the order given), strongest first in each;
    none when the league has fewer than :data:`MIN_FRAMES` scored frames."""
    f = league_fit or fit(ratings)
    if f.points_per_mu is None:
        return []
    so_far = ""
    if f.started_frames and f.receiver_won is not None and f.receiver_level_chance is not None:
        so_far = (f" In the {f.started_frames} frames played with a start so far, the receiver won "
                  f"{f.receiver_won:.1%}, where level the ratings gave him {f.receiver_level_chance:.1%}.")
    out: list[Suggestion] = []
    for a, b in combinations(players, 2):
        ra, rb = ratings.rating(a), ratings.rating(b)
        stronger, weaker = (a, b) if (ra.mu, b) >= (rb.mu, a) else (b, a)
        rs, rw = ratings.rating(stronger), ratings.rating(weaker)
        chance = ratings.win_chance([stronger], [weaker])
        start = min(MAX_START, max(0, round(f.points_per_mu * (rs.mu - rw.mu))))
        reason = (f"{stronger} (mu {rs.mu:.2f}) wins a level frame against {weaker} (mu {rw.mu:.2f}) "
                  f"{chance:.1%} of the time by the ratings. In this league's {f.frames} scored frames a "
                  f"frame's margin grew {f.points_per_mu:.2f} points for each point of mu between the "
                  f"players (spread {f.spread:.0f} points), so a start of {start} for {weaker} is the "
                  f"margin {stronger} wins by as often as not: an even frame.{so_far}")
        out.append(Suggestion(stronger, weaker, chance, start, reason))
    return out


def _mu(ratings: Ratings, side: Sequence[str]) -> float:
    return sum(ratings.rating(p).mu for p in side) / len(side)


__all__ = ["Fit", "FrameResult", "Suggestion", "fit", "suggest"]
