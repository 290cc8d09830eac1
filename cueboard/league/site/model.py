"""What the site's pages show, read once from the archive: each competition's table (by
:func:`cueboard.league.standings.rank`, the one ranking), its fixtures and results, breaks and
bracket; each match; each player. Plain data for the templates, no HTML here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cueboard.league.site import paths
from cueboard.league.site.bracket import Bracket, bracket_of
from cueboard.league.site.figures import PlayerFigures, all_players
from cueboard.league.standings import Row, Rules, breaks, player_matches, rank, results_of
from cueboard.league.store import Archive


@dataclass
class Competition:
    name: str | None  # None: matches that name no competition
    page: str
    rows: list[Row]
    fixtures: list[dict[str, Any]]  # {day, home, away, record or None}, by day
    breaks: list[dict[str, Any]]
    bracket: Bracket | None
    played: int
    stats: list[dict[str, Any]] = field(default_factory=list)  # a player's figures a row (stats_figures)


@dataclass
class Player:
    name: str
    page: str
    matches: list[dict[str, Any]]
    breaks: list[dict[str, Any]]
    figures: PlayerFigures | None = None  # statistics, rating history, breaks for the charts


@dataclass
class Site:
    competitions: list[Competition]
    matches: list[dict[str, Any]]
    players: dict[str, Player] = field(default_factory=dict)
    up_to: str | None = None  # the last match's day: the site says how recent it is, not when it was built


def side_label(side: Any) -> str:
    """A fixture's home or away: a name, or a pair as ``A & B``."""
    return " & ".join(str(s) for s in side) if isinstance(side, list) else str(side)


def read(archive: Archive, rules: Rules, least: int) -> Site:
    records = archive.records()
    finished = {r.get("match_id") for r in archive.records(finished_only=True)}
    stored = archive.fixtures()
    names = {r.get("competition") for r in records} | {f["competition"] for f in stored}
    order = sorted((n for n in names if n is not None), key=str.casefold) + ([None] if None in names else [])
    competitions = []
    for name in order:
        recs = [r for r in records if r.get("competition") == name]
        rows = rank(results_of([r for r in recs if r.get("match_id") in finished]), rules)
        competitions.append(Competition(name, paths.competition_page(name), rows,
                                        _fixtures(recs, [f for f in stored if f["competition"] == name]),
                                        breaks(recs, least), bracket_of(recs),
                                        sum(1 for r in recs if r.get("match_id") in finished)))
    figures = all_players(records, least)
    for competition in competitions:
        key = competition.name or ""  # stats_figures' name for matches of no competition
        competition.stats = [s.as_dict() for f in figures.values() for s in f.stats if s.competition == key]
        competition.stats.sort(key=lambda s: (-(s["frame_win_rate"] or 0.0), -s["frames_played"], s["player"]))
    site = Site(competitions, records)
    for record in records:
        for side in record["sides"]:
            for player in side["players"]:
                if player not in site.players:
                    site.players[player] = Player(player, paths.player_page(player), player_matches(records, player),
                                                  [b for b in breaks(records, least) if b["player"] == player],
                                                  figures.get(player))
    days = [str(r.get("started") or "")[:10] for r in records if r.get("started")]
    site.up_to = max(days) if days else None
    return site


def _fixtures(records: list[dict[str, Any]], fixtures: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    by_fixture = {str(r["fixture"]): r for r in records if r.get("fixture")}  # the latest start wins
    out: list[dict[str, Any]] = [{"day": f.get("day"), "home": side_label(f["home"]), "away": side_label(f["away"]),
            "record": by_fixture.pop(str(f["fixture"]), None)} for f in fixtures]
    listed = {id(f["record"]) for f in out if f["record"] is not None}
    out += [{"day": (r.get("started") or "")[:10] or None, "home": r["sides"][0]["name"],
             "away": r["sides"][1]["name"], "record": r} for r in records if id(r) not in listed]
    out.sort(key=lambda f: (f["day"] or "9999", (f["record"] or {}).get("started") or ""))
    return out
