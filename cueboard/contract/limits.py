"""Bounds on what the network may ask of a table: a :class:`TokenBucket` per sender and a
bounded queue whose senders take turns (:class:`Lanes`); over either a line is refused at once,
naming the limit. The table's own inputs are never limited: docs/daemon.md, "Inputs: the table's own first".
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
    the caller holds its lock.

    >>> bucket = TokenBucket(rate=2.0, burst=3, now=0.0)
    >>> [bucket.take(0.0) for _ in range(4)]
    [True, True, True, False]
    >>> bucket.take(0.5), bucket.take(0.5)
    (True, False)
    """

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
