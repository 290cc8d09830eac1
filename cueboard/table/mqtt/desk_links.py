"""One commands link per desk login (issue 38 row 11): the table reads ``<prefix>/command/<desk>``
on a session of its own, ``<table>.commands.<desk>``, so that one desk login's flood fills only its
own queue at the broker and its own backlog here, never another desk's.

Which desks: ``mqtt.desks`` (the list ``cueboard venue`` writes into the table's configuration)
at the start, and any other user whose command comes on the shared ``<table>.commands`` link (a
desk added since): the table then opens that desk's link by itself. The broker decides: a link
for a login the venue tool did not write is refused, the desk's commands stay on the shared link
(tried again after :data:`RETRY` seconds); a revoked desk's link is refused at its next
connection (the reload drops it) and closed.

One command, one line: the shared link stays subscribed to ``command/+`` (the fallback), so a
desk's line comes on both links once the desk's own is subscribed. The broker sends each session
the lines in the order they were sent, so the first line seen on both links marks the handover:
the lines the shared link took before it that its own link never brings were sent before that
subscription (taken once, on the shared link); from then on the desk's lines are its own link's
only, the shared link's drop them, and a line the shared link took ahead of its own link's copy
is matched, in order, and not taken again. A line's twin is its exact payload. Why and the
limits: docs/mqtt.md, "A link per desk login".
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from cueboard.contract.topics import command
from cueboard.table.mqtt.config import COMMANDS_LOGIN, DESK_LOGIN, MAX_DESKS, desk_link_login
from cueboard.table.mqtt.feed import Feed, MqttConfig
from cueboard.table.mqtt.paced_link import LineKind, PacedLink

__all__ = ["FORGET", "RETRY", "RETRY_MAX", "DeskLinks", "desk_kind"]

log = logging.getLogger(__name__)

FORGET = 10.0
"""Seconds after the handover when the shared link's lines still unmatched are forgotten (their
twin was dropped by the broker from the desk link's session: it is not coming)."""

RETRY = 60.0
"""Seconds before the table tries again a desk link the broker refused (a desk added meanwhile),
doubled at each refusal up to :data:`RETRY_MAX` (an older venue's files have no such logins)."""
RETRY_MAX = 3600.0

SAY_SHARED_EVERY = 60.0
"""Seconds between two warnings that a desk's commands come on the shared link."""

MATCH_MAX = 10_000
"""Payloads waiting for their twin, at most a desk and link: memory bounded under a flood (the
oldest forgotten; a line with an ``id`` is applied once whatever comes: cueboard.table.answers)."""


def desk_kind(desk: str) -> LineKind:
    """The lines of one desk login, ``<prefix>/command/<desk>``, on ``<table>.commands.<desk>``."""
    return LineKind(f"commands.{desk}", f"{COMMANDS_LOGIN}.{desk}", (command(desk),), "command",
                    writer="cueboard venue add-user (a desk login)",
                    refused_then=f"(desk {desk}'s commands) taken on the table's shared commands link")


def _digest(payload: bytes) -> bytes:
    return hashlib.blake2b(payload, digest_size=16).digest()


@dataclass
class _Desk:
    link: PacedLink
    live_since: float | None = None  # its lines' subscription acknowledged (monotonic), None: not live
    settled_at: float | None = None  # the first line seen on both links (the handover's end), None: not yet
    on_shared: deque[bytes] = field(default_factory=deque)  # taken from the shared link, twin not seen, in order
    on_own: deque[bytes] = field(default_factory=deque)  # taken from its own link before the handover, in order

    def restart(self, live_since: float | None) -> None:
        self.live_since, self.settled_at = live_since, None
        self.on_shared.clear()
        self.on_own.clear()


