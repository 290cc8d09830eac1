"""A player's numbers for a page (the site's and the archive's): every figure of
:mod:`cueboard.league.stats_figures` per competition, with what it rests on; the rating history
of :mod:`cueboard.league.ratings`; the listed breaks; and the two charts drawn from them. Worked
out once over all the records (the ratings need every frame, in order), then one page a player."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cueboard.league.ratings import Point, Ratings, frame_results
from cueboard.league.site import charts
from cueboard.league.site.words import Words
from cueboard.league.standings import breaks
from cueboard.league.stats_figures import FIELDS, RESTS_ON, PlayerStats, player_stats

SHOWN = tuple(k for k in FIELDS if k not in ("competition", "player"))
"""Every figure, in the order the statistics table has them (the ones the archive cannot
give are shown as "–" with their reason)."""

TABLE = ("frames_played", "frames_won", "frame_win_rate", "points_per_frame", "high_break", "breaks_50",
         "breaks_100", "average_break", "average_frame_seconds", "deciding_frames_won")
"""The columns of a division's statistics table (a phone's width: the player's page has the rest)."""


@dataclass
class PlayerFigures:
    name: str
    stats: list[PlayerStats] = field(default_factory=list)  # a row per competition
    history: list[Point] = field(default_factory=list)
    breaks: list[dict[str, Any]] = field(default_factory=list)  # oldest first

    def rows(self, words: Words) -> list[dict[str, Any]]:
        """The statistics table: a row a figure, a column a competition, and what it rests on."""
        return [{"key": k, "label": words(f"stat.{k}"),
                 "values": [cell(k, s.as_dict()[k]) for s in self.stats], "rests_on": RESTS_ON.get(k, "")}
                for k in SHOWN]

    def rating_chart(self, words: Words) -> str:
        return charts.rating_chart([p.ordinal for p in self.history], words("chart.frames"), words("rating_chart"))

    def breaks_chart(self, words: Words) -> str:
        return charts.breaks_chart([b["points"] for b in self.breaks], words("chart.breaks"), words("breaks_chart"))


def cell(key: str, value: Any) -> str:
    """A figure as the pages print it (``–``: nothing to count, or not in the archive)."""
    if value is None:
        return "–"
    if key == "frame_win_rate":
        return f"{value:.1%}"
    if key in ("average_frame_seconds", "average_shot_seconds"):
        return f"{int(value) // 60}:{int(value) % 60:02d}"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def all_players(records: Sequence[Mapping[str, Any]], least: int = 50) -> dict[str, PlayerFigures]:
    """Every player's figures over ``records`` (the archive's)."""
    out: dict[str, PlayerFigures] = {}
    for row in player_stats(records):
        out.setdefault(row.player, PlayerFigures(row.player)).stats.append(row)
    ratings = Ratings(frame_results(records))
    for name, points in ratings.history.items():
        out.setdefault(name, PlayerFigures(name)).history = points
    for b in sorted(breaks(records, least), key=lambda b: (b["date"] or "", b["match_id"])):
        out.setdefault(b["player"], PlayerFigures(b["player"])).breaks.append(b)
    return out
