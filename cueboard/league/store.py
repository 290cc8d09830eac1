"""Storing a record exactly once: :class:`Archive`, whose :meth:`Archive.put` stores a record
in one transaction keyed by its ``match_id`` ("same", "replaced" or "older"). What each means:
docs/league.md, "What 'stored once' means".
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from cueboard.league.database import Database
from cueboard.league.records import Record
from cueboard.league.schema import migrate

Outcome = Literal["stored", "replaced", "same", "older"]
TRIES = 5


@dataclass(frozen=True)
class Stored:
    match_id: str
    outcome: Outcome


class Archive:
    """The archive on an open database (migrated on opening)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        migrate(db)

    @classmethod
    def open(cls, url: str) -> Archive:
        db = Database(url)
        try:
            return cls(db)
        except BaseException:
            db.close()
            raise

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing ------------------------------------------------------------------------

    def put(self, record: Record, *, source: str) -> Stored:
        """Store ``record`` (``source``: the topic or file it came from) in one transaction."""
        for attempt in range(TRIES):
            try:
                with self.db.transaction():
                    outcome = self._put(record, source)
                return Stored(record.match_id, outcome)
            except self.db.conflict_errors():
                if attempt == TRIES - 1:
                    raise
        raise AssertionError("unreachable")

    def put_many(self, items: list[tuple[Record, str]]) -> list[Stored]:
        """Store records (each with its source) in one transaction: all or none."""
        if not items:
            return []
        for attempt in range(TRIES):
            try:
                with self.db.transaction():
                    outcomes = [self._put(record, source) for record, source in items]
                return [Stored(r.match_id, o) for (r, _), o in zip(items, outcomes, strict=True)]
            except self.db.conflict_errors():
                if attempt == TRIES - 1:
                    raise
        raise AssertionError("unreachable")

    def _put(self, record: Record, source: str) -> Outcome:
        db = self.db
        lock = " FOR UPDATE" if db.dialect == "postgresql" else ""
        rows = db.query(f"SELECT digest, published, revision, finished FROM matches WHERE match_id = ?{lock}",
                        (record.match_id,))
        if rows:
            digest, published, revision, finished = rows[0]
            if digest == record.digest:
                if published is None and record.published is not None:
                    # The table's own record of what a log's import brought: now it is known
                    # to come from the table (a later import no longer replaces it).
                    db.execute("UPDATE matches SET published = ? WHERE match_id = ?",
                               (record.published, record.match_id))
                return "same"
            if published is not None and record.published is not None and record.published < published:
                return "older"
            if published is not None and record.published is None and (finished or not record.finished):
                # A log imported after its table's records came (a journal on a stick): the
                # table's own record stands, unless the import has the end the archive missed.
                return "older"
            for child in ("match_players", "frames", "breaks", "corrections"):
                db.execute(f"DELETE FROM {child} WHERE match_id = ?", (record.match_id,))
            db.execute(f"UPDATE matches SET {', '.join(f'{c} = ?' for c in _COLUMNS)} WHERE match_id = ?",
                       (*_match_row(record, int(revision) + 1, source), record.match_id))
            outcome: Outcome = "replaced"
        else:
            db.execute(f"INSERT INTO matches (match_id, {', '.join(_COLUMNS)}) "
                       f"VALUES (?, {', '.join('?' for _ in _COLUMNS)})",
                       (record.match_id, *_match_row(record, 1, source)))
            outcome = "stored"
        self._children(record)
        return outcome

    def _children(self, record: Record) -> None:
        db, data, match_id = self.db, record.data, record.match_id
        db.executemany("INSERT INTO match_players (match_id, side, position, player) VALUES (?, ?, ?, ?)",
                       [(match_id, side, position, player) for side, s in enumerate(record.sides)
                        for position, player in enumerate(s["players"])])
        frames, breaks = [], []
        for frame in data["frames"]:
            scores = frame.get("scores") or [None, None]
            frames.append((match_id, frame["frame"], frame.get("breaker"), scores[0], scores[1],
                           frame.get("winner"), frame.get("how"), frame.get("rule"), frame.get("started"),
                           frame.get("ended"), frame.get("strokes")))
            breaks += [(match_id, frame["frame"], position, b["side"], b["player"], b["points"])
                       for position, b in enumerate(frame.get("breaks", []))]
        db.executemany("INSERT INTO frames (match_id, frame, breaker, score0, score1, winner, how, rule, "
                       "started, ended, strokes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", frames)
        db.executemany("INSERT INTO breaks (match_id, frame, position, side, player, points) "
                       "VALUES (?, ?, ?, ?, ?, ?)", breaks)
        db.executemany("INSERT INTO corrections (match_id, position, at, user_name, seq, was, now) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)",
                       [(match_id, position, _text(c.get("at")), _text(c.get("user")),
                         c["seq"] if isinstance(c.get("seq"), int) else None,
                         _json(c.get("was")), _json(c.get("now")))
                        for position, c in enumerate(data.get("corrections") or [])])

    def put_fixtures(self, fixtures: list[dict[str, Any]]) -> int:
        """Store a match day's fixtures (``cueboard.league.match_day``), replacing any of the same id,
        in one transaction; how many."""
        with self.db.transaction():
            for f in fixtures:
                self.db.execute("DELETE FROM fixtures WHERE fixture = ?", (f["fixture"],))
                self.db.execute("INSERT INTO fixtures (fixture, competition, day, home_team, away_team, home, away, "
                                "format) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                (f["fixture"], f["competition"], f.get("day"), f.get("home_team"),
                                 f.get("away_team"), json.dumps(f["home"], ensure_ascii=False),
                                 json.dumps(f["away"], ensure_ascii=False),
                                 json.dumps(f["format"], sort_keys=True)))
        return len(fixtures)

    # -- reading ------------------------------------------------------------------------

    def records(self, *, competition: str | None = None, finished_only: bool = False) -> list[dict[str, Any]]:
        """The stored records, oldest match first (by start, then id)."""
        where, params = _filter(competition, finished_only)
        rows = self.db.query(f"SELECT record FROM matches{where} ORDER BY started, match_id", params)
        return [json.loads(r[0]) for r in rows]

    def record(self, match_id: str) -> dict[str, Any] | None:
        rows = self.db.query("SELECT record FROM matches WHERE match_id = ?", (match_id,))
        return json.loads(rows[0][0]) if rows else None

    def counts(self) -> dict[str, int]:
        """Rows in each table (what a test or a bench checks)."""
        return {t: int(self.db.query(f"SELECT COUNT(*) FROM {t}")[0][0])
                for t in ("matches", "match_players", "frames", "breaks", "corrections", "fixtures")}

    def revisions(self) -> dict[str, int]:
        return {str(m): int(r) for m, r in self.db.query("SELECT match_id, revision FROM matches")}

    def fixtures(self, competition: str | None = None) -> list[dict[str, Any]]:
        where = " WHERE competition = ?" if competition is not None else ""
        rows = self.db.query("SELECT fixture, competition, day, home_team, away_team, home, away, format "
                             f"FROM fixtures{where} ORDER BY day, fixture",
                             (competition,) if competition is not None else ())
        return [{"fixture": r[0], "competition": r[1], "day": r[2], "home_team": r[3], "away_team": r[4],
                 "home": json.loads(r[5]), "away": json.loads(r[6]), "format": json.loads(r[7])} for r in rows]


def _filter(competition: str | None, finished_only: bool) -> tuple[str, tuple[Any, ...]]:
    clauses, params = [], []
    if competition is not None:
        clauses.append("competition = ?")
        params.append(competition)
    if finished_only:
        clauses.append("finished = 1")
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), tuple(params)


_COLUMNS = ("game", "venue", "table_name", "fixture", "competition", "side0", "side1", "best_of", "race_to",
            "started", "ended", "finished", "winner", "how", "frames0", "frames1", "totals0", "totals1",
            "published", "digest", "revision", "stored_at", "source", "record")


def _match_row(record: Record, revision: int, source: str) -> tuple[Any, ...]:
    d = record.data
    totals = d.get("totals") or [None, None]
    return (d["game"], record.venue, record.table, d.get("fixture"), d.get("competition"),
            d["sides"][0]["name"], d["sides"][1]["name"], _int(d.get("best_of")), _int(d.get("race_to")),
            d.get("started"), d.get("ended"), 1 if record.finished else 0, d.get("winner"), d.get("how"),
            d["frames_won"][0], d["frames_won"][1], _int(totals[0]), _int(totals[1]), record.published,
            record.digest, revision, _now(), source[:500], json.dumps(d, ensure_ascii=False, sort_keys=True))


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
