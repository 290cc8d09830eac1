"""``cueboard league`` (issue 26): a league's broker as the tool writes it, with a venue's broker
(as ``cueboard venue`` writes it) bridged to it, attacked on loopback. The measured attacks on
the league as shipped before: an anonymous client on the bridges' port with the bridge's client
id closed the real bridge, and a retained ``$SYS/broker/connection/venue-other/state`` = ``0``
from an anonymous client showed a venue "down" on every league screen. Both are refused here,
and a reload (SIGHUP) takes a new venue without dropping the bridge."""

from __future__ import annotations

import io
import itertools
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from cueboard.cli import parser
from cueboard.venue.league import run as league_run
from tests.helpers.mosquitto import TIMEOUT, Message, Mosquitto, Subscriber, free_port, require_mosquitto
from tests.helpers.venue import init_venue, venue_cli
from tests.venue.sessions import Device, given_id
from tests.venue.test_venue_tool import Client, Venue, listening

pytestmark = pytest.mark.system



def league_cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    status = league_run(parser().parse_args(["league", *argv]), out)
    return status, out.getvalue()


@dataclass
class Setup:
    league: Mosquitto
    venue: Mosquitto
    directory: Path  # the league's
    bridges_port: int
    readers_port: int
    club: Venue

    @property
    def ca(self) -> Path:
        return self.directory / "ca" / "venue-ca.crt"

    def reader(self, topics: str | list[str]) -> Subscriber:
        """An anonymous reader on the readers' port, with a client id of its own: two readers
        with one id take turns (the broker closes the old connection for the new one, paho
        reconnects, and so on), and a reader of a clean session that is away loses what is
        published meanwhile (the records' test once lost its record so)."""
        return Subscriber(topics, port=self.readers_port, ca=self.ca, transport="websockets",
                          client_id=f"cueboard-reader-{next(_READERS)}").wait_subscribed()


_READERS = itertools.count(1)


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[Setup]:
    require_mosquitto()
    bridges, readers = free_port(), free_port()
    directory = tmp_path / "league"
    status, out = league_cli("init", "--dir", str(directory), "--league", "north", "--host", "localhost",
                             "--host", "127.0.0.1", "--bind", "127.0.0.1", "--bridges-port", str(bridges),
                             "--readers-port", str(readers))
    assert status == 0, out
    status, out = league_cli("add-venue", "club", "--dir", str(directory), "--no-reload")
    assert status == 0, out
    venue_dir = tmp_path / "venue"
    ports = init_venue(venue_dir, tables=1, scorers=["t1"])
    # The venue keeps the league's file as docs/security.md says: cueboard venue add-bridge (only
    # the league CA's path is this test's own), and venue.conf carries it.
    bridge = tmp_path / "venue-club.bridge.conf"
    bridge.write_text((directory / "logins" / "venue-club.bridge.conf").read_text().replace(
        "/etc/mosquitto/certs/league-ca.crt", str(directory / "ca" / "venue-ca.crt")))
    venue_cli("add-bridge", str(bridge), "--dir", str(venue_dir))
    venue_conf = (venue_dir / "mosquitto" / "venue.conf").read_text()
    with Mosquitto(tmp_path / "league-broker", port=bridges,
                   config=(directory / "mosquitto" / "league.conf").read_text()) as league, \
            Mosquitto(tmp_path / "venue-broker", port=ports["tables"], config=venue_conf) as venue:
        yield Setup(league, venue, directory, bridges, readers, Venue(venue_dir, venue, ports))


def bridge_up(setup: Setup) -> Subscriber:
    reader = setup.reader("$SYS/broker/connection/+/state")
    reader.wait_for(lambda m: m.topic == "$SYS/broker/connection/venue-club/state" and m.payload == b"1")
    return reader


def test_the_bridge_authenticates_and_brings_the_venue(setup: Setup) -> None:
    with bridge_up(setup):
        pass
    for port in (setup.bridges_port, setup.readers_port):
        assert listening(port) == {"127.0.0.1"}
    # The venue's own broker reports the bridge up as well (its notification, retained, locally).
    setup.venue.wait_for_log(lambda line: line.startswith("Received CONNACK on connection local.cueboard-bridge-")
                             or "Received CONNACK on connection local.cueboard-bridge-venue-club" in line)


LEAGUE_SHOWS = {"state", "event", "status", "record"}


