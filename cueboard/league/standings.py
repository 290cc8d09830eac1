"""The league's tables from the stored records: standings, the break list, a player's matches.
Pure functions of the records (docs/record.md), so SQLite and PostgreSQL give the same tables;
:func:`rank` is the one place a table is ordered. The rules: docs/league.md, "The league table's rules".
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

CSV_FIELDS = ("position", "name", "played", "won", "lost", "frames_for", "frames_against", "frame_difference",
              "points")


@dataclass(frozen=True)
class Rules:
    """How a league scores a match: points for a win, for a loss, for each frame won."""

    win: int = 2
    loss: int = 0
    frame: int = 0


@dataclass
class Row:
    name: str
    played: int = 0
    won: int = 0
    lost: int = 0
    frames_for: int = 0
    frames_against: int = 0
    points: int = 0
    position: int = 0
    beat: dict[str, int] = field(default_factory=dict)  # matches won against each opponent

    @property
    def frame_difference(self) -> int:
        return self.frames_for - self.frames_against

    def as_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in asdict(self).items() if k != "beat"}
        out["frame_difference"] = self.frame_difference
        return {k: out[k] for k in CSV_FIELDS}


@dataclass(frozen=True)
class Result:
    """One finished match as a table counts it: the two sides' names (a player, a pair's
    ``"Cat Lee & Dan Ross"``, or a team), which side won (0 or 1), the frames each side won."""

    sides: tuple[str, str]
    winner: int
    frames_won: tuple[int, int]


def results_of(records: Iterable[Mapping[str, Any]], *,
               teams: Mapping[str, tuple[str, str]] | None = None) -> list[Result]:
    """The finished matches of stored records (``winner`` set), as results. ``teams``: fixture
    id -> (side 0's team, side 1's team), to count teams instead of players (a match whose
    fixture is not in it is left out)."""
    out: list[Result] = []
    for record in records:
        winner = record.get("winner")
        if winner is None:
            continue
        if teams is not None:
            pair = teams.get(str(record.get("fixture")))
            if pair is None:
                continue
            names = (pair[0], pair[1])
        else:
            names = (record["sides"][0]["name"], record["sides"][1]["name"])
        frames_won = record["frames_won"]
        out.append(Result(names, int(winner), (frames_won[0], frames_won[1])))
    return out


def rank(results: Iterable[Result], rules: Rules = Rules(), *, entrants: Iterable[str] = ()) -> list[Row]:
    """The table of ``results``, counted by ``rules`` and ordered by the tie-breaker (module
    docstring), a row per side's name. ``entrants``: names listed even with nothing played yet
    (a round robin's players before their first match), with none counted."""
    rows: dict[str, Row] = {name: Row(name) for name in entrants}
    for result in results:
        names = result.sides
        if names[0] == names[1]:
            continue  # a team against itself (a club night inside one team) is no league result
        frames_won = result.frames_won
        for side in (0, 1):
            row = rows.setdefault(names[side], Row(names[side]))
            row.played += 1
            row.frames_for += frames_won[side]
            row.frames_against += frames_won[1 - side]
            row.points += rules.frame * frames_won[side]
            if side == result.winner:
                row.won += 1
                row.points += rules.win
                row.beat[names[1 - side]] = row.beat.get(names[1 - side], 0) + 1
            else:
                row.lost += 1
                row.points += rules.loss
    return _ordered(list(rows.values()))


def standings(records: Iterable[Mapping[str, Any]], rules: Rules = Rules(), *,
              teams: Mapping[str, tuple[str, str]] | None = None) -> list[Row]:
    """The league table of stored records: :func:`rank` of their :func:`results_of`. ``teams``:
    fixture id -> (side 0's team, side 1's team), to count teams instead of players (a match
    whose fixture is not in it is left out)."""
    return rank(results_of(records, teams=teams), rules)


def _key(row: Row) -> tuple[int, int, int]:
    return (row.points, row.frame_difference, row.frames_for)


def _ordered(rows: list[Row]) -> list[Row]:
    rows.sort(key=lambda r: (-r.points, -r.frame_difference, -r.frames_for, r.name))
    out: list[Row] = []
    i = 0
    while i < len(rows):
        j = i
        while j < len(rows) and _key(rows[j]) == _key(rows[i]):
            j += 1
        level = rows[i:j]
        names = {r.name for r in level}

        def head_to_head(r: Row, names: set[str] = names) -> int:
            return sum(n for opponent, n in r.beat.items() if opponent in names)

        level.sort(key=lambda r: (-head_to_head(r), r.name))
        for k, row in enumerate(level):
            same = k > 0 and head_to_head(level[k - 1]) == head_to_head(row)
            row.position = out[-1].position if same else len(out) + 1
            out.append(row)
        i = j
    return out


def breaks(records: Iterable[Mapping[str, Any]], least: int = 50) -> list[dict[str, Any]]:
    """Every break of ``least`` points or more: player, points, the match and frame, highest
    first (then the earlier match)."""
    out = []
    for record in records:
        for frame in record["frames"]:
            for b in frame.get("breaks") or []:
                if b["points"] >= least:
                    opponent = record["sides"][1 - b["side"]]["name"]
                    out.append({"player": b["player"], "points": b["points"], "century": b["points"] >= 100,
                                "match_id": record.get("match_id"), "frame": frame["frame"],
                                "against": opponent, "date": (frame.get("ended") or record.get("started") or "")[:10]
                                or None, "competition": record.get("competition")})
    out.sort(key=lambda b: (-b["points"], b["date"] or "", b["match_id"] or "", b["frame"]))
    return out


def player_matches(records: Iterable[Mapping[str, Any]], player: str) -> list[dict[str, Any]]:
    """A player's matches (as a side's name or one of its players), oldest first."""
    out = []
    for record in records:
        for side, s in enumerate(record["sides"]):
            if player == s["name"] or player in s["players"]:
                winner = record.get("winner")
                out.append({"match_id": record.get("match_id"), "started": record.get("started"),
                            "competition": record.get("competition"), "fixture": record.get("fixture"),
                            "opponent": record["sides"][1 - side]["name"],
                            "frames_for": record["frames_won"][side], "frames_against": record["frames_won"][1 - side],
                            "result": None if winner is None else ("won" if winner == side else "lost")})
                break
    out.sort(key=lambda m: (m["started"] or "", m["match_id"] or ""))
    return out


def to_csv(rows: Iterable[Row]) -> str:
    """A header row, then a row per player or team (``CSV_FIELDS``)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for row in rows:
        d = row.as_dict()
        writer.writerow([_cell(d[k]) for k in CSV_FIELDS])
    return buffer.getvalue()


def _cell(value: Any) -> Any:
    """A spreadsheet must not run a name as a formula (CSV injection: =, +, -, @ first)."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def text_table(rows: list[Row]) -> str:
    """The table for a terminal, in columns."""
    header = ("Pos", "Name", "P", "W", "L", "F", "A", "+/-", "Pts")
    lines = [(str(r.position), r.name, str(r.played), str(r.won), str(r.lost), str(r.frames_for),
              str(r.frames_against), f"{r.frame_difference:+d}", str(r.points)) for r in rows]
    widths = [max(len(x) for x in column) for column in zip(header, *lines, strict=False)]
    return "".join("  ".join(c.ljust(w) if i == 1 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths,
                   strict=True))).rstrip() + "\n" for line in [header, *lines])


BREAK_FIELDS = ("player", "points", "century", "against", "date", "frame", "competition", "match_id")


def breaks_csv(found: Iterable[Mapping[str, Any]]) -> str:
    """The break list as CSV: a header row, then a break a row."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(BREAK_FIELDS)
    for b in found:
        writer.writerow([_cell(b[k]) for k in BREAK_FIELDS])
    return buffer.getvalue()


def team_sides(fixtures: Iterable[Mapping[str, Any]]) -> dict[str, tuple[str, str]]:
    """Fixture id -> (home team, away team) for the fixtures that name both teams. A record's
    side 0 is the fixture's home side (the desk starts the match line home first)."""
    return {str(f["fixture"]): (str(f["home_team"]), str(f["away_team"])) for f in fixtures
            if f.get("home_team") and f.get("away_team")}
