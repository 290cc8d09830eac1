"""``cueboard run``: the daemon that keeps one table's score.

The shape (docs/layers.md)::

    inputs (buttons, keypad, MQTT command, control socket) --submit--> engine thread --> outputs
                                                                          |        (boards, MQTT)
                                                                       journal

One thread, the engine thread (:meth:`Table.run`), owns the match, the journal and the
outputs; every input thread only calls :meth:`Table.submit`, which puts the input on a
queue. For each event the engine thread checks it, appends it to the journal and fsyncs,
applies it, and only then shows and publishes the new state: a state nobody saw can be
lost in a power cut, a state somebody saw cannot. Nothing polls: the loop sleeps on the
queue until an input comes or the next deadline (the shot clock's next second, a key
sequence's timeout, an animation frame, the watchdog) is due.
"""

from __future__ import annotations

import errno
import json
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import partial
from typing import Any

from cueboard.contract.codes import Reason, at_the_table
from cueboard.contract.lines import peek_id
from cueboard.contract.notices import Notice, Prompt
from cueboard.engine import Event, IllegalEvent, Match, to_json
from cueboard.engine.events import Amend, Redo, Undo
from cueboard.engine.record import Recorder, match_id
from cueboard.engine.shot_clock import ShotClock
from cueboard.engine.state import State
from cueboard.games.key_sequences import ClockCommand, NewMatch
from cueboard.table import systemd
from cueboard.table.answers import Answers, check_id
from cueboard.table.config import Config
from cueboard.table.control_server import ControlServer, ask_daemon
from cueboard.table.health import OK, Health, HealthState
from cueboard.table.inbox import Inbox
from cueboard.table.inputs import Command, HealthChanged, Input, KeyInput, Refused, Reply
from cueboard.table.journal import Journal
from cueboard.table.keymap import Entry, Keymap, Lapse, Refusal, load_keymap
from cueboard.table.rate_limiter import REFUSALS_A_SECOND, RateLimiter, sender
from cueboard.table.seams import Healthy, KeypadLike, Output, Publisher
from cueboard.table.shot_clock import ClockControl
from cueboard.table.topics import TableTopics

log = logging.getLogger("cueboard")

__all__ = ["REFUSALS_A_SECOND", "ControlServer", "Table", "ask_daemon"]  # the last two: cueboard.table.control_server


