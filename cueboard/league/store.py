"""Storing a record exactly once: :class:`Archive`, whose :meth:`Archive.put` stores a record
in one transaction keyed by its ``match_id`` ("same", "replaced" or "older"). What each means:
docs/league.md, "What 'stored once' means".
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, NamedTuple

from cueboard.league.database import Database
from cueboard.league.records import Record
from cueboard.league.schema import migrate

Outcome = Literal["stored", "replaced", "same", "older"]
TRIES = 5
_IN_LIMIT = 500
"""Match ids in one ``IN (...)`` at most (SQLite's older builds take 999 parameters)."""


class _Row(NamedTuple):
    """What deciding a record's outcome needs of its match's stored row."""

    digest: str
    published: str | None
    revision: int
    finished: bool


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
        return self.put_many([(record, source)])[0]

    def put_many(self, items: list[tuple[Record, str]]) -> list[Stored]:
        """Store records (each with its source) in one transaction: all or none. Each record's
        outcome is as if they were put one by one in order (a match's two versions in one batch:
        "stored" then "replaced"), but the batch costs a few statements, not a few per record:
        one read of the rows it touches, then each kind of row written in one ``executemany``
        (issue 41: per-record statements held the archive to a quarter of the database's rate)."""
        if not items:
            return []
        for attempt in range(TRIES):
            try:
                with self.db.transaction():
                    outcomes = self._put_batch(items)
                return [Stored(r.match_id, o) for (r, _), o in zip(items, outcomes, strict=True)]
            except self.db.conflict_errors():
                if attempt == TRIES - 1:
                    raise
        raise AssertionError("unreachable")

    def _put_batch(self, items: list[tuple[Record, str]]) -> list[Outcome]:
        known = self._rows({record.match_id for record, _ in items})
        existed = set(known)
        written: dict[str, tuple[Record, str, int]] = {}  # match -> the version to write, its source, revision
        published_only: dict[str, str] = {}  # match -> the ts of the table's own copy of an imported record
        # (set after the rows are written, as put one by one would: the row keeps the import's record)
        outcomes: list[Outcome] = []
        for record, source in items:
            row = known.get(record.match_id)
            outcome = _outcome(row, record)
            outcomes.append(outcome)
            if outcome in ("stored", "replaced"):
                revision = 1 if row is None else row.revision + 1
                known[record.match_id] = _Row(record.digest, record.published, revision, record.finished)
                written[record.match_id] = (record, source, revision)
            elif outcome == "same" and row is not None and row.published is None and record.published is not None:
                # The table's own record of what a log's import brought: now it is known to
                # come from the table (a later import no longer replaces it).
                known[record.match_id] = row._replace(published=record.published)
                published_only[record.match_id] = record.published
        self._write(written, existed)
        if published_only:
            self.db.executemany("UPDATE matches SET published = ? WHERE match_id = ?",
                                [(ts, match_id) for match_id, ts in published_only.items()])
        return outcomes

    def _rows(self, match_ids: set[str]) -> dict[str, _Row]:
        """The stored rows of these matches (locked until the commit on PostgreSQL)."""
        lock = " FOR UPDATE" if self.db.dialect == "postgresql" else ""
        ids, rows = sorted(match_ids), {}
        for at in range(0, len(ids), _IN_LIMIT):
            chunk = ids[at:at + _IN_LIMIT]
            for match_id, digest, published, revision, finished in self.db.query(
                    "SELECT match_id, digest, published, revision, finished FROM matches "
                    f"WHERE match_id IN ({', '.join('?' for _ in chunk)}){lock}", chunk):
                rows[str(match_id)] = _Row(digest, published, int(revision), bool(finished))
        return rows

    def _write(self, written: dict[str, tuple[Record, str, int]], existed: set[str]) -> None:
        """Each match's version to write: a new row, or the old one's children deleted and
        its row updated; then every child row of the batch."""
        db = self.db
        replaced = [match_id for match_id in written if match_id in existed]
        for at in range(0, len(replaced), _IN_LIMIT):
            chunk = replaced[at:at + _IN_LIMIT]
            for child in ("match_players", "frames", "breaks", "corrections"):
                db.execute(f"DELETE FROM {child} WHERE match_id IN ({', '.join('?' for _ in chunk)})", chunk)
        db.executemany(f"UPDATE matches SET {', '.join(f'{c} = ?' for c in _COLUMNS)} WHERE match_id = ?",
                       [(*_match_row(record, revision, source), match_id)
                        for match_id, (record, source, revision) in written.items() if match_id in existed])
        db.executemany(f"INSERT INTO matches (match_id, {', '.join(_COLUMNS)}) "
                       f"VALUES (?, {', '.join('?' for _ in _COLUMNS)})",
                       [(match_id, *_match_row(record, revision, source))
                        for match_id, (record, source, revision) in written.items() if match_id not in existed])
        self._children([record for record, _, _ in written.values()])

    def _children(self, records: list[Record]) -> None:
        players: list[tuple[Any, ...]] = []
        frames: list[tuple[Any, ...]] = []
        breaks: list[tuple[Any, ...]] = []
        corrections: list[tuple[Any, ...]] = []
        for record in records:
            data, match_id = record.data, record.match_id
            players += [(match_id, side, position, player) for side, s in enumerate(record.sides)
                        for position, player in enumerate(s["players"])]
            for frame in data["frames"]:
                scores = frame.get("scores") or [None, None]
                frames.append((match_id, frame["frame"], frame.get("breaker"), scores[0], scores[1],
                               frame.get("winner"), frame.get("how"), frame.get("rule"), frame.get("started"),
                               frame.get("ended"), frame.get("strokes")))
                breaks += [(match_id, frame["frame"], position, b["side"], b["player"], b["points"])
                           for position, b in enumerate(frame.get("breaks", []))]
            corrections += [(match_id, position, _text(c.get("at")), _text(c.get("user")),
                             c["seq"] if isinstance(c.get("seq"), int) else None,
                             _json(c.get("was")), _json(c.get("now")))
                            for position, c in enumerate(data.get("corrections") or [])]
        db = self.db
        db.executemany("INSERT INTO match_players (match_id, side, position, player) VALUES (?, ?, ?, ?)", players)
        db.executemany("INSERT INTO frames (match_id, frame, breaker, score0, score1, winner, how, rule, "
                       "started, ended, strokes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", frames)
        db.executemany("INSERT INTO breaks (match_id, frame, position, side, player, points) "
                       "VALUES (?, ?, ?, ?, ?, ?)", breaks)
        db.executemany("INSERT INTO corrections (match_id, position, at, user_name, seq, was, now) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)", corrections)

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


def _outcome(row: _Row | None, record: Record) -> Outcome:
    """What putting ``record`` does to its match's stored ``row`` (docs/league.md, "What
    'stored once' means")."""
    if row is None:
        return "stored"
    if row.digest == record.digest:
        return "same"
    if row.published is not None and record.published is not None and record.published < row.published:
        return "older"
    if row.published is not None and record.published is None and (row.finished or not record.finished):
        # A log imported after its table's records came (a journal on a stick): the table's
        # own record stands, unless the import has the end the archive missed.
        return "older"
    return "replaced"


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
