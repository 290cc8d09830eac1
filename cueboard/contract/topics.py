"""Every MQTT topic cueboard builds, from this one place: docs/mqtt.md's topic tables as code.

A table publishes under its prefix (``cueboard/<venue>/<table>`` unless ``mqtt.prefix`` says
otherwise); the venue's desk under ``cueboard/<venue>``; the league bridges and archives
every table's ``record``; Home Assistant's discovery topics are Home Assistant's, built here
too. Nothing outside ``cueboard.contract`` writes a topic by hand
(``tests/contract/test_topics.py`` checks it, and that these are exactly docs/mqtt.md's).

>>> TableTopics.of("club", "t1").command("desk")
'cueboard/club/t1/command/desk'
>>> VenueTopics("club").table(ANY).state
'cueboard/club/+/state'
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ALL", "ANY", "ARCHIVED", "COMMAND", "COMPETITION", "DESK", "DEVICES", "EVENT", "EVERYTHING", "HA_PREFIX",
           "HISTORY", "INPUT", "MATCH_RECORDS", "MESSAGE", "NEXT", "PREVIEW", "RECORD", "RECORDS", "REJECTED", "ROOT",
           "SCORE", "SERVICE", "STATE", "STATUS", "TableTopics", "VenueTopics", "archived", "bridge_state", "command",
           "ha_config", "ha_status", "history_slot", "match_record", "presence", "score"]

ROOT = "cueboard"
ANY = "+"
"""One level of any name: in a subscription, and in the brokers' ACLs."""
ALL = "#"
"""Every level below: in a subscription, and in the brokers' ACLs."""

# A table's topics, named under its prefix: the feed publishes by these names.
STATE = "state"
EVENT = "event"
REJECTED = "rejected"
STATUS = "status"
DEVICES = "devices"
INPUT = "input"
RECORD = "record"
NEXT = "next"
MESSAGE = "message"
HISTORY = "history"
PREVIEW = "preview"
COMMAND = "command"
SCORE = "score"
ARCHIVED = "archived"


def command(user: str) -> str:
    """``command/<user>``: the last level names the login, as the venue's ACL lets it write."""
    return f"{COMMAND}/{user}"


def score(user: str) -> str:
    """``score/<user>``: a scorer's phone's lines."""
    return f"{SCORE}/{user}"


def presence(user: str) -> str:
    """``score/<user>/presence``: a scorer's phone's presence (its last will)."""
    return f"{score(user)}/presence"


def match_record(key: str) -> str:
    """``record/<key>``: one match's record, kept (retained) until an archive says it stored it;
    ``key`` is the last level of the record's ``match_id`` (its start time)."""
    return f"{RECORD}/{key}"


def archived(user: str) -> str:
    """``archived/<user>``: an archive's acknowledgements, the last level its login."""
    return f"{ARCHIVED}/{user}"


def history_slot(i: int | str) -> str:
    """``history/<i>``: one line of the match's history, ``i`` its number modulo ``recent``."""
    return f"{HISTORY}/{i}"


@dataclass(frozen=True)
class TableTopics:
    """A table's topics under its ``prefix`` (docs/mqtt.md, the first table)."""

    prefix: str

    @classmethod
    def of(cls, venue: str, table: str) -> TableTopics:
        """The default prefix, ``cueboard/<venue>/<table>``."""
        return cls(f"{ROOT}/{venue}/{table}")

    def under(self, name: str) -> str:
        """``<prefix>/<name>``, for a name above (``STATE``, ``command(user)`` ...)."""
        return f"{self.prefix}/{name}"

    @property
    def state(self) -> str:
        return self.under(STATE)

    @property
    def event(self) -> str:
        return self.under(EVENT)

    @property
    def rejected(self) -> str:
        return self.under(REJECTED)

    @property
    def status(self) -> str:
        return self.under(STATUS)

    @property
    def devices(self) -> str:
        return self.under(DEVICES)

    @property
    def input(self) -> str:
        return self.under(INPUT)

    @property
    def record(self) -> str:
        return self.under(RECORD)

    def match_record(self, key: str) -> str:
        return self.under(match_record(key))

    def archived(self, user: str) -> str:
        return self.under(archived(user))

    @property
    def next(self) -> str:
        return self.under(NEXT)

    @property
    def message(self) -> str:
        return self.under(MESSAGE)

    @property
    def history(self) -> str:
        return self.under(HISTORY)

    def history_slot(self, i: int | str) -> str:
        return self.under(history_slot(i))

    @property
    def preview(self) -> str:
        return self.under(PREVIEW)

    def command(self, user: str) -> str:
        return self.under(command(user))

    @property
    def unnamed_command(self) -> str:
        """The bare ``<prefix>/command`` of older tools: refused unless ``mqtt.unnamed_commands``."""
        return self.under(COMMAND)

    def score(self, user: str) -> str:
        return self.under(score(user))

    def presence(self, user: str) -> str:
        return self.under(presence(user))


# The venue's own first levels: no table may be named so (cueboard venue add-table refuses them).
COMPETITION = "competition"
DESK = "desk"
SERVICE = "service"


@dataclass(frozen=True)
class VenueTopics:
    """The venue's own topics, written by the desk (docs/mqtt.md, the second table)."""

    venue: str

    @property
    def prefix(self) -> str:
        return f"{ROOT}/{self.venue}"

    def table(self, name: str) -> TableTopics:
        """A table's topics at the venue (``ANY``: every table's, for a subscription or an ACL)."""
        return TableTopics.of(self.venue, name)

    @property
    def competition(self) -> str:
        return f"{self.prefix}/{COMPETITION}"

    @property
    def presets(self) -> str:
        return f"{self.prefix}/{DESK}/presets"

    @property
    def players(self) -> str:
        return f"{self.prefix}/{DESK}/players"

    @property
    def results(self) -> str:
        return f"{self.prefix}/{DESK}/results"

    @property
    def service(self) -> str:
        """The venue service's presence and what it does (``cueboard venue serve``; its last will)."""
        return f"{self.prefix}/{SERVICE}"

    @property
    def everything(self) -> str:
        """``cueboard/<venue>/#``: all of the venue's, for an ACL."""
        return f"{self.prefix}/{ALL}"


EVERYTHING = f"{ROOT}/{ALL}"
"""Every venue's topics: what a venue's bridge carries to the league, what its readers read."""

RECORDS = TableTopics.of(ANY, ANY).record
"""Every table's record at every venue: the league's records bridge and the archive."""

MATCH_RECORDS = TableTopics.of(ANY, ANY).match_record(ANY)
"""Every table's kept per-match records at every venue: the archive's catch-up."""


def bridge_state(connection: str) -> str:
    """Where mosquitto says whether its bridge ``connection`` is up (``notification_topic``)."""
    return f"$SYS/broker/connection/{connection}/state"


HA_PREFIX = "homeassistant"
"""Home Assistant's discovery prefix, unless ``[home_assistant] prefix`` says otherwise."""


def ha_config(ha_prefix: str, device: str) -> str:
    """Home Assistant's device discovery topic (retained; empty removes the device)."""
    return f"{ha_prefix}/device/{device}/config"


def ha_status(ha_prefix: str) -> str:
    """Home Assistant's birth and last will (``online``: announce again)."""
    return f"{ha_prefix}/status"