def test_the_league_sees_only_what_a_league_shows(setup: Setup) -> None:
    """Row 7: a table's state, event, status and record cross to the league's readers; its
    commands, scorers' lines and presence, the desk's next and message, its devices, history,
    input and refusals, and the desk's lists never leave the venue (the bridge does not carry
    them: the league's log has no PUBLISH of them, refused or not)."""
    club = setup.club
    with bridge_up(setup), setup.reader("cueboard/#") as league:
        since = len(setup.league.log)
        hidden = {"cueboard/club/t1/command/desk": ("people", "desk"), "cueboard/club/t1/next": ("people", "desk"),
                  "cueboard/club/t1/message": ("people", "desk"), "cueboard/club/desk/players": ("people", "desk"),
                  "cueboard/club/desk/presets": ("people", "desk"), "cueboard/club/desk/results": ("people", "desk"),
                  "cueboard/club/competition": ("people", "desk"),
                  "cueboard/club/t1/score/scorer-t1": ("people", "scorer-t1"),
                  "cueboard/club/t1/score/scorer-t1/presence": ("people", "scorer-t1"),
                  **{f"cueboard/club/t1/{kind}": ("tables", "t1")
                     for kind in ("devices", "history", "history/3", "input", "rejected", "preview")}}
        for topic, (listener, login) in hidden.items():
            with Client(club, listener, login, client_id=f"cueboard-{login}-x") as sender:
                # taken by the venue (nobody there reads it in this test: not even the bridge)
                assert sender.publish(topic, b'{"schema": 1}') in ("Success", "No matching subscribers"), topic
        with Client(club, "tables", "t1", client_id="cueboard-club-t1") as table:
            for kind in sorted(LEAGUE_SHOWS):
                assert table.publish(f"cueboard/club/t1/{kind}", kind.encode()) == "Success"
        for kind in sorted(LEAGUE_SHOWS):  # one bridge's queue keeps its order: the hidden went first
            league.wait_for(lambda m, kind=kind: m.topic == f"cueboard/club/t1/{kind}" and m.payload == kind.encode())
        assert {m.topic for m in league.seen} <= {f"cueboard/club/t1/{kind}" for kind in LEAGUE_SHOWS}
        published = [line for line in setup.league.log[since:] if "Received PUBLISH from venue-club" in line]
        assert published and all(any(f"'cueboard/club/t1/{kind}'" in line for kind in LEAGUE_SHOWS)
                                  for line in published), published
        assert not any("Denied PUBLISH" in line for line in setup.league.log[since:])


def test_a_venue_login_writes_only_what_a_league_shows(setup: Setup) -> None:
    """A venue's broker set up by hand to carry more still puts nothing else before the league's
    readers: its login may write its tables' state, event, status and record alone."""
    password = (setup.directory / "logins" / "venue-club.password").read_text().strip()
    with _login(setup, "venue-club", password) as venue:
        assert venue.publish("cueboard/club/t1/state", b"{}") in ("Success", "No matching subscribers")
        for topic in ("cueboard/club/t1/command/desk", "cueboard/club/t1/score/s/presence",
                      "cueboard/club/desk/players", "cueboard/club/t1/next", "cueboard/club/t1/message",
                      "cueboard/other/t1/state"):
            assert venue.publish(topic, b"{}") == "Not authorized", topic


def test_the_records_bridge_logs_in_as_its_own_login_and_carries_a_record(setup: Setup) -> None:
    """``add-venue`` writes the records' bridge too (issue 26): its own login and client id, so it
    never takes the main bridge's session; a table's record crosses on it; its login writes its
    venue's records and its own state, nothing else."""
    with setup.reader("$SYS/broker/connection/+/state") as states, \
            setup.reader("cueboard/club/t1/record") as league_records:
        up: set[str] = set()

        def both_up(m: Message) -> bool:
            if m.payload == b"1":
                up.add(m.topic.split("/")[3])
            return up >= {"venue-club", "venue-club-results"}

        states.wait_for(both_up)  # each bridge's retained state: 1, as its own login
        since = len(setup.league.log)
        record = b'{"schema": 1, "match_id": "club/t1/2026-11-26T20:00:00Z"}'
        with Client(setup.club, "tables", "t1", client_id="cueboard-club-t1") as table:
            # Each bridge subscribes at the venue before it connects (mosquitto: "doing local
            # SUBSCRIBE"), so with both states 1 the record has its subscribers there.
            assert table.publish("cueboard/club/t1/record", record) == "Success"
        assert league_records.wait_for(lambda m: m.payload == record).topic == "cueboard/club/t1/record"
        # It came on the records' bridge, as its own login (the broker's log names the client).
        setup.league.wait_for_log(lambda line: "Received PUBLISH from venue-club-results (" in line
                                  and "'cueboard/club/t1/record'" in line, since=since)
        assert all(m.payload == b"1" for m in states.seen if m.topic.endswith("venue-club/state"))
        # Both readers stayed connected throughout: neither took the other's place.
        assert not any("closing old connection" in line for line in setup.league.log)
    password = (setup.directory / "logins" / "venue-club-results.password").read_text().strip()
    with _login(setup, "venue-club-results", password) as records:
        assert records.reason == "Success"
        assert records.publish("cueboard/club/t1/state", b"{}") == "Not authorized"
        assert records.publish("cueboard/other/t1/record", b"{}") == "Not authorized"
        assert records.publish("$SYS/broker/connection/venue-club/state", b"0") == "Not authorized"
        assert records.publish("cueboard/club/t2/record", b"{}") in ("Success", "No matching subscribers")


