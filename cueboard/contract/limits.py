"""Bounds on what the network may ask of a table: a rate per source and a bounded queue.

The table's own referee boxes and keypad are never limited and never wait behind the network
(the engine thread takes their inputs first). Lines from the MQTT command topic and the control
socket go through a :class:`TokenBucket` per sender (each user of ``<prefix>/command/<user>``,
the control socket: ``rate`` lines a second, ``burst`` at once) and a queue of at most
``queue`` lines per sender (:class:`Lanes`: the senders take turns, so one user's flood never
delays another's lines); over either they are refused at once, saying which limit, never
dropped in silence. A ``match`` line from the network (a new match, a new journal file) is
allowed once every ``new_match_every`` seconds per sender. A line longer than ``max_bytes``
is refused unread.

>>> bucket = TokenBucket(rate=2.0, burst=3, now=0.0)
>>> [bucket.take(0.0) for _ in range(4)]
[True, True, True, False]
>>> bucket.take(0.5), bucket.take(0.5)
(True, False)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["CommandLimits", "Lanes", "TokenBucket"]

T = TypeVar("T")


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
    max_bytes: int = 16384
    """The longest command line read from the network (a match line is well under 2 KiB)."""


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


class Lanes(Generic[T]):
    """A queue of lanes, one per sender, taken in turns: the next item is the oldest of the lane
    whose turn it is. Not thread-safe: the caller holds its lock.

    >>> lanes: Lanes[str] = Lanes()
    >>> for item in ("f1", "f2", "f3"): lanes.append(item, "flood")
    >>> lanes.append("d1", "desk")
    >>> [lanes.popleft() for _ in range(4)]
    ['f1', 'd1', 'f2', 'f3']
    """

    def __init__(self) -> None:
        self._lanes: dict[str, deque[T]] = {}
        self._turns: deque[str] = deque()
        self._size = 0

    def append(self, item: T, lane: str) -> None:
        waiting = self._lanes.get(lane)
        if waiting is None:
            waiting = self._lanes[lane] = deque()
            self._turns.append(lane)
        waiting.append(item)
        self._size += 1

    def popleft(self) -> T:
        lane = self._turns.popleft()
        waiting = self._lanes[lane]
        item = waiting.popleft()
        self._size -= 1
        if waiting:
            self._turns.append(lane)
        else:
            del self._lanes[lane]
        return item

    def waiting(self, lane: str) -> int:
        """Items waiting in ``lane``."""
        waiting = self._lanes.get(lane)
        return 0 if waiting is None else len(waiting)

    def __len__(self) -> int:
        return self._size

    def __bool__(self) -> bool:
        return self._size > 0

    def __iter__(self) -> Iterator[T]:
        for lane in self._turns:
            yield from self._lanes[lane]