class Table:
    """One table: the match, its journal and its outputs, run by the engine thread.

    Inputs come in two lanes. The table's own (the referee boxes, the keypad, the clock, the
    service's own calls: :meth:`submit`) are taken first, always; lines from the network (the
    MQTT command topic, the control socket: :meth:`submit_remote`) wait behind them in a
    bounded queue, each source at a bounded rate (``[commands]``, :mod:`cueboard.contract.limits`), and
    are refused at once, with the reason, when over a bound. A remote line may carry an ``id``:
    it is applied once at most, and a repeat gets the first answer (:mod:`cueboard.table.answers`).
    """

    def __init__(self, config: Config, *, feed: Publisher | None = None, boards: Iterable[Output] = (),
                 keypad: KeypadLike | None = None, buttons: Healthy | None = None,
                 wall: Callable[[], float] = time.time, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.buttons = buttons
        self.feed = feed
        self.boards = list(boards)
        self.keypad = keypad
        self._wall = wall
        self._mono = monotonic
        self.journal = Journal(config.journal_dir)
        self.match: Match | None = None
        self.recorder: Recorder | None = None
        """The match record (docs/record.md), kept up to date event by event."""
        self.latest_state: State | None = None
        """The state last shown, published and answered (read by any thread: never changed)."""
        self.inbox = Inbox()  # the table's own inputs first, then a lane per network sender
        self._counting = threading.Lock()  # accepted and refused, counted from any thread
        self._user: str | None = None  # who sent the input the engine thread is handling
        self.limiter = RateLimiter(config.commands, monotonic)
        self.answers = Answers()
        self._entries: dict[str, Entry] = {}
        self._keymaps: dict[str, Keymap] = {}
        self._prompts: dict[str, Prompt | None] = {}
        self.clocks = ClockControl()
        self.devices: dict[str, str] = {}
        self._journal_health = OK
        self._last_ping = 0.0
        self.started = threading.Event()
        self.accepted = 0
        self.refused = 0
        self.topics = TableTopics(self)
        """next, message, history, preview and the scorers (docs/mqtt.md)."""
        self.links: dict[str, Healthy] = {}
        """The paced links' health by device name (``mqtt_commands``: cueboard.table.mqtt.paced_link), read
        when the devices are published; a link calls :meth:`health_changed` when it changes."""

    @property
    def clock(self) -> ShotClock | None:
        """The shot clock running or held now (:class:`~cueboard.table.shot_clock.ClockControl`)."""
        return self.clocks.clock

    # -- any thread -------------------------------------------------------------------

    def submit(self, item: Input) -> None:
        """Hand one of the table's own inputs to the engine thread: safe from any thread, never
        blocks, never refused for load, taken before anything from the network."""
        self.inbox.put(item)

    def admit(self, source: str, user: str | None = None) -> Reason | None:
        """Take one of the sender's tokens (``commands.rate``, ``commands.burst``: each user of
        the command topic has its own) for a line it sent; the reason it is not taken when there
        is none. Cheap (no parsing): the MQTT client calls it before it decodes a line."""
        return self.limiter.admit(sender(source, user))

    def submit_remote(self, command: Command, *, admitted: bool = False) -> None:
        """Hand a line from the network to the engine thread, within the bounds of ``[commands]``:
        over a bound it is refused at once with the reason (and not remembered under its id:
        the sender may send it again). A repeated ``id`` gets its first answer; one still queued
        is not queued twice. ``admitted``: :meth:`admit` took its token already."""
        obj, source, reply, user = command.command, command.source, command.reply, command.user
        who = sender(source, user)
        try:
            ident = check_id(obj.get("id"))
        except IllegalEvent as exc:
            self.refuse_remote(obj, Reason(str(exc), "bad_id"), source, reply, user=user)
            return
        if ident is not None:
            known = self.answers.known(ident)
            if known is not None:
                self._answer_again(obj, known, source, reply, user)
                return
        reason = None if admitted else self.admit(source, user)
        if reason is not None:
            self.refuse_remote(obj, reason, source, reply, limit=True, user=user)
            return
        refusal: list[Reason | None] = [None]

        def admit(waiting: int) -> bool:  # under the inbox's lock: the bound holds across threads
            if waiting >= self.config.commands.queue:
                refusal[0] = Reason(f"not taken: {waiting} lines from {who} are waiting already "
                                    "(commands.queue); send it again later, same id", "queue_full")
                return False
            if obj.get("type") == "match":
                refusal[0] = self.limiter.new_match(who)
                if refusal[0] is not None:
                    return False
            # An id answered in the meantime, or queued already: said below.
            return ident is None or self.answers.queue(ident)

        if self.inbox.put_remote(command, who, admit):
            return
        reason = refusal[0]
        if reason is None:
            assert ident is not None
            known = self.answers.known(ident)
            self._answer_again(obj, known or {"ok": False, "queued": True, **Reason(
                f"id {ident!r} is queued already: it will be applied or refused once", "queued_already").codes()},
                source, reply, user)
            return
        self.refuse_remote(obj, reason, source, reply, limit=True, user=user)

    def _answer_again(self, obj: dict[str, Any], known: dict[str, Any], source: str, reply: Reply | None,
                      user: str | None) -> None:
        """A line whose id was answered (or is queued) already: not applied again, and its first
        answer given again; to a sender without a reply (the command topic) on ``rejected``,
        whose reason says it was applied (``"applied": true`` in the event echo's place is not
        the contract's: the reason says it), since this line changed nothing."""
        if reply:
            reply(known)
            return
        if self.feed is None:
            return
        ident = obj.get("id")
        if known.get("ok"):
            why = Reason(f"id {ident!r} was applied already: not applied again (a repeat)", "applied_already")
        elif known.get("queued"):
            why = Reason(str(known.get("reason")), "queued_already")
        else:
            why = Reason(f"id {ident!r} was refused already: {known.get('reason')}", "refused_already")
        self._guard(partial(self.feed.publish_rejected, obj, why, source, user=user))

    def refuse(self, reason: Reason, source: str) -> None:
        """Refuse an input its receiver could not read (safe from any thread): counted,
        flashed on the boards and published on ``rejected`` in order with the rest."""
        self.submit(Refused(source, reason))

    def health_changed(self, source: str) -> None:
        """A device's health changed (safe from any thread): the devices are published again."""
        self.submit(HealthChanged(source))

    def ask(self, obj: dict[str, Any], source: str, timeout: float, *, remote: bool = False) -> dict[str, Any]:
        """Submit ``obj`` and wait for the engine thread's answer (never from that thread). A
        ``state`` question is answered at once from the latest state, whatever is queued. When
        the engine does not answer within ``timeout`` the line is still queued and will be
        applied or refused once: the answer says so (``"queued": true``), never "refused"."""
        if obj.get("type") == "state":
            return {"ok": True, "state": self.state_answer()}
        done = threading.Event()
        answer: dict[str, Any] = {}

        def reply(a: dict[str, Any]) -> None:
            answer.update(a)
            done.set()

        command = Command(source, obj, reply)
        if remote:
            self.submit_remote(command)
        else:
            self.submit(command)
        if not done.wait(timeout):
            ident = obj.get("id")
            tail = f"; send it again with the same id ({ident}) to know the outcome" if ident else ""
            return {"ok": False, "queued": True,
                    **Reason(f"not answered within {timeout:g} s: the line is queued and will be applied or "
                             f"refused once{tail}", "not_answered").codes()}
        return answer

    def stop(self) -> None:
        self.inbox.stop()

    # -- the engine thread ------------------------------------------------------------

    def start(self) -> None:
        """Recover the journal (or start the table's default match) and show it. A journal
        folder that cannot be used (under a file, read-only, immutable, a failing card) does
        not stop the start: the table comes up with its default match, reports
        ``devices.journal: failed: ...`` saying what to do, refuses inputs as not saved, and
        tries the folder again at each input (:meth:`_journal_ready`)."""
        self._load_keymaps()
        try:
            recovered = self.journal.open()
        except OSError as exc:
            self._journal_failed(exc)
            recovered = None
        if recovered is not None and recovered.match is not None:
            self.match = recovered.match
            self.recorder = Recorder.of_match(self.match)
            self.answers.start(self.journal.path)
            log.info("resumed %s at event %d", self.journal.path, self.match.seq)
        else:
            line = self.config.match_setup().to_json()
            try:
                self._begin(line)
            except OSError as exc:
                self._journal_failed(exc)
                self._begin(line, journalled=False)
        self.topics.start()
        self._show()
        self._publish_state()
        self._publish_record()
        self._publish_devices(force=True)
        self.started.set()
        systemd.ready()

    def run(self, stop: threading.Event | None = None) -> None:
        """The engine loop: until :meth:`stop` (or ``stop`` is set)."""
        if not self.started.is_set():
            self.start()
        interval = systemd.watchdog_interval()
        while stop is None or not stop.is_set():
            item = self.inbox.take(self._next_wake(interval))
            if item is None:
                break
            if item is not False:
                try:
                    self._handle(item)
                except Exception:  # a bug in one input must not stop the table
                    log.exception("input %r failed", item)
            self._timers(interval)
        systemd.stopping()

    def _next_wake(self, interval: float | None) -> float | None:
        now = self._mono()
        deadlines: list[float] = []
        if interval:
            deadlines.append(self._last_ping + interval / 2)
        tick = self.clocks.next_wake(now)  # the shown second changes, the call, the end
        if tick is not None:
            deadlines.append(tick)
        summary = self.limiter.summary_due()
        if summary is not None:
            deadlines.append(summary)
        message_over = self.topics.deadline()
        if message_over is not None:
            deadlines.append(message_over)
        for entry in self._entries.values():
            expires = entry.expires_at
            if expires is not None:
                deadlines.append(expires)
        for board in self.boards:
            at = board.next_deadline()
            if at is not None:
                deadlines.append(at)
        if not deadlines:
            return None
        return max(0.0, min(deadlines) - now)

    def _timers(self, interval: float | None) -> None:
        now = self._mono()
        self._publish_not_taken()
        if interval and now - self._last_ping >= interval / 2:
            systemd.watchdog_ping()
            self._last_ping = now
        for name, entry in self._entries.items():
            lapse = entry.expire(now)
            if lapse is not None:
                self._show_prompt(name, entry, lapse=lapse)
                self._refuse(None, Reason(lapse.reason, "lapsed"), name, show=False)
        for board in self.boards:
            self._guard(board.tick, now)
        self.topics.timers()
        tick = self.clocks.tick(now)
        if tick == "expired":
            self._clock_expired()
        elif tick is not None:
            self._show()
            if tick == "called":
                self._publish_state()  # the call (rule 8a): screens show it

    # -- inputs -----------------------------------------------------------------------

    def _handle(self, item: Input) -> None:
        if isinstance(item, KeyInput):
            self._press(item.source, item)
        elif isinstance(item, Command):
            self._user = item.user
            try:
                self.command(item.command, item.source, item.reply)
            finally:
                self._user = None
        elif isinstance(item, Refused):
            self._refuse(None, Reason(item.reason, "unreadable"), item.source)
        elif isinstance(item, HealthChanged):
            self._publish_devices()
        else:
            item.run()

    def _press(self, source: str, key: KeyInput) -> None:
        entry = self._entry(source)
        if entry is None or self.match is None:
            self._refuse(None, Reason(f"{source}: no keymap is configured for it", "no_keymap"), source)
            return
        outcome = entry.feed(key.press, self.match.state(), now=self._mono())
        self._show_prompt(source, entry)
        if isinstance(outcome, Event):
            # The engine's refusal in this device's words ("press NEXT FRAME (SHIFT FREE BALL)").
            self._keyed(outcome, source, entry.keymap.explain)
        elif isinstance(outcome, NewMatch | ClockCommand):
            # The daemon's own commands: carried out as the same line from the network is (a
            # fixture handed to the table is started by NEW MATCH as by the desk's new_match).
            self.command(outcome.to_json(), source, explain=entry.keymap.explain)
        elif isinstance(outcome, Refusal):
            self._refuse(None, Reason(outcome.reason, outcome.short), source)

    def command(self, obj: dict[str, Any], source: str, reply: Reply | None = None,
                explain: Callable[[str], str] | None = None) -> None:
        """An event, a match line, or a daemon command (``new_match``, ``clock``, ``state``).
        A line with an ``id`` is applied once at most; its answer is kept for a repeat.
        ``explain``: puts a refusal in the words of the device the line was keyed on."""
        if self._user is not None:
            # The login the broker checked (``command/<user>``) names the sender, whatever the line
            # says: it goes into the line, so the journal and an amend's correction keep it.
            obj = {**obj, "user": self._user}
        if obj.get("type") == "amend" and obj.get("preview") is True:
            self.topics.preview(obj, source, reply)  # never applied: its id is not kept
            return
        ident = obj.get("id")
        if isinstance(ident, str):
            known = self.answers.known(ident)
            if known is not None:
                if reply:
                    reply(known)
                return
            reply = self._keeping(ident, reply)
        if self.topics.command(obj, source, reply):  # start_next, a handed match, a scorer's call
            return
        kind = obj.get("type")
        if kind == "state":
            if reply:
                reply({"ok": True, "state": self.state_answer()})
            return
        if kind == "new_match":
            self._new_match({}, source, reply, ident if isinstance(ident, str) else None)
            return
        if kind == "match":
            self._new_match({k: v for k, v in obj.items() if k not in ("type", "id")}, source, reply,
                            ident if isinstance(ident, str) else None)
            return
        if kind == "clock":
            self._clock_command(obj, source, reply)
            return
        self._event(obj, source, reply, explain)

    def _keeping(self, ident: str, reply: Reply | None) -> Reply:
        """``reply``, first keeping the answer under ``ident`` (a refusal on disk: nothing is
        applied after its sender was told it was refused)."""
        def keep(answer: dict[str, Any]) -> None:
            if answer.get("ok"):
                self.answers.remember(ident, answer)
            else:
                self.answers.refused(ident, Reason.of_answer(answer))
            if reply:
                reply(answer)
        return keep

    def _event(self, obj: dict[str, Any], source: str, reply: Reply | None,
               explain: Callable[[str], str] | None = None) -> None:
        """A line of the network, parsed at this edge (strictly: a bad line is refused naming
        the field), stamped with the time it came unless it says when, then :meth:`_apply`'d."""
        match = self.match
        assert match is not None
        try:
            event = match.parse({**obj, "t": obj.get("t", round(self._wall(), 3))})
        except IllegalEvent as exc:
            self._refuse(obj, _reason(str(exc) if explain is None else explain(str(exc)), exc), source, reply)
            return
        self._apply(event, obj, source, reply, explain)

    def _keyed(self, event: Event, source: str, explain: Callable[[str], str] | None = None) -> None:
        """An event made at the table (a key sequence, the shot clock's time foul): typed
        already, so nothing to parse; stamped with the time it was made, then :meth:`_apply`'d.
        Its JSON stands for it where a refusal is published."""
        match = self.match
        assert match is not None
        line = to_json(event)
        if match.game.events.get(event.TYPE) is not type(event):
            # Cannot happen (a keymap of another game refuses every key): said, never applied.
            self._refuse(line, Reason(f"{event.TYPE}: not an event of {match.setup.game}", "invalid"), source)
            return
        self._apply(event if event.t is not None else replace(event, t=round(self._wall(), 3)), line, source,
                    None, explain)

    def _apply(self, event: Event, obj: dict[str, Any], source: str, reply: Reply | None,
               explain: Callable[[str], str] | None = None) -> None:
        """Check ``event``; journal it (with ``obj``'s ``id`` and ``user``: the line it came
        as), apply it, show and publish the new state. Refused, naming the rule, with ``obj``."""
        match = self.match
        assert match is not None
        try:
            match.check(event)
        except IllegalEvent as exc:
            self._refuse(obj, _reason(str(exc) if explain is None else explain(str(exc)), exc), source, reply)
            return
        record = to_json(event)
        if isinstance(obj.get("id"), str):
            record["id"] = obj["id"]  # in the journal with its event: recognised after a restart
        if isinstance(obj.get("user"), str):
            record["user"] = obj["user"]  # who sent it, kept as the id is (an amend's is in the record)
        try:
            self._journal_ready()
            self.journal.append(record)
        except OSError as exc:
            self._journal_failed(exc)
            self._publish_devices()
            self._refuse(obj, Reason(f"not saved: the journal cannot be written ({exc.strerror or exc}); "
                                     "the input is refused", "not_saved"), source, reply)
            return
        if self._journal_health != OK:
            log.warning("journal %s: writing again", self.config.journal_dir)
            self._journal_health = OK
            self._publish_devices()
        notice = self._notice(match, event)
        match.apply(event)
        self.accepted += 1
        if match.new_shot(event):
            # A person's event starts the next shot's clock when the table's clock is automatic;
            # a time foul (the clock's own) leaves it stopped until somebody plays on.
            self._restart_clock(automatic=source != "clock" and match.shot_follows(event))
        hold = match.game.clock_hold(event)
        if hold is not None:
            self.clocks.hold(hold, self._mono())
        state = self._show()
        if notice is not None:
            for board in self.boards:
                self._guard(board.notice, notice)
        self._publish_state(state)
        if self.feed is not None:
            self._guard(self.feed.publish_event, match.seq, record)
        self.topics.applied(match.seq, record, source)
        self._follow_record(event, state)
        if source == "keypad" and self.keypad is not None:
            self.keypad.feedback(True)
        if reply:
            reply({"ok": True, "state": state.to_json()})

    @staticmethod
    def _notice(match: Match, event: Event) -> Notice | None:
        """What the boards acknowledge of ``event``, before it is applied: an undo and what it
        takes back, a redo and what it puts back (an event, or an amend: the scores may move by
        more than a stroke), an amend as CORRECTED and what it makes of the log."""
        if isinstance(event, Undo):
            taken = match.to_undo
            return None if taken is None else Notice("undo", taken)
        if isinstance(event, Redo):
            put = match.to_redo
            return None if put is None else Notice("redo", put)
        if isinstance(event, Amend):
            return Notice("corrected", event)
        return None

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

    def _publish_record(self) -> None:
        feed, recorder = self.feed, self.recorder
        if feed is not None and recorder is not None:
            self._guard(lambda: feed.publish_record(self._placed(recorder.record())))

    def _placed(self, record: dict[str, Any]) -> dict[str, Any]:
        """``record`` with where it was played and its ``match_id`` (record.md): the venue, the
        table and the match's first event's time, the same after a restart and on every broker a
        record crosses, so an archive stores the match once. ``fixture`` and ``competition`` are
        null until the desk hands the table a match."""
        venue, table = self.config.venue, self.config.table
        started = None if self.recorder is None else self.recorder.started_at
        ident = None if started is None else match_id(venue, table, started)
        return {**record, "match_id": ident, "venue": venue, "table": table,
                "fixture": record.get("fixture"), "competition": record.get("competition")}

    def _new_match(self, fields: dict[str, Any], source: str, reply: Reply | None, ident: str | None = None) -> None:
        try:
            setup = self.config.match_setup(fields)
        except IllegalEvent as exc:
            self._refuse({"type": "match", **fields, **({"id": ident} if ident else {})}, _reason(str(exc), exc),
                         source, reply)
            return
        line = setup.to_json() | ({"id": ident} if ident else {}) | (
            {"user": self._user} if self._user is not None else {})
        try:
            self._begin(line)
        except OSError as exc:
            self._journal_failed(exc)
            self._publish_devices()
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

    def _answered(self, line: dict[str, Any], *, logged: bool) -> None:
        """A daemon command with an ``id`` applied (a match line, ``new_match``, ``clock``):
        answered on ``event`` as an event is, with its ``id`` and ``user`` (docs/mqtt.md), so
        every command from the network gets exactly one answer of its own. A match line is the
        journal's first line (``seq`` 0); ``clock`` is in no log: ``"logged": false`` tells a
        history to leave it out. Without an id nobody waits for it: the state says it."""
        if self.feed is None or self.match is None or not isinstance(line.get("id"), str):
            return
        if logged:
            self._guard(self.feed.publish_event, self.match.seq, line)
        else:
            self._guard(partial(self.feed.publish_event, self.match.seq, line, logged=False))

    def _begin(self, line: dict[str, Any], *, journalled: bool = True) -> None:
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
        rest of the devices: :meth:`_publish_devices`)."""
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

    def _refuse(self, obj: dict[str, Any] | None, reason: Reason, source: str, reply: Reply | None = None,
                *, show: bool = True) -> None:
        """Refuse an input: counted, logged, answered and published on ``rejected`` with the
        whole ``reason``; on the boards (a blink and the short form, :class:`~cueboard.contract.codes.Reason`)
        only when it was made at the table (:func:`~.seams.at_the_table`): a desk's mistake is
        answered at the desk, not shown to the hall."""
        with self._counting:
            self.refused += 1
        log.info("refused from %s: %s", source, reason)
        if show and at_the_table(source):
            for board in self.boards:
                self._guard(board.flash, None, reason)
        if self.feed is not None:
            self._guard(partial(self.feed.publish_rejected, obj, reason, source, user=self._user))
        if source == "keypad" and self.keypad is not None:
            self.keypad.feedback(False)
        if reply:
            reply({"ok": False, **reason.codes()})

    def refuse_remote(self, obj: dict[str, Any] | None, reason: Reason, source: str, reply: Reply | None = None,
                      *, limit: bool = False, user: str | None = None, raw: bytes | None = None) -> None:
        """A network line refused before the engine thread saw it (any thread): answered,
        counted, published on ``rejected`` (with ``user``, and at most 1 KiB of ``raw``, the
        bytes of a line that is not an object); the boards do not blink for the network's load.
        ``limit``: refused by a bound (a flood): a line with an ``id`` always gets its own
        answer (in its user's lane of the feed, which only that user's flood can fill); past a
        few a second the refusals of lines without one are counted and published as one summary
        a second per sender (:meth:`_publish_not_taken`); none goes unsaid."""
        with self._counting:
            self.refused += 1
        # A limit's refusal of a line without an id past a few a second: counted for the summary.
        has_id = isinstance(obj.get("id"), str) if obj is not None else raw is not None and peek_id(raw) is not None
        publish = not limit or self.limiter.said_alone(sender(source, user), reason, user, has_id=has_id)
        if reply:
            reply({"ok": False, **reason.codes()})
        if publish and self.feed is not None:
            self._guard(partial(self.feed.publish_rejected, obj, reason, source, user=user, raw=raw))

    def _publish_not_taken(self) -> None:
        """One ``rejected`` a second for each source whose limit refusals were counted, not
        published one by one (:meth:`refuse_remote`)."""
        for counted in self.limiter.summaries():
            log.warning("%d more lines from %s not taken: %s", counted.count, counted.sender, counted.reason)
            if self.feed is not None:
                self._guard(partial(self.feed.publish_rejected, None, Reason(
                    f"{counted.count} more lines from {counted.sender} not taken in the last second, not answered one "
                    f"by one (lines without an id): {counted.reason}", "not_taken"), counted.sender.split("/")[0],
                    user=counted.user))

    # -- what the people at the table see of a call being keyed in ----------------------------

    def _show_prompt(self, source: str, entry: Entry, lapse: Lapse | None = None) -> None:
        """Tell the boards and the feed what ``source`` has keyed so far, once it changed. A
        board shows one call: the newest one pending on any device (the referee box's stays up
        when the keypad's ends), or a lapse for its while."""
        pending = entry.pending
        if lapse is not None:
            prompt: Prompt | None = Prompt(source, lapse.keys, lapse.needs, lapsed=True)
        elif pending.keys:
            prompt = Prompt(source, tuple(pending.keys), pending.needs)
        else:
            prompt = None
        if prompt == self._prompts.get(source):
            return
        self._prompts.pop(source, None)  # re-inserted last: the newest call is shown first
        self._prompts[source] = None if lapse is not None else prompt
        shown = prompt if prompt is not None else next(
            (p for p in reversed(self._prompts.values()) if p is not None), None)
        for board in self.boards:
            self._guard(board.prompt, shown)
        if self.feed is not None:
            if prompt is None:
                self._guard(self.feed.publish_input, source, (), "")
            else:
                expires = entry.expires_at
                self._guard(partial(self.feed.publish_input, source, prompt.keys, prompt.needs,
                                    expires_at=None if expires is None else self._wall() + expires - self._mono(),
                                    expired=prompt.lapsed))

    # -- the shot clock: how long a shot may take is the game's to say; the referee runs it ----

    def _clock_command(self, obj: dict[str, Any], source: str, reply: Reply | None) -> None:
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

    def _restart_clock(self, automatic: bool) -> None:
        shot = self.match.shot_time() if self.match is not None and automatic and self.config.shot_clock_auto \
            else None
        self.clocks.restart(shot, self._mono())

    def _clock_expired(self) -> None:
        """A shot not played in time: the game's time foul (blackball rule 8a), entered for the
        referee; where the game has none, the referee is told to enter what he rules. Either way
        the clock stops until the next shot starts: an idle table never collects another."""
        self.clocks.set(None, self._mono())
        assert self.match is not None
        foul = self.match.game.time_foul()
        if foul is not None:
            self._keyed(foul, "clock")
        else:
            self._refuse(None, Reason("shot clock expired: the referee enters the foul", "time_up"), "clock")
            self._publish_state()

    def state_answer(self) -> dict[str, Any] | None:
        """The latest state as a ``state`` question is answered (``cueboard match state``): with
        a shot clock, its ``clock`` as on MQTT but with the seconds ``left`` now, running or
        not (a person reads it, not a screen counting down). Safe from any thread."""
        latest, match = self.latest_state, self.match
        if latest is None:
            return None
        state = self.topics.dress(latest.to_json())
        if match is None:
            return state
        clock = self.clocks.answer(match.game.clock is not None, self._mono())
        return state if clock is None else {**state, "clock": clock}

    def clock_state(self) -> dict[str, Any] | None:
        """The state payload's ``clock`` (docs/mqtt.md) when the match has a shot clock."""
        match = self.match
        if match is None or match.game.clock is None:
            return None
        return self.clocks.published(match.shot_time(), self._mono(), self._wall())

    # -- outputs ------------------------------------------------------------------------

    def _show(self) -> State:
        match = self.match
        assert match is not None
        state = match.state()
        shot_clocks = match.game.clock is not None
        shown, left = self.clocks.shown(self.topics.shown(state), match.shot_time() if shot_clocks else None,
                                        shot_clocks, self._mono())
        for board in self.boards:
            self._guard(board.show, shown, left)
        self.latest_state = state
        self._publish_devices()
        return state

    def _publish_state(self, state: State | None = None) -> None:
        if self.feed is not None and self.match is not None:
            shown = self.topics.dress((state or self.match.state()).to_json())
            clock = self.clock_state()
            self._guard(self.feed.publish_state, shown if clock is None else {**shown, "clock": clock})

    def health(self) -> dict[str, Health]:
        """Each device's health, read from what it reports (:mod:`cueboard.table.health`)."""
        devices: dict[str, Health] = {"journal": self._journal_health}
        if self.config.referee_boxes:
            devices["buttons"] = OK if self.buttons is None else Health.of(self.buttons.health)
        if self.keypad is not None:
            devices["keypad"] = Health.of(self.keypad.health_report())
        for i, board in enumerate(self.boards):
            devices["matrix" if i == 0 else f"matrix{i}"] = Health.of(board.health)
        devices.update({name: Health.of(said) for name, said in self.topics.scorers.health().items()})
        devices.update({name: Health.of(link.health) for name, link in self.links.items()})
        if self.feed is not None:
            devices["mqtt"] = Health.of(self.feed.health)
        return devices

    def device_health(self) -> dict[str, str]:
        """:meth:`health` as ``<prefix>/devices`` says it (``{"keypad": "lost", ...}``)."""
        return {name: health.wire() for name, health in self.health().items()}

    def _publish_devices(self, force: bool = False) -> None:
        health = self.health()
        devices = {name: h.wire() for name, h in health.items()}
        if devices != self.devices or force:
            for name, h in health.items():
                if name != "journal" and h.failed and self.devices.get(name) != devices[name]:
                    # On the boards too: the people at the table see what stopped working. (A
                    # journal that cannot be written shows itself: every input is refused saying so.)
                    for board in self.boards:
                        self._guard(board.flash, None, Reason(f"{name}: {devices[name]}", "device_failed",
                                                              name=name))
            self.devices = devices
            if self.feed is not None:
                seen = self.topics.scorers.last_seen()
                self._guard(partial(self.feed.publish_devices, {k: v for k, v in devices.items() if k != "mqtt"},
                                    **({"last_seen": seen} if seen else {})))

    @staticmethod
    def _guard(method: Callable[..., Any], *args: Any) -> None:
        """An output that fails is logged and reported in its health; scoring goes on."""
        try:
            method(*args)
        except Exception:
            log.exception("%s failed", getattr(method, "__qualname__", method))

    # -- keymaps ---------------------------------------------------------------------------

    def _load_keymaps(self) -> None:
        for name, path in (("referee_box", self.config.referee_keymap), ("keypad", self.config.keypad_keymap)):
            if path is not None and name not in self._keymaps:
                self._keymaps[name] = load_keymap(path)

    def _entry(self, source: str) -> Entry | None:
        """The key sequence in progress on one device: each referee box (``referee_box:N``)
        and the keypad has its own, so a call begun on one is not finished on another. A
        keymap of the other game refuses its keys, saying so, until a match of its game."""
        entry = self._entries.get(source)
        if entry is None:
            keymap = self._keymaps.get(source.split(":")[0])
            if keymap is None:
                return None
            entry = self._entries[source] = Entry(keymap)
        return entry


def _reason(text: str, exc: IllegalEvent) -> Reason:
    """The engine's refusal ``exc`` (its reason put as ``text``), with its short form."""
    return Reason(text, exc.short, ball=exc.ball, n=exc.n)