def test_the_records_bridge_carries_each_kept_record_out_and_the_archives_word_back_in(setup: Setup) -> None:
    """Each match's record a table keeps until archived (``record/<key>``) crosses on the
    records' bridge, and the league's archive's word that it stored it (``archived/results``)
    comes back to the venue, where the table reads it and clears the record (issue 41;
    docs/league.md, "Never a match missed"). Nothing else comes in: a word in another login's
    name stays at the league."""
    key = "2026-11-26T20:00:00Z"
    kept = f'{{"schema": 1, "match_id": "club/t1/{key}"}}'.encode()
    with setup.reader("$SYS/broker/connection/+/state") as states, \
            setup.reader("cueboard/club/t1/record/+") as league_records:
        states.wait_for(lambda m: m.topic.endswith("venue-club-results/state") and m.payload == b"1")
        with Client(setup.club, "tables", "t1", client_id="cueboard-club-t1") as table:
            assert table.publish(f"cueboard/club/t1/record/{key}", kept, retain=True) == "Success"
        assert league_records.wait_for(lambda m: m.payload == kept).topic == f"cueboard/club/t1/record/{key}"
    venue_ports = setup.club.ports
    password = (setup.directory / "logins" / "results.password").read_text().strip()
    with Subscriber("cueboard/club/t1/archived/+", port=venue_ports["tables"], username="t1",
                    password=setup.club.password("t1"), ca=setup.club.ca,
                    client_id="cueboard-club-t1").wait_subscribed() as at_the_table, \
            _login(setup, "results", password) as archive:
        assert archive.reason == "Success"
        word = b'{"schema": 1, "record": "2026-11-26T20:00:00Z", "digest": "00"}'
        assert archive.publish("cueboard/club/t1/archived/someone", b"{}") == "Not authorized"
        assert archive.publish("cueboard/club/t1/archived/results", word) in ("Success", "No matching subscribers")
        assert at_the_table.wait_for(lambda m: m.payload == word).topic == "cueboard/club/t1/archived/results"
    assert not any(m.topic.endswith("/archived/someone") for m in at_the_table.seen)


def test_a_venue_whose_records_login_is_taken_is_refused_and_nothing_changes(
        setup: Setup, capsys: pytest.CaptureFixture[str]) -> None:
    """Venue ``club-results`` would log in as ``venue-club-results``, club's records login."""
    before = (setup.directory / "league.json").read_text()
    status, _ = league_cli("add-venue", "club-results", "--dir", str(setup.directory), "--no-reload")
    assert status == 2
    assert capsys.readouterr().err == ("cueboard league: venue 'club-results': the login 'venue-club-results' "
                                       "is taken already at the league\n")
    assert (setup.directory / "league.json").read_text() == before
    assert not (setup.directory / "logins" / "venue-club-results-results.password").exists()


def test_nobody_takes_the_bridges_id_or_fakes_a_venues_state(setup: Setup) -> None:
    with bridge_up(setup) as states:
        since = len(setup.venue.log)
        # 1. The bridges' port takes no anonymous client, whatever its id.
        with _anonymous(setup, setup.bridges_port, "venue-club") as thief:
            assert thief.reason != "Success"
        # 2. The readers' port takes anonymous clients, but no id that is not cueboard-...: the
        #    bridge's session (its id is its login, venue-club) cannot be taken.
        with _anonymous(setup, setup.readers_port, "venue-club", websockets=True) as thief:
            assert thief.reason != "Success"
        with _anonymous(setup, setup.readers_port, "cueboard-bridge-venue-club", websockets=True) as reader:
            assert reader.reason == "Success"
            # 3. A reader writes nothing: no fake venue state, no fake table.
            assert reader.publish("$SYS/broker/connection/venue-other/state", b"0", retain=True) == "Not authorized"
            assert reader.publish("$SYS/broker/connection/venue-club/state", b"0", retain=True) == "Not authorized"
            assert reader.publish("cueboard/club/t1/state", b"{}", retain=True) == "Not authorized"
        # The bridge was never dropped: the venue's broker logged no new connection to the league.
        assert not any("Connecting bridge (step 1) league" in line for line in setup.venue.log[since:])
        assert all(m.payload == b"1" for m in states.seen if m.topic.endswith("venue-club/state"))
        assert not any("venue-other" in m.topic for m in states.seen)


