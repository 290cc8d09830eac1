"""The venue's and the league's files on Debian's mosquitto started as Debian starts it (issue 37,
row 6; docs/security.md, "A league's bridge at the venue"): from root, dropping to the
``mosquitto`` user, the tool's conf linked into ``conf.d``.

- ``league init``'s broker starts (its key 0640 to the ``mosquitto`` group, as ``venue init``'s);
- the bridge ``league add-venue`` writes, kept at the venue by ``venue add-bridge``, connects
  after the venue's broker restarts, and again after ``add-user``, ``add-table`` and ``revoke``
  rewrote the venue's files and the broker reloaded them as its own user;
- no file holding a secret is readable by other users.
"""

from __future__ import annotations

import grp
import shutil
import signal
import stat
from pathlib import Path

import pytest

from tests.helpers.mosquitto import Subscriber, free_port
from tests.helpers.venue import Venue, venue_cli
from tests.venue.debian_broker import DebianMosquitto, debian_root
from tests.venue.test_league_tool import league_cli
from tests.venue.test_venue_tool import Client

pytestmark = pytest.mark.system

STATE = "$SYS/broker/connection/venue-club/state"


def _reload(broker: DebianMosquitto) -> None:
    """``systemctl reload mosquitto`` (SIGHUP): the files read again, as the mosquitto user."""
    since = len(broker.log)
    assert broker._process is not None
    broker._process.send_signal(signal.SIGHUP)
    broker.wait_for_log(lambda line: "Reloading config" in line, since=since)
    with Client(_probe(broker), "screens", None, client_id="cueboard-probe"):  # it answers again
        pass
    problems = [line for line in broker.log[since:] if "Error" in line or "Unable" in line or "denied" in line]
    assert not problems, problems


_VENUES: dict[int, Venue] = {}


def _probe(broker: DebianMosquitto) -> Venue:
    return _VENUES[id(broker)]


def _private(path: Path) -> None:
    """Readable by root and the broker's group at most."""
    mode = stat.S_IMODE(path.stat().st_mode)
    assert mode & 0o007 == 0, f"{path}: {oct(mode)}"
    if mode & 0o070:
        assert path.stat().st_gid == grp.getgrnam("mosquitto").gr_gid, path


def test_the_league_broker_and_a_venue_bridge_kept_across_rewrites_start_as_debian_starts_them() -> None:
    with debian_root() as venue_root, debian_root() as league_root:
        # The league's machine: league init, linked into conf.d, started as Debian does.
        league_dir = league_root / "etc" / "cueboard" / "league"
        bridges_port, readers_port = free_port(), free_port()
        status, out = league_cli("init", "--dir", str(league_dir), "--league", "north", "--host", "localhost",
                                 "--host", "127.0.0.1", "--bind", "127.0.0.1", "--bridges-port", str(bridges_port),
                                 "--readers-port", str(readers_port))
        assert status == 0, out
        status, out = league_cli("add-venue", "club", "--dir", str(league_dir), "--no-reload")
        assert status == 0, out
        for secret in ("certs/server.key", "mosquitto/passwords", "mosquitto/acl", "mosquitto/league.conf",
                       "league.json", "logins/venue-club.bridge.conf", "ca/venue-ca.key"):
            _private(league_dir / secret)
        league = DebianMosquitto(league_root, bridges_port)
        league.link(league_dir / "mosquitto" / "league.conf", "cueboard-league.conf")

        # The venue's machine: venue init, the league's CA where the bridge's lines look for it.
        venue_dir = venue_root / "etc" / "cueboard" / "venue"
        ports = {name: free_port() for name in ("tables", "people", "pages", "screens")}
        venue_cli("init", "--dir", str(venue_dir), "--venue", "club", "--tables", "1", "--host", "localhost",
                  "--host", "127.0.0.1", "--bind", "127.0.0.1", *(f"--{k}-port={v}" for k, v in ports.items()))
        certs = venue_root / "etc" / "mosquitto" / "certs"
        certs.mkdir()
        shutil.copy(league_dir / "ca" / "venue-ca.crt", certs / "league-ca.crt")
        copied = venue_root / "venue-club.bridge.conf"  # as it reached the venue's machine
        copied.write_text((league_dir / "logins" / "venue-club.bridge.conf").read_text().replace(
            "/etc/mosquitto/certs/league-ca.crt", str(certs / "league-ca.crt")))
        out = venue_cli("add-bridge", str(copied), "--dir", str(venue_dir))
        kept = venue_dir / "mosquitto" / "bridges" / "league.conf"
        assert str(kept) in out
        venue = DebianMosquitto(venue_root, ports["tables"])
        venue.link(venue_dir / "mosquitto" / "venue.conf", "cueboard-venue.conf")
        _VENUES[id(venue)] = Venue(venue_dir, venue, ports)

        with league, Subscriber(STATE, port=readers_port, ca=league_dir / "ca" / "venue-ca.crt",
                                transport="websockets", client_id="cueboard-reader-1").wait_subscribed() as states:
            assert any("mosquitto version" in line for line in league.log)
            with venue:
                states.wait_for(lambda m: m.payload == b"1")
                # Rewrites of every kind, each reloaded by the broker as its own user.
                for argv in (["add-user", "desk-2", "--role", "desk"], ["add-table", "t2"], ["revoke", "desk-2"],
                             ["card", "--table", "t1"]):
                    venue_cli(*argv, "--dir", str(venue_dir), "--no-reload")
                    _reload(venue)
                assert kept.exists(), "a rewrite lost the bridge"
                with Client(_probe(venue), "tables", "t2", client_id="cueboard-club-t2") as t2:
                    assert t2.publish("cueboard/club/t2/state", b"{}") == "Success"  # the reloads took effect
            states.wait_for(lambda m: m.payload == b"0")  # the venue's broker went away
            with venue:  # restarted: the bridge is read from the kept file again
                states.wait_for(lambda m: m.payload == b"1")
        for secret in ("certs/server.key", "mosquitto/venue.conf", "mosquitto/acl", "mosquitto/people.passwd",
                       "mosquitto/tables.passwd", "mosquitto/bridges/league.conf", "venue.json", "ca/venue-ca.key",
                       "logins/t1.password", "logins/card-t1-1.password", "cards/t1-card-t1-1.pdf"):
            _private(venue_dir / secret)
        folder = venue_dir / "mosquitto" / "bridges"
        assert stat.S_IMODE(folder.stat().st_mode) == 0o750


