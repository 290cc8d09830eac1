"""What the desk and the scorers say to a table besides commands, and what the table says back
for them (docs/mqtt.md): the match handed on (``next``), the desk's ``message``, the match's
``history``, an amend's ``preview``, and the scorers (``score/<user>``, its ``presence``).

The table's engine thread owns all of it, as it owns the match: MQTT messages arrive on paho's
thread and are handed over as :class:`~cueboard.table.inputs.Call` inputs, in order with the rest.
:class:`TableTopics` is the table's (``Table.topics``); the daemon calls it at a few points
(a command, an event applied, a match begun, the state shown, the timers).
"""

from __future__ import annotations

import copy
import json
import logging
import threading
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from cueboard.boards.shown import Handed, Shown, Waiting
from cueboard.contract.codes import Reason
from cueboard.contract.lines import check_user
from cueboard.contract.notices import Prompt
from cueboard.contract.times import timestamp
from cueboard.contract.topics import ANY, HISTORY, MESSAGE, NEXT, PREVIEW
from cueboard.engine import IllegalEvent, to_json
from cueboard.engine.events import Light
from cueboard.engine.json_value import Json, JsonObject
from cueboard.engine.record import match_id
from cueboard.table.guard import guard
from cueboard.table.inputs import Call, Reply
from cueboard.table.journal import read_lines
from cueboard.table.match_history import History
from cueboard.table.message import MessageRefused, TableMessage, parse_message
from cueboard.table.next_match import Handoff, HandoffRefused, NextStore, parse_handoff
from cueboard.table.scorers import PresenceRefused, Scorers, call_of

if TYPE_CHECKING:
    import paho.mqtt.client as mqtt

    from cueboard.engine.state import State
    from cueboard.table.table_api import TableApi

log = logging.getLogger("cueboard")

__all__ = ["TableTopics", "TopicFeed"]


@runtime_checkable
class TopicFeed(Protocol):
    """The parts of :class:`~cueboard.table.mqtt.feed.Feed` these topics publish through."""

    def publish_retained(self, name: str, payload: bytes) -> None: ...

    def publish_once(self, name: str, payload: Mapping[str, Json]) -> None: ...

    def publish_event(self, seq: int, event: Mapping[str, Json]) -> None: ...


