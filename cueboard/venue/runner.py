"""The competition runner of ``cueboard venue serve`` (docs/venue-service.md): tonight's
competition kept up to date and handed to the tables from the server, so a club night goes on
with no desk open and through a restart of the service or of the desk.

It reads only retained topics (the competition, each table's ``state``, ``status``, ``next``
and ``record``), so a runner started at any time knows the whole night; what it decides is in
:mod:`.runner_rules`. It writes what a desk writes, as a desk login (``venue``): the competition
(``rev`` one above the highest seen), a table's ``next``. Whether it hands matches by itself is
the competition's ``auto`` (kept by the broker with it, switched from any desk). Its presence is
the retained ``cueboard/<venue>/service`` with a last will, so the desk knows it is there.

Everything runs on the MQTT client's one network thread (paho calls back there): no locks.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cueboard.contract.topics import ANY, COMPETITION, DESK, NEXT, RECORD, SERVICE, STATE, STATUS, VenueTopics
from cueboard.venue import runner_rules as rules
from cueboard.venue.competition import advance
from cueboard.venue.runner_rules import Seen

log = logging.getLogger(__name__)

__all__ = ["Broker", "Runner", "service_payload"]

SCHEMA = 1
_OWN = frozenset({COMPETITION, DESK, SERVICE})


@dataclass(frozen=True)
class Broker:
    """Where and as whom the service logs in (the venue's people listener, MQTT over TLS)."""

    host: str
    port: int
    username: str
    password: str
    ca: str | None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def service_payload(online: bool, login: str, boot: str) -> bytes:
    """The retained ``service`` topic: whether the venue service runs (its last will says not)."""
    return json.dumps({"schema": SCHEMA, "online": online, "login": login, "boot": boot,
                       **({"since": _now()} if online else {})}).encode()


def _natural(name: str) -> list[Any]:
    """The venue's order: t2 before t10."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


def _format(c: rules.Competition, m: rules.Match) -> dict[str, Any]:
    """The match's format: its own (a fixture's), else the competition's (competition.js ``formatOf``)."""
    f = dict(m.get("format") or c.get("format") or {"game": "snooker", "best_of": 1})
    handicap = m.get("handicap") or [0, 0]
    if (handicap[0] or handicap[1]) and f.get("game") == "snooker":
        f["handicap"] = list(handicap)
    return f


def next_payload(c: rules.Competition, m: rules.Match, user: str) -> dict[str, Any]:
    """The retained ``next`` a table is handed (docs/mqtt.md ``next``)."""
    return {"schema": 1, "fixture": m["fixture"], "competition": m.get("competition") or c.get("name"),
            "sides": [m["sides"][0], m["sides"][1]], "format": _format(c, m), "handed_by": user}


