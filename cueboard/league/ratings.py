"""Players' ratings from the archive's frame results, with openskill's Plackett-Luce model
(docs/league.md, "Ratings"): every frame with a winner is one game between the two sides'
players, so a pair in four-handed snooker is rated as a team of two.

The ratings are always worked out again from the whole archive, in one fixed order (match
start, match id, frame number), never updated in place: a correction that changes a result
changes every rating after it, and the same archive always gives the same ratings."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce, PlackettLuceRating

MU = 25.0
SIGMA = MU / 3
BETA = SIGMA / 2
TAU = MU / 3000
"""openskill's defaults, but ``tau`` (the uncertainty added before each frame, for a player
whose play changes) a tenth of its 25/300: a player's strength is taken as steady over a
season, so his rating keeps more of his older frames (after 500 frames a player, ``sigma``
1.2-1.4 against the default's 1.5-1.7; docs/league.md, "Ratings")."""


@dataclass(frozen=True)
class Point:
    """A player's rating after one frame: ``mu`` the skill believed, ``sigma`` how unsure,
    ``ordinal`` = mu - 3 sigma (what the table is ordered by)."""

    match_id: str
    frame: int
    date: str | None
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class FrameResult:
    """One rated frame: the sides' players, the side that won, each side's start (points)."""

    match_id: str
    frame: int
    date: str | None
    sides: tuple[tuple[str, ...], tuple[str, ...]]
    winner: int  # the frame's winner, its start included
    starts: tuple[int, int]
    scores: tuple[int, int] | None  # snooker: the frame's scores, starts included

    @property
    def on_the_table(self) -> int | None:
        """The side that scored more on the table (the starts left out): the result rated.
        A frame level on the table is decided by who won it."""
        if self.starts == (0, 0) or self.scores is None:
            return self.winner if self.starts[0] == self.starts[1] else None
        a, b = self.scores[0] - self.starts[0], self.scores[1] - self.starts[1]
        return self.winner if a == b else (0 if a > b else 1)


def model() -> PlackettLuce:
    return PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU)


def frame_results(records: Iterable[Mapping[str, Any]]) -> list[FrameResult]:
    """Every frame with a winner, in the one rating order (match start, match id, frame)."""
    out: list[FrameResult] = []
    for record in sorted(records, key=lambda r: (r.get("started") or "", str(r.get("match_id")))):
        sides = (tuple(record["sides"][0]["players"]), tuple(record["sides"][1]["players"]))
        if not sides[0] or not sides[1] or set(sides[0]) & set(sides[1]):
            continue  # a side with nobody, or a player on both sides: no game between two sides
        starts = record.get("handicap") or [0, 0]
        for frame in sorted(record.get("frames", []), key=lambda f: int(f["frame"])):
            scores = frame.get("scores")
            if frame.get("winner") in (0, 1):
                out.append(FrameResult(str(record.get("match_id")), int(frame["frame"]),
                                       frame.get("ended") or record.get("started"), sides,
                                       int(frame["winner"]), (int(starts[0] or 0), int(starts[1] or 0)),
                                       (int(scores[0]), int(scores[1])) if _scores(scores) else None))
    return out


class Ratings:
    """The ratings after every frame of ``results`` (:func:`frame_results`), and each
    player's history."""

    def __init__(self, results: Iterable[FrameResult]) -> None:
        self.model = model()
        self.current: dict[str, PlackettLuceRating] = {}
        self.history: dict[str, list[Point]] = {}
        self.frames: dict[str, int] = {}
        self.results: list[FrameResult] = []  # the frames rated, in order
        for result in results:
            self._rate(result)

    def rating(self, player: str) -> PlackettLuceRating:
        found = self.current.get(player)
        return found if found is not None else self.model.rating(name=player)

    def _rate(self, result: FrameResult) -> None:
        # A frame won with a start says who won with it, not who played better: the result
        # rated is who scored more on the table (the starts left out); without scores
        # (blackball) a frame with a start is not rated.
        winner = result.on_the_table
        if winner is None:
            return
        teams = [[self.rating(p) for p in side] for side in result.sides]
        self.results.append(result)
        ranks = [0.0, 1.0] if winner == 0 else [1.0, 0.0]
        rated = self.model.rate(teams, ranks=ranks)
        for side, team in zip(result.sides, rated, strict=True):
            for player, r in zip(side, team, strict=True):
                self.current[player] = r
                self.frames[player] = self.frames.get(player, 0) + 1
                self.history.setdefault(player, []).append(
                    Point(result.match_id, result.frame, result.date, r.mu, r.sigma))

    def win_chance(self, side0: Iterable[str], side1: Iterable[str]) -> float:
        """The chance the ratings give side 0 of winning a level frame against side 1."""
        chances = self.model.predict_win([[self.rating(p) for p in side0], [self.rating(p) for p in side1]])
        return float(chances[0])

    def table(self) -> list[dict[str, Any]]:
        """A row a player: rank, name, mu, sigma, ordinal, frames rated; best ordinal first."""
        rows = sorted(self.current.items(), key=lambda kv: (-kv[1].ordinal(), kv[0]))
        return [{"rank": i, "player": name, "mu": round(r.mu, 3), "sigma": round(r.sigma, 3),
                 "ordinal": round(r.ordinal(), 3), "frames": self.frames[name]}
                for i, (name, r) in enumerate(rows, start=1)]


def _scores(value: Any) -> bool:
    return (isinstance(value, list) and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value))
