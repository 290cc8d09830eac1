"""Bounds on what the network may ask of a table: a rate per source and a bounded queue.

The table's own referee boxes and keypad are never limited and never wait behind the network
(the engine thread takes their inputs first). Lines from the MQTT command topic and the control
socket go through a :class:`TokenBucket` per source (``rate`` lines a second, ``burst`` at
once) and a queue of at most ``queue`` lines; over either they are refused at once, saying
which limit, never dropped in silence. A ``match`` line from the network (a new match, a new
journal file) is allowed once every ``new_match_every`` seconds per source.

>>> bucket = TokenBucket(rate=2.0, burst=3, now=0.0)
>>> [bucket.take(0.0) for _ in range(4)]
[True, True, True, False]
>>> bucket.take(0.5), bucket.take(0.5)
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CommandLimits", "TokenBucket"]


@dataclass(frozen=True)
class CommandLimits:
    """The ``[commands]`` section of the configuration."""

    rate: float = 5.0
    """Lines a second from one source (the command topic, the control socket)."""
    burst: int = 10
    """Lines one source may send at once before the rate applies."""
    queue: int = 32
    """Lines from the network waiting for the engine at most (a few seconds' work at most)."""
    new_match_every: float = 10.0
    """Seconds between two ``match`` lines from one source."""


class TokenBucket:
    """``burst`` tokens, refilled at ``rate`` a second; each line takes one. Not thread-safe:
    the caller holds its lock."""

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self._tokens = float(burst)
        self._at = now

    def take(self, now: float) -> bool:
        """Take a token at ``now`` (seconds, monotonic) if there is one."""
        self._tokens = min(float(self.burst), self._tokens + max(0.0, now - self._at) * self.rate)
        self._at = max(self._at, now)
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False