class Runner:
    """The runner's MQTT client: :meth:`start`, then :meth:`stop`. ``on_change`` is called (on the
    network thread) after each message handled, for tests and the service's status line."""

    def __init__(self, venue: str, broker: Broker, on_change: Callable[[Runner], None] | None = None) -> None:
        self.topics = VenueTopics(venue)
        self.broker = broker
        self.user = broker.username
        self.boot = secrets.token_hex(6)
        self.on_change = on_change
        self.competition: rules.Competition | None = None
        self.tables: dict[str, Seen] = {}
        self.ready = threading.Event()  # every retained topic read since the last connect
        self.handed: list[tuple[str, str]] = []  # (fixture, table), in the order handed
        self._client = self._new_client()

    # --- the connection ---------------------------------------------------------------------
    def _new_client(self) -> Any:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        # The venue's broker takes client ids that start cueboard- and makes each the login (docs/security.md).
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"cueboard-{self.user}", clean_session=True)
        client.username_pw_set(self.user, self.broker.password)
        if self.broker.ca is not None:
            client.tls_set(self.broker.ca)
        client.will_set(self.topics.service, service_payload(False, self.user, self.boot), qos=1, retain=True)
        client.reconnect_delay_set(1, 30)
        client.on_connect = self._on_connect
        client.on_subscribe = self._on_subscribe
        client.on_message = self._on_message
        client.on_disconnect = self._on_disconnect
        return client

    def start(self) -> None:
        self._client.connect_async(self.broker.host, self.broker.port, keepalive=30)
        self._client.loop_start()

    def stop(self) -> None:
        """Say it is gone (the will is for a crash), and disconnect."""
        if self._client.is_connected():
            self._client.publish(self.topics.service, service_payload(False, self.user, self.boot), qos=1,
                                 retain=True).wait_for_publish(5)
        self._client.disconnect()
        self._client.loop_stop()

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            log.error("the broker %s:%s refused the venue service's login %r: %s", self.broker.host,
                      self.broker.port, self.user, reason)
            return
        log.info("connected to %s:%s as %s", self.broker.host, self.broker.port, self.user)
        self.ready.clear()
        v = self.topics
        every = v.table(ANY)
        client.subscribe([(v.competition, 1), (v.service, 1), *((every.under(t), 1) for t in (STATE, STATUS, NEXT,
                                                                                                RECORD))])

    def _on_subscribe(self, client: Any, *args: Any) -> None:
        # The barrier: the broker sends the retained messages of a subscription before it routes
        # a later publication of ours, so when our own presence comes back every table is read.
        client.publish(self.topics.service, service_payload(True, self.user, self.boot), qos=1, retain=True)

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self.ready.clear()
        log.warning("lost the broker %s:%s (%s); reconnecting", self.broker.host, self.broker.port, reason)

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        try:
            self._take(message.topic, bytes(message.payload))
            if self.ready.is_set():
                self.sync()
        except Exception:  # one bad message never stops the night
            log.exception("%s: not handled", message.topic)
        if self.on_change is not None:
            self.on_change(self)

    # --- reading ----------------------------------------------------------------------------
    def _take(self, topic: str, payload: bytes) -> None:
        v = self.topics
        if topic == v.service:
            body = _json(payload)
            if body and body.get("boot") == self.boot and body.get("online"):
                self.ready.set()
            return
        if topic == v.competition:
            c = _json(payload)
            if c is None or not isinstance(c.get("matches"), list):
                self.competition = None
            elif self.competition is None or int(c.get("rev") or 0) >= int(self.competition.get("rev") or 0):
                self.competition = c  # what the broker holds now: every desk reads the same
            return
        rest = topic[len(v.prefix) + 1:] if topic.startswith(v.prefix + "/") else ""
        name, _, kind = rest.partition("/")
        if not name or name in _OWN or kind not in (STATE, STATUS, NEXT, RECORD):
            return
        tb = self.tables.setdefault(name, Seen(name))
        if kind == STATUS:
            tb.status = payload.decode("utf-8", "replace") or None
        elif kind == STATE:
            tb.state = _json(payload)
        elif kind == NEXT:
            tb.next, tb.next_seen = _json(payload), True
        else:
            tb.record = _json(payload)

    def sorted_tables(self) -> list[Seen]:
        return [self.tables[n] for n in sorted(self.tables, key=_natural)]

    # --- deciding ---------------------------------------------------------------------------
    def sync(self) -> None:
        """The competition brought up to date and published when it changed; then, with ``auto``
        on, each ready match handed to its free table."""
        c = self.competition
        if c is None:
            return
        c, changed = self._adopt(c)
        c, seen = rules.observe(c, self.sorted_tables())
        changed = changed or seen
        # What the results decide: a finished group's places into the knockout, walkovers for a
        # withdrawn player's matches (docs/desk.md "Groups into a knockout", "Walkovers").
        advanced = advance(c)
        if advanced != c:
            c, changed = advanced, True
        if c.get("auto"):
            for fixture, table in rules.plan_hand(c, self.sorted_tables()):
                c, refused, before = rules.hand(c, fixture, table, self.user)
                if refused:
                    log.warning("%s not handed to %s: %s", fixture, table, refused)
                    continue
                m = next(x for x in c["matches"] if x["fixture"] == fixture)
                if before and before != table:
                    self._publish(self.topics.table(before).next, None)
                self._publish(self.topics.table(table).next, next_payload(c, m, self.user))
                self.tables[table].next, self.tables[table].next_seen = next_payload(c, m, self.user), True
                self.handed.append((fixture, table))
                log.info("handed %s (%s) to %s", fixture, m.get("label"), table)
                changed = True
        if changed:
            self.publish(c)

    def _adopt(self, c: rules.Competition) -> tuple[rules.Competition, bool]:
        """A table's retained ``next`` for a match the competition shows unhanded (a desk's write
        that crossed ours, or ours lost in a restart) is that table's: it is never handed twice."""
        out, changed = c, False
        for tb in self.sorted_tables():
            fixture = (tb.next or {}).get("fixture")
            m = next((x for x in out["matches"] if x["fixture"] == fixture), None)
            if m is not None and rules.status(m) == "ready":
                out, refused, _ = rules.hand(out, str(fixture), tb.name, str(tb.next.get("handed_by") or self.user)
                                             if tb.next else self.user)
                changed = changed or not refused
        return out, changed

    def publish(self, c: rules.Competition) -> None:
        """The competition, ``rev`` one above the highest seen, as this login."""
        c = {**c, "rev": int(c.get("rev") or 0) + 1, "by": self.user, "ts": _now()}
        self.competition = c
        self._publish(self.topics.competition, c)

    def _publish(self, topic: str, body: dict[str, Any] | None) -> None:
        self._client.publish(topic, b"" if body is None else json.dumps(body).encode(), qos=1, retain=True)


def _json(payload: bytes) -> dict[str, Any] | None:
    if not payload:
        return None
    try:
        body = json.loads(payload)
    except ValueError:
        return None
    return body if isinstance(body, dict) else None
