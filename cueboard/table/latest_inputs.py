"""The network's values for the engine thread, the newest one per key (issue 37, rows 2 and 3).

A scorer's presence, the desk's ``message`` and ``next`` are values, not lines: each new one
replaces the last (they are retained topics: the broker itself keeps only the newest). So a value
waiting for the engine thread is replaced by a newer one with the same key (``presence:<user>``,
``message``, ``next``), never queued behind it: a flood of them holds one slot a key, and the
engine takes a key at most once every :data:`VALUE_EVERY` seconds, however fast they come; the
newest is always taken in the end. The keys are bounded too (:data:`MAX_KEYS`: scorers' logins are
the venue's, but a key more is refused, not kept). Not thread-safe: the inbox holds its lock.

>>> values = LatestInputs(every=1.0, max_keys=2)
>>> values.put("message", "hello", now=0.0), values.put("message", "hi", now=0.0)
(True, True)
>>> values.take(0.0), values.take(0.5), values.next_at()
('hi', None, None)
>>> values.put("message", "bye", now=0.5), values.take(0.5), values.next_at(), values.take(1.0)
(True, None, 1.0, 'bye')
>>> values.put("a", 1, now=2.0), values.put("b", 2, now=2.0), values.put("c", 3, now=2.0)
(True, True, False)
"""

from __future__ import annotations

from collections import deque
from typing import Generic, TypeVar

__all__ = ["MAX_KEYS", "VALUE_EVERY", "LatestInputs"]

VALUE_EVERY = 0.05
"""Seconds between two values of one key taken by the engine thread, at least: a person's
changes (a message typed, a phone coming back) are far slower; a flood's cost no more."""

MAX_KEYS = 256
"""Keys waiting at once, at most (one a scorer login, ``message``, ``next``)."""

T = TypeVar("T")


class LatestInputs(Generic[T]):
    """The newest value waiting per key, each key taken at most once every ``every`` seconds,
    the keys in turn."""

    def __init__(self, every: float = VALUE_EVERY, max_keys: int = MAX_KEYS) -> None:
        self.every = every
        self.max_keys = max_keys
        self._waiting: dict[str, T] = {}
        self._turns: deque[str] = deque()  # keys waiting, in the order they go next
        self._taken_at: dict[str, float] = {}  # key -> when its last value was taken
        self.replaced = 0
        """Values replaced by a newer one before the engine took them (a flood, coalesced)."""

    def __len__(self) -> int:
        return len(self._waiting)

    def put(self, key: str, value: T, *, now: float) -> bool:
        """``value`` waits as ``key``'s newest; False (not kept) when :attr:`max_keys` other keys wait."""
        if key in self._waiting:
            self.replaced += 1
        elif len(self._waiting) >= self.max_keys:
            return False
        else:
            self._turns.append(key)
        self._waiting[key] = value
        self._forget(now)
        return True

    def _ready_at(self, key: str) -> float:
        taken = self._taken_at.get(key)
        return float("-inf") if taken is None else taken + self.every

    def take(self, now: float) -> T | None:
        """The next key's value whose time has come (keys in turn); None if none has."""
        for _ in range(len(self._turns)):
            key = self._turns.popleft()
            if self._ready_at(key) > now:
                self._turns.append(key)
                continue
            self._taken_at[key] = now
            return self._waiting.pop(key)
        return None

    def next_at(self) -> float | None:
        """When the next waiting value may be taken (None: nothing waits, or one may be now)."""
        if not self._waiting:
            return None
        at = min(self._ready_at(key) for key in self._waiting)
        return None if at == float("-inf") else at

    def _forget(self, now: float) -> None:
        """Keys taken long enough ago need no time kept (bounded with the keys)."""
        if len(self._taken_at) > self.max_keys:
            self._taken_at = {k: at for k, at in self._taken_at.items() if now - at < self.every}