class DeskLinks:
    """The table's links of its desk logins, and the filter of the shared commands link.

    ``on_line`` is the table's (as for the shared link): each line a desk sent is handed to it
    once, from one link or the other. Thread-safe (each link calls from its own thread).
    """

    def __init__(self, config: MqttConfig, feed: Feed, on_line: Callable[[bytes, bool, str | None], None], *,
                 desks: Iterable[str] = (), now: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.feed = feed
        self._on_line = on_line
        self._now = now
        self._lock = threading.RLock()  # done() of wait_until may ask links() or live()
        self._changed = threading.Condition(self._lock)  # a link opened, live, down or closed
        self._desks: dict[str, _Desk] = {}
        self._refused: dict[str, tuple[float, float]] = {}  # desk -> when its link was refused, the wait then
        self._said: dict[str, float] = {}  # desk -> when its lines on the shared link were last said
        self._started = False
        self._initial = tuple(desks)

    @property
    def links(self) -> dict[str, PacedLink]:
        """The desks' links open now, by desk login."""
        with self._lock:
            return {desk: d.link for desk, d in self._desks.items()}

    def live(self, desk: str) -> bool:
        """Whether ``desk``'s lines come on its own link now (subscribed)."""
        with self._lock:
            d = self._desks.get(desk)
            return d is not None and d.live_since is not None

    def wait_until(self, done: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``done()`` (asked again whenever a desk's link opens, is subscribed, goes down
        or is closed); False after ``timeout`` seconds. For tests and benches."""
        with self._changed:
            return self._changed.wait_for(done, timeout)

    def start(self) -> None:
        with self._lock:
            self._started = True
        for desk in self._initial:
            self.open(desk)

    def stop(self, timeout: float = 5.0) -> None:
        with self._lock:
            self._started = False
            links = [d.link for d in self._desks.values()]
            self._desks.clear()
        for link in links:
            link.stop(timeout)

    def open(self, desk: str) -> bool:
        """Open ``desk``'s link (not if open, refused less than :data:`RETRY` seconds ago, not a
        desk login's name, or :data:`MAX_DESKS` open); whether it was."""
        username = self.config.username
        if username is None or not DESK_LOGIN.fullmatch(desk):
            return False
        with self._lock:
            refused = self._refused.get(desk)
            if (not self._started or desk in self._desks or len(self._desks) >= MAX_DESKS
                    or (refused is not None and self._now() - refused[0] < refused[1])):
                return False
            link = PacedLink(self.config, self.feed, desk_kind(desk), self._on_line,
                             on_refused=lambda why: self._refused_link(desk, why),
                             on_health=lambda health: self._health(desk, health),
                             admit=lambda user, payload: self._admit_own(desk, payload),
                             on_subscribed=lambda: self._subscribed(desk),
                             login=desk_link_login(username, desk))
            self._desks[desk] = _Desk(link)
            self._changed.notify_all()
        log.info("MQTT: desk %s's commands on a link of their own (%s)", desk, desk_link_login(username, desk))
        link.start()
        return True

    # -- the links' callbacks ------------------------------------------------------------

    def _subscribed(self, desk: str) -> None:
        with self._lock:
            d = self._desks.get(desk)
            if d is not None:
                d.restart(self._now())
                self._changed.notify_all()

    def _health(self, desk: str, health: str) -> None:
        if health == "ok":
            return  # live once its subscription is acknowledged
        with self._lock:
            d = self._desks.get(desk)
            if d is not None:
                d.restart(None)  # its lines come on the shared link meanwhile
                self._changed.notify_all()

    def _refused_link(self, desk: str, why: str) -> None:
        """The broker refused ``desk``'s link (not written, or revoked): closed, its lines (if any
        still come) on the shared link."""
        with self._lock:
            d = self._desks.pop(desk, None)
            wait = self._refused.get(desk, (0.0, RETRY / 2))[1]
            self._refused[desk] = (self._now(), min(wait * 2, RETRY_MAX))
            self._changed.notify_all()
        log.warning("MQTT: desk %s's link %s: %s: closed; its commands, if any, come on the shared link %s",
                    desk, desk_link_login(self.config.username or "", desk), why,
                    f"{self.config.username}{COMMANDS_LOGIN}")
        if d is not None:  # not from this thread: paho's own, which stop() waits for
            threading.Thread(target=d.link.stop, name=f"cueboard-desk-{desk}-stop", daemon=True).start()

    # -- one line, one link --------------------------------------------------------------

    def admit_shared(self, user: str | None, payload: bytes) -> bool:
        """The shared link's filter: whether it takes ``user``'s line (False: the desk's own link
        takes it). A desk without a live link of its own is warned about and its link opened."""
        if user is None or self.config.username is None:
            return True  # the bare topic of older tools; a table without a login opens no link
        with self._lock:
            if not self._started:
                return True  # stopping: the shared link takes what still comes, as before
            d = self._desks.get(user)
            if d is not None and d.settled_at is not None:
                return False  # handed over: its own link's (issue 37: dropped before anything is made of it)
            if d is not None and d.live_since is not None:
                return self._shared_line(d, _digest(payload))
            now = self._now()
            say = now - self._said.get(user, -SAY_SHARED_EVERY) >= SAY_SHARED_EVERY and DESK_LOGIN.fullmatch(user)
            if say:
                self._said[user] = now
        if say:
            log.warning("MQTT: commands of %s on the shared link %s: it has no link of its own yet (%s, which "
                        "cueboard venue add-user writes for a desk login): the table opens it; a flood on the "
                        "shared link may delay them", user, f"{self.config.username}{COMMANDS_LOGIN}",
                        desk_link_login(self.config.username or "", user))
        if d is None:
            self.open(user)
        return True

    def _admit_own(self, desk: str, payload: bytes) -> bool:
        with self._lock:
            d = self._desks.get(desk)
            if d is None or d.live_since is None or (d.settled_at is not None and not d.on_shared):
                return True  # not live, or handed over with nothing left to match: nothing to digest
            key = _digest(payload)
            twin = _find(d.on_shared, key)
            if twin is not None:
                # The shared link took it first: every line it took before, never seen here, was
                # sent before this link's subscription (the broker keeps each session's order).
                for _ in range(twin + 1):
                    d.on_shared.popleft()
                self._settle(d)
                return False
            if d.settled_at is None:
                _keep(d.on_own, key)
            elif d.on_shared and self._now() - d.settled_at >= FORGET:
                d.on_shared.clear()  # their twins were dropped by the broker: not coming
            return True

    def _shared_line(self, d: _Desk, key: bytes) -> bool:
        """Under the lock: whether the shared link takes a line of a desk whose link is live."""
        if d.settled_at is not None:
            return False  # handed over: its own link's
        if _find(d.on_own, key) is not None:
            # Its own link took it first: everything the shared link took before was sent before
            # that link's subscription, and everything from now on is the own link's.
            d.on_shared.clear()
            self._settle(d)
            return False
        _keep(d.on_shared, key)
        return True

    def _settle(self, d: _Desk) -> None:
        if d.settled_at is None:
            d.settled_at = self._now()
            d.on_own.clear()


def _find(lines: deque[bytes], key: bytes) -> int | None:
    """The index of ``key`` in ``lines``, first from the left, or None."""
    for index, line in enumerate(lines):
        if line == key:
            return index
    return None


def _keep(lines: deque[bytes], key: bytes) -> None:
    lines.append(key)
    if len(lines) > MATCH_MAX:
        lines.popleft()
