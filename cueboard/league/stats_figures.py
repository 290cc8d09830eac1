"""Each player's figures over the stored records, per competition (a league's division and
season): a pure function of the records (docs/record.md), so SQLite and PostgreSQL agree.

What the archive holds is the record, not the events: the frames' scores, winners, times and
the breaks of ``breaks_from`` points or more (50 by default), and, in records made since it
was added, each frame's ``counts`` (docs/record.md, "Counts": every player's strokes, pots,
safeties, fouls, misses and seconds at the table). The figures from the counts (shot time,
fouls and misses conceded, pots and safeties) add up the frames that carry them only: a frame
or a match without them is not known, never 0, and ``frames_counted`` says how many frames a
player's rest on (``None`` when none). What each figure rests on: :data:`RESTS_ON`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

CENTURY = 100
FIFTY = 50

RESTS_ON: dict[str, str] = {
    "points_per_frame": "snooker frames' scores, less the player's side's start (handicap); a pair's "
                        "points in four-handed frames",
    "high_break": "every break: the frame's high break per side (singles) and the breaks listed",
    "breaks_50": "the breaks the record lists (its breaks_from, 50 by default)",
    "breaks_100": "the breaks the record lists",
    "average_break": "the breaks the record lists only (50 and over by default), not every visit",
    "average_frame_seconds": "the frames' start and end times (frames without times are left out)",
    "deciding_frames_won": "frames begun at race_to - 1 frames each (best-of matches of 3 frames or more)",
    "frames_counted": "frames whose record carries counts (records made before them have none: not known)",
    "average_shot_seconds": "the frames' counts: his strokes' times (each from the event before it to the "
                            "stroke, by the events' own times) over his strokes with a time",
    "fouls_conceded": "the frames' counts: fouls charged to him (blackball: an invalid break too)",
    "misses_conceded": "the frames' counts: snooker fouls keyed with \"miss\": true (blackball has no miss)",
    "pots": "the frames' counts: his strokes that potted",
    "safeties": "what was keyed: snooker no_pots keyed \"safety\": true, in frames where the scorer keyed "
                "safety at all (frames_safety_keyed); not known elsewhere",
    "frames_safety_keyed": "frames of his with counts in which a no_pot was keyed safety or missed pot",
}
"""Figure -> what it rests on: printed with ``--json`` and under the table."""


@dataclass
class PlayerStats:
    """One player's figures in one competition (``None``: nothing to count, or not archived)."""

    competition: str
    player: str
    matches_played: int = 0
    matches_won: int = 0
    frames_played: int = 0
    frames_won: int = 0
    frame_win_rate: float | None = None
    points_per_frame: float | None = None
    high_break: int | None = None
    breaks_50: int = 0
    breaks_100: int = 0
    average_break: float | None = None
    average_frame_seconds: float | None = None
    average_shot_seconds: float | None = None
    fouls_conceded: int | None = None
    misses_conceded: int | None = None
    pots: int | None = None
    safeties: int | None = None
    deciding_frames_played: int = 0
    deciding_frames_won: int = 0
    frames_counted: int | None = None
    frames_safety_keyed: int | None = None
    _seconds_at_table: float = field(default=0.0, repr=False)
    _timed: int = field(default=0, repr=False)
    _points: list[int] = field(default_factory=list, repr=False)
    _breaks: list[int] = field(default_factory=list, repr=False)
    _seconds: list[float] = field(default_factory=list, repr=False)

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if not k.startswith("_")}


FIELDS = tuple(k for k in PlayerStats.__dataclass_fields__ if not k.startswith("_"))


def player_stats(records: Iterable[Mapping[str, Any]]) -> list[PlayerStats]:
    """The figures of every player in ``records`` (the archive's), a row per competition and
    player, ordered by competition, then frame win rate (best first), then name. An unfinished
    match counts its ended frames but no match."""
    rows: dict[tuple[str, str], PlayerStats] = {}
    for record in records:
        _count_match(record, rows)
    for row in rows.values():
        _finish(row)
    return sorted(rows.values(), key=lambda r: (r.competition, -(r.frame_win_rate or 0.0), r.player))


