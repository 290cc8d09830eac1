"""One session a device that nobody else can take (issue 37, row 4; docs/security.md, "One login a
device"), on a real mosquitto with TLS running the files ``cueboard venue`` wrote.

Every kind of device holds a persistent session (a table, its scorers' link, a desk login's link
at a table, a desk laptop, a scorer card's phone, a scorer's login): then a login of every role
(another table and its links, a second desk, another table's scorer, a second card of the same
table, and anonymous) tries to take each one over on every listener it can reach, with the
victim's login as its client id and with the id the victim chose. Each try is refused, or
connects under the thief's own id, with no session present; no victim is dropped, and each still
gets its messages afterwards.
"""

from __future__ import annotations

from contextlib import ExitStack

import pytest

from tests.helpers.venue import Venue
from tests.venue.sessions import Device, given_id

pytestmark = [pytest.mark.system, pytest.mark.club(tables=2, scorers=["t1", "t2"])]

VICTIMS = [  # listener, login, the table whose password a link uses, the client id it chooses
    ("tables", "t1", None, "cueboard-club-t1"),
    ("tables", "t1.scorers", "t1", "cueboard-club-t1-scorers"),
    ("tables", "t1.commands.desk", "t1", "cueboard-club-t1-commands.desk"),  # a desk login's link at t1
    ("people", "desk", None, "cueboard-desk-laptop1"),
    ("pages", "card-t1-1", None, "cueboard-score-t1-4f2a9c1e"),
    ("people", "scorer-t1", None, "cueboard-scorer-t1-phone"),
]

THIEVES = [  # listener, login (None: anonymous), the table whose password a link uses
    ("tables", "t2", None), ("tables", "t2.commands", "t2"), ("tables", "t2.commands.desk", "t2"),
    ("people", "desk-2", None), ("pages", "desk-2", None),
    ("people", "scorer-t2", None), ("pages", "scorer-t2", None),
    ("people", "card-t1-2", None), ("pages", "card-t1-2", None),
    ("screens", None, None), ("people", None, None), ("tables", None, None),
]


def _password(club: Venue, login: str | None, table: str | None) -> str | None:
    return None if login is None else club.password(table or login)


def test_no_login_of_any_role_takes_another_devices_session(club: Venue) -> None:
    club.change("add-user", "desk-2", "--role", "desk")
    club.change("card", "--table", "t1")  # card-t1-1: the victim's phone
    club.change("card", "--table", "t1")  # card-t1-2: another phone's card of the same table
    with ExitStack() as stack:
        victims = {}
        for listener, login, table, client_id in VICTIMS:
            victim = stack.enter_context(Device(club.broker, club.ca, listener, club.ports[listener], login,
                                                _password(club, login, table), client_id))
            assert victim.ok, (login, victim.reason)
            assert given_id(club.broker, victim) == login  # its session is known by its login
            victims[login] = victim
        for login, topic in [("t1", "cueboard/club/t1/message"), ("t1.scorers", "cueboard/club/t1/score/+"),
                             ("t1.commands.desk", "cueboard/club/t1/command/desk"),
                             ("desk", "cueboard/club/t1/message"), ("card-t1-1", "cueboard/club/t1/message"),
                             ("scorer-t1", "cueboard/club/t1/message")]:
            victims[login].subscribe(topic)

        tries = 0
        for listener, thief, table in THIEVES:
            for _, victim_login, _, victim_id in VICTIMS:
                for client_id in (victim_login, victim_id):
                    with Device(club.broker, club.ca, listener, club.ports[listener], thief,
                                _password(club, thief, table), client_id, persistent=False) as attempt:
                        tries += 1
                        where = f"{thief} on {listener} as {client_id!r}"
                        if attempt.reason != "Success":
                            continue  # refused: a prefix not cueboard-, or no login where one is needed
                        assert not attempt.session_present, f"{where}: took a session"
                        got = given_id(club.broker, attempt)
                        if thief is not None:
                            assert got == thief, f"{where}: given {got!r}, not its own login"
                        else:  # anonymous: its own cueboard- id, which no login's session has
                            assert got == client_id and got.startswith("cueboard-"), where
                        assert got not in victims, where
        assert tries == len(THIEVES) * len(VICTIMS) * 2

        for login, victim in victims.items():
            assert not victim.dropped.is_set(), f"{login} was knocked off: {victim.dropped_why}"
        # Each victim still has its own session: the messages reach it.
        victims["desk"].publish("cueboard/club/t1/message", b'{"schema": 1, "text": "still here"}')
        victims["scorer-t1"].publish("cueboard/club/t1/score/scorer-t1", b'{"type": "no_pot"}')
        for login in ("t1", "desk", "card-t1-1", "scorer-t1"):
            assert victims[login].next_message() == ("cueboard/club/t1/message", b'{"schema": 1, "text": "still here"}')
        assert victims["t1.scorers"].next_message() == ("cueboard/club/t1/score/scorer-t1", b'{"type": "no_pot"}')
        victims["desk"].publish("cueboard/club/t1/command/desk", b'{"type": "undo"}')
        assert victims["t1.commands.desk"].next_message() == ("cueboard/club/t1/command/desk", b'{"type": "undo"}')
        for login, victim in victims.items():
            assert not victim.dropped.is_set(), login


def test_a_second_device_on_one_login_is_that_login_not_another(club: Venue) -> None:
    """The one thing a login's session yields to is the same login (the same device coming back,
    or a copy of its password): the session is the login's, never a neighbour's."""
    with Device(club.broker, club.ca, "people", club.ports["people"], "scorer-t1", club.password("scorer-t1"),
                "cueboard-scorer-t1-a") as first:
        first.subscribe("cueboard/club/t1/message")
        first.close()
        with Device(club.broker, club.ca, "pages", club.ports["pages"], "scorer-t1", club.password("scorer-t1"),
                    "cueboard-scorer-t1-b") as again:
            assert again.ok and again.session_present  # its own session, kept for it
            assert given_id(club.broker, again) == "scorer-t1"
