"""The archive's database: SQLite (a file, nothing to run) or PostgreSQL (a league's server).

``--db`` takes a URL: ``sqlite:///var/lib/cueboard/archive.db`` (or a plain path, which is
the same), or ``postgresql://user:password@host/dbname`` (psycopg 3, the ``archive-pg``
extra or Debian's ``python3-psycopg``). Both speak the same SQL here: statements are written
with ``?`` placeholders and turned into psycopg's ``%s``; a transaction is one ``with
db.transaction():`` block, committed whole or not at all.

SQLite runs in WAL mode with ``synchronous=FULL``: a committed record is on the disk
before the archive acknowledges the message that brought it (so a power cut after the
acknowledgement loses nothing), and readers (the standings) never wait for the writer.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Protocol

from cueboard.common.errors import DatabaseError

Row = tuple[Any, ...]

BUSY_TIMEOUT = 30.0
"""Seconds a SQLite writer waits for another (an import beside the running service)."""


class _Cursor(Protocol):
    def execute(self, sql: Any, params: Any = ...) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def fetchone(self) -> Any: ...


class Database:
    """One connection to the archive's database, SQLite or PostgreSQL."""

    dialect: str
    url: str

    def __init__(self, url: str) -> None:
        self.url = url
        self._in_transaction = False
        if url.startswith(("postgresql://", "postgres://")):
            self.dialect = "postgresql"
            self._connection: Any = _connect_postgresql(url)
        else:
            self.dialect = "sqlite"
            self._connection = _connect_sqlite(url)

    # -- statements ---------------------------------------------------------------------

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s") if self.dialect == "postgresql" else sql

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        self._cursor().execute(self._sql(sql), tuple(params))

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            self._connection.cursor().executemany(self._sql(sql), [tuple(r) for r in rows])

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        cursor = self._cursor()
        cursor.execute(self._sql(sql), tuple(params))
        return [tuple(row) for row in cursor.fetchall()]

    def _cursor(self) -> _Cursor:
        cursor: _Cursor = self._connection.cursor()
        return cursor

    # -- transactions -------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[Database]:
        """One transaction: committed when the block ends, rolled back when it raises.

        SQLite's is ``BEGIN IMMEDIATE``: it takes the write lock at once, so two writers
        (the service and an import) queue instead of failing half-way."""
        assert not self._in_transaction, "transactions do not nest"
        self._in_transaction = True
        try:
            self._connection.execute("BEGIN IMMEDIATE" if self.dialect == "sqlite" else "BEGIN")
            try:
                yield self
            except BaseException:
                with suppress(Exception):  # a connection gone: the server rolls back itself
                    self._connection.execute("ROLLBACK")
                raise
            self._connection.execute("COMMIT")
        finally:
            self._in_transaction = False

    def conflict_errors(self) -> tuple[type[BaseException], ...]:
        """The errors a transaction may be tried again after: another writer got there first
        (PostgreSQL's unique violation or serialization failure; SQLite's busy database)."""
        if self.dialect == "sqlite":
            return (sqlite3.OperationalError,)
        import psycopg

        return (psycopg.errors.UniqueViolation, psycopg.errors.SerializationFailure,
                psycopg.errors.DeadlockDetected)

    def reconnect(self) -> None:
        """A new connection in place of one that failed (PostgreSQL restarted)."""
        with suppress(Exception):
            self._connection.close()
        self._in_transaction = False
        self._connection = (_connect_postgresql(self.url) if self.dialect == "postgresql"
                            else _connect_sqlite(self.url))

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def sqlite_path(url: str) -> str:
    """The file of a SQLite URL (``sqlite:///abs/path``, ``sqlite:relative``, or a plain path)."""
    if url.startswith("sqlite:///"):
        return "/" + url[len("sqlite:///"):]
    if url.startswith("sqlite://"):
        return url[len("sqlite://"):]
    if url.startswith("sqlite:"):
        return url[len("sqlite:"):]
    if "://" in url:
        raise DatabaseError(f"--db {url!r}: not a database URL this archive knows "
                            "(sqlite:///PATH, a plain path, or postgresql://USER@HOST/DBNAME)")
    return url


def _connect_sqlite(url: str) -> sqlite3.Connection:
    path = sqlite_path(url)
    if not path:
        raise DatabaseError(f"--db {url!r}: no file named")
    if path != ":memory:" and not Path(path).parent.is_dir():
        raise DatabaseError(f"--db {url!r}: the folder {str(Path(path).parent)!r} does not exist")
    try:
        # isolation_level=None: no implicit transactions; transaction() opens each one.
        connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT, isolation_level=None,
                                     check_same_thread=False)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=FULL")
        connection.execute("PRAGMA foreign_keys=ON")
    except sqlite3.Error as exc:
        raise DatabaseError(f"--db {url!r}: cannot open the SQLite database: {exc}") from None
    return connection


def _connect_postgresql(url: str) -> Any:
    try:
        import psycopg
    except ImportError:
        raise DatabaseError("a PostgreSQL archive needs psycopg 3: pip install 'cueboard[archive-pg]' "
                            "(or apt-get install python3-psycopg)") from None
    try:
        return psycopg.connect(url, autocommit=True, connect_timeout=30)
    except psycopg.Error as exc:
        raise DatabaseError(f"--db {_redacted(url)}: cannot connect to PostgreSQL: "
                            f"{str(exc).strip()}") from None


def _redacted(url: str) -> str:
    """The URL with its password left out, for messages and logs."""
    scheme, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not at or ":" not in credentials:
        return url
    return f"{scheme}{sep}{credentials.split(':', 1)[0]}:***@{host}"
