"""``cueboard archive stats``'s three forms of each table: text for a person, CSV, JSON."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import Any

from cueboard.league.stats_figures import FIELDS, RESTS_ON, PlayerStats

SHORT = {"competition": "competition", "player": "player", "matches_played": "M", "matches_won": "MW",
         "frames_played": "F", "frames_won": "FW", "frame_win_rate": "F%", "points_per_frame": "pts/F",
         "high_break": "HB", "breaks_50": "50+", "breaks_100": "100+", "average_break": "avgB",
         "average_frame_seconds": "F min", "deciding_frames_played": "dec", "deciding_frames_won": "decW",
         "average_shot_seconds": "shot s", "pots": "pots", "safeties": "safe", "fouls_conceded": "fouls",
         "misses_conceded": "miss"}
"""The columns the text table shows (the rest, with what each rests on, in the notes)."""


def to_csv(rows: Sequence[Mapping[str, Any]], fields: Sequence[str]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(fields)
    for row in rows:
        writer.writerow(["" if row.get(f) is None else row.get(f) for f in fields])
    return out.getvalue()


def stats_text(stats: Sequence[PlayerStats]) -> str:
    rows = [[_cell(k, s.as_dict()[k]) for k in SHORT] for s in stats]
    text = _columns(list(SHORT.values()), rows)
    left_out = [k for k in FIELDS if k not in SHORT and k in RESTS_ON]
    notes = [f"  {SHORT.get(k, k)}: {RESTS_ON[k]}" for k in RESTS_ON if k in SHORT]
    return (text + "\nWhat each figure rests on:\n" + "\n".join(notes) + "\nNot shown: "
            + "; ".join(f"{k}: {RESTS_ON[k]}" for k in left_out) + "\n")


def table_text(rows: Sequence[Mapping[str, Any]], fields: Sequence[str]) -> str:
    return _columns(list(fields), [[_cell(f, r.get(f)) for f in fields] for r in rows])


def _cell(key: str, value: Any) -> str:
    if value is None:
        return "-"
    if key == "frame_win_rate":
        return f"{value:.1%}"
    if key == "average_frame_seconds":
        return f"{value / 60:.1f}"
    return str(value)


def _columns(head: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(head)]
    lines = ["  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
             for r in [head, *rows]]
    return "\n".join(line.rstrip() for line in lines) + "\n"
