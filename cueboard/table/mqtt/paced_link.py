"""The table's paced links: an MQTT session of its own for the scorers' lines and one for the
commands, each read no faster than the table answers them, each user in turn.
Why, and how it behaves: docs/mqtt.md, "Three sessions".
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode
from paho.mqtt.subscribeoptions import SubscribeOptions

from cueboard.contract.codes import Reason
from cueboard.contract.topics import ANY, COMMAND, MESSAGE, NEXT, command, presence, score
from cueboard.table.mqtt.client import QOS, disconnect, open_client, tell_health
from cueboard.table.mqtt.config import COMMANDS_LOGIN, SCORERS
from cueboard.table.mqtt.feed import Feed, MqttConfig
from cueboard.table.mqtt.lanes import USER_ANSWERS_A_SECOND

__all__ = ["BACKLOG_BYTES", "COMMANDS", "SCORES", "LineKind", "PacedLink", "link_login"]

log = logging.getLogger(__name__)

BACKLOG_BYTES = 8 * 1024 * 1024
"""Bytes of every user's backlog together, at most (a line may be up to the broker's
``message_size_limit``; the table reads at most ``commands.max_bytes`` of one), each line counted
:data:`LINE_OVERHEAD` bytes more than its payload (an empty line is not free)."""

LINE_OVERHEAD = 128

SAY_UNREAD_EVERY = 1.0
"""Seconds between two summaries of a user's lines not read."""


@dataclass(frozen=True)
class LineKind:
    """What a paced link reads: its name (``scorers``), what it adds to the table's login and
    client id, its topics under the table's prefix, the ``source`` its lines are answered as,
    and the topics of values it hands on as they come (the table keeps the newest of each:
    cueboard.table.latest_inputs), off the feed's connection so that a flood of them never
    delays the feed's acknowledgements (issue 37)."""

    name: str
    login_suffix: str
    topics: tuple[str, ...]
    source: str
    values: tuple[str, ...] = ()
    writer: str = "cueboard venue add-table"  # what writes its login, for a refusal's words
    refused_then: str = "taken on the table's own connection, not paced, until the daemon restarts"


SCORES = LineKind("scorers", SCORERS, (score(ANY),), "scorer", (presence(ANY), MESSAGE, NEXT))
"""The scorers' lines, ``<prefix>/score/<user>``; and the values: their presence, the desk's
``message`` and ``next`` (not on the commands' link: a desk login's flood of them would wait
there ahead of the desk's commands in the broker's stream)."""

COMMANDS = LineKind("commands", COMMANDS_LOGIN, (command(ANY), COMMAND), "command")
"""The desk's and tools' commands, ``<prefix>/command/<user>`` (and the bare ``command`` of older
tools, answered: refused unless ``mqtt.unnamed_commands``)."""


def link_login(username: str | None, kind: LineKind) -> str | None:
    """The link's login: ``t1.commands`` for the table ``t1`` (None: no login)."""
    return None if username is None else username + kind.login_suffix