class TableTopics:
    def __init__(self, table: TableApi) -> None:
        self.table = table
        self.handed = NextStore(table.config.journal_dir, table.config.match_setup)
        self.message: TableMessage | None = None
        self.history = History()
        self.scorers = Scorers()
        self.on_links: set[str] = set()
        """Which of ``next``, ``message``, ``presence`` a paced link subscribes to (``on_value``)
        (set by the service before the feed starts)."""
        self.desk_values_proven = False
        """``next`` or ``message`` came on the link: its ACL lets it read them. Until then the
        feed's session reads them too (the newest per key makes the two one): mosquitto grants a
        subscription its ACL gives no read on and delivers nothing, so an older venue's refusal
        cannot be seen (issue 37)."""
        self._client: mqtt.Client | None = None  # the feed's, at its last connection
        self._listening = threading.Lock()  # listen (the feed's thread) and a link's proof (its own)

    @property
    def _feed(self) -> TopicFeed | None:
        feed = self.table.feed
        return feed if isinstance(feed, TopicFeed) else None

    # -- the network's side (paho's thread): subscribe, and hand each message over ------------

    def listen(self, client: mqtt.Client) -> None:
        """Subscribe to ``next``, ``message`` and the scorers' presence (at every connection:
        ``Feed.on_every_connect``). Only where the table takes commands (TLS and a login, or
        ``insecure_commands``: docs/security.md): each of these changes what the table does."""
        with self._listening:
            self._listen(client)

    def _listen(self, client: mqtt.Client) -> None:
        from paho.mqtt.subscribeoptions import SubscribeOptions

        mqtt_config = self.table.config.mqtt
        assert mqtt_config is not None
        topics = mqtt_config.topics
        self._client = client
        handlers = {name: handler for kind, name, handler in (
            (NEXT, topics.next, self._on_next), (MESSAGE, topics.message, self._on_message),
            ("presence", topics.presence(ANY), self._on_presence)) if not self._on_link(kind)}
        # The scorers' lines (score/<user>) come on the table's second session, not here
        # (cueboard.table.mqtt.paced_link): a scorer's flood never waits ahead of the desk's commands.
        # So do the values whose link's subscription the broker took (issue 37).
        if not handlers:
            return
        for name, handler in handlers.items():
            client.message_callback_add(name, handler)
        if mqtt_config.protocol == "5":
            # no-local: the table's own clearing of next does not come back to it
            options = SubscribeOptions(qos=1, noLocal=True, retainAsPublished=True)
            client.subscribe([(name, options) for name in handlers])
        else:
            client.subscribe([(name, 1) for name in handlers])

    # Values, not lines: the newest of each waits for the engine thread, replacing the one before
    # (Table.submit_value), never among the table's own inputs: a flood holds one slot (issue 37).

    def _on_next(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        self.table.submit_value("next", Call("next", partial(self.hand_on, bytes(message.payload))))

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        self.table.submit_value("message", Call("message", partial(self.set_message, bytes(message.payload))))

    def _on_presence(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        self.on_presence(message.topic.split("/")[-2], bytes(message.payload))

    def _on_link(self, kind: str) -> bool:
        """Whether ``kind`` comes on a paced link alone (not on the feed's session as well)."""
        return kind in self.on_links and (kind == "presence" or self.desk_values_proven)

    def on_value(self, topic: str, payload: bytes) -> None:
        """A value from a paced link (any thread): ``next``, ``message`` or a scorer's presence."""
        parts = topic.rsplit("/", 2)
        if parts[-1] in (NEXT, MESSAGE) and not self.desk_values_proven:
            self._desk_values_on_link()
        if parts[-1] == "presence":
            self.on_presence(parts[-2], payload)
        elif parts[-1] == NEXT:
            self.table.submit_value(NEXT, Call(NEXT, partial(self.hand_on, payload)))
        elif parts[-1] == MESSAGE:
            self.table.submit_value(MESSAGE, Call(MESSAGE, partial(self.set_message, payload)))

    def _desk_values_on_link(self) -> None:
        """The link reads the desk's values: the feed's session stops reading them (a desk login's
        flood of them there held the state's acknowledgement back)."""
        with self._listening:
            self.desk_values_proven = True
            client, config = self._client, self.table.config.mqtt
        if client is not None and config is not None:
            topics = [t for kind, t in ((NEXT, config.topics.next), (MESSAGE, config.topics.message))
                      if kind in self.on_links]
            if topics:
                client.unsubscribe(topics)
                log.info("next and message come on the scorers' link: not read on the table's own session")

    def values_refused(self, kinds: tuple[str, ...], why: str) -> None:
        """A paced link's broker refused its values (an older venue's ACL): the feed's connection
        takes ``kinds`` from now on (at once, and at every connection)."""
        self.on_links.difference_update(kinds)
        client = self._client
        if client is not None:
            self.listen(client)

    def on_presence(self, user: str, payload: bytes) -> None:
        """A scorer's presence (any thread): its newest waits for the engine thread."""
        if check_user(user) is None:
            self.table.submit_value(f"presence:{user}", Call("presence", partial(self.presence, user, payload)))

    # -- the engine thread -------------------------------------------------------------------

    def start(self) -> None:
        """At the table's start: the hand-off kept in the journal folder, the recovered match's
        history (its fixture, if it had one, never starts again)."""
        self.handed.load()
        match = self.table.match
        if match is not None and match.setup.fixture is not None and match.setup.fixture not in self.handed.started:
            self.handed.mark_started(match.setup.fixture)  # begun just before a power cut took next.json's write
        lines: list[tuple[int, Mapping[str, Json], str | None]] = []
        path = self.table.journal.path
        if path is not None and match is not None:
            probe = type(match)(match.setup)
            for text in read_lines(path)[1:]:
                try:
                    event = probe.parse_line(text)
                    probe.apply(event)
                except IllegalEvent:
                    continue
                if isinstance(event, Light):
                    continue  # bookkeeping (issue 43): no number in the history
                lines.append((probe.seq, _decoded(text), None))
        self.history.begin(None, lines)
        self._publish_history()

    def dress(self, state: JsonObject) -> JsonObject:
        """The state's JSON with ``next`` and ``message`` (docs/state.md) when there are: absent
        means none (as from a table before them), so a state without either is the engine's own,
        the one ``cueboard replay`` gives. For the edges (the feed, a preview, the state question);
        the boards get :meth:`shown`."""
        handoff, message = self.handed.handoff, self.message
        waiting = self._waiting_json(state)
        if handoff is None and message is None and not waiting:
            return state
        return {**state, **({"next": handoff.state()} if handoff is not None else {}),
                **({"message": message.state()} if message is not None else {}),
                **({"waiting": True} if waiting else {})}

    def shown(self, state: State) -> Shown:
        """The state as the boards draw it, with the match handed on and the message: what
        :meth:`dress` adds to the JSON, as typed values."""
        handoff, message = self.handed.handoff, self.message
        return Shown(state, None if handoff is None else Handed(handoff.names, handoff.competition),
                     None if message is None else message.text, waiting=self._waiting(state))

    def _waiting_json(self, state: JsonObject) -> bool:
        """:meth:`_waiting` read from the state's JSON: the desk and the cards say "free"."""
        config = self.table.config
        if config.start != "idle" or state.get("seq") != 0:
            return False
        sides = state.get("sides")
        if not isinstance(sides, list):
            return False
        names: list[tuple[object, ...]] = []
        for side in sides:
            players = side.get("players") if isinstance(side, dict) else None
            names.append(tuple(players) if isinstance(players, list) else ())
        return tuple(names) == config.match_setup().players

    def _waiting(self, state: State) -> Waiting | None:
        """The idle board, on a venue's table (``[table] start = "idle"``) while the match is the
        table's own default at its start: nothing played and no names of the desk's (a match
        handed on and begun has its players' names; one played on shows as it is)."""
        config = self.table.config
        if config.start != "idle" or state.seq != 0:
            return None
        default = config.match_setup().players
        return Waiting(config.venue) if tuple(tuple(s.players) for s in state.sides) == default else None

    def hand_on(self, payload: bytes) -> None:
        """``<prefix>/next`` from the desk: held (shown while the table is idle), cleared, or
        refused on ``rejected`` with the reason."""
        try:
            handoff = parse_handoff(payload, self.table.config.match_setup)
        except HandoffRefused as exc:
            self.table.refuse_remote(None, Reason(str(exc), "bad_next"), "next", raw=payload, limit=True)
            return
        if handoff is not None and handoff.fixture in self.handed.started:
            # The desk's retained hand-off again (a reconnect) after the table began it.
            self.table.refuse_remote(handoff.to_json(), Reason(f"next: fixture {handoff.fixture!r} was started on "
                                     "this table already: a fixture is played once (not held again)",
                                     "started_already"), "next")
            self._clear_next()
            return
        if handoff == self.handed.handoff:
            return
        self.handed.hold(handoff)
        log.info("next: %s", "cleared" if handoff is None else f"{handoff.fixture} {' v '.join(handoff.names)}")
        self._republish()

    def set_message(self, payload: bytes) -> None:
        try:
            message = parse_message(payload)
        except MessageRefused as exc:
            self.table.refuse_remote(None, Reason(str(exc), "bad_message"), "message", raw=payload, limit=True)
            return
        if message is not None and message.until is not None and message.until <= self.table.wall():
            message = None  # its time is over already (a retained one, after a restart)
        if message != self.message:
            self.message = message
            self._republish()

    def presence(self, user: str, payload: bytes) -> None:
        try:
            self.scorers.presence(user, payload, self.table.wall())
        except PresenceRefused as exc:
            self.table.refuse_remote(None, Reason(str(exc), "bad_presence"), "scorer", user=user, raw=payload,
                                     limit=True)
            return
        if self.scorers.health().get(f"scorer:{user}") != "ok":
            self._show_call(user, None)  # a scorer gone leaves no call on the boards
        self.table.publish_devices()

    def command(self, obj: JsonObject, source: str, reply: Reply | None) -> bool:
        """``start_next``, ``new_match`` with a fixture handed on, a scorer's ``call``: done
        here (True), else the table's as before (False)."""
        kind, user = obj.get("type"), obj.get("user")
        if kind == "call" and source == "scorer" and isinstance(user, str):
            called = call_of(obj)
            if isinstance(called, str):
                self.table.refuse_line(obj, Reason(called, "invalid"), source, reply)
            else:
                self.scorers.heard(user, self.table.wall())
                self._show_call(user, called)
                if reply:  # the state as an answer's: JSON (a State object was no answer to send)
                    latest = self.table.latest_state
                    reply({"ok": True, "state": None if latest is None else latest.to_json()})
            return True
        if kind == "new_match" and self.handed.handoff is not None:
            self._start(self.handed.handoff, obj, source, reply)
            return True
        if kind != "start_next":
            return False
        fixture = obj.get("fixture")
        held = self.handed.handoff
        why = None
        if not isinstance(fixture, str) or not fixture:
            why = "start_next: 'fixture' names the fixture handed to this table (on <prefix>/next) to start"
        elif fixture in self.handed.started:
            why = f"start_next: fixture {fixture!r} was started on this table already: a fixture is played once"
        elif held is None or held.fixture != fixture:
            why = (f"start_next: fixture {fixture!r} is not the one handed to this table (next holds "
                   f"{'nothing' if held is None else repr(held.fixture)})")
        elif self._live():
            latest = self.table.latest_state
            names = "" if latest is None else " v ".join(side.name for side in latest.sides)
            why = (f"start_next: a match is live on this table ({names}): "
                   f"fixture {fixture!r} waits until it is over (or the referee starts it with NEW MATCH)")
        if why is not None:
            self.table.refuse_line(obj, Reason(why, "invalid"), source, reply)
            return True
        assert held is not None
        self._start(held, obj, source, reply)
        return True

    def _start(self, handoff: Handoff, obj: JsonObject, source: str, reply: Reply | None) -> None:
        ident = obj.get("id")
        ident = ident if isinstance(ident, str) else None
        answer: JsonObject = {}
        self.handed.handoff = None  # not on the new match's first state; back if it is refused
        self.table.new_match(dict(handoff.line), source, answer.update, ident)
        if answer.get("ok"):
            self.handed.mark_started(handoff.fixture)
            self._clear_next()
            feed, line = self._feed, self.table.match.setup.to_json() if self.table.match else {}
            if feed is not None:  # the answer by the command's id, as an event's (docs/mqtt.md)
                extra = {k: v for k, v in (("id", ident), ("user", obj.get("user"))) if isinstance(v, str)}
                guard(feed.publish_event, 0, {**line, **extra})
        else:
            self.handed.handoff = handoff
        if reply:
            reply(answer)

    def _clear_next(self) -> None:
        feed = self._feed
        if feed is not None:
            guard(feed.publish_retained, NEXT, b"")

    def _live(self) -> bool:
        state = self.table.latest_state
        return state is not None and state.seq > 0 and not state.match_over

    def preview(self, obj: JsonObject, source: str, reply: Reply | None) -> None:
        """An amend with ``"preview": true``: checked and applied on a copy of the match, never
        journalled or applied; the state it would give on ``<prefix>/preview``, or the reason on
        ``rejected``."""
        match = self.table.match
        assert match is not None
        ident = obj.get("id")
        if isinstance(ident, str):
            self.table.answers.release(ident)  # a preview's answer is not kept: the amend may take its id
        line = {k: v for k, v in obj.items() if k != "preview"}
        try:
            trial = copy.deepcopy(match)
            event = trial.parse({**line, "t": line.get("t", round(self.table.wall(), 3))})
            trial.check(event)
            trial.apply(event)
        except IllegalEvent as exc:
            self.table.refuse_line(obj, Reason(f"preview: {exc}", exc.short, ball=exc.ball, n=exc.n), source, reply)
            return
        state = self.dress(trial.state().to_json())
        feed = self._feed
        if feed is not None:
            payload = {"schema": 1, "id": obj.get("id"), "user": obj.get("user"), "event": to_json(event),
                       "state": state, "ts": timestamp(self.table.wall())}
            guard(feed.publish_once, PREVIEW, payload)
        if reply:
            reply({"ok": True, "preview": True, "state": state})

    def applied(self, seq: int, record: Mapping[str, Json], source: str) -> None:
        """An event journalled and applied: into the history; a scorer's ends its call."""
        user = record.get("user")
        if source == "scorer" and isinstance(user, str):
            self.scorers.heard(user, self.table.wall())
            self._show_call(user, None)
        self.history.add(seq, record, source)
        feed = self._feed
        if feed is not None:  # its slot, then (every SNAPSHOT_EVERY lines) the snapshot
            guard(feed.publish_retained, self.history.slot(), self.history.line())
        if self.history.due():
            self._publish_history()

    def begun(self) -> None:
        """A new match: a new history."""
        self.history.begin(None)
        self._publish_history()

    def deadline(self) -> float | None:
        """When (the engine loop's monotonic clock) the message's time is over."""
        message = self.message
        if message is None or message.until is None:
            return None
        return self.table.monotonic() + max(0.0, message.until - self.table.wall())

    def timers(self) -> None:
        message = self.message
        if message is not None and message.until is not None and self.table.wall() >= message.until:
            self.message = None
            log.info("message over: %s", message.text)
            self._republish()

    # -- outputs -----------------------------------------------------------------------

    def _republish(self) -> None:
        self.table.show_and_publish()

    def _publish_history(self) -> None:
        feed = self._feed
        if feed is None:
            return
        first = self.history.first_t
        config = self.table.config
        self.history.match_id = None if first is None else match_id(config.venue, config.table, first)
        guard(feed.publish_retained, HISTORY, self.history.payload())

    def _show_call(self, user: str, called: tuple[tuple[str, ...], str] | None) -> None:
        """A scorer's call on the boards and on ``<prefix>/input``, as a keypad's."""
        source = f"scorer:{user}"
        self.table.show_call(source, None if called is None or not called[0] else Prompt(source, called[0], called[1]))


def _decoded(text: str) -> Mapping[str, Json]:
    obj: Json = json.loads(text)  # a journal line, parsed already: JSON
    return obj if isinstance(obj, dict) else {}
