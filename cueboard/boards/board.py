"""A board: the frame state drawn on a MAX7219 chain, a WS2812 panel, HUB75 panels or an
emulator, and kept there whatever the hardware does (flash, pages, retries, scheduling).
How the daemon drives it, time and failures: :class:`Board` and docs/boards.md, "For the daemon".
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from luma.core.render import canvas  # type: ignore[import-untyped]  # luma ships no type hints (no py.typed, no stubs)
from PIL import Image

from cueboard.boards.layout import LayoutOptions
from cueboard.boards.render import Renderer
from cueboard.boards.scene import Motion
from cueboard.boards.shown import Shown
from cueboard.boards.words import words_for
from cueboard.contract.notices import Notice, Prompt
from cueboard.hw.clock import Clock, Timer
from cueboard.hw.display_config import DisplayConfig

__all__ = ["FLASH", "Board", "Device", "DeviceFactory"]

log = logging.getLogger(__name__)

FLASH: tuple[tuple[float, float], ...] = ((0.0, 0.15), (0.25, 0.4))
"""The refusal flash: the board inverted during these spans (seconds after ``flash()``):
two short blinks, seen from across the hall, over in 0.4 s."""

RETRY_FIRST = 1.0
RETRY_MAX = 30.0


@runtime_checkable
class _Persisting(Protocol):
    """A luma device: ``persist`` (its public attribute) keeps ``cleanup`` from sending anything."""

    persist: bool

    def cleanup(self) -> None: ...


class Device(Protocol):
    """What a board needs of a device: luma's device interface, as far as the board uses it."""

    @property
    def size(self) -> tuple[int, int]: ...

    @property
    def mode(self) -> str: ...

    def display(self, image: Image.Image) -> None: ...

    def cleanup(self) -> None: ...


@runtime_checkable
class Resyncing(Protocol):
    """A device whose set-up the board sends again now and then (``resync_seconds``): our
    MAX7219 chain, whose registers a glitch on a long cable can scramble."""

    def resync(self) -> None: ...


DeviceFactory = Callable[[DisplayConfig], Device]
"""Opens the device a configuration describes (``cueboard.hw.display_devices.open_device``)."""


