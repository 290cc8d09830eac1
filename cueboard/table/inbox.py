"""The engine thread's inbox: the table's own inputs first, then the network's, each sender in turn.

Any thread puts; only the engine thread takes (:meth:`Inbox.take`), sleeping until an input comes,
the deadline it gives passes, or :meth:`Inbox.stop`. The table's own inputs (the referee boxes, the
keypad, the clock, the service's calls) are never refused for load and always taken first; the
network's lines wait in a lane per sender (:class:`~cueboard.contract.limits.Lanes`: one user's flood never
delays another's lines), within the bound the table checks when it puts one (:meth:`put_remote`).

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
from collections import deque
from collections.abc import Callable
from typing import Literal

from cueboard.contract.limits import Lanes
from cueboard.table.inputs import Command, Input

__all__ = ["Inbox"]


class Inbox:
    """Inputs waiting for the engine thread (see the module's documentation). Thread-safe."""

    def __init__(self) -> None:
        self._cv = threading.Condition()
        self._local: deque[Input] = deque()
        self._remote: Lanes[Command] = Lanes()
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

    def waiting(self) -> int:
        """Lines from the network waiting, every lane together."""
        with self._cv:
            return len(self._remote)

    def stop(self) -> None:
        with self._cv:
            self._stopping = True
            self._cv.notify()

    def take(self, timeout: float | None) -> Input | Literal[False] | None:
        """The next input (the table's own first), None to stop, False at the deadline."""
        with self._cv:
            if not self._cv.wait_for(lambda: self._local or self._remote or self._stopping, timeout):
                return False
            if self._stopping:
                return None
            return self._local.popleft() if self._local else self._remote.popleft()
