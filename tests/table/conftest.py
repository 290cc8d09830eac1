"""The table's tests' shared fixtures: a broker with the table's logins over TLS
(tests/table/test_command_path.py) and the club's hall of tables (tests/table/test_handoffs.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.mosquitto import Mosquitto, make_tls_files
from tests.helpers.venue import running_venue
from tests.table.test_command_path import USERS
from tests.table.test_handoffs import WATCHER, Club


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    tls = make_tls_files(tmp_path / "tls")
    with Mosquitto(tmp_path / "broker", users=USERS, tls=tls) as running:
        running.tls_files = tls  # type: ignore[attr-defined]
        yield running


@pytest.fixture
def hall(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Club]:
    """The club's venue (as the ``club`` fixture of tests/conftest.py makes it, its
    ``@pytest.mark.club(...)`` options too) with the tables' configurations in ``tmp_path`` and a
    second desk login, ``desk-watch``, for the tests' subscriber: one login is one device (one
    session: docs/security.md), so the watcher cannot share the desk's. Made before the broker
    starts: mosquitto 2.0.11 loses a SIGHUP that comes while it is still reloading."""
    marker = request.node.get_closest_marker("club")
    options: dict[str, Any] = dict(marker.kwargs) if marker is not None else {}
    options["desks"] = (*options.get("desks", ()), WATCHER)
    with running_venue(tmp_path, **options) as venue:
        yield Club(venue.directory, venue.broker, venue.ports, tmp_path)
