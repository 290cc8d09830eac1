"""The table's tests' shared fixtures: a broker with the table's logins over TLS
(tests/table/test_command_path.py) and the club's hall of tables (tests/table/test_handoffs.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.mosquitto import Mosquitto, make_tls_files
from tests.helpers.venue import Venue
from tests.table.test_command_path import USERS
from tests.table.test_handoffs import WATCHER, Club


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    tls = make_tls_files(tmp_path / "tls")
    with Mosquitto(tmp_path / "broker", users=USERS, tls=tls) as running:
        running.tls_files = tls  # type: ignore[attr-defined]
        yield running


@pytest.fixture
def hall(club: Venue, tmp_path: Path) -> Club:
    """The club fixture's venue (tests/conftest.py), with the tables' configurations in ``tmp_path``
    and a second desk login, ``desk-watch``, for the tests' subscriber: one login is one device
    (one session: docs/security.md), so the watcher cannot share the desk's."""
    club.change("add-user", WATCHER, "--role", "desk")
    return Club(club.directory, club.broker, club.ports, tmp_path)
