"""The venue tool's side of one session per desk login at each table (issue 38 row 11): for every
table and every desk login a table-side login ``<table>.commands.<desk>`` with the table's password
hash, which may read that desk's command topic of that table and nothing else; the desks listed in
the table's configuration section; the venue service's own desk login from ``init``. The broker's
side (a login not written is refused, a revoked one dropped): tests/table/test_desk_links.py."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from cueboard.common.errors import MqttConfigError
from cueboard.table.mqtt.config import parse_mqtt
from cueboard.venue.broker_files import acl, write_broker_files
from cueboard.venue.command import _table_section
from cueboard.venue.plan import Venue
from tests.helpers.venue import venue_cli


def blocks(text: str) -> dict[str, list[str]]:
    """The ACL's rules by user (the anonymous ones under "")."""
    found: dict[str, list[str]] = {"": []}
    user = ""
    for line in text.splitlines():
        if line.startswith("user "):
            user = line.split(" ", 1)[1]
            found[user] = []
        elif line.startswith("topic "):
            found[user].append(line)
    return found


def test_each_table_has_a_login_per_desk_reading_only_that_desks_commands(tmp_path: Path) -> None:
    venue = Venue(name="club", hosts=["localhost"])
    for table in ("t1", "t2"):
        venue.add_table(table)
    for desk in ("desk", "desk-2"):
        venue.add_user(desk, "desk")
    venue.add_user("scorer-t1", "scorer", "t1")
    rules = blocks(acl(venue))
    for table in ("t1", "t2"):
        for desk in ("desk", "desk-2"):
            assert rules[f"{table}.commands.{desk}"] == [f"topic read cueboard/club/{table}/command/{desk}"]
    assert not any(user.endswith(".scorer-t1") for user in rules)  # a scorer sends no commands: no link
    write_broker_files(venue, tmp_path)
    passwd = dict(line.split(":", 1) for line in (tmp_path / "mosquitto" / "tables.passwd").read_text().splitlines())
    assert passwd["t1.commands.desk"] == passwd["t1.commands.desk-2"] == passwd["t1"]  # the table's password
    assert passwd["t2.commands.desk"] == passwd["t2"] != passwd["t1"]
    people = (tmp_path / "mosquitto" / "people.passwd").read_text()
    assert ".commands" not in people  # the links log in on the tables' listener only


@pytest.mark.system  # venue init runs openssl
def test_the_tables_section_lists_the_desks_and_init_writes_the_venue_services_login(tmp_path: Path) -> None:
    d = tmp_path / "venue"
    venue_cli("init", "--dir", str(d), "--venue", "club", "--tables", "1", "--host", "localhost")
    assert (d / "logins" / "venue.password").read_text().strip()
    venue_cli("add-user", "desk-2", "--role", "desk", "--dir", str(d), "--no-reload")
    venue = Venue.load(d)
    assert venue.logins["venue"].role == "desk"
    section = tomllib.loads(_table_section(venue, d, "t1"))["mqtt"]
    assert section["desks"] == ["desk", "venue", "desk-2"]
    assert parse_mqtt({k: v for k, v in section.items() if k not in ("password_file", "tls", "command")},
                      venue="club", table="t1").desks == ("desk", "venue", "desk-2")
    # A second init with --desk venue makes it once, not twice.
    venue_cli("init", "--dir", str(tmp_path / "other"), "--venue", "club", "--tables", "1", "--desk", "venue")
    assert [n for n, lg in Venue.load(tmp_path / "other").logins.items() if lg.role == "desk"] == ["venue"]


def test_a_wrong_desks_list_is_refused_naming_the_key() -> None:
    for desks, why in ((["Desk!"], "mqtt.desks[0]"), (["desk", "desk"], "mqtt.desks"), ("desk", "mqtt.desks")):
        with pytest.raises(MqttConfigError, match=re.escape(why)):
            parse_mqtt({"desks": desks}, venue="club", table="t1")
