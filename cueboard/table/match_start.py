"""A match begun (:class:`MatchStart`): a match line or ``new_match`` journalled first, then
made current; a journal that cannot be written (at start or since) and the journal's coming
back; the match record followed event by event; the referee's shot clock commands. The
engine thread's.
"""

from __future__ import annotations

import errno
import json
import logging
from functools import partial

from cueboard.contract.codes import Reason
from cueboard.engine import Event, IllegalEvent, Match, to_json
from cueboard.engine.json_value import JsonObject
from cueboard.engine.record import Recorder
from cueboard.engine.state import State
from cueboard.table.guard import guard
from cueboard.table.health import Health, HealthState
from cueboard.table.inputs import Reply
from cueboard.table.refusals import Refusals, engine_reason

log = logging.getLogger("cueboard")

__all__ = ["MatchStart"]


class MatchStart(Refusals):
    """Beginning a match, the journal's health, the record and the clock's commands (see the
    module's documentation)."""

    def new_match(self, fields: JsonObject, source: str, reply: Reply | None, ident: str | None = None) -> None:
        try:
            setup = self.config.match_setup(fields)
        except IllegalEvent as exc:
            self._refuse({"type": "match", **fields, **({"id": ident} if ident else {})}, engine_reason(str(exc), exc),
                         source, reply)
            return
        line = setup.to_json() | ({"id": ident} if ident else {}) | (
            {"user": self._user} if self._user is not None else {})
        try:
            self._begin(line)
            self.light.match_begun(self._user)
        except OSError as exc:
            self._journal_failed(exc)
            self.publish_devices()
            self._refuse({"type": "match", **fields, **({"id": ident} if ident else {})},
                         Reason(f"not saved: the journal cannot be written ({exc.strerror or exc}); the match was "
                                "not started", "not_saved"), source, reply)
            return
        state = self._show()
        self._publish_state(state)
        self._publish_record()
        self._answered(line, logged=True)
        if source == "keypad" and self.keypad is not None:
            self.keypad.feedback(True)
        if reply:
            reply({"ok": True, "state": state.to_json()})

    def _answered(self, line: JsonObject, *, logged: bool) -> None:
        """A daemon command with an ``id`` applied (a match line, ``new_match``, ``clock``):
        answered on ``event`` as an event is, with its ``id`` and ``user`` (docs/mqtt.md), so
        every command from the network gets exactly one answer of its own. A match line is the
        journal's first line (``seq`` 0); ``clock`` is in no log: ``"logged": false`` tells a
        history to leave it out. Without an id nobody waits for it: the state says it."""
        if self.feed is None or self.match is None or not isinstance(line.get("id"), str):
            return
        if logged:
            guard(self.feed.publish_event, self.match.seq, line)
        else:
            guard(partial(self.feed.publish_event, self.match.seq, line, logged=False))

    def _begin(self, line: JsonObject, *, journalled: bool = True) -> None:
        """A new match: journalled first (a new file), then made current. ``journalled=False``
        only at start with a journal that failed: the match is shown, nothing is applied to it
        until the journal takes it (:meth:`_journal_ready`)."""
        match = Match.from_json(line)
        if journalled:
            self.journal.start(line if "id" in line or "user" in line else match.setup.to_json())
        self.match = match
        self.recorder = Recorder(match.setup, match.state())
        self.answers.start(self.journal.path if journalled else None)
        self.clocks.set(None, self._mono())
        for name, entry in self._entries.items():
            entry.clear()
            self._show_prompt(name, entry)
        self._load_keymaps()
        self.topics.begun()
        log.info("new match: %s", json.dumps(line, ensure_ascii=False))

    def _journal_ready(self) -> None:
        """A journal that failed at start is tried again before an event is applied: once its
        folder can be written, the match shown so far goes into a new file (its match line and
        the events in effect: none, as every input was refused meanwhile) and scoring goes on
        without a restart. OSError when it still cannot be written."""
        if self.journal.path is not None or self.match is None:
            return
        self.journal.start(self.match.setup.to_json())
        for event in self.match.events:
            self.journal.append(to_json(event))
        self.answers.start(self.journal.path)
        log.info("journal %s: writable again, match in %s", self.config.journal_dir, self.journal.path)

    def _journal_failed(self, exc: OSError) -> None:
        """``devices.journal`` says what failed and what to do (logged once per change, with the
        rest of the devices: :meth:`publish_devices`)."""
        where = exc.filename or self.config.journal_dir
        if exc.errno == errno.ENOSPC:
            todo = "there is room on the disk again"
        elif exc.errno in (errno.ENOTDIR, errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOENT, errno.EEXIST):
            todo = (f"journal.dir ({self.config.journal_dir}, in {self.config.path}) is a folder the "
                    "service's user can write")
        else:
            todo = "the disk works again (check it: dmesg; or replace the SD card)"
        health = Health(HealthState.FAILED, f"{exc.strerror or exc}: {where}; inputs are refused, nothing unsaved "
                        f"is shown, until {todo} (tried again at each input, no restart needed)")
        if health != self._journal_health:
            log.error("journal %s", health.wire())  # once per change: every input refused says so too
        self._journal_health = health

    def _follow_record(self, event: Event, state: State) -> None:
        """Bring the match record up to date; publish it when a frame or the match ended (or an
        undo or redo crossed such an end). A bug here rebuilds it from the match: scoring goes on."""
        match = self.match
        assert match is not None
        try:
            assert self.recorder is not None
            changed = self.recorder.apply(event, state, match)
        except Exception:
            log.exception("the match record went wrong: rebuilt from the match")
            self.recorder, changed = Recorder.of_match(match), True
        if changed:
            self._publish_record()

    # -- the shot clock: how long a shot may take is the game's to say; the referee runs it ----

    def _clock_command(self, obj: JsonObject, source: str, reply: Reply | None) -> None:
        """``{"type": "clock", "action": "start" | "hold" | "resume" | "stop"}`` (rule 8a: the
        referee starts the clock, and holds it for a rest, an interference or a ruling)."""
        shot = self.match.shot_time() if self.match is not None else None
        refusal = self.clocks.command(obj.get("action", "start"), shot, self._mono())
        if refusal is not None:
            self._refuse(obj, refusal, source, reply)
            return
        state = self._show()
        self._publish_state(state)
        self._answered({"type": "clock", "action": obj.get("action", "start"),
                       **{k: v for k, v in obj.items() if k in ("id", "user")}}, logged=False)
        if reply:
            reply({"ok": True, "state": state.to_json()})

    def _light_line(self, obj: JsonObject, source: str, reply: Reply | None) -> None:
        """The desk's ``{"type": "light", "on": ...}`` (issue 43: docs/mqtt.md)."""
        refusal = self.light.command(obj)
        if refusal is not None:
            self._refuse(obj, refusal, source, reply)
            return
        self._answered({k: v for k, v in obj.items() if k in ("type", "on", "id", "user")}, logged=False)
        if reply:
            reply({"ok": True, "light": self.light.to_json()})

    def _light_changed(self) -> None:
        if self.started.is_set():
            self._publish_state()

    def _restart_clock(self, automatic: bool) -> None:
        shot = self.match.shot_time() if self.match is not None and automatic and self.config.shot_clock_auto \
            else None
        self.clocks.restart(shot, self._mono())
