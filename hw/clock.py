"""The clock the input devices debounce and time holds on, injected like gpiozero's pin factory.

A :class:`Clock` tells the time and runs a callback at a given time. The daemon uses
:class:`MonotonicClock` (one timer thread that sleeps until the next deadline: nothing
polls); tests use :class:`ManualClock`, whose time moves only when the test says, so no
test depends on the speed of the machine. gpiozero's own edge timestamps are not used:
``MockPin`` stamps edges with the real time, whatever the test's clock says.

>>> clock = ManualClock()
>>> fired = []
>>> _ = clock.call_at(0.5, lambda: fired.append(clock.now()))
>>> clock.advance(1.0)
>>> fired, clock.now()
([0.5], 1.0)
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable
from typing import Protocol

log = logging.getLogger(__name__)


class Timer(Protocol):
    def cancel(self) -> None:
        """Do not run the callback (nothing happens if it has run already)."""


class Clock(Protocol):
    def now(self) -> float:
        """Seconds on a monotonic scale (the origin means nothing)."""

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        """Run ``callback`` once the time is ``when`` (at once if it is already past)."""


class _Entry:
    __slots__ = ("callback", "cancelled", "when")

    def __init__(self, when: float, callback: Callable[[], None]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """A clock for tests: :meth:`advance` moves the time and runs the callbacks that fall
    due, in time order, each with :meth:`now` set to its own time. Callbacks run in the
    caller's thread, so a test sees their effects as soon as ``advance`` returns."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._heap: list[tuple[float, int, _Entry]] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self._now

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        entry = _Entry(when, callback)
        heapq.heappush(self._heap, (when, next(self._order), entry))
        return entry

    def advance(self, seconds: float) -> None:
        """Move the time on by ``seconds``, running what falls due on the way."""
        if seconds < 0:
            raise ValueError(f"a clock does not go back ({seconds} s)")
        self.advance_to(self._now + seconds)

    def advance_to(self, when: float) -> None:
        """Move the time on to ``when``, running what falls due on the way."""
        if when < self._now:
            raise ValueError(f"a clock does not go back (from {self._now} to {when})")
        while self._heap and self._heap[0][0] <= when:
            due, _, entry = heapq.heappop(self._heap)
            if entry.cancelled:
                continue
            self._now = max(self._now, due)
            entry.callback()
        self._now = when

    def stall(self, seconds: float) -> None:
        """Move the time on by ``seconds`` without running what falls due: a timer thread
        running late on a busy machine. The next :meth:`advance` runs it, late."""
        if seconds < 0:
            raise ValueError(f"a clock does not go back ({seconds} s)")
        self._now += seconds

    @property
    def pending(self) -> int:
        """Callbacks waiting to run (for tests: a device that leaves none behind is idle)."""
        return sum(1 for _, _, e in self._heap if not e.cancelled)


class MonotonicClock:
    """``time.monotonic`` and one daemon thread that runs the callbacks.

    The thread waits on a condition until the earliest deadline, or until a new
    earlier one is added, so it wakes only when there is work. Callbacks run in that
    thread, one at a time, and must be short (hand the work on).
    """

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, _Entry]] = []
        self._order = itertools.count()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False

    def now(self) -> float:
        return time.monotonic()

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        entry = _Entry(when, callback)
        with self._wake:
            if self._closed:
                raise RuntimeError("the clock is closed")
            heapq.heappush(self._heap, (when, next(self._order), entry))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="cueboard-clock", daemon=True)
                self._thread.start()
            self._wake.notify()
        return entry

    def close(self) -> None:
        """Stop the thread; callbacks not yet run never run."""
        with self._wake:
            self._closed = True
            self._heap.clear()
            self._wake.notify()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()

    def _next_due(self) -> _Entry | None:
        """The next callback once it is due, or None once the clock is closed."""
        with self._wake:
            while not self._closed:
                if not self._heap:
                    self._wake.wait()
                    continue
                when, _, entry = self._heap[0]
                if entry.cancelled:
                    heapq.heappop(self._heap)
                    continue
                delay = when - time.monotonic()
                if delay > 0:
                    self._wake.wait(delay)
                    continue
                heapq.heappop(self._heap)
                return entry
        return None

    def _run(self) -> None:
        while (entry := self._next_due()) is not None:
            if entry.cancelled:
                continue
            try:
                entry.callback()
            except Exception:
                # One faulty callback must not stop the timers of every button.
                log.exception("clock callback %r failed", entry.callback)
