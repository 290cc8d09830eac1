"""Debounce and hold detection for one button contact, on an injected clock: the press is
taken on its first edge, a release only after ``debounce`` seconds quiet. Why, and what it
cannot do: :class:`ButtonContact`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager

from .clock import Clock, Timer

DEBOUNCE = 0.02
"""Seconds a contact must read released before the release counts. Contact bounce of
push buttons lasts 1-10 ms; 20 ms covers a worn switch and still lets a referee press
the same button 20 times a second."""

HOLD_TIME = 0.8
"""Seconds a button must stay down to be held: longer than a deliberate tap, short
enough not to feel like waiting."""


class ButtonContact:
    """One button: call :meth:`edge` on every edge the pin reports; ``on_press(held)`` is
    called with ``False`` on the press's first edge and with ``True`` if it is held.

    ``read`` gives the contact's level now (True: pressed); it is read when a release
    falls due, in case an edge was lost. ``lock`` serialises edges and timers, and may
    be shared by the buttons of a box so that their presses are reported in order.

    >>> from .clock import ManualClock
    >>> clock, level, presses = ManualClock(), [False], []
    >>> contact = ButtonContact(clock, presses.append, lambda: level[0])
    >>> for active in (True, False, True, False, True):   # a bouncing press
    ...     level[0] = active; contact.edge(active); clock.advance(0.001)
    >>> presses
    [False]
    >>> clock.advance(1.0); presses
    [False, True]

    Our own, not the pin library's: gpiozero's ``MockPin`` ignores ``bounce_time`` and each
    real backend debounces differently, so a test of theirs proves nothing about the Pi.

    The press is taken on its **first edge**, with no timer in the way, because
    press-to-pixels latency is measured from that edge (p99 < 2 ms). What filters the
    bounce is the other half: a release counts only once the contact has read released
    for ``debounce`` seconds without a break. Until then every edge is a bounce of the
    press already taken, so a storm of edges, on pressing, on releasing or from a jostled
    button held down, makes one press and never a second.

    A press still down ``hold_time`` after its first edge is reported once more as held.
    A release that is waiting out its ``debounce`` at that moment means "not held"; if
    that release turns out to be a bounce, the hold is reported when the contact comes
    back.

    What counts is when the edges came, not when a timer got round to running: on a busy
    machine the clock's thread can be late, and a release that fell due before the next
    edge has counted (the next edge is a new press), as has a hold that fell due before the
    release. A late timer then finds nothing left to do.

    What this cannot do is tell a press from electrical noise on an idle line: the first
    edge is the press. A line that picks up noise needs shielding or a hardware RC filter,
    not a slower debounce.
    """

    def __init__(self, clock: Clock, on_press: Callable[[bool], None], read: Callable[[], bool], *,
                 debounce: float = DEBOUNCE, hold_time: float = HOLD_TIME,
                 lock: AbstractContextManager[object] | None = None) -> None:
        if not debounce > 0:
            raise ValueError(f"debounce must be more than 0 seconds, not {debounce}")
        if not hold_time > debounce:
            raise ValueError(f"hold_time ({hold_time} s) must be longer than debounce ({debounce} s)")
        self._clock = clock
        self._on_press = on_press
        self._read = read
        self._debounce = debounce
        self._hold_time = hold_time
        self._lock: AbstractContextManager[object] = lock if lock is not None else threading.RLock()
        self._closed = False
        # A button already down when we start is not a press (a stuck button, or one held
        # through a restart): it must be released first, and it is never reported held.
        self._down = bool(read())
        self._hold_due = 0.0
        self._held_sent = self._down
        self._release: Timer | None = None
        self._release_at = 0.0
        self._hold: Timer | None = None

    @property
    def down(self) -> bool:
        """The debounced state: pressed, and not yet released for ``debounce`` seconds."""
        return self._down

    def edge(self, active: bool) -> None:
        """The pin changed: ``active`` is its new level (True: pressed)."""
        with self._lock:
            if self._closed:
                return
            now = self._clock.now()
            if active:
                if self._release is not None and now >= self._release_at:
                    # The release was due before this edge but its timer has not run yet (a
                    # busy machine): the contact read released for the whole debounce, so the
                    # release counts and this edge is a new press, not a bounce.
                    self._released()
                if self._release is not None:
                    # The contact closed again before the release counted: a bounce.
                    self._release.cancel()
                    self._release = None
                    self._came_back(now)
                elif not self._down:
                    self._press(now)
            elif self._down:
                if self._release is None and not self._held_sent and now >= self._hold_due:
                    # Down through the hold time, but its timer has not run yet (a busy
                    # machine): it was held.
                    self._send_hold()
                # A release counts after `debounce` seconds of reading released; each
                # further opening of the contact starts that wait again.
                if self._release is not None:
                    self._release.cancel()
                self._release_at = now + self._debounce
                self._release = self._clock.call_at(self._release_at, self._release_due)

    def close(self) -> None:
        """Forget the button: no more presses, no timers left behind."""
        with self._lock:
            self._closed = True
            for timer in (self._release, self._hold):
                if timer is not None:
                    timer.cancel()
            self._release = self._hold = None

    # -- inside the lock ---------------------------------------------------------------

    def _press(self, now: float) -> None:
        self._down = True
        self._held_sent = False
        self._hold_due = now + self._hold_time
        self._hold = self._clock.call_at(self._hold_due, self._hold_due_now)
        self._on_press(False)

    def _came_back(self, now: float) -> None:
        """Still pressed after an opening that was only a bounce: if the hold fell due
        meanwhile, it is a hold."""
        if self._down and not self._held_sent and now >= self._hold_due:
            self._send_hold()

    def _send_hold(self) -> None:
        self._held_sent = True
        self._on_press(True)

    def _release_due(self) -> None:
        with self._lock:
            if self._closed:
                return
            if self._release is None or self._clock.now() < self._release_at:
                # Already counted by an edge that came after it was due, or a stale timer of
                # an earlier release running late: the pending release has a timer of its own.
                return
            self._release = None
            if self._read():
                # Reads pressed: an edge was lost on the way. Still the same press.
                self._came_back(self._clock.now())
                return
            self._up()

    def _released(self) -> None:
        """The pending release counts now (its time has passed)."""
        if self._release is not None:
            self._release.cancel()
            self._release = None
        self._up()

    def _up(self) -> None:
        self._down = False
        if self._hold is not None:
            self._hold.cancel()
            self._hold = None

    def _hold_due_now(self) -> None:
        with self._lock:
            if self._closed or not self._down or self._held_sent or self._clock.now() < self._hold_due:
                return  # (the last: a late timer of an earlier press; this press has its own)
            self._hold = None
            if self._release is not None:
                # Released, unless the opening proves a bounce (then _came_back holds).
                return
            self._send_hold()