class _Gate:
    """What luma's ``canvas`` draws on: the device's size and mode, and a ``display`` that
    passes a frame on only when it differs from the last one that went out."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self.size: tuple[int, int] = device.size
        self.mode: str = device.mode
        self.width, self.height = self.size
        self.last: bytes | None = None
        self.sent = False

    def display(self, image: Image.Image) -> None:
        frame = image.tobytes()
        self.sent = frame != self.last
        if self.sent:
            self.last = None  # unknown until the device returns
            self.device.display(image)
            self.last = frame


class Board:
    """One LED board showing the state; ``cueboard.table.devices.open_board``
    makes one with the real devices.

    A board: the frame state drawn through luma on a MAX7219 chain, a WS2812 panel or an
    emulator, and kept there whatever the hardware does. This is output policy (flash, pages,
    retries, scheduling); the device itself comes from a factory the caller passes
    (:func:`cueboard.table.devices.open_board` passes ``cueboard.hw.display_devices.open_device``), and
    the board reaches it only through :class:`Device`.

    The daemon's side::

        from cueboard.table.devices import open_board
        from cueboard.hw.display_config import parse_display

        board = open_board(parse_display(config["display"]))
        board.show(Shown(match.state()))  # on every state change (cueboard.boards.shown)
        board.show(shown, clock=41.7)     # and about every 100 ms while a shot clock runs
        board.flash(reason="red is on: ...")  # an input was refused: blink, and the reason in the bar
        board.prompt(Prompt("keypad", ("FOUL",), "the ball that sets the penalty (4 to 7)"))
        board.prompt(None)                # no call pending any more
        board.health                      # "ok" or "failed: <reason>"

    :class:`Board` never raises into its caller and never sleeps or polls in the caller's
    thread. Each call is cheap when nothing changed: the state is compared, the shot clock
    is shown in whole seconds, and a frame equal to the last one is neither drawn nor sent.

    **Time.** Things that move by themselves -- pages taking turns, long names scrolling,
    the refusal flash, a reason or a call scrolling in the bar and the reason's end, retrying
    a failed device, re-sending a MAX7219's set-up -- are drawn by :meth:`Board.tick`. Two
    ways to drive it:

    - the caller's loop (the daemon's): :meth:`Board.next_deadline` says when the next
      change is due, on ``time.monotonic``'s scale (None: nothing moves), and the loop calls
      ``tick(now)`` then; ``show``, ``flash``, ``prompt`` and ``tick`` all take an optional
      ``now`` so that a loop with its own clock gives the board that clock's time;
    - the board's own timer: given ``time_source=`` (a :class:`~.clock.Clock`: ``now()`` and
      ``call_at()``), the board reads the time from it and asks it to call ``tick`` when the
      next change is due (one pending timer, none when nothing moves). Tests pass a
      :class:`~.clock.ManualClock` and see each tick as they advance it.

    **Failures**: an exception from the device (an ``OSError`` from spidev, a WS2812 render
    error) sets :attr:`Board.health` to ``"failed: <reason>"``; the board drops the device
    and opens it again 1, 2, 4 ... up to 30 seconds later (each attempt a fresh luma device,
    so a MAX7219 gets its set-up again), then draws the current frame whole. Scoring never
    waits for it.

    A board is thread-safe: ``show`` from the engine's thread and ``tick`` from the clock's
    thread take one lock, each for well under a millisecond.
    """

    def __init__(self, config: DisplayConfig, *, device_factory: DeviceFactory, time_source: Clock | None = None,
                 schedule: bool | None = None, wall: Callable[[], datetime] | None = None) -> None:
        self.config = config
        # The time of day on the idle board: the table's clock, in its time zone.
        self._wall: Callable[[], datetime] = wall or (lambda: datetime.now().astimezone())
        self._clock = time_source
        self._time: Callable[[], float] = time.monotonic if time_source is None else time_source.now
        self._factory = device_factory
        self._schedule_ticks = time_source is not None if schedule is None else schedule
        if self._schedule_ticks and time_source is None:
            raise ValueError("a board schedules its own ticks on a time_source (a Clock with call_at)")
        self._lock = threading.RLock()
        w, h = (config.height, config.width) if config.rotate % 2 else (config.width, config.height)
        self._renderer = Renderer(w, h, "RGB" if config.colour else "1", size=config.layout_size,
                                  options=LayoutOptions(page_seconds=config.page_seconds,
                                                        scroll=config.scroll_speed > 0,
                                                        words=words_for(config.language)),
                                  motion=Motion(scroll_speed=config.scroll_speed))
        self._gate: _Gate | None = None
        self._drawn: tuple[Any, ...] | None = None
        self._flash_at: float | None = None
        self._health = "ok"
        self._retry_at: float | None = None
        self._backoff = RETRY_FIRST
        self._resync_at: float | None = None
        self._timer: Timer | None = None
        self._timer_at: float | None = None
        self._closed = False
        self.frames_sent = 0
        self.errors = 0
        with self._lock:
            # luma blanks a device as it opens it: nothing to draw before the first state.
            now = self._time()
            self._open(now)
            self._schedule(now)

    # -- the daemon's interface ---------------------------------------------------------

    @property
    def health(self) -> str:
        """``"ok"``, or ``"failed: <reason>"`` while the device is being retried."""
        return self._health

    def show(self, shown: Shown | None, clock: float | None = None, now: float | None = None) -> bool:
        """Show ``shown`` (``clock``: seconds left on the shot clock, or None when it is not
        running). True if a frame went to the device."""
        with self._lock:
            if self._closed:
                return False
            now = self._time() if now is None else now
            try:
                self._renderer.update(shown, clock, now)
            except Exception:  # a layout bug must not stop scoring: keep the last picture
                log.exception("%s: cannot draw this state", self.config.label)
                return False
            return self._refresh(now)

    def flash(self, now: float | None = None, reason: str | None = None) -> None:
        """A refused input: the board blinks inverted twice (0.4 s); with a ``reason``, the
        reason stays in the bar (see :mod:`.bar`) for 3 s or one pass of its marquee,
        whichever is longer, then the board shows the state (and the call, if one is
        still pending) again. A new refusal starts it again; a new call ends it."""
        with self._lock:
            if self._closed:
                return
            now = self._time() if now is None else now
            self._flash_at = now
            if reason:
                try:
                    self._renderer.refuse(reason, now)
                except Exception:  # a layout bug must not stop scoring: blink at least
                    log.exception("%s: cannot draw the reason %r", self.config.label, reason)
            self._refresh(now)

    def notice(self, notice: Notice, now: float | None = None) -> None:
        """An undo, a redo or a correction acknowledged in the bar with what it took back, put
        back or corrected ("UNDO: POT BLACK", "CORRECTED: EVENT 14: POT PINK"), for 3 s or one
        pass of its marquee, or until the state changes, without a blink: it was not refused.
        Call it after :meth:`show` of the state the undo, redo or amend made."""
        with self._lock:
            if self._closed:
                return
            now = self._time() if now is None else now
            try:
                self._renderer.notice(notice, now)
            except Exception:  # a layout bug must not stop scoring: keep the last picture
                log.exception("%s: cannot draw the notice %r", self.config.label, notice)
                return
            self._refresh(now)

    def prompt(self, prompt: Prompt | None, now: float | None = None) -> None:
        """The call being keyed in, drawn in the bar while it is pending: its keys and what
        it waits for. ``lapsed``: it was not finished in time (drawn for 3 s, or one pass of
        its marquee). None: no call any more (a refusal or a lapsed call in the bar still
        runs its time)."""
        with self._lock:
            if self._closed:
                return
            now = self._time() if now is None else now
            try:
                self._renderer.prompt(prompt, now)
            except Exception:  # a layout bug must not stop scoring: keep the last picture
                log.exception("%s: cannot draw the call %r", self.config.label, prompt)
                return
            self._refresh(now)

    def tick(self, now: float | None = None) -> bool:
        """Draw what time changed (pages, scrolling, flash), retry a failed device, re-send a
        MAX7219's set-up when due. True if a frame went out."""
        with self._lock:
            if self._closed:
                return False
            return self._refresh(self._time() if now is None else now)

    def next_deadline(self, now: float | None = None) -> float | None:
        """When :meth:`tick` next has something to do (on the board's time scale), or None."""
        with self._lock:
            return self._next(self._time() if now is None else now)

    def close(self) -> None:
        """Stop the timers and release the device (a MAX7219 is blanked and shut down)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._drop_device(cleanup=True)

    def __enter__(self) -> Board:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def device(self) -> Any:  # the factory's own type: tests reach their fakes through it
        """The luma device now in use (None while failed)."""
        return self._gate.device if self._gate is not None else None

    @property
    def renderer(self) -> Renderer:
        return self._renderer

    # -- inside -------------------------------------------------------------------------

    def _inverted(self, now: float) -> bool:
        if self._flash_at is None:
            return False
        t = now - self._flash_at
        if t >= FLASH[-1][1]:
            self._flash_at = None
            return False
        return any(start <= t < end for start, end in FLASH)

    def _flash_next(self, now: float) -> float | None:
        if self._flash_at is None:
            return None
        t = now - self._flash_at
        edges = [e for span in FLASH for e in span if e > t]
        if not edges:
            return None
        # Never a hair early: at the time returned, ``now - flash_at`` has reached the edge
        # (2.0 + 0.15 - 2.0 is 0.1499...; a timer that woke to find nothing changed would
        # ask again for the same time, for ever).
        edge = min(edges)
        when = self._flash_at + edge
        while when - self._flash_at < edge:
            when = math.nextafter(when, math.inf)
        return when

    def _refresh(self, now: float) -> bool:
        """Bring the device up to date at ``now``; True if a frame went out."""
        sent = False
        try:
            self._renderer.expire(now)
            if self._renderer.waiting:
                self._renderer.time_of_day(self._wall().strftime("%H:%M"), now)
        except Exception:
            log.exception("%s: cannot draw the end of a message or the time", self.config.label)
        if self._gate is None and self._retry_at is not None and now >= self._retry_at:
            self._open(now)
        gate = self._gate
        if gate is not None:
            try:
                if self._resync_at is not None and now >= self._resync_at and isinstance(gate.device, Resyncing):
                    gate.device.resync()
                    self._resync_at = now + self.config.resync_seconds
                inverted = self._inverted(now)
                key = (self._renderer.scene, self._renderer.phase(now), inverted)
                if key != self._drawn:
                    with canvas(gate) as draw:
                        self._renderer.draw(draw, now, inverted=inverted)
                    self._drawn = key
                    if gate.sent:
                        sent = True
                        self.frames_sent += 1
            except Exception as exc:
                self._fail(exc, now)
        self._schedule(now)
        return sent

    def _open(self, now: float) -> None:
        try:
            device = self._factory(self.config)
        except Exception as exc:
            self._fail(exc, now)
            return
        gate = _Gate(device)
        renderer = self._renderer
        if (gate.mode, gate.size) != (renderer.mode, (renderer.width, renderer.height)):
            # A device unlike the configuration's (a factory's own): draw for what it is.
            self._renderer = renderer.resized(*gate.size, gate.mode, now)
        self._gate = gate
        self._drawn = None
        self._retry_at = None
        self._backoff = RETRY_FIRST
        resync = self.config.resync_seconds
        self._resync_at = now + resync if resync > 0 and isinstance(device, Resyncing) else None
        if self._health != "ok":
            log.warning("%s: working again", self.config.label)
        self._health = "ok"

    def _fail(self, exc: BaseException, now: float) -> None:
        self.errors += 1
        reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        if self._health == "ok":
            log.warning("%s: display failed (%s); retrying in %.0f s", self.config.label, reason, self._backoff)
        self._health = f"failed: {reason}"
        self._drop_device(cleanup=False)
        self._retry_at = now + self._backoff
        self._backoff = min(self._backoff * 2, RETRY_MAX)

    def _drop_device(self, *, cleanup: bool) -> None:
        gate, self._gate = self._gate, None
        self._drawn = None
        if gate is None:
            return
        try:
            if cleanup:
                gate.device.cleanup()
            else:
                # A failing bus: release it without sending anything more. luma's public
                # ``persist`` makes its ``cleanup`` neither hide nor clear the device, only close
                # its serial interface; a device that is not luma's has nothing of the kind.
                device = gate.device
                if isinstance(device, _Persisting):
                    device.persist = True
                    device.cleanup()
        except Exception:
            log.debug("%s: closing the failed device", self.config.label, exc_info=True)

    def _next(self, now: float) -> float | None:
        times = [t for t in (self._flash_next(now), self._retry_at if self._gate is None else None,
                             self._resync_at if self._gate is not None else None) if t is not None]
        if self._gate is not None:
            moving = self._renderer.next_change(now)
            if moving is not None:
                times.append(moving)
            if self._renderer.waiting:
                # The idle board's minute turns over (a hair after, never before: see _flash_next).
                wall = self._wall()
                times.append(now + 60 - wall.second - wall.microsecond / 1e6 + 0.001)
        return min(times) if times else None

    def _schedule(self, now: float) -> None:
        if not self._schedule_ticks or self._closed or self._clock is None:
            return
        when = self._next(now)
        if when == self._timer_at:
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer, self._timer_at = None, None
        if when is not None:
            self._timer = self._clock.call_at(when, self._on_timer)
            self._timer_at = when

    def _on_timer(self) -> None:
        with self._lock:
            self._timer, self._timer_at = None, None
        try:
            self.tick()
        except Exception:  # the clock's thread must go on for the other boards and buttons
            log.exception("%s: tick failed", self.config.label)
