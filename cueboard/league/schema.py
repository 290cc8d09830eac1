"""The archive's tables, and the migrations that make them: one schema for SQLite and PostgreSQL.

``schema_version`` holds a row per migration applied (its number, what it did, when). At
every start the archive applies, in order and each in its own transaction, the steps of
:data:`MIGRATIONS` past the highest applied: a new database gets them all, an old one the
ones it lacks. A database newer than this program (a step it does not know) is refused
rather than written to. Steps are only ever added at the end; a step once released never
changes (docs/league.md, "The database").

Types are the common subset: ``TEXT``, ``INTEGER`` (PostgreSQL's ``BIGINT`` where a
count could grow) and JSON kept as ``TEXT`` (the record exactly as received, for export).
Times are ISO 8601 UTC text, as in the record, so they sort and compare as text.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from cueboard.common.errors import DatabaseError
from cueboard.league.database import Database


@dataclass(frozen=True)
class Migration:
    version: int
    description: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "matches, their sides' players, frames, breaks and corrections", (
        """CREATE TABLE matches (
            match_id TEXT PRIMARY KEY,
            game TEXT NOT NULL,
            venue TEXT,
            table_name TEXT,
            fixture TEXT,
            competition TEXT,
            side0 TEXT NOT NULL,
            side1 TEXT NOT NULL,
            best_of INTEGER,
            race_to INTEGER,
            started TEXT,
            ended TEXT,
            finished INTEGER NOT NULL,
            winner INTEGER,
            how TEXT,
            frames0 INTEGER NOT NULL,
            frames1 INTEGER NOT NULL,
            totals0 INTEGER,
            totals1 INTEGER,
            published TEXT,
            digest TEXT NOT NULL,
            revision INTEGER NOT NULL,
            stored_at TEXT NOT NULL,
            source TEXT NOT NULL,
            record TEXT NOT NULL
        )""",
        "CREATE INDEX matches_competition ON matches (competition, finished)",
        "CREATE INDEX matches_fixture ON matches (fixture)",
        """CREATE TABLE match_players (
            match_id TEXT NOT NULL REFERENCES matches (match_id) ON DELETE CASCADE,
            side INTEGER NOT NULL,
            position INTEGER NOT NULL,
            player TEXT NOT NULL,
            PRIMARY KEY (match_id, side, position)
        )""",
        "CREATE INDEX match_players_player ON match_players (player)",
        """CREATE TABLE frames (
            match_id TEXT NOT NULL REFERENCES matches (match_id) ON DELETE CASCADE,
            frame INTEGER NOT NULL,
            breaker INTEGER,
            score0 INTEGER,
            score1 INTEGER,
            winner INTEGER,
            how TEXT,
            rule TEXT,
            started TEXT,
            ended TEXT,
            strokes INTEGER,
            PRIMARY KEY (match_id, frame)
        )""",
        """CREATE TABLE breaks (
            match_id TEXT NOT NULL REFERENCES matches (match_id) ON DELETE CASCADE,
            frame INTEGER NOT NULL,
            position INTEGER NOT NULL,
            side INTEGER NOT NULL,
            player TEXT NOT NULL,
            points INTEGER NOT NULL,
            PRIMARY KEY (match_id, frame, position)
        )""",
        "CREATE INDEX breaks_points ON breaks (points)",
        """CREATE TABLE corrections (
            match_id TEXT NOT NULL REFERENCES matches (match_id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            at TEXT,
            user_name TEXT,
            seq INTEGER,
            was TEXT,
            now TEXT,
            PRIMARY KEY (match_id, position)
        )""",
    )),
    Migration(2, "the fixtures of a league's match days, imported from the secretary's file", (
        """CREATE TABLE fixtures (
            fixture TEXT PRIMARY KEY,
            competition TEXT NOT NULL,
            day TEXT,
            home_team TEXT,
            away_team TEXT,
            home TEXT NOT NULL,
            away TEXT NOT NULL,
            format TEXT NOT NULL
        )""",
    )),
)


def _ensure_version_table(db: Database) -> None:
    db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
               "description TEXT NOT NULL, applied TEXT NOT NULL)")


def current_version(db: Database) -> int:
    _ensure_version_table(db)
    rows = db.query("SELECT MAX(version) FROM schema_version")
    return int(rows[0][0] or 0)


def migrate(db: Database, migrations: tuple[Migration, ...] = MIGRATIONS) -> list[int]:
    """Apply the steps the database lacks, each in one transaction; the versions applied.

    Two archives starting at once on one PostgreSQL database: the second's insert of the
    same version fails on the primary key and rolls its step back whole, so it is tried
    again from the version now in the table."""
    known = migrations[-1].version if migrations else 0
    applied: list[int] = []
    for _ in range(3):
        try:
            with db.transaction():
                _ensure_version_table(db)
            have = current_version(db)
            if have > known:
                raise DatabaseError(f"the archive database {db.url!r} is at schema version {have}, newer than "
                                    f"this cueboard knows ({known}): upgrade cueboard before using it")
            for step in migrations:
                if step.version <= have:
                    continue
                with db.transaction():
                    for statement in step.statements:
                        db.execute(statement)
                    db.execute("INSERT INTO schema_version (version, description, applied) VALUES (?, ?, ?)",
                               (step.version, step.description, _now()))
                applied.append(step.version)
            return applied
        except db.conflict_errors():
            continue
    raise DatabaseError(f"the archive database {db.url!r}: another archive kept migrating it at the same time")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
