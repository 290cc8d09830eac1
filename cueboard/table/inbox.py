"""The engine thread's inbox: the table's own inputs first, then the network's, each sender in turn.

Any thread puts; only the engine thread takes (:meth:`Inbox.take`), sleeping until an input comes,
the deadline it gives passes, or :meth:`Inbox.stop`. The table's own inputs (the referee boxes, the
keypad, the clock, the service's calls) are never refused for load and always taken first; the
network's lines wait in a lane per sender (:class:`~cueboard.contract.limits.Lanes`: one user's flood never
delays another's lines), within the bound the table checks when it puts one (:meth:`put_remote`);
the network's values (presence, message, next) wait as the newest per key
(:class:`~cueboard.table.latest_inputs.LatestInputs`: :meth:`put_latest`), taking turns with the
lines. Nothing from the network waits among the table's own inputs (issue 37).

>>> from cueboard.table.inputs import Command, Refused
>>> inbox = Inbox()
>>> inbox.put_remote(Command("command", {"type": "undo"}), "command/desk", lambda waiting: waiting < 1)
True
>>> inbox.put_remote(Command("command", {"type": "undo"}), "command/desk", lambda waiting: waiting < 1)
False
>>> inbox.put(Refused("keypad", "not JSON"))
>>> type(inbox.take(0)).__name__, type(inbox.take(0)).__name__, inbox.take(0)
('Refused', 'Command', False)
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Literal

from cueboard.contract.limits import Lanes
from cueboard.table.inputs import Command, Input
from cueboard.table.latest_inputs import VALUE_EVERY, LatestInputs

__all__ = ["Inbox"]


class Inbox:
    """Inputs waiting for the engine thread (see the module's documentation). Thread-safe."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic, value_every: float = VALUE_EVERY) -> None:
        self._cv = threading.Condition()
        self._mono = monotonic
        self._local: deque[Input] = deque()
        self._remote: Lanes[Command] = Lanes()
        self._values: LatestInputs[Input] = LatestInputs(every=value_every)
        self._values_next = False  # whose turn it is after the table's own: the values' or the lines'
        self._stopping = False

    def put(self, item: Input) -> None:
        """One of the table's own inputs: never refused, never blocks, taken first."""
        with self._cv:
            self._local.append(item)
            self._cv.notify()

    def put_remote(self, command: Command, lane: str, admit: Callable[[int], bool]) -> bool:
        """A line from the network into ``lane`` (its sender's), if ``admit(waiting)`` (called with
        the lane's count, under the inbox's lock, so the bound holds across threads) says so;
        whether it was queued."""
        with self._cv:
            if not admit(self._remote.waiting(lane)):
                return False
            self._remote.append(command, lane)
            self._cv.notify()
            return True

    def put_latest(self, key: str, item: Input) -> bool:
        """A value from the network: waits as ``key``'s newest, replacing one waiting; False when
        too many other keys wait (not kept)."""
        with self._cv:
            waiting = len(self._values)
            kept = self._values.put(key, item, now=self._mono())
            if len(self._values) > waiting:
                # Only a key that was not waiting can change when the engine thread must wake: a
                # value replacing one waiting is taken when that one would have been. A flood of
                # values (thousands a second) so never wakes the engine for nothing (issue 37).
                self._cv.notify()
            return kept

    @property
    def replaced(self) -> int:
        """Values replaced by a newer one before the engine thread took them."""
        with self._cv:
            return self._values.replaced

    def waiting(self) -> int:
        """Lines and values from the network waiting, every lane together."""
        with self._cv:
            return len(self._remote) + len(self._values)

    def stop(self) -> None:
        with self._cv:
            self._stopping = True
            self._cv.notify()

    def take(self, timeout: float | None) -> Input | Literal[False] | None:
        """The next input (the table's own first; then the network's lines and values in turn),
        None to stop, False at the deadline."""
        deadline = None if timeout is None else self._mono() + timeout
        with self._cv:
            while True:
                if self._stopping:
                    return None
                if self._local:
                    return self._local.popleft()
                item = self._network()
                if item is not None:
                    return item
                now = self._mono()
                if deadline is not None and now >= deadline:
                    return False
                wakes = [t for t in (deadline, self._values.next_at()) if t is not None]
                self._cv.wait(max(0.0, min(wakes) - now) if wakes else None)

    def _network(self) -> Input | None:
        """Under the lock: a line or a value from the network, taking turns."""
        self._values_next = not self._values_next
        value = self._values.take(self._mono()) if self._values_next or not self._remote else None
        if value is not None:
            return value
        return self._remote.popleft() if self._remote else None
