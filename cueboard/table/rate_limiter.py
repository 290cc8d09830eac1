"""How fast each sender on the network may send lines to a table (a token bucket each), and
how its refusals are said (each line with an ``id`` answered, the rest summed up once a second).
docs/mqtt.md ("Rate limits per user") and docs/daemon.md ("Inputs: the table's own first").
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from cueboard.contract.codes import Reason
from cueboard.contract.limits import CommandLimits, TokenBucket

__all__ = ["REFUSALS_A_SECOND", "NotTaken", "RateLimiter", "sender"]

REFUSALS_A_SECOND = 5
"""Refusals of one sender's lines without an id published one by one each second; the rest in a
summary."""


def sender(source: str, user: str | None) -> str:
    """Whom a network line's limits count it against: the source, or the user who sent it
    (``command/desk``, ``score/marker-t1``)."""
    return source if user is None else f"{source}/{user}"


@dataclass(frozen=True)
class NotTaken:
    """Refusals counted for one sender's summary: how many, the latest reason, and its user."""

    sender: str
    count: int
    reason: Reason
    user: str | None


class RateLimiter:
    """The limits of ``[commands]`` per sender.

    Each sender (a user of ``<prefix>/command/<user>`` or ``<prefix>/score/<user>``, the control
    socket) has its own :class:`~cueboard.contract.limits.TokenBucket`: ``commands.rate`` lines a
    second, ``commands.burst`` at once; one user's flood is refused on its own and never takes
    another's tokens. A ``match`` line (a new journal file) is taken once every
    ``commands.new_match_every`` seconds per sender. A refused line with an ``id`` always gets its
    own answer; the refusals of lines without one are published one by one up to
    :data:`REFUSALS_A_SECOND` a second per sender, and the rest counted and said in one summary a
    second (nothing goes unsaid). Thread-safe: the MQTT clients' threads and the control socket's
    workers call it, the engine thread takes the summaries.

    >>> from cueboard.contract.limits import CommandLimits
    >>> limiter = RateLimiter(CommandLimits(rate=1.0, burst=2), monotonic=lambda: 0.0)
    >>> limiter.admit("command/flood"), limiter.admit("command/flood"), limiter.admit("command/flood") is None
    (None, None, False)
    >>> limiter.admit("command/desk") is None
    True
    """

    def __init__(self, limits: CommandLimits, monotonic: Callable[[], float]) -> None:
        self.limits = limits
        self._mono = monotonic
        self._lock = threading.Lock()
        self._buckets: dict[str, TokenBucket] = {}
        self._refusal_buckets: dict[str, TokenBucket] = {}
        self._last_match: dict[str, float] = {}
        self._not_taken: dict[str, NotTaken] = {}
        self._summed_at = 0.0

    def admit(self, who: str) -> Reason | None:
        """Take one of ``who``'s tokens for a line it sent; the reason it is not taken when there
        is none (code ``later``). Cheap (no parsing): the MQTT clients call it before they decode a line."""
        limits = self.limits
        with self._lock:
            now = self._mono()
            bucket = self._buckets.get(who)
            if bucket is None:
                bucket = self._buckets[who] = TokenBucket(limits.rate, limits.burst, now)
            if bucket.take(now):
                return None
        return Reason(f"not taken: {who} sends more than {limits.rate:g} lines a second (commands.rate, "
                      f"commands.burst {limits.burst}); send it again later, same id", "rate")

    def new_match(self, who: str) -> Reason | None:
        """A ``match`` line from ``who``: the reason it is refused when the last one was less
        than ``new_match_every`` seconds ago; else it is counted as the last one."""
        every = self.limits.new_match_every
        with self._lock:
            now = self._mono()
            last = self._last_match.get(who)
            if last is not None and now - last < every:
                return Reason(f"not taken: a new match from {who} at most every {every:g} s "
                              "(commands.new_match_every); send it again later", "match_too_soon")
            self._last_match[who] = now
        return None

    def said_alone(self, who: str, reason: Reason, user: str | None, *, has_id: bool) -> bool:
        """Whether a limit's refusal of ``who``'s line is published on its own: always for a line
        with an id (its sender waits for that answer); for one without, up to
        :data:`REFUSALS_A_SECOND` a second, the rest counted for :meth:`summaries`."""
        if has_id:
            return True
        with self._lock:
            now = self._mono()
            bucket = self._refusal_buckets.get(who)
            if bucket is None:
                bucket = self._refusal_buckets[who] = TokenBucket(REFUSALS_A_SECOND, REFUSALS_A_SECOND, now)
            if bucket.take(now):
                return True
            counted = self._not_taken.get(who)
            self._not_taken[who] = NotTaken(who, 1 if counted is None else counted.count + 1, reason, user)
        return False

    def summary_due(self) -> float | None:
        """When the next summary is due (monotonic seconds), or None with nothing counted."""
        with self._lock:
            return self._summed_at + 1.0 if self._not_taken else None

    def summaries(self) -> list[NotTaken]:
        """The refusals counted since the last summary, at most once a second (engine thread)."""
        with self._lock:
            now = self._mono()
            if not self._not_taken or now - self._summed_at < 1.0:
                return []
            self._summed_at = now
            counted, self._not_taken = self._not_taken, {}
        return list(counted.values())
