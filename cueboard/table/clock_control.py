"""The table's shot clock: the referee runs it (blackball rule 8a), the game says how long a shot
may take (``Match.shot_time``); :class:`ClockControl` keeps the table's running clock and answers
the ``clock`` command. docs/daemon.md, "The shot clock".
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Literal

from cueboard.boards.shown import Shown
from cueboard.contract.codes import Reason
from cueboard.contract.times import timestamp
from cueboard.engine.json_value import Json, JsonObject
from cueboard.engine.shot_clock import ShotClock, ShotTime

__all__ = ["ACTIONS", "ClockControl", "seconds"]

ACTIONS = ("start", "hold", "resume", "stop")
"""The ``clock`` command's actions (docs/events.md)."""


def seconds(value: float) -> float | int:
    """Seconds as the state shows them: 60, not 60.0."""
    return int(value) if float(value).is_integer() else value


class ClockControl:
    """The shot clock of one table (engine thread only).

    The engine thread owns it; the times are passed in (monotonic seconds for the clock, Unix
    seconds for what the screens count down to), so it is tested without a clock.

    >>> from cueboard.engine.shot_clock import ShotTime
    >>> clocks = ClockControl()
    >>> clocks.command("hold", None, now=0.0).short
    'clock_not_running'
    >>> clocks.command("start", ShotTime(60.0, 30.0), now=0.0) is None
    True
    >>> clocks.command("hold", None, now=10.0), clocks.answer(shot_clocks=True, now=99.0)
    (None, {'running': False, 'paused': True, 'left': 50.0, 'length': 60})
    """

    def __init__(self) -> None:
        self.clock: ShotClock | None = None
        """The running or held clock; None while nobody's shot is timed."""
        self.idle_shot: float | int | None = None
        """The next shot's length while no clock runs (what an idle clock shows)."""
        self._called_shown = False

    def set(self, clock: ShotClock | None, now: float) -> None:
        self.clock = clock
        self._called_shown = clock is not None and clock.call_due(now)

    def command(self, action: Json, shot: ShotTime | None, now: float) -> Reason | None:
        """``{"type": "clock", "action": ...}`` (rule 8a: the referee starts the clock, and holds
        it for a rest, an interference or a ruling): applied, or the reason it is refused.
        ``shot``: how long the next shot may take (None: no shot to time now)."""
        clock = self.clock
        if action == "start":
            if shot is None:
                return Reason("no shot clock now: the match has none, or nobody is at the table "
                              "(the frame is over, or the match waits)", "no_clock_now")
            self.set(shot.start(now), now)
        elif action == "hold":
            if clock is None or clock.paused_at is not None:
                return Reason("the shot clock is not running: nothing to hold (rule 8a)", "clock_not_running")
            self.set(clock.pause(now), now)
        elif action == "resume":
            if clock is None or clock.paused_at is None:
                return Reason("the shot clock is not held: nothing to resume (rule 8a)", "clock_not_held")
            self.set(clock.resume(now), now)
        elif action == "stop":
            self.set(None, now)
        else:
            return Reason(f"clock: 'action' is {', '.join(ACTIONS[:-1])} or {ACTIONS[-1]}, not {action!r}"[:200],
                          "invalid")
        return None

    def hold(self, hold: bool, now: float) -> None:
        """A hold entered in the log (blackball rule 8a): the running clock stops where it is,
        or a held one runs on."""
        clock = self.clock
        if clock is None:
            return
        if hold and clock.paused_at is None:
            self.set(clock.pause(now), now)
        elif not hold and clock.paused_at is not None:
            self.set(clock.resume(now), now)

    def restart(self, shot: ShotTime | None, now: float) -> None:
        """The next shot begins: its clock runs (``shot``), or none does."""
        self.set(None if shot is None else shot.start(now), now)

    def running(self) -> bool:
        return self.clock is not None and self.clock.paused_at is None

    def next_wake(self, now: float) -> float | None:
        """When the engine thread must look again: the shown second changes, the call, the end."""
        clock = self.clock
        if clock is None or clock.paused_at is not None:
            return None
        left = clock.left(now)
        step = left - math.floor(left) if left > 0 else 0.0
        return now + (step if step > 0 else 1.0)

    def tick(self, now: float) -> Literal["expired", "called", "running"] | None:
        """What the running clock asks of the table at ``now``: the time is up, the call is due
        (once: the screens show it), or only the boards' seconds; None when no clock runs."""
        clock = self.clock
        if clock is None or clock.paused_at is not None:
            return None
        if clock.expired(now):
            self.set(None, now)
            return "expired"
        if clock.call_due(now) and not self._called_shown:
            self._called_shown = True
            return "called"
        return "running"

    def shown(self, shown: Shown, shot: ShotTime | None, shot_clocks: bool,
              now: float) -> tuple[Shown, float | None]:
        """The state as the boards draw it, with the shot being timed (the running or held
        clock's, else the next shot's ``shot``: its length and call), and the seconds left. A
        held clock is told apart from a running one (rule 8a: the referee holds it), as on MQTT:
        the boards mark it held, not just a number standing still. Notes the idle clock's
        length for :meth:`answer`."""
        clock = self.clock
        if clock is None:
            if shot_clocks:
                self.idle_shot = None if shot is None else seconds(shot.length)
            return replace(shown, shot=shot, held=False), None
        timed = ShotTime(clock.length, clock.call_at)
        return replace(shown, shot=timed, held=clock.paused_at is not None), max(0.0, clock.left(now))

    def answer(self, shot_clocks: bool, now: float) -> JsonObject | None:
        """The ``clock`` of a ``state`` question (``cueboard match state``): the seconds ``left``
        now, running or not (a person reads it, not a screen counting down)."""
        if not shot_clocks:
            return None
        clock = self.clock
        if clock is None:
            return {"running": False, "left": self.idle_shot, "length": self.idle_shot}
        if clock.paused_at is not None:
            return self._held(clock, now)
        return {"running": True, "left": round(clock.left(now), 1), "length": seconds(clock.length),
                "called": clock.call_due(now)}

    def published(self, shot: ShotTime | None, now: float, wall: float) -> JsonObject | None:
        """The state payload's ``clock`` (docs/mqtt.md): when a running clock ends and calls, in
        Unix time, so a screen counts down by itself; None (no clock shown) while there is no
        shot to time (a frame awarded): schema/state.schema.json has no clock without a length.
        ``call_at`` only when the shot has a call (the schema's is a time, never null)."""
        clock = self.clock
        if clock is None:
            if shot is None:
                return None
            return {"running": False, "left": seconds(shot.length), "length": seconds(shot.length)}
        if clock.paused_at is not None:
            return self._held(clock, now)
        left = clock.left(now)
        call = None if clock.call_at is None else wall + clock.call_at - clock.elapsed(now)
        out: JsonObject = {"running": True, "ends_at": timestamp(wall + left), "length": seconds(clock.length),
               "called": clock.call_due(now)}
        return out if call is None else {**out, "call_at": timestamp(call)}

    @staticmethod
    def _held(clock: ShotClock, now: float) -> JsonObject:
        return {"running": False, "paused": True, "left": round(clock.left(now), 1), "length": seconds(clock.length)}