def test_no_login_at_the_venue_takes_the_bridges_session_there(setup: Setup) -> None:
    """The bridges' sessions at the venue's broker (``local.cueboard-bridge-venue-club`` and the
    records' one) tried with every role's login and anonymously, on every listener: refused, or
    given the thief's own id; neither bridge is dropped."""
    club = setup.club
    with bridge_up(setup) as states:
        since = len(setup.venue.log)
        ids = ["local.cueboard-bridge-venue-club", "local.cueboard-bridge-venue-club-results",
               "cueboard-bridge-venue-club", "venue-club"]
        for listener, login, password in [("tables", "t1", club.password("t1")),
                                          ("people", "desk", club.password("desk")),
                                          ("pages", "scorer-t1", club.password("scorer-t1")),
                                          ("screens", None, None)]:
            for client_id in ids:
                with Device(setup.venue, club.ca, listener, club.ports[listener], login, password, client_id,
                            persistent=False) as thief:
                    if thief.reason == "Success":
                        assert not thief.session_present, (login, client_id)
                        assert given_id(setup.venue, thief) == (login or client_id), (login, client_id)
                        assert client_id.startswith("cueboard-") or login is not None
        assert not any("Connecting bridge" in line for line in setup.venue.log[since:])
        assert all(m.payload == b"1" for m in states.seen if m.topic.endswith("venue-club/state"))


def test_a_venue_writes_its_own_topics_only(setup: Setup) -> None:
    league_cli("add-venue", "other", "--dir", str(setup.directory), "--no-reload")
    _reload(setup.league)
    with bridge_up(setup):
        password = (setup.directory / "logins" / "venue-other.password").read_text().strip()
        with _login(setup, "venue-other", password) as other:
            assert other.reason == "Success"
            assert other.publish("cueboard/club/t1/state", b"{}") == "Not authorized"
            assert other.publish("$SYS/broker/connection/venue-club/state", b"0") == "Not authorized"
            taken = ("Success", "No matching subscribers")  # allowed (MQTT 5 says whether anyone reads it)
            assert other.publish("cueboard/other/t1/state", b"{}") in taken
            assert other.publish("$SYS/broker/connection/venue-other/state", b"1") in taken


def test_a_reload_takes_a_new_venue_without_dropping_a_bridge(setup: Setup) -> None:
    with bridge_up(setup) as states:
        since = len(setup.venue.log)
        league_cli("add-venue", "third", "--dir", str(setup.directory), "--no-reload")
        _reload(setup.league)
        password = (setup.directory / "logins" / "venue-third.password").read_text().strip()
        with _login(setup, "venue-third", password) as third:
            assert third.reason == "Success"
        assert not any("Connecting bridge (step 1) league" in line for line in setup.venue.log[since:])
        assert all(m.payload == b"1" for m in states.seen if m.topic.endswith("venue-club/state"))


def _reload(broker: Mosquitto) -> None:
    since = len(broker.log)
    assert broker._process is not None
    broker._process.send_signal(signal.SIGHUP)
    broker.wait_for_log(lambda line: "Reloading config" in line, TIMEOUT, since=since)
    assert not any("Error" in line for line in broker.log[since:]), broker.log[since:]


class _Venue:
    """What :class:`test_venue_tool.Client` needs of a venue, pointed at the league."""

    def __init__(self, setup: Setup, port: int, websockets: bool) -> None:
        self.broker = setup.league
        self.ca = setup.ca
        self.ports = {"pages" if websockets else "people": port}

    def password(self, login: str) -> str:
        raise AssertionError("give the password")


def _anonymous(setup: Setup, port: int, client_id: str, websockets: bool = False) -> Client:
    return Client(_Venue(setup, port, websockets), "pages" if websockets else "people", None,  # type: ignore[arg-type]
                  client_id=client_id, expect_ok=False)


def _login(setup: Setup, login: str, password: str) -> Client:
    return Client(_Venue(setup, setup.bridges_port, False), "people", login,  # type: ignore[arg-type]
                  client_id=f"cueboard-{login}-test", password=password, expect_ok=False)
