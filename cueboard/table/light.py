"""The table's light (issue 43): when the relay is on, and why, journalled with who.

The rules (docs/hardware.md, "The table's light"):

- **on** when a match begins (its match line: the desk's or the keypad's new match; or, for a
  match whose log has no light line yet, its first stroke), when the desk says
  (``{"type": "light", "on": true}``: practice), or when the wall switch is switched on;
- **off** ``[light] off_after`` seconds after the match ends (a stroke that un-ends it, an undo,
  cancels that), when the desk says, or when the wall switch is switched off;
- the last change wins: the wall switch's edge is a person's order like the desk's, so either
  can undo the other, and a match begun later turns the light on again.

Each change is a ``light`` line in the match's journal (:class:`cueboard.engine.events.Light`:
the engine keeps it aside, the score never sees it) with its cause and user. At start the
daemon opens the relay at the level the journal's last light line says (:meth:`TableLight.restore`),
before the first frame is shown: a restart mid-match never drives the pin off.

Everything here runs on the engine thread; the wall switch's edges come from gpiozero's thread
and are handed over as a :class:`~cueboard.table.inputs.Call`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from cueboard.contract.codes import Reason
from cueboard.contract.lines import light_refusal
from cueboard.contract.times import timestamp
from cueboard.engine import Match
from cueboard.engine.events import Light, to_json
from cueboard.engine.json_value import JsonObject
from cueboard.table.inputs import Call, Input
from cueboard.table.journal import Journal
from cueboard.table.light_config import LightConfig

__all__ = ["RelayLike", "RelayOpener", "TableLight"]

log = logging.getLogger(__name__)

class RelayLike(Protocol):
    """The relay as the table drives it (:class:`cueboard.hw.relay.Relay`)."""

    def set(self, on: bool) -> None: ...

    def close(self) -> None: ...


RelayOpener = Callable[[bool, Callable[[bool], None]], RelayLike]
"""Opens the relay at a level (its first), with the wall switch's callback: ``service`` and the
tests give one (``cueboard.table.devices.open_relay``)."""


class TableLight:
    """The light of one table: its relay, its state and the journal's lines of it."""

    def __init__(self, config: LightConfig | None, *, journal: Journal, match: Callable[[], Match | None],
                 wall: Callable[[], float], mono: Callable[[], float], submit: Callable[[Input], None],
                 changed: Callable[[], None]) -> None:
        self.config = config
        self._match = match
        self.opener: RelayOpener | None = None
        self._relay: RelayLike | None = None
        self._journal = journal
        self._wall = wall
        self._mono = mono
        self._submit = submit
        self._changed = changed
        self.on = False
        self.cause: str | None = None
        self.user: str | None = None
        self.off_at: float | None = None
        """When (monotonic) the light goes off after a match's end; None: no such wait."""
        self.health = "ok"

    # -- start and stop -----------------------------------------------------------------

    def restore(self) -> None:
        """At start, before the first frame: the relay opened at the journal's last level."""
        if self.config is None:
            return
        match = self._match()
        last = match.lights[-1] if match is not None and match.lights else None
        if last is not None:
            self.on, self.cause, self.user = last.on, last.cause, last.user
        if self.opener is not None:
            try:
                self._relay = self.opener(self.on, self._switched)
            except Exception as exc:  # a relay that cannot be had must not stop the scoring
                self.health = f"failed: {exc}"[:200]
                log.error("light: the relay on GPIO %d cannot be opened: %s", self.config.pin, exc)
        if match is not None and self.on and last is not None and last.cause == "match" \
                and match.state().match_over:
            # Restarted while waiting to switch off: the wait goes on from the match's end.
            ended = match.events[-1].t if match.events and match.events[-1].t is not None else self._wall()
            self.off_at = self._mono() + max(0.0, self.config.off_after - (self._wall() - ended))

    def close(self) -> None:
        """The relay released, left as it is (docs/hardware.md: a restart must not flicker)."""
        if self._relay is not None:
            self._relay.close()
            self._relay = None

    # -- what changes it ----------------------------------------------------------------

    def match_begun(self, user: str | None) -> None:
        """A new match line: on, and said in the new journal file even when on already, so
        that the newest file alone tells a restart the light's state."""
        self._set(True, "match", user, always=True)

    def played(self, match: Match) -> None:
        """After each event: a match's first stroke turns the light on (unless its log says
        otherwise already); its end starts the wait; an undo of the end stops the wait."""
        if self.config is None:
            return
        over = match.state().match_over
        if not over and not match.lights and match.seq >= 1 and not self.on:
            self._set(True, "match", None)
        if over and self.on and self.off_at is None:
            self.off_at = self._mono() + self.config.off_after
            self.tick(self._mono())
        elif not over and self.off_at is not None:
            self.off_at = None
            self._changed()

    def command(self, obj: JsonObject) -> Reason | None:
        """The desk's ``light`` line: None when done, else why not."""
        if self.config is None:
            return Reason("light: this table has no light ([light] pin in its configuration)", "no_light")
        reason = light_refusal(obj)
        if reason is not None:
            return reason
        user = obj.get("user")
        self._set(bool(obj["on"]), "desk", user if isinstance(user, str) else None)
        return None

    def deadline(self) -> float | None:
        return self.off_at

    def tick(self, now: float) -> None:
        if self.off_at is not None and now >= self.off_at:
            self._set(False, "match_over", None)

    def switch(self, closed: bool) -> None:
        """The wall switch moved (engine thread)."""
        self._set(closed, "switch", "wall switch")

    def _switched(self, closed: bool) -> None:
        # gpiozero's thread: the engine thread does the rest, in order with every other input.
        self._submit(Call("light.switch", lambda: self.switch(closed)))

    # -- the state ----------------------------------------------------------------------

    def to_json(self) -> JsonObject | None:
        """The state payload's ``light`` (docs/state.md), None without a light."""
        if self.config is None:
            return None
        # When it goes off as a time of day, as the shot clock's ends_at: a retained state read
        # later still says it right.
        off_at = None if self.off_at is None else timestamp(self._wall() + max(0.0, self.off_at - self._mono()))
        return {"on": self.on, "cause": self.cause, "user": self.user, "off_at": off_at}

    def _set(self, on: bool, cause: str, user: str | None, *, always: bool = False) -> None:
        if self.config is None:
            return
        match = self._match()
        self.off_at = None
        if on == self.on and not always:
            self._changed()
            return
        self.on, self.cause, self.user = on, cause, user
        if self._relay is not None:
            try:
                self._relay.set(on)
            except Exception as exc:
                self.health = f"failed: {exc}"[:200]
                log.error("light: the relay cannot be driven: %s", exc)
        event = Light(on=on, cause=cause, user=user, t=round(self._wall(), 3))
        if match is not None and self._journal.path is not None:
            try:
                self._journal.append(to_json(event))
                match.apply(event)
            except OSError as exc:  # the light still switches: the people at the table come first
                log.error("light: %s %s not journalled: %s", "on" if on else "off", cause, exc)
        log.info("light %s (%s%s)", "on" if on else "off", cause, f", {user}" if user else "")
        self._changed()
