"""The shot clock as a pure model: the time is passed in, never read. Blackball rule 8a's 60
seconds a shot with the call at 30, or the match line's own ``shot_clock`` (docs/events.md,
docs/blackball.md); the daemon starts a :class:`ShotClock` when the referee does (docs/daemon.md,
"The shot clock").

>>> rules = ShotClockRules.parse(60)
>>> rules, rules.to_json()
(ShotClockRules(seconds=60.0, first=None, call=30.0), 60.0)
>>> clock = rules.start(now=1000.0)
>>> clock.left(1029.5), clock.call_due(1029.5), clock.call_due(1030.0), clock.expired(1059.9)
(30.5, False, True, False)
>>> clock.pause(1040.0).resume(1100.0).left(1110.0)  # held for a rest from 40 s in: 50 s taken
10.0
>>> shoot_out = ShotClockRules.parse({"seconds": 10, "first": 15, "call": None})
>>> shoot_out.length(first_of_visit=True), shoot_out.length(first_of_visit=False), shoot_out.to_json()
(15.0, 10.0, {'seconds': 10.0, 'first': 15.0})
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TypeGuard

from .errors import IllegalEvent
from .json_value import JsonObject

CALL_AFTER = 30.0
"""Rule 8a: "Lorsque 30 secondes se sont écoulées, l'arbitre annonce « 30 secondes »"."""

SHOT_SECONDS = 60.0
"""Rule 8a: 60 seconds for a shot, the break and a shot with the cue ball in hand included."""


def default_call(seconds: float) -> float | None:
    """The call of rule 8a, 30 seconds after the start, when the shot may take longer."""
    return CALL_AFTER if seconds > CALL_AFTER else None


def _is_seconds(value: object) -> TypeGuard[float]:
    return (isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
            and value > 0)


def _seconds(value: object, what: str) -> float:
    if not _is_seconds(value):
        raise IllegalEvent(f"match: 'shot_clock' {what} must be seconds (more than 0), not {value!r}",
                           short="match_setup")
    return float(value)


@dataclass(frozen=True, slots=True)
class ShotClock:
    """The clock of one shot, started by the referee at ``started_at`` (Unix seconds).

    ``call_at``: seconds after the start when the referee calls the time (rule 8a:
    30), or None for no call. ``paused_at``: when the clock was held, if it is.
    """

    length: float
    call_at: float | None
    started_at: float
    paused_at: float | None = None

    def elapsed(self, now: float) -> float:
        """Seconds the shot has taken so far (a hold stops the count)."""
        end = self.paused_at if self.paused_at is not None else now
        return max(0.0, end - self.started_at)

    def left(self, now: float) -> float:
        """Seconds left to play the shot, never below 0."""
        return max(0.0, self.length - self.elapsed(now))

    def call_due(self, now: float) -> bool:
        """Whether the referee's call ("30 seconds") is due: once due, it stays due."""
        return self.call_at is not None and self.call_at < self.length and self.elapsed(now) >= self.call_at

    def expired(self, now: float) -> bool:
        """The time is up: a foul, entered as ``{"type": "foul", "reason": "time"}`` (rule 8a)."""
        return self.elapsed(now) >= self.length

    def pause(self, now: float) -> ShotClock:
        """Hold the clock (rule 8a (a)-(c): a rest, an interference, a ruling)."""
        return self if self.paused_at is not None else replace(self, paused_at=now)

    def resume(self, now: float) -> ShotClock:
        """Restart a held clock where it stopped."""
        if self.paused_at is None:
            return self
        return replace(self, started_at=self.started_at + max(0.0, now - self.paused_at), paused_at=None)


@dataclass(frozen=True, slots=True)
class ShotTime:
    """How long one shot may take (``length`` seconds) and when the referee calls the time
    (``call_at`` seconds in, or None): what the game says of the next shot
    (``Game.shot_time``), before anybody starts the clock."""

    length: float
    call_at: float | None

    def start(self, now: float) -> ShotClock:
        """The referee starts the clock for this shot at ``now``."""
        return ShotClock(length=self.length, call_at=self.call_at, started_at=now)


@dataclass(frozen=True, slots=True)
class ShotClockRules:
    """How long a shot may take in a match: ``seconds`` a shot, ``first`` for the first shot
    of a visit (None: the same), and the referee's call ``call`` seconds after the start
    (None: no call)."""

    seconds: float
    first: float | None = None
    call: float | None = None

    @classmethod
    def of_seconds(cls, seconds: float) -> ShotClockRules:
        """``seconds`` a shot with the call of rule 8a (30 seconds in, when the shot is longer)."""
        return cls(seconds=float(seconds), call=default_call(seconds))

    @classmethod
    def parse(cls, value: object) -> ShotClockRules | None:
        """The match line's ``shot_clock``: a number, an object, or null (no clock)."""
        if value is None:
            return None
        if not isinstance(value, dict):
            if not _is_seconds(value):
                raise IllegalEvent(
                    f"match: 'shot_clock' must be seconds per shot (more than 0) or null, not {value!r}",
                                   short="match_setup")
            return cls.of_seconds(float(value))
        unknown = sorted(set(value) - {"seconds", "first", "call"})
        if unknown:
            raise IllegalEvent(f"match: 'shot_clock' has an unknown field {unknown[0]!r} "
                               "(it takes: seconds, first, call)", short="match_setup")
        if "seconds" not in value:
            raise IllegalEvent("match: 'shot_clock' needs 'seconds', the time a shot may take", short="match_setup")
        seconds = _seconds(value["seconds"], "'seconds'")
        first = None if value.get("first") is None else _seconds(value["first"], "'first'")
        call = default_call(seconds) if "call" not in value else (
            None if value["call"] is None else _seconds(value["call"], "'call'"))
        if call is not None and call >= max(seconds, first or 0.0):
            raise IllegalEvent(f"match: the shot clock's 'call' ({call:g} seconds in) must come before "
                               "the time is up", short="match_setup")
        return cls(seconds=seconds, first=first, call=call)

    def to_json(self) -> float | JsonObject:
        """What the match line gives: the plain number when that says it all."""
        if self.first is None and self.call == default_call(self.seconds):
            return self.seconds
        out: JsonObject = {"seconds": self.seconds}
        if self.first is not None:
            out["first"] = self.first
        if self.call != default_call(self.seconds):
            out["call"] = self.call
        return out

    def length(self, first_of_visit: bool = False) -> float:
        """Seconds the next shot may take."""
        return self.first if first_of_visit and self.first is not None else self.seconds

    def call_at(self, length: float) -> float | None:
        """When the call comes in a shot of ``length`` seconds, or None when it does not."""
        return self.call if self.call is not None and self.call < length else None

    def shot(self, first_of_visit: bool = False) -> ShotTime:
        """The time of the next shot."""
        length = self.length(first_of_visit)
        return ShotTime(length, self.call_at(length))

    def start(self, now: float, first_of_visit: bool = False) -> ShotClock:
        """The referee starts the clock for a shot at ``now``."""
        return self.shot(first_of_visit).start(now)


STANDARD = ShotClockRules.of_seconds(SHOT_SECONDS)
"""Rule 8a: 60 seconds a shot, "30 seconds" called."""