def _count_match(record: Mapping[str, Any], rows: dict[tuple[str, str], PlayerStats]) -> None:
    competition = str(record.get("competition") or "")
    sides = [list(s["players"]) for s in record["sides"]]
    mine = {(side, p): rows.setdefault((competition, p), PlayerStats(competition, p))
            for side in (0, 1) for p in sides[side]}
    winner = record.get("winner")
    if winner is not None:
        for (side, _), row in mine.items():
            row.matches_played += 1
            row.matches_won += side == winner
    starts = record.get("handicap") or [0, 0]
    race_to = record.get("race_to")
    won_before = [0, 0]
    for frame in record.get("frames", []):
        deciding = isinstance(race_to, int) and race_to > 1 and won_before == [race_to - 1, race_to - 1]
        seconds = _seconds(frame.get("started"), frame.get("ended"))
        scores = frame.get("scores")
        high = frame.get("high_break")
        for (side, _), row in mine.items():
            row.frames_played += 1
            row.frames_won += frame.get("winner") == side
            if deciding:
                row.deciding_frames_played += 1
                row.deciding_frames_won += frame.get("winner") == side
            if seconds is not None:
                row._seconds.append(seconds)
            if isinstance(scores, list) and isinstance(scores[side], int):
                row._points.append(scores[side] - int(starts[side] or 0))
            if isinstance(high, list) and len(sides[side]) == 1 and isinstance(high[side], int) and high[side] > 0:
                row.high_break = max(row.high_break or 0, high[side])
        for count in _counts(frame):
            counted = mine.get((count["side"], count["player"]))
            if counted is not None:
                _add_count(counted, count)
        for b in frame.get("breaks", []):
            maker = mine.get((b["side"], b["player"]))
            if maker is None:
                continue  # a break by a name not among the side's players: a malformed record's
            maker._breaks.append(b["points"])
            maker.high_break = max(maker.high_break or 0, b["points"])
        if frame.get("winner") in (0, 1):
            won_before[frame["winner"]] += 1


def _counts(frame: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The frame's ``counts`` whose entries are well formed (a record from the feed is checked
    loosely: an entry that is not is left out, so not known, rather than miscounted)."""
    counts = frame.get("counts")
    if not isinstance(counts, list):
        return []
    return [c for c in counts if isinstance(c, dict) and _well_formed(c)]


def _well_formed(c: Mapping[str, Any]) -> bool:
    def count(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and v >= 0

    return (c.get("side") in (0, 1) and isinstance(c.get("player"), str)
            and all(count(c.get(k)) for k in ("strokes", "pots", "fouls", "timed"))
            and all(c.get(k) is None or count(c.get(k)) for k in ("safeties", "misses"))
            and isinstance(c.get("seconds"), int | float) and not isinstance(c.get("seconds"), bool)
            and c["seconds"] >= 0)


def _add_count(row: PlayerStats, c: Mapping[str, Any]) -> None:
    row.frames_counted = (row.frames_counted or 0) + 1
    row.pots = (row.pots or 0) + c["pots"]
    row.fouls_conceded = (row.fouls_conceded or 0) + c["fouls"]
    if c.get("misses") is not None:
        row.misses_conceded = (row.misses_conceded or 0) + c["misses"]
    if c.get("safeties") is not None:
        row.safeties = (row.safeties or 0) + c["safeties"]
        row.frames_safety_keyed = (row.frames_safety_keyed or 0) + 1
    row._seconds_at_table += c["seconds"]
    row._timed += c["timed"]


def _finish(row: PlayerStats) -> None:
    if row.frames_played:
        row.frame_win_rate = round(row.frames_won / row.frames_played, 4)
    if row._points:
        row.points_per_frame = round(sum(row._points) / len(row._points), 2)
    row.breaks_50 = sum(1 for b in row._breaks if b >= FIFTY)
    row.breaks_100 = sum(1 for b in row._breaks if b >= CENTURY)
    if row._breaks:
        row.average_break = round(sum(row._breaks) / len(row._breaks), 2)
    if row._seconds:
        row.average_frame_seconds = round(sum(row._seconds) / len(row._seconds), 1)
    if row._timed:
        row.average_shot_seconds = round(row._seconds_at_table / row._timed, 1)


def _seconds(started: Any, ended: Any) -> float | None:
    if not (isinstance(started, str) and isinstance(ended, str)):
        return None
    try:
        a = datetime.fromisoformat(started.replace("Z", "+00:00"))
        b = datetime.fromisoformat(ended.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (b - a).total_seconds()