def test_a_file_that_is_not_a_bridge_of_what_a_league_shows_is_refused_and_nothing_is_kept(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from tests.helpers.venue import venue_run

    directory = tmp_path / "venue"
    venue_cli("init", "--dir", str(directory), "--venue", "club", "--tables", "1", "--host", "localhost")
    cases = {"listener 1883\nallow_anonymous true\n": "'listener' is not a bridge option",
             "connection league\nallow_anonymous true\n": ":2: 'allow_anonymous' is not a bridge option",
             "address localhost:8883\nconnection league\n": "'address' before any 'connection' line",
             "# nothing\n": "no 'connection' line",
             "connection a\ntopic cueboard/club/+/state out 1\nconnection a\n": "a connection named twice",
             # Row 7: what a league shows, out, under its own name; nothing else.
             "connection league\ntopic cueboard/# out 1\n": "a bridge carries a table's state, event, status, record",
             "connection league\ntopic cueboard/club/+/command/+ out 1\n": "topic 'cueboard/club/+/command/+'",
             "connection league\ntopic cueboard/club/desk/players out 1\n": "a bridge carries",
             "connection league\ntopic cueboard/club/+/state in 1\n": "'out' and a QoS",
             # In, only a league archive's word that it stored a record, in one login's name (issue 41).
             "connection league\ntopic cueboard/club/+/archived/+ in 1\n": "a bridge carries",
             "connection league\ntopic cueboard/club/+/archived/results out 1\n": "a bridge carries",
             "connection league\ntopic cueboard/club/+/record/+ in 1\n": "'out' and a QoS",
             "connection league\ntopic cueboard/club/+/record/x/y out 1\n": "a bridge carries",
             "connection league\ntopic cueboard/club/+/state both 1\n": "'out' and a QoS",
             "connection league\ntopic cueboard/club/+/state out 1 \"\" league/\n": "no prefixes",
             "connection league\ntopic cueboard/club/+/state out 12\n": "'out' and a QoS"}
    for text, says in cases.items():
        source = tmp_path / "bridge.conf"
        source.write_text(text)
        status, _ = venue_run("add-bridge", str(source), "--dir", str(directory))
        assert status == 2, text
        assert says in capsys.readouterr().err, text
        assert list((directory / "mosquitto" / "bridges").iterdir()) == []
