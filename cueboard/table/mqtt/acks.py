"""The feed's messages handed to paho and not acknowledged yet, and what to do when a PUBACK
never comes (issue 37, row 2).

Under a flood on the table's own connection, PUBACKs the broker logged as sent never reached
paho (mosquitto 2.0.11, paho 2.2.0: ``m75``-``m89`` of one run, the later ones acknowledged):
the feed waited for them for good, its window of events full, or the state's slot ``busy``, so
nothing more was published while the connection looked healthy. Here each message has a
deadline: past it, the feed drops the connection (paho sends the message again on the next, as
after any lost connection, and the broker acknowledges it), and again at each deadline missed.
Never "given up" while paho holds the message: paho would keep counting it in its own in-flight
window, which the next such ghosts would fill for good. docs/mqtt.md, "Acknowledgements that
never come".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["ACK_DEADLINE", "EARLY_KEPT", "InFlight"]

ACK_DEADLINE = 15.0
"""Seconds a message handed to paho waits for its PUBACK on a connection before the feed acts.
A healthy broker answers in milliseconds; a flood on the connection delays PUBACKs by seconds
(measured: up to 9 s), which must not cost a reconnect (the broker then sends the will)."""

EARLY_KEPT = 5.0
"""Seconds an acknowledgement whose message the writer has not recorded yet is kept: the writer
records it within microseconds; one for a message the feed did not send (Home Assistant's
discovery on the same client) would otherwise stay and, when paho's message ids wrap, be taken
for another message's."""

J = TypeVar("J")


@dataclass
class _Entry(Generic[J]):
    job: J
    due: float


class InFlight(Generic[J]):
    """Message ids handed to paho -> their job, each with a deadline. Not thread-safe: the feed
    holds its lock.

    >>> flight: InFlight[str] = InFlight(deadline=10.0)
    >>> flight.add(1, "state", now=0.0); flight.next_due()
    10.0
    >>> flight.overdue(9.0), flight.overdue(10.0), flight.next_due()
    (False, True, 20.0)
    >>> flight.early(7, now=0.0); flight.claim_early(7, now=1.0), flight.claim_early(7, now=1.0)
    (True, False)
    """

    def __init__(self, deadline: float = ACK_DEADLINE) -> None:
        self.deadline = deadline
        self._jobs: dict[int, _Entry[J]] = {}
        self._early: dict[int, float] = {}  # mid -> when its PUBACK came before the writer recorded it

    def __len__(self) -> int:
        return len(self._jobs)

    def __bool__(self) -> bool:
        return bool(self._jobs)

    def add(self, mid: int, job: J, *, now: float) -> None:
        self._jobs[mid] = _Entry(job, now + self.deadline)

    def pop(self, mid: int) -> J | None:
        entry = self._jobs.pop(mid, None)
        return None if entry is None else entry.job

    def early(self, mid: int, *, now: float) -> None:
        """A PUBACK for ``mid`` with no job recorded (yet)."""
        self._early = {m: at for m, at in self._early.items() if now - at < EARLY_KEPT}
        self._early[mid] = now

    def claim_early(self, mid: int, *, now: float) -> bool:
        """Whether ``mid`` was acknowledged before it was recorded (recently): then it is done."""
        at = self._early.pop(mid, None)
        return at is not None and now - at < EARLY_KEPT

    def restart(self, now: float) -> None:
        """A new connection: every deadline counts from ``now`` (time spent disconnected is not
        the broker's silence)."""
        for entry in self._jobs.values():
            entry.due = now + self.deadline

    def next_due(self) -> float | None:
        """The earliest deadline (monotonic seconds), None with nothing in flight."""
        return min((entry.due for entry in self._jobs.values()), default=None)

    def overdue(self, now: float) -> bool:
        """Whether a message's deadline has passed (the connection is then to be dropped); each
        such message gets a new deadline."""
        late = False
        for entry in self._jobs.values():
            if entry.due <= now:
                entry.due, late = now + self.deadline, True
        return late
