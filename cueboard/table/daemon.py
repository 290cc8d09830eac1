"""``cueboard run``: the daemon that keeps one table's score. One thread, the engine thread
(:meth:`Table.run`), owns the match, the journal and the outputs; inputs only call
:meth:`Table.submit`. Each event is journalled and synced before it is shown: docs/daemon.md,
"One thread owns the match" (and its table of the modules :class:`Table` is built on).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import replace

from cueboard.common import systemd
from cueboard.contract.codes import Reason
from cueboard.contract.lines import timed
from cueboard.contract.notices import Notice
from cueboard.engine import Event, IllegalEvent, Match, to_json
from cueboard.engine.events import Amend, Redo, Undo
from cueboard.engine.json_value import JsonObject
from cueboard.engine.record import Recorder
from cueboard.games.key_sequences import ClockCommand, NewMatch
from cueboard.table.answers import check_id
from cueboard.table.config import Config
from cueboard.table.control_server import ControlServer, ask_daemon
from cueboard.table.guard import guard
from cueboard.table.health import OK
from cueboard.table.inputs import Command, HealthChanged, Input, KeyInput, Refused, Reply
from cueboard.table.keymap import Refusal
from cueboard.table.match_start import MatchStart
from cueboard.table.rate_limiter import REFUSALS_A_SECOND, sender
from cueboard.table.refusals import engine_reason
from cueboard.table.seams import Healthy, KeypadLike, Output, Publisher
from cueboard.table.topics import TableTopics

log = logging.getLogger("cueboard")

__all__ = ["REFUSALS_A_SECOND", "ControlServer", "Table", "ask_daemon"]  # the last two: cueboard.table.control_server


class Table(MatchStart):
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
        super().__init__(config, feed=feed, boards=boards, keypad=keypad, buttons=buttons, wall=wall,
                         monotonic=monotonic)
        self.topics = TableTopics(self)

    # -- any thread -------------------------------------------------------------------

    def submit(self, item: Input) -> None:
        """Hand one of the table's own inputs to the engine thread: safe from any thread, never
        blocks, never refused for load, taken before anything from the network."""
        self.inbox.put(item)

    def submit_value(self, key: str, item: Input) -> None:
        """A value from the network (a scorer's presence, the desk's ``message`` and ``next``):
        the newest per ``key`` waits for the engine thread, replacing the one waiting (issue 37:
        a flood holds one slot, and none waits among the table's own inputs)."""
        if not self.inbox.put_latest(key, item):
            self.dropped_values += 1
            if self.dropped_values in (1, 10, 100, 1000) or self.dropped_values % 100_000 == 0:
                log.warning("%d network values not kept: %s waits behind too many other keys", self.dropped_values,
                            key)

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

    def refuse(self, reason: Reason, source: str) -> None:
        """Refuse an input its receiver could not read (safe from any thread): counted,
        flashed on the boards and published on ``rejected`` in order with the rest."""
        self.submit(Refused(source, reason))

    def health_changed(self, source: str) -> None:
        """A device's health changed (safe from any thread): the devices are published again."""
        self.submit(HealthChanged(source))

    def ask(self, obj: JsonObject, source: str, timeout: float, *, remote: bool = False) -> JsonObject:
        """Submit ``obj`` and wait for the engine thread's answer (never from that thread). A
        ``state`` question is answered at once from the latest state, whatever is queued. When
        the engine does not answer within ``timeout`` the line is still queued and will be
        applied or refused once: the answer says so (``"queued": true``), never "refused"."""
        if obj.get("type") == "state":
            return {"ok": True, "state": self.state_answer()}
        done = threading.Event()
        answer: JsonObject = {}

        def reply(a: JsonObject) -> None:
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
        self.light.restore()  # before the first frame, as the journal left it (docs/hardware.md)
        self.topics.start()
        self._show()
        self._publish_state()
        self._publish_record()
        self.publish_devices(force=True)
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
        if (light_off := self.light.deadline()) is not None:
            deadlines.append(light_off)
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
            guard(board.tick, now)
        self.topics.timers()
        self.light.tick(now)
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
            self.publish_devices()
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

    def command(self, obj: JsonObject, source: str, reply: Reply | None = None,
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
            self.new_match({}, source, reply, ident if isinstance(ident, str) else None)
            return
        if kind == "match":
            self.new_match({k: v for k, v in obj.items() if k not in ("type", "id")}, source, reply,
                            ident if isinstance(ident, str) else None)
            return
        if kind == "clock":
            self._clock_command(obj, source, reply)
            return
        if kind == "light":
            self._light_line(obj, source, reply)
            return
        self._event(obj, source, reply, explain)

    def _keeping(self, ident: str, reply: Reply | None) -> Reply:
        """``reply``, first keeping the answer under ``ident`` (a refusal on disk: nothing is
        applied after its sender was told it was refused)."""
        def keep(answer: JsonObject) -> None:
            if answer.get("ok"):
                self.answers.remember(ident, answer)
            else:
                self.answers.refused(ident, Reason.of_answer(answer))
            if reply:
                reply(answer)
        return keep

    def _event(self, obj: JsonObject, source: str, reply: Reply | None,
               explain: Callable[[str], str] | None = None) -> None:
        """A line of the network, parsed at this edge (strictly: a bad line is refused naming
        the field), stamped with the time it came unless it says when (a tap's time, bounded:
        :func:`~cueboard.contract.lines.timed`), then :meth:`_apply`'d."""
        match = self.match
        assert match is not None
        now = round(self._wall(), 3)
        bounded = timed(obj, now)
        if isinstance(bounded, Reason):
            self._refuse(obj, bounded, source, reply)
            return
        obj = bounded
        try:
            event = match.parse({**obj, "t": obj.get("t", now)})
        except IllegalEvent as exc:
            self._refuse(obj, engine_reason(str(exc) if explain is None else explain(str(exc)), exc), source, reply)
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

    def _apply(self, event: Event, obj: JsonObject, source: str, reply: Reply | None,
               explain: Callable[[str], str] | None = None) -> None:
        """Check ``event``; journal it (with ``obj``'s ``id`` and ``user``: the line it came
        as), apply it, show and publish the new state. Refused, naming the rule, with ``obj``."""
        match = self.match
        assert match is not None
        try:
            match.check(event)
        except IllegalEvent as exc:
            self._refuse(obj, engine_reason(str(exc) if explain is None else explain(str(exc)), exc), source, reply)
            return
        record = to_json(event)
        if isinstance(obj.get("id"), str):
            record["id"] = obj["id"]  # in the journal with its event: recognised after a restart
        if isinstance(obj.get("user"), str):
            record["user"] = obj["user"]  # who sent it, kept as the id is (an amend's is in the record)
        if isinstance(obj.get("applied"), float):
            record["applied"] = obj["applied"]  # when applied, beside the t the line was made at
        try:
            self._journal_ready()
            self.journal.append(record)
        except OSError as exc:
            self._journal_failed(exc)
            self.publish_devices()
            self._refuse(obj, Reason(f"not saved: the journal cannot be written ({exc.strerror or exc}); "
                                     "the input is refused", "not_saved"), source, reply)
            return
        if self._journal_health != OK:
            log.warning("journal %s: writing again", self.config.journal_dir)
            self._journal_health = OK
            self.publish_devices()
        notice = self._notice(match, event)
        match.apply(event)
        self.light.played(match)
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
                guard(board.notice, notice)
        self._publish_state(state)
        if self.feed is not None:
            guard(self.feed.publish_event, match.seq, record)
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
