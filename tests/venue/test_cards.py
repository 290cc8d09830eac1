"""Scorer cards as logins of their own that expire and are revoked one by one (issue 37, rows 9;
docs/security.md, "Scorer cards"), on a real mosquitto with TLS running the venue tool's files,
reloaded as systemd does after each command.

The clock the tool reads is given (``--now``), hours from the real time: nothing here depends
on the time of day, and no test waits for a card to expire.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import pytest

from cueboard.venue.card import card_for
from tests.helpers.venue import Venue, venue_run
from tests.venue.sessions import Device

pytestmark = [pytest.mark.system, pytest.mark.club(tables=2)]


def _at(hours: float) -> str:
    return (datetime.now(UTC) + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _phone(club: Venue, login: str, password: str) -> Device:
    return Device(club.broker, club.ca, "pages", club.ports["pages"], login, password, f"cueboard-score-{login}")


def _logins(club: Venue) -> dict[str, dict[str, object]]:
    logins: dict[str, dict[str, object]] = json.loads((club.directory / "venue.json").read_text())["logins"]
    return logins


def test_a_card_is_a_login_of_its_own_whose_link_says_when_it_ends(club: Venue) -> None:
    out = club.change("card", "--table", "t1", "--expires", "6", "--page", "https://localhost:8443")
    login = _logins(club)["card-t1-1"]
    assert login["role"] == "scorer" and login["table"] == "t1" and login["card"] is True
    expires = str(login["expires"])
    assert f"it stops working at {expires}" in out
    now = datetime.now(UTC)
    assert timedelta(hours=5) < datetime.fromisoformat(expires) - now <= timedelta(hours=6)
    card = card_for(club.directory, "t1", "card-t1-1", page="https://localhost:8443")
    fragment = parse_qs(urlsplit(card.url).fragment)
    assert fragment == {"user": ["card-t1-1"], "pass": [club.password("card-t1-1")], "trust": ["1"],
                        "exp": [expires]}
    assert f"&exp={expires}" in card.url  # as the page reads it: UTC, ISO 8601, colons as they are
    assert (club.directory / "cards" / "t1-card-t1-1.pdf").stat().st_mode & 0o077 == 0
    club.change("card", "--table", "t1")  # a second card: a second login, no expiry
    assert _logins(club)["card-t1-2"]["expires"] is None
    assert "exp" not in parse_qs(urlsplit(card_for(club.directory, "t1", "card-t1-2").url).fragment)
    with _phone(club, "card-t1-1", club.password("card-t1-1")) as one, \
            _phone(club, "card-t1-2", club.password("card-t1-2")) as two:
        assert one.ok and two.ok  # two phones, two sessions


def test_expired_and_revoked_cards_stop_working_and_the_others_do_not(club: Venue) -> None:
    for expires in ("1", "3", "48", None):  # card-t1-1 .. card-t1-4
        club.change("card", "--table", "t1", *(["--expires", expires] if expires else []))
    club.change("card", "--table", "t2")  # card-t2-1: revoked below
    passwords = {name: club.password(name) for name in _logins(club) if name.startswith("card-")}
    with _phone(club, "card-t1-1", passwords["card-t1-1"]) as expiring, \
            _phone(club, "card-t2-1", passwords["card-t2-1"]) as revoked, \
            _phone(club, "card-t1-3", passwords["card-t1-3"]) as staying:
        assert expiring.ok and revoked.ok and staying.ok
        # Any rewrite drops what has expired: here adding a table two hours on.
        out = club.change("add-table", "t3", "--now", _at(2))
        assert "card-t1-1 expired" in out
        assert expiring.dropped.wait(30), "the expired card's phone stays connected"
        out = club.change("revoke", "card-t2-1")
        assert revoked.dropped.wait(30), "the revoked card's phone stays connected"
        # What the timer runs: card-t1-2 ends at 3 hours.
        out = club.change("expire", "--now", _at(4))
        assert "card-t1-2 expired" in out
        assert not staying.dropped.is_set()
    status, out = venue_run("expire", "--dir", str(club.directory), "--now", _at(4), "--no-reload")
    assert (status, out) == (0, "nothing expired at club\n")
    for gone in ("card-t1-1", "card-t1-2", "card-t2-1"):
        with _phone(club, gone, passwords[gone]) as phone:
            assert phone.reason in ("Bad user name or password", "Not authorized"), (gone, phone.reason)
        assert not (club.directory / "logins" / f"{gone}.password").exists()
        assert gone not in _logins(club)
    for kept in ("card-t1-3", "card-t1-4"):
        with _phone(club, kept, passwords[kept]) as phone:
            assert phone.ok, (kept, phone.reason)


@pytest.mark.parametrize(("argv", "says"), [
    (["card", "--table", "t1", "--expires", "-1"], "--expires: '-1': a number of hours is more than 0"),
    (["card", "--table", "t1", "--expires", "nan"], "--expires: 'nan': a number of hours is more than 0"),
    (["card", "--table", "t1", "--expires", "10000"], "--expires: 10000 hours is more than 400 days"),
    (["card", "--table", "t1", "--expires", "2020-01-01T00:00:00Z"], "--expires: 2020-01-01T00:00:00Z is past"),
    (["card", "--table", "t1", "--expires", "tomorrow"], "--expires: 'tomorrow' is not a time"),
    (["card", "--table", "t9"], "--table: no table t9 at club"),
    (["card", "--table", "t1", "--user", "desk", "--expires", "3"], "--expires: desk is an existing login"),
    (["add-user", "x", "--role", "desk", "--expires", "0"], "--expires: '0': a number of hours is more than 0"),
    (["expire", "--now", "soon"], "--now: 'soon' is not a time"),
])
def test_a_card_or_expiry_the_tool_cannot_keep_is_refused_naming_the_rule_and_nothing_changes(
        club: Venue, capsys: pytest.CaptureFixture[str], argv: list[str], says: str) -> None:
    before = {path: path.read_bytes() for path in club.directory.rglob("*") if path.is_file()}
    status, _ = venue_run(*argv, "--dir", str(club.directory), "--no-reload")
    assert status == 2
    assert says in capsys.readouterr().err
    after = {path: path.read_bytes() for path in club.directory.rglob("*") if path.is_file()}
    assert after == before
