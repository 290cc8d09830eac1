"""The league's tests' shared fixture: a league broker with a venue bridged to it (tests/league/test_league.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.mosquitto import TlsFiles, free_port, make_password_file
from tests.helpers.venue_broker import venue_config
from tests.league.test_league import Cable, Factory, League, league_config


@pytest.fixture
def league(mosquitto_factory: Factory, tls_files: TlsFiles, tmp_path: Path) -> Iterator[League]:
    """The league's broker; the club's broker bridged to it through a cable (``restart_timeout
    1 2`` added to the bridge, so the test need not wait for its default backoff of 5-30 s;
    mosquitto 2.0.11 keeps that default for a single value, ``restart_timeout 1``)."""
    league_port, league_ws = free_port(), free_port()
    league_passwords = make_password_file(tmp_path / "league-passwords",
                                          {"venue-club": "change-me", "results": "results-pw"})
    league = mosquitto_factory(port=league_port,
                               config=league_config(league_port, league_ws, tls_files, league_passwords))
    cable = Cable(league.port)
    port, ws_port = free_port(), free_port()
    venue_passwords = make_password_file(tmp_path / "venue-passwords", {"t1": "t1-pw", "desk": "desk-pw"})
    config = venue_config(port, ws_port, tls_files, venue_passwords, league).replace(
        "THE-LEAGUES-PASSWORD-FOR-THIS-VENUE", "change-me")
    config = config.replace(f"127.0.0.1:{league.port}", f"127.0.0.1:{cable.port}") + "restart_timeout 1 2\n"
    venue = mosquitto_factory(port=port, config=config)
    league.wait_for_log(lambda line: "connected from" in line and " as venue-club " in line)
    try:
        yield League(league, league_ws, venue, cable, tls_files)
    finally:
        cable.pull()
