"""A real, throwaway PostgreSQL server for tests: Debian's ``postgresql`` binaries
(``/usr/lib/postgresql/<version>/bin``), a cluster made with ``initdb`` in a temporary
directory, listening on a free loopback port (and its socket in that directory), stopped
and removed at the end of the session. Never the system's cluster.

PostgreSQL refuses to run as root: as root the cluster belongs to the ``postgres`` user
Debian's package creates (or ``nobody``), and its commands run under ``runuser``.

Without the binaries the fixture skips the test (``apt-get install postgresql``), unless
``CI`` or ``CUEBOARD_REQUIRE_POSTGRES`` is set: then it fails, as CI must not pass with
the PostgreSQL tests skipped.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.mosquitto import free_port

TIMEOUT = 120.0


def postgres_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(found[-1]).parent if found else None


def require_postgres() -> Path:
    binaries = postgres_bin()
    if binaries is None:
        why = "PostgreSQL is not installed: apt-get install postgresql"
        if any(os.environ.get(v, "") not in ("", "0", "false") for v in ("CI", "CUEBOARD_REQUIRE_POSTGRES")):
            pytest.fail(why)
        pytest.skip(why)
    return binaries


class Postgres:
    """A cluster in ``directory`` on ``127.0.0.1:port``; :meth:`database` makes a fresh
    database and gives its URL."""

    def __init__(self, directory: Path, *, fsync: bool = False) -> None:
        """``fsync``: commits flushed to the disk, as a real server does (the benches); the
        tests leave it off, their data is thrown away."""
        self.bin = require_postgres()
        self.directory = directory
        self.data = directory / "data"
        self.port = free_port()
        self.user = "archive"
        self._as: list[str] = []
        if os.geteuid() == 0:
            owner = "postgres" if _has_user("postgres") else "nobody"
            self._as = ["runuser", "-u", owner, "--"]
            shutil.chown(directory, owner)
            directory.chmod(0o700)
        self._run("initdb", "-D", str(self.data), "-U", self.user, "-A", "trust", "-E", "UTF8",
                  "--no-sync", "--locale=C.UTF-8")
        with open(self.data / "postgresql.conf", "a") as f:
            f.write(f"\nlisten_addresses = '127.0.0.1'\nport = {self.port}\n"
                    f"unix_socket_directories = '{directory}'\nfsync = {'on' if fsync else 'off'}\n"
                    "max_connections = 200\n"
                    "shared_buffers = 32MB\n")
        self.start()

    def _run(self, program: str, *args: str) -> None:
        result = subprocess.run([*self._as, str(self.bin / program), *args], capture_output=True, text=True,
                                timeout=TIMEOUT, cwd=self.directory)
        if result.returncode != 0:
            raise RuntimeError(f"{program} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.directory / "log"), "-w", "-t", "120", "start")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", "120", "stop")

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{dbname}"

    def database(self) -> str:
        """A new, empty database's URL."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {name}")
        return self.url(name)


def _has_user(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Postgres]:
    require_postgres()
    directory = Path(tempfile.mkdtemp(prefix="cueboard-pg-"))
    server = Postgres(directory)
    try:
        yield server
    finally:
        try:
            server.stop()
        finally:
            shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture()
def postgres_url(postgres_server: Postgres) -> str:
    """A fresh, empty database on the session's cluster."""
    return postgres_server.database()
