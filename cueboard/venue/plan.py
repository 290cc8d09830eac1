"""A venue's own record, ``venue.json`` in the venue's folder: its name, tables, logins (role,
table, password hash), the names and addresses its broker is reached by, and its ports. Every
file of the broker is written from it (:mod:`.broker_files`), so a change is one edit here and
the files written again.

>>> venue = Venue(name="club", hosts=["broker.club.lan"])
>>> venue.add_table("t1").role, venue.add_user("desk", "desk").role
('table', 'desk')
>>> venue.add_user("scorer-t2", "scorer", "t2")
Traceback (most recent call last):
...
cueboard.common.errors.VenueError: --table: no table t2 at club (tables: t1); cueboard venue add-table t2 first
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from cueboard.common.errors import VenueError
from cueboard.contract.topics import COMPETITION, DESK, SERVICE
from cueboard.venue.expiry import expired
from cueboard.venue.passwords import hashed, new_password

__all__ = ["ROLES", "Login", "Ports", "Venue", "VenueError"]

Role = Literal["table", "desk", "scorer", "archive"]
ROLES: tuple[Role, ...] = ("table", "desk", "scorer", "archive")
RECORD = "venue.json"

_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")


def check_name(option: str, name: str) -> str:
    """A venue, table or login name: a topic level that reads the same everywhere."""
    if not _NAME.fullmatch(name):
        raise VenueError(f"{option}: {name!r} is not a name: 1 to 32 of a-z, 0-9, '-' and '_', starting with a "
                         "letter or digit (it is a topic level and a login)")
    if name.startswith("cueboard-"):
        raise VenueError(f"{option}: {name!r}: no name may start with 'cueboard-': client ids do, and a login "
                         "named so could take a client's id")
    return name



VENUE_TOPIC_NAMES = frozenset({COMPETITION, DESK, SERVICE})
"""Names a table cannot have: the venue's own topics sit where a table's would (docs/mqtt.md)."""

@dataclass
class Login:
    name: str
    role: Role
    table: str | None  # a scorer's table; a table's own name
    hash: str  # the mosquitto password file's line
    expires: str | None = None  # UTC, 2026-11-29T03:00:00Z: dropped at the first rewrite after it (None: never)
    card: bool = False  # a scorer card's own login (cueboard venue card): one card, one phone


@dataclass
class Ports:
    tables: int = 8883  # MQTT over TLS: the tables' daemons, one session each
    people: int = 8884  # MQTT over TLS: the desk and scorers, one login a device
    pages: int = 8885  # MQTT over secure WebSockets: the desk's and scorers' pages
    screens: int = 9001  # MQTT over secure WebSockets: the venue screens, anonymous, read only


@dataclass
class Venue:
    name: str
    hosts: list[str]
    bind: str | None = None  # the address every listener is bound to; None: every address
    ports: Ports = field(default_factory=Ports)
    logins: dict[str, Login] = field(default_factory=dict)

    @property
    def tables(self) -> list[str]:
        return [login.name for login in self.logins.values() if login.role == "table"]

    def _new_login(self, name: str, role: Role, table: str | None, expires: str | None = None,
                   card: bool = False) -> tuple[Login, str]:
        password = new_password()
        login = Login(name, role, table, hashed(name, password), expires, card)
        self.logins[name] = login
        return login, password

    def add_table(self, name: str) -> Login:
        self.new_table(name)
        return self.logins[name]

    def new_table(self, name: str) -> str:
        """Add table ``name`` (its login too); its password."""
        check_name("table", name)
        if name in VENUE_TOPIC_NAMES:
            # cueboard/<venue>/competition and desk/... are the venue's own topics (docs/mqtt.md).
            raise VenueError(f"table: {name!r} is the name of one of the venue's own topics; choose another")
        if name in self.logins:
            raise VenueError(f"table: {name!r} is taken already (a {self.logins[name].role}'s login)")
        return self._new_login(name, "table", name)[1]

    def add_user(self, name: str, role: str, table: str | None = None) -> Login:
        self.new_user(name, role, table)
        return self.logins[name]

    def new_user(self, name: str, role: str, table: str | None = None, expires: str | None = None) -> str:
        """Add a desk, scorer or archive login (``expires``: when it stops working); its password."""
        check_name("user", name)
        if role not in ("desk", "scorer", "archive"):
            raise VenueError(f"--role: {role!r}: a user is a desk (every table), a scorer (one table: --table) or "
                             "an archive (reads every table's records)")
        if name in self.logins:
            raise VenueError(f"user: {name!r} is taken already (a {self.logins[name].role}'s login); cueboard venue "
                             "revoke it first to give it a new password")
        if role == "scorer":
            if table is None:
                raise VenueError("--table: a scorer scores one table: say which (--table t1)")
            if table not in self.tables:
                tables = ", ".join(self.tables) or "none"
                raise VenueError(f"--table: no table {table} at {self.name} (tables: {tables}); cueboard venue "
                                 f"add-table {table} first")
        elif table is not None:
            raise VenueError(f"--table: only for a scorer (the {role} reaches every table)")
        checked: Role = "desk" if role == "desk" else "archive" if role == "archive" else "scorer"
        return self._new_login(name, checked, table, expires)[1]

    def new_card(self, table: str, expires: str | None = None) -> tuple[str, str]:
        """A scorer card's own login for ``table`` (``card-<table>-<n>``, n the first free): its
        name and password. Each card is a login, so it is revoked (or expires) alone."""
        if table not in self.tables:
            tables = ", ".join(self.tables) or "none"
            raise VenueError(f"--table: no table {table} at {self.name} (tables: {tables})")
        n = 1
        while f"card-{table}-{n}" in self.logins:
            n += 1
        name = f"card-{table}-{n}"
        if not _NAME.fullmatch(name):
            raise VenueError(f"--table: {table!r}: a card's login, {name!r}, would be longer than a login may be "
                             "(32): make a scorer login with a shorter name (add-user NAME --role scorer --table "
                             f"{table} --card) instead")
        password = self._new_login(name, "scorer", table, expires, card=True)[1]
        return name, password

    def expired(self, now: datetime) -> list[Login]:
        """The logins whose time is up at ``now``."""
        return [login for login in self.logins.values() if expired(login.expires, now)]

    def drop_expired(self, now: datetime) -> list[Login]:
        """Remove the logins expired at ``now`` (every rewrite does, so an expired login never
        reaches the broker's files again); those removed."""
        gone = self.expired(now)
        for login in gone:
            del self.logins[login.name]
        return gone

    def revoke(self, name: str) -> Login:
        login = self.logins.get(name)
        if login is None:
            raise VenueError(f"revoke: no login {name!r} at {self.name} (logins: {', '.join(self.logins) or 'none'})")
        if login.role == "table":
            scorers = [n for n, lg in self.logins.items() if lg.role == "scorer" and lg.table == name]
            if scorers:
                raise VenueError(f"revoke: table {name} has scorers ({', '.join(scorers)}): revoke them first")
        del self.logins[name]
        return login

    # -- on disk -------------------------------------------------------------------------

    def save(self, directory: Path) -> None:
        path = directory / RECORD
        data = asdict(self)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=2) + "\n")
        tmp.chmod(0o600)  # the password hashes
        tmp.replace(path)

    @classmethod
    def load(cls, directory: Path) -> Venue:
        path = directory / RECORD
        try:
            data: dict[str, Any] = json.loads(path.read_text())
        except FileNotFoundError:
            raise VenueError(f"--dir: {directory} has no venue ({RECORD}): cueboard venue init first") from None
        except (OSError, ValueError) as exc:
            raise VenueError(f"{path}: cannot read it: {exc}") from None
        return cls(name=data["name"], hosts=list(data["hosts"]), bind=data.get("bind"),
                   ports=Ports(**data["ports"]),
                   logins={name: Login(**login) for name, login in data["logins"].items()})
