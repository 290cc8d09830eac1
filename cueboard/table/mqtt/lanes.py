"""What the feed has to send (:mod:`cueboard.table.mqtt.feed`): a retained topic's latest value
(:class:`Latest`), and the event and rejected messages waiting in lanes (:class:`Lanes`), the
table's own and one per user whose lines were answered, each bounded, taking turns, a user's
no faster than :data:`USER_ANSWERS_A_SECOND`. Not thread-safe: the feed holds its lock.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass

from cueboard.contract.limits import TokenBucket

log = logging.getLogger("cueboard.table.mqtt.feed")  # the feed's: its warnings keep their logger

__all__ = ["USER_ANSWERS_A_SECOND", "USER_ANSWERS_BURST", "Job", "Lanes", "Latest"]

USER_ANSWERS_A_SECOND = 50.0
"""Answers to one user (its lane) handed to paho a second at most, after a burst of
:data:`USER_ANSWERS_BURST`: ten times what ``[commands]`` lets a user send, so an honest sender's
answers never wait; a flood's answers reach every subscriber of ``rejected`` (every desk) at no
more than this rate, and the paced links read a flood no faster (cueboard.table.mqtt.paced_link)."""
USER_ANSWERS_BURST = 100


@dataclass
class Latest:
    """A retained topic where only the newest value matters (state, devices, status)."""

    topic: str
    payload: bytes | None = None
    version: int = 0  # bumped by each new payload
    sent: int = 0  # version of the payload last handed to paho
    busy: bool = False  # handed to paho and not acknowledged yet (or being handed)
    force: bool = False  # publish again even if sent: set on every connect

    def due(self) -> bool:
        return self.payload is not None and not self.busy and (self.force or self.version > self.sent)


@dataclass(frozen=True)
class Job:
    topic: str
    payload: bytes
    retain: bool
    latest: Latest | None  # None: an event or rejected message
    version: int = 0


class Lanes:
    """Event and rejected messages waiting, a bounded lane each ("" the table's own, else a user)."""

    def __init__(self, bound: int) -> None:
        self.bound = bound
        self._outbox: dict[str, deque[Job]] = {}  # lane -> waiting
        self._turns: deque[str] = deque()  # the lanes with messages waiting, in the order they go next
        self._lane_tokens: dict[str, TokenBucket] = {}  # a user's lane: USER_ANSWERS_A_SECOND
        self.held_until: float | None = None
        """Every waiting lane is a user's out of tokens until then (monotonic seconds)."""
        self.dropped = 0
        """Messages dropped: pushed out of a full lane, or not taken by paho."""

    def add(self, job: Job, lane: str) -> None:
        """Wait in ``lane``; when it is full the *oldest* waiting message there is dropped."""
        waiting = self._outbox.get(lane)
        if waiting is None:
            waiting = self._outbox[lane] = deque()
            self._turns.append(lane)
        waiting.append(job)
        if len(waiting) > self.bound:
            waiting.popleft()
            self.dropped += 1
            if self.dropped in (1, 10, 100, 1000) or self.dropped % 100_000 == 0:
                log.warning("MQTT queue full (%d in lane %r): %d oldest event messages dropped",
                            self.bound, lane or "table", self.dropped)

    def waiting_in(self, lane: str) -> int:
        return len(self._outbox.get(lane, ()))

    def waiting(self) -> int:
        return sum(len(lane) for lane in self._outbox.values())

    def empty(self) -> bool:
        return not self._outbox

    def has_turns(self) -> bool:
        return bool(self._turns)

    def pop(self, now: float) -> Job | None:
        """The next waiting message: the lanes take turns; a user's lane only while it has a
        token (:data:`USER_ANSWERS_A_SECOND`), the table's own always. None when every waiting
        lane is a user's without a token (:attr:`held_until`: till the next)."""
        self.held_until = None
        for _ in range(len(self._turns)):
            lane = self._turns.popleft()
            if lane:
                tokens = self._lane_tokens.get(lane)
                if tokens is None:
                    tokens = self._lane_tokens[lane] = TokenBucket(USER_ANSWERS_A_SECOND, USER_ANSWERS_BURST, now)
                if not tokens.take(now):
                    self._turns.append(lane)  # its turn passes to the next lane
                    continue
            waiting = self._outbox[lane]
            job = waiting.popleft()
            if waiting:
                self._turns.append(lane)
            else:
                del self._outbox[lane]
            return job
        self.held_until = now + 1.0 / USER_ANSWERS_A_SECOND
        return None