class PacedLink:
    """A table's connection for one :class:`LineKind` (docs/mqtt.md, "Three sessions").

    ``on_line(payload, retained, user)`` is called for every line read (``user`` None on the bare
    ``<prefix>/command`` of older tools), on this link's paho thread or its pacer thread, one line
    of a user at a time, in the order the user sent them. A user's line is handed on while that
    user's lane of answers on the feed has room (:meth:`~cueboard.table.mqtt.feed.Feed.has_room`);
    otherwise it waits in that user's backlog (at most ``mqtt.queue`` lines, :data:`BACKLOG_BYTES`
    for every user together). The socket itself is never held back, so one login's flood never
    delays another's lines in the broker's stream to the table (the head-of-line wait a whole
    connection's pacing would have). If the broker refuses the login or the subscription,
    ``on_refused`` is called once and the daemon takes the commands on the feed's own connection.
    """

    def __init__(self, config: MqttConfig, feed: Feed, kind: LineKind,
                 on_line: Callable[[bytes, bool, str | None], None], *,
                 on_refused: Callable[[str], None] | None = None,
                 on_health: Callable[[str], None] | None = None,
                 on_value: Callable[[str, bytes], None] | None = None,
                 on_values_refused: Callable[[str], None] | None = None,
                 admit: Callable[[str | None, bytes], bool] | None = None,
                 on_subscribed: Callable[[], None] | None = None, login: str | None = None) -> None:
        self.config = config
        self.feed = feed
        self.kind = kind
        self._on_line = on_line
        self._on_refused = on_refused
        self._on_health = on_health
        self._on_value = on_value
        self._on_values_refused = on_values_refused
        self._admit = admit
        """Asked first of every line (its user, its payload): False, the line is another link's
        (cueboard.table.mqtt.desk_links: a desk's line on the shared link and on its own)."""
        self._levels = config.prefix.count("/") + 1  # a line's topic with more levels names its user
        self._watchers = 0  # threads in wait_until: a line is notified only to someone waiting
        self._on_subscribed = on_subscribed
        self._values_mid: int | None = None  # the values' SUBSCRIBE, refused on its own
        self._values_refused = False
        self._health = "down: not started"
        lock = threading.RLock()
        self._cond = threading.Condition(lock)
        """The pacer thread's: notified when it has something new to do (a user's first line waiting,
        a line handed on, the stop), not for each line of a flood it will not read (issue 37: a
        wake-up a line took the interpreter from the engine thread)."""
        self._watch = threading.Condition(lock)
        """:meth:`wait_until`'s: notified for every line kept, handed on or not read."""
        self._started = False
        self._refused = False
        self._backlog: dict[str | None, deque[tuple[bytes, bool]]] = {}  # user -> lines waiting
        self._turns: deque[str | None] = deque()  # users with a backlog, in the order they go next
        self._busy: set[str | None] = set()  # users one of whose lines is being handed on now
        self._bytes = 0
        self._unread: dict[str | None, int] = {}  # user -> lines not read since last said
        self._said: dict[str | None, float] = {}  # user -> when its unread lines were last said
        self.unread = 0
        """Lines not read because their user's backlog was full (counted, said, never answered)."""
        self.taken = 0
        """Lines read and handed on (each answered once by the table)."""
        self._pacer: threading.Thread | None = None
        self._login = login if login is not None else link_login(config.username, kind)
        client_id = "" if config.client_id is None else f"{config.client_id}-{kind.name}"
        client = open_client(config, client_id=client_id, protocol=mqtt.MQTTv5, username=self._login)
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_subscribe = self._on_subscribe
        for topic in kind.topics:
            client.message_callback_add(config.topic(topic), self._on_message)
        for topic in kind.values if on_value is not None else ():
            client.message_callback_add(config.topic(topic), self._on_value_message)
        self._client = client

    @property
    def health(self) -> str:
        """``ok``, ``connecting`` or ``down: <reason>``, as the feed's."""
        return self._health

    @property
    def refused(self) -> bool:
        """The broker refused this link's login or subscription: its lines go elsewhere (or nowhere)."""
        return self._refused

    def waiting(self) -> int:
        """Lines read and waiting in the backlogs."""
        with self._cond:
            return sum(len(lines) for lines in self._backlog.values())

    def drained(self, timeout: float) -> bool:
        """Wait until every line read has been handed on (the backlogs empty); False after
        ``timeout`` seconds. For tests and benches."""
        return self.wait_until(lambda: not self._backlog and not self._busy, timeout)

    def wait_until(self, done: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``done()`` (asked again whenever a line is kept, handed on or not read:
        e.g. ``taken + unread`` reaching the lines sent); False after ``timeout`` seconds."""
        with self._watch:
            self._watchers += 1
            try:
                return self._watch.wait_for(done, timeout)
            finally:
                self._watchers -= 1

    def start(self) -> None:
        """Connect in the background and keep reconnecting; never blocks."""
        with self._cond:
            if self._started:
                return
            self._started = True
        self._set_health("connecting")
        self._pacer = threading.Thread(target=self._pace, name=f"cueboard-{self.kind.name}-pacer", daemon=True)
        self._pacer.start()
        self._client.connect_async(self.config.host, self.config.port, self.config.keepalive, clean_start=True)
        self._client.loop_start()

    def stop(self, timeout: float = 5.0) -> None:
        """Disconnect; returns within about ``timeout`` seconds even if paho's thread is inside a
        connection attempt (it ends by itself after that). Lines still in the backlogs are
        dropped with the session, as a broker drops a stopped table's (clean sessions)."""
        with self._cond:
            if not self._started:
                return
            self._started = False
            self._cond.notify_all()
        disconnect(self._client, name=f"cueboard-{self.kind.name}-stop", timeout=timeout)
        if self._pacer is not None:
            self._pacer.join(timeout)
        self._set_health("down: stopped")

    def _set_health(self, health: str) -> None:
        with self._cond:
            if health == self._health:
                return
            self._health = health
        quiet = health in ("ok", "connecting", "down: stopped")
        (log.info if quiet else log.warning)("MQTT %s' link %s:%d: %s", self.kind.name, self.config.host,
                                             self.config.port, health)
        tell_health(self._on_health, health, log)

    # -- refused by the broker -----------------------------------------------------------

    def _refuse(self, client: mqtt.Client, why: str) -> None:
        """The broker will not let this link read its lines: said, and ``on_refused`` called once
        (its lines are then taken elsewhere); no more attempts until the daemon restarts, so that
        the two never read the same line."""
        login = self._login or "(no login)"
        if self.kind.values and self._on_value is not None:
            self._values_subscribed_refused(why)  # no link: its values go to the table's own connection
        writes = f"(login {login}: {self.kind.writer} writes it)"
        if self._on_refused is None:
            self._set_health(f"down: {why} {writes}")
            return
        with self._cond:
            first = not self._refused
            self._refused = True
        if not first:
            return
        self._set_health(f"down: {why} {writes}: {self.kind.name} {self.kind.refused_then}")
        client.disconnect()  # paho's loop ends: no reconnect
        try:
            self._on_refused(why)
        except Exception:
            log.exception("on_refused failed")

    # -- paho's callbacks (its network thread) -------------------------------------------

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: mqtt.ConnectFlags, reason: ReasonCode,
                    properties: Properties | None) -> None:
        if reason.is_failure:
            self._refuse(client, f"refused by the broker: {reason}")
            return
        options = SubscribeOptions(qos=QOS, noLocal=True, retainAsPublished=True)
        client.subscribe([(self.config.topic(topic), options) for topic in self.kind.topics])
        if self._on_value is not None and self.kind.values and not self._values_refused:
            # A SUBSCRIBE of their own: an older venue's ACL refuses them, not the lines.
            _, self._values_mid = client.subscribe([(self.config.topic(topic), options) for topic in self.kind.values])
        self._set_health("ok")

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, reasons: list[ReasonCode],
                      properties: Properties | None) -> None:
        if mid == self._values_mid:
            self._values_subscribed(reasons)
            return
        failed = [f"{topic}: {code}" for topic, code in zip(self.kind.topics, reasons, strict=False) if code.is_failure]
        if failed:  # mosquitto refuses a subscription the ACL gives no read on
            self._refuse(client, f"subscription refused by the broker ({', '.join(failed)})")
        elif self._on_subscribed is not None:
            try:
                self._on_subscribed()  # before any of its lines: paho calls back in the stream's order
            except Exception:
                log.exception("on_subscribed failed")

    def _values_subscribed(self, reasons: list[ReasonCode]) -> None:
        failed = [f"{topic}: {code}" for topic, code in zip(self.kind.values, reasons, strict=False)
                  if code.is_failure]
        if failed:
            self._values_subscribed_refused(f"subscription refused by the broker ({', '.join(failed)})")

    def _values_subscribed_refused(self, why: str) -> None:
        with self._cond:
            if self._values_refused:
                return
            self._values_refused = True  # not asked again: the table takes them elsewhere
        log.warning("MQTT %s' link: %s: taken on the table's own connection (cueboard venue add-table writes "
                    "the link's read on them)", self.kind.name, why)
        if self._on_values_refused is not None:
            try:
                self._on_values_refused(why)
            except Exception:
                log.exception("on_values_refused failed")

    def _on_value_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        if self._on_value is None:
            return
        try:
            self._on_value(message.topic, bytes(message.payload))
        except Exception:
            log.exception("on_value failed")

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        reason = getattr(client, "last_error", "") or "no connection"
        self._set_health(f"down: cannot connect to {self.config.host}:{self.config.port} ({reason})")

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: mqtt.DisconnectFlags, reason: ReasonCode,
                       properties: Properties | None) -> None:
        if self._started and not self._refused and "refused by the broker" not in self._health:
            why = "" if reason.getName() == "Unspecified error" else f" ({reason})"
            self._set_health(f"down: connection lost{why}")

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        # A flood's line costs what it must and no more (issue 37: this thread takes the interpreter
        # from the engine's, and what it allocates a line is collected inside the referee's presses):
        # an over-limit user's line is judged by its topic alone, before anything is made of it.
        topic = message.topic
        user = topic.rsplit("/", 1)[1] if topic.count("/") > self._levels else None
        if self._admit is None:
            with self._cond:
                lines = self._backlog.get(user)
                if lines is not None and len(lines) >= self.config.queue:
                    self._not_read(user)  # its user's backlog is full: not read, by its topic alone
                    return
        payload, retained = bytes(message.payload), bool(message.retain)
        if self._admit is not None and not self._admit(user, payload):
            return
        with self._cond:
            lines = self._backlog.get(user)
            if lines is None and user not in self._busy and self.feed.has_room(user or ""):
                self._busy.add(user)  # handed on here and now: nothing of this user's waits
            else:
                self._keep(user, lines, payload, retained)
                return
        self._hand_on(user, payload, retained)

    # -- the backlogs --------------------------------------------------------------------

    def _keep(self, user: str | None, lines: deque[tuple[bytes, bool]] | None, payload: bytes,
              retained: bool) -> None:
        """Under the lock: ``payload`` into its user's backlog, or counted as not read."""
        cost = len(payload) + LINE_OVERHEAD
        if (lines is not None and len(lines) >= self.config.queue) or self._bytes + cost > BACKLOG_BYTES:
            self._not_read(user)
            return
        if lines is None:
            lines = self._backlog[user] = deque()
            if user not in self._busy:
                self._turns.append(user)
                self._cond.notify_all()  # a user newly waiting: the pacer hands its line on
        lines.append((payload, retained))
        self._bytes += cost
        self._notify_watchers()

    def _not_read(self, user: str | None) -> None:
        """Under the lock: one of ``user``'s lines not read (its backlog, or all, full)."""
        self.unread += 1
        unread = self._unread
        unread[user] = unread.get(user, 0) + 1  # the pacer says them once a second, woken or not
        if self.unread in (1, 10, 100, 1000) or self.unread % 100_000 == 0:
            log.warning("MQTT %s' link: %d lines not read (their user's backlog of %d lines, or %d bytes in "
                        "all, was full: the table answers a user's lines no faster than %g a second)",
                        self.kind.name, self.unread, self.config.queue, BACKLOG_BYTES, USER_ANSWERS_A_SECOND)
        self._notify_watchers()

    def _notify_watchers(self) -> None:
        """Under the lock: wake :meth:`wait_until`'s waiters, if any (notify_all builds a list a call,
        a flooded line's garbage when nobody waits)."""
        if self._watchers:
            self._watch.notify_all()

    def _hand_on(self, user: str | None, payload: bytes, retained: bool) -> None:
        try:
            self._on_line(payload, retained, user)
        except Exception:
            log.exception("on_line failed")
        finally:
            with self._cond:
                self.taken += 1
                self._busy.discard(user)
                if user in self._backlog:
                    self._turns.append(user)
                self._cond.notify_all()
                self._notify_watchers()

    def _next(self) -> tuple[str | None, bytes, bool] | None:
        """Under the lock: the next user's line whose lane has room, taking turns; None if none."""
        for _ in range(len(self._turns)):
            user = self._turns.popleft()
            if not self.feed.has_room(user or ""):
                self._turns.append(user)
                continue
            lines = self._backlog[user]
            payload, retained = lines.popleft()
            self._bytes -= len(payload) + LINE_OVERHEAD
            if not lines:
                del self._backlog[user]
            self._busy.add(user)
            return user, payload, retained
        return None

    def _pace(self) -> None:
        """The pacer thread: hands on the backlogs' lines as their users' lanes drain, and says
        once a second to each user how many of its lines were not read."""
        while True:
            with self._cond:
                job = None
                while job is None:
                    if not self._started:
                        return
                    self._say_unread()
                    job = self._next()
                    if job is None:
                        # Waiting lanes drain at USER_ANSWERS_A_SECOND; a new line wakes this at once.
                        self._cond.wait(1.0 / USER_ANSWERS_A_SECOND if self._turns else SAY_UNREAD_EVERY)
            self._hand_on(*job)

    def _say_unread(self) -> None:
        """Under the lock: a summary of a user's lines not read, when its lane has room (it never
        pushes an answer out) and a second has passed since the last."""
        now = time.monotonic()
        for user in [u for u, at in self._said.items() if now - at >= SAY_UNREAD_EVERY and u not in self._unread]:
            del self._said[user]  # said long enough ago: forgotten (user names are the senders' to choose)
        if not self._unread:
            return
        for user, count in list(self._unread.items()):
            if now - self._said.get(user, -SAY_UNREAD_EVERY) < SAY_UNREAD_EVERY or not self.feed.has_room(user or ""):
                continue
            del self._unread[user]
            self._said[user] = now
            who = self.kind.source if user is None else f"{self.kind.source}/{user}"
            reason = Reason(f"{count} more lines from {who} not read: sent faster than the table answers them "
                            f"({USER_ANSWERS_A_SECOND:g} answers a second a user, {self.config.queue} lines waiting at "
                            "most, mqtt.queue); lines not read get no answer: send them again, same id", "not_read")
            try:
                self.feed.publish_rejected(None, reason, self.kind.source, user=user)
            except Exception:
                log.exception("publishing the lines not read failed")
