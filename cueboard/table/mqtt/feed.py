"""The MQTT feed of docs/mqtt.md, which venue screens subscribe to: one :class:`Feed` per
table, whose ``publish_*`` never wait for the network. Its interface and what it does with the
broker away: docs/mqtt.md, "The interface" and "What happens when the broker is away".
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import MQTTErrorCode
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode
from paho.mqtt.subscribeoptions import SubscribeOptions

from cueboard.common.errors import MqttConfigError
from cueboard.contract.codes import Reason
from cueboard.contract.payloads import (
    SCHEMA,
    devices_payload,
    event_payload,
    input_payload,
    record_payload,
    rejected_payload,
    state_payload,
)
from cueboard.contract.times import timestamp
from cueboard.contract.topics import ANY, EVENT, INPUT, REJECTED
from cueboard.contract.wire import encode
from cueboard.table.mqtt.acks import ACK_DEADLINE, InFlight
from cueboard.table.mqtt.client import QOS, MqttClient, disconnect, open_client, tell_health
from cueboard.table.mqtt.config import MqttConfig, TlsConfig, parse_mqtt
from cueboard.table.mqtt.lanes import Job, Lanes, Latest

log = logging.getLogger(__name__)

WINDOW = 16
"""Event and rejected messages handed to paho and not yet acknowledged, at most."""


class Feed:
    """One table's MQTT feed (docs/mqtt.md, "The interface (for the daemon)").

    ``on_command`` gets the raw payload of each ``<prefix>/command/<user>`` message, whether it
    came retained (a retained command is never applied: a restart must not replay it) and the
    user (``None`` on the bare ``<prefix>/command`` of ``unnamed_commands``), on paho's thread
    (subscribed only when ``config.command``, which needs authentication). With
    ``commands_on_link`` the commands come on a paced connection of their own
    (:mod:`cueboard.table.mqtt.paced_link`) and this feed subscribes to them only once :meth:`take_commands`
    is called (that link's login refused by an older venue's broker).

    Event and rejected messages wait in lanes: the table's own, and one per user whose
    commands were refused (``publish_rejected(..., user=...)``), each bounded by
    ``config.queue``, handed to paho in turn: a user whose flood is refused line by line
    fills only its own lane, never delays the table's events or another user's answers.
    ``on_health`` gets :attr:`health` each time it changes: on paho's thread, except
    ``connecting`` (from ``start``) and ``down: stopped`` (from ``stop``).
    ``now`` is the clock for the ``ts`` fields (Unix seconds). A message whose PUBACK does not
    come within ``ack_deadline`` seconds costs the connection: paho sends it again on the next
    (:mod:`cueboard.table.mqtt.acks`).
    """

    def __init__(self, config: MqttConfig, *, table: str,
                 on_command: Callable[[bytes, bool, str | None], None] | None = None,
                 now: Callable[[], float] = time.time,
                 on_health: Callable[[str], None] | None = None, commands_on_link: bool = False,
                 ack_deadline: float = ACK_DEADLINE) -> None:
        self.config = config
        self._commands_here = not commands_on_link
        self.table = table
        self._on_command = on_command
        self._on_health = on_health
        self._now = now
        self._cond = threading.Condition()
        self._status = Latest(config.topics.status, b"online")
        self._state = Latest(config.topics.state)
        self._devices = Latest(config.topics.devices)
        self._record = Latest(config.topics.record)
        self._more: dict[str, Latest] = {}  # publish_retained's topics (history, next's clearing)
        self._devices_last: dict[str, str] | None = None
        self._lanes = Lanes(config.queue)  # event and rejected messages waiting: the table's, each user's
        self._events_in_flight = 0
        self._in_flight: InFlight[Job] = InFlight(ack_deadline)  # mid -> handed to paho, not acknowledged
        self._connected = False
        self._started = False
        self._stopping = False
        self._health = "down: not started"
        self._writer: threading.Thread | None = None
        self._connect_hooks: list[Callable[[mqtt.Client], None]] = []
        self._client = self._make_client()

    # -- what the engine thread calls ----------------------------------------------------

    def start(self) -> None:
        """Connect in the background (paho's thread) and keep reconnecting. Never blocks,
        never raises because the broker is down."""
        with self._cond:
            if self._started:
                return
            self._started = True
        if self._takes_commands and self.config.insecure_commands:
            # At every start, so that the switch is never forgotten (docs/security.md).
            log.warning("mqtt.insecure_commands = true: %s is subscribed without TLS and authentication: anyone "
                        "who can publish to %s:%d can change this table's score", self.config.topics.command(ANY),
                        self.config.host, self.config.port)
        if self._takes_commands and self.config.unnamed_commands:
            log.warning("mqtt.unnamed_commands = true: %s is subscribed for older tools: the table cannot tell who "
                        "sent a command there (the event and the journal say \"user\": none); move them to "
                        "%s/<user> and remove mqtt.unnamed_commands", self.config.topics.unnamed_command,
                        self.config.topics.unnamed_command)
        self._set_health("connecting")
        self._writer = threading.Thread(target=self._write, name=f"cueboard-feed-{self.table}", daemon=True)
        self._writer.start()
        clean: dict[str, Any] = {"clean_start": True} if self.config.protocol == "5" else {}
        self._client.connect_async(self.config.host, self.config.port, self.config.keepalive, **clean)
        self._client.loop_start()

    def stop(self, timeout: float = 5.0) -> None:
        """Send what is waiting and ``offline`` (retained), then disconnect: a clean stop,
        so the broker does not send the will. Waits at most about ``timeout`` seconds for the
        broker (not at all when it is down), and returns by then even if paho's thread is
        still inside a connection attempt (it ends after that attempt)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            if not self._started or self._stopping:
                self._stopping = True
                return
            self._cond.wait_for(lambda: not self._connected or self._idle(), timeout)
            self._put(self._status, b"offline")
            status_version = self._status.version
            self._cond.wait_for(lambda: not self._connected or (
                self._status.sent == status_version and not self._status.busy),
                max(0.0, deadline - time.monotonic()))
            self._stopping = True
            self._cond.notify_all()
        disconnect(self._client, name=f"cueboard-feed-{self.table}-stop", timeout=max(0.5, deadline - time.monotonic()))
        if self._writer is not None:
            self._writer.join()
        with self._cond:
            self._connected = False
        self._set_health("down: stopped")

    def on_every_connect(self, hook: Callable[[mqtt.Client], None]) -> None:
        """Call ``hook(client)`` on paho's thread at every connection, after the feed's own
        subscriptions: for messages outside the table's topics (cueboard.table.home_assistant)."""
        self._connect_hooks.append(hook)

    def publish_state(self, state: Mapping[str, Any]) -> None:
        """The state of ``state.md`` plus ``table`` and ``ts``, retained. While disconnected
        only the newest is kept; it is published on every (re)connect."""
        self._put(self._state, encode(state_payload(state, table=self.table, ts=self._ts())))

    def publish_event(self, seq: int, event: Mapping[str, Any], *, logged: bool = True) -> None:
        """``{"schema", "seq", "event", "ts"}`` on ``<prefix>/event`` (not retained); ``logged=False``
        (``"logged": false`` on it): the answer to a command that is in no log (``clock``)."""
        payload = event_payload(seq, event, ts=self._ts())
        if not logged:
            payload["logged"] = False
        self._queue(EVENT, payload)

    def publish_rejected(self, event: Mapping[str, Any] | None, reason: Reason, source: str, *,
                         user: str | None = None, raw: bytes | None = None) -> None:
        """``{"schema", "event", "reason", "code", "short", "source", "ts"}`` on ``<prefix>/rejected``, with ``id``,
        ``type``, ``user`` and at most 1 KiB of the input (:func:`rejected_payload`); in the
        user's own lane when there is one."""
        payload = rejected_payload(event, reason, source, ts=self._ts(), user=user, raw=raw)
        try:
            encoded = encode(payload)
        except (ValueError, TypeError, RecursionError):  # cannot happen: echo() checked it; said all the same
            encoded = encode(rejected_payload(None, reason, source, ts=self._ts(), user=user,
                                              raw=repr(event).encode()))
        self._queue_encoded(REJECTED, encoded, lane=user or "")

    def publish_input(self, source: str, keys: Sequence[str], next_: str = "", *, expires_at: float | None = None,
                      expired: bool = False) -> None:
        """A call being keyed in on ``<prefix>/input``: the keys so far and what comes next, or
        that it lapsed (``expired``). ``expires_at``: Unix seconds."""
        self._queue(INPUT, input_payload(source, keys, next_, expires_at=expires_at, expired=expired, ts=self._ts()))
    def publish_record(self, record: Mapping[str, Any]) -> None:
        """The match record of ``record.md`` plus ``table`` and ``ts``, retained, a latest
        value like the state: while disconnected only the newest is kept."""
        self._put(self._record, encode(record_payload(record, table=self.table, ts=self._ts())))

    def publish_devices(self, devices: Mapping[str, str], last_seen: Mapping[str, str] | None = None) -> None:
        """The health of the table's devices (``{"buttons": "ok", "keypad": "lost"}``),
        retained, with ``schema`` and ``ts`` (and ``last_seen``: when each scorer was last
        heard from); only when it changed since the last call."""
        for name, value in devices.items():
            if not isinstance(name, str) or not isinstance(value, str) or name in ("schema", "ts", "last_seen"):
                raise ValueError(f"devices: {name!r}: {value!r} is not a device name and its health")
        if self._devices_last == dict(devices):
            return
        self._devices_last = dict(devices)
        payload = devices_payload(devices, ts=self._ts())
        if last_seen:
            payload["last_seen"] = dict(last_seen)
        self._put(self._devices, encode(payload))

    def publish_retained(self, name: str, payload: bytes) -> None:
        """``payload`` on ``<prefix>/<name>``, retained, a latest value like the state (an empty
        payload clears the retained message): ``history``, and ``next`` cleared by the table."""
        with self._cond:
            latest = self._more.get(name)
            if latest is None:
                latest = self._more[name] = Latest(self.config.topic(name))
        self._put(latest, payload)

    def publish_once(self, name: str, payload: Mapping[str, Any]) -> None:
        """``payload`` on ``<prefix>/<name>``, not retained, in the table's lane (``preview``)."""
        self._queue(name, payload)

    @property
    def health(self) -> str:
        """``"ok"`` (connected), ``"connecting"`` or ``"down: <reason>"``."""
        return self._health

    @property
    def connected(self) -> bool:
        return self._connected

    @property
    def dropped(self) -> int:
        """Event and rejected messages dropped because the queue was full."""
        return self._lanes.dropped

    @property
    def waiting(self) -> int:
        """Event and rejected messages waiting for the broker (at most ``config.queue`` a lane)."""
        with self._cond:
            return self._lanes.waiting()

    def flush(self, timeout: float) -> bool:
        """Wait until connected and everything given so far is acknowledged by the broker;
        False after ``timeout`` seconds. For tests and shutdown, never the engine thread."""
        with self._cond:
            return self._cond.wait_for(lambda: self._connected and self._idle(), timeout)

    # -- bookkeeping, under self._cond ---------------------------------------------------

    def _ts(self) -> str:
        return timestamp(self._now())

    def _put(self, latest: Latest, payload: bytes) -> None:
        with self._cond:
            latest.payload = payload
            latest.version += 1
            self._cond.notify_all()

    def _queue(self, name: str, payload: Mapping[str, Any]) -> None:
        self._queue_encoded(name, encode(payload), lane="")

    def _queue_encoded(self, name: str, payload: bytes, *, lane: str) -> None:
        job = Job(self.config.topic(name), payload, retain=False, latest=None)
        with self._cond:
            self._lanes.add(job, lane)
            self._cond.notify_all()

    def has_room(self, lane: str) -> bool:
        """Whether ``lane`` (a user's answers) is less than half full, so the answers still to come
        (the lines of that user queued for the engine, ``commands.queue``) push none out; True
        while disconnected (nothing drains then). For the paced links, which read a user's lines no
        faster than they are answered (:mod:`cueboard.table.mqtt.paced_link`)."""
        with self._cond:
            return not self._connected or self._stopping or self._lanes.waiting_in(lane) < max(
                1, self.config.queue // 2)

    def _idle(self) -> bool:
        return self._lanes.empty() and not self._in_flight and not any(
            latest.due() or latest.busy for latest in self._latests())

    def _latests(self) -> tuple[Latest, ...]:
        return (self._status, self._state, self._devices, self._record, *self._more.values())

    def _set_health(self, health: str) -> None:
        """Set and report the health. Not called under ``self._cond``: ``on_health`` may
        take its time, and publish_* must never wait for it."""
        with self._cond:
            if health == self._health or self._health == "down: stopped":  # stopped is final
                return
            self._health = health
        quiet = health in ("ok", "connecting", "down: stopped")
        (log.info if quiet else log.warning)("MQTT %s:%d: %s", self.config.host, self.config.port, health)
        tell_health(self._on_health, health, log)

    def _next_job(self) -> Job | None:
        self._lanes.held_until = None
        if not self._connected:
            return None
        for latest in self._latests():
            if latest.due():
                assert latest.payload is not None
                latest.force = False
                latest.busy = True
                return Job(latest.topic, latest.payload, retain=True, latest=latest, version=latest.version)
        if self._lanes.has_turns() and self._events_in_flight < WINDOW:
            job = self._lanes.pop(time.monotonic())
            if job is not None:
                self._events_in_flight += 1
            return job
        return None

    def _acknowledged(self, job: Job) -> None:
        if job.latest is not None:
            job.latest.busy = False
        else:
            self._events_in_flight -= 1

    # -- the writer thread ---------------------------------------------------------------

    def _write(self) -> None:
        """Hand messages to paho, one at a time, only while connected. Holds no lock while
        it calls paho (paho calls ``_on_publish`` with its own lock held)."""
        while True:
            with self._cond:
                drop = self._check_acks()
                job = None if drop else self._next_job()
                while job is None and not drop:
                    if self._stopping:
                        return
                    wakes = [t for t in (self._lanes.held_until, self._in_flight.next_due() if self._connected
                                         else None) if t is not None]
                    self._cond.wait(max(0.001, min(wakes) - time.monotonic()) if wakes else None)
                    drop = self._check_acks()
                    job = None if drop else self._next_job()
            if job is None:
                self._drop_connection()
                continue
            try:
                info = self._client.publish(job.topic, job.payload, qos=QOS, retain=job.retain)
            except Exception:  # a bug, not the network: never let it end the writer
                log.exception("publishing on %s failed", job.topic)
                info = None
            with self._cond:
                if info is None or info.rc == MQTTErrorCode.MQTT_ERR_QUEUE_SIZE:
                    # Not queued by paho (cannot happen with its queue unbounded): drop it.
                    self._acknowledged(job)
                    if job.latest is None:
                        self._lanes.dropped += 1
                    continue
                # Queued by paho, sent now or after the next connect: wait for its PUBACK.
                if job.latest is not None:
                    job.latest.sent = job.version
                now = time.monotonic()
                if self._in_flight.claim_early(info.mid, now=now):
                    self._acknowledged(job)
                else:
                    self._in_flight.add(info.mid, job, now=now)
                self._cond.notify_all()

    def _check_acks(self) -> bool:
        """Under the lock: whether a PUBACK is overdue on this connection, which is then to be
        dropped (:mod:`cueboard.table.mqtt.acks`)."""
        if not self._connected or not self._in_flight or not self._in_flight.overdue(time.monotonic()):
            return False
        log.warning("MQTT %s:%d: no PUBACK for %g s on a live connection: connecting again (paho sends the "
                    "messages not acknowledged again)", self.config.host, self.config.port, self._in_flight.deadline)
        return True

    def _drop_connection(self) -> None:
        """End this connection under paho (not under the lock): its thread sees it lost and
        connects again, sending what is not acknowledged. The plain socket's shutdown, not the TLS
        layer's: that one would take the TLS object from under paho's reading thread."""
        sock = self._client.socket()
        if isinstance(sock, socket.socket):
            with contextlib.suppress(OSError):
                socket.socket.shutdown(sock, socket.SHUT_RDWR)

    # -- paho's callbacks (its network thread) -------------------------------------------

    def _make_client(self) -> MqttClient:
        config = self.config
        protocol = mqtt.MQTTv5 if config.protocol == "5" else mqtt.MQTTv311
        extra: dict[str, Any] = {} if protocol == mqtt.MQTTv5 else {"clean_session": True}
        client = open_client(config, client_id=config.client_id or "", protocol=protocol, username=config.username,
                             **extra)
        client.will_set(config.topics.status, b"offline", qos=QOS, retain=True)
        client.max_inflight_messages_set(WINDOW + 4)
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        if self._takes_commands:
            client.message_callback_add(config.topics.command(ANY), self._on_command_message)
            client.message_callback_add(config.topics.unnamed_command, self._on_command_message)
        return client

    @property
    def _takes_commands(self) -> bool:
        # MqttConfig has checked that commands come over TLS with authentication, or that the
        # venue has said insecure_commands.
        return self.config.command and self._on_command is not None

    @property
    def _subscribes_commands(self) -> bool:
        """Under ``self._cond``: the commands come on this connection (not a paced link's)."""
        return self._takes_commands and self._commands_here

    def take_commands(self, why: str = "") -> None:
        """Subscribe to the command topics on this connection from now on (at once when connected,
        and at every connection): the paced link that was to take them cannot (``why``). Unpaced:
        a flood on the command topic then delays this connection's acknowledgements (docs/mqtt.md)."""
        with self._cond:
            if self._commands_here or not self._takes_commands:
                return
            self._commands_here = True
            now = self._connected
        log.warning("MQTT: %s taken on the table's own connection%s: not paced (a flood there delays the state "
                    "to the venue's screens); cueboard venue add-table writes the commands' link login "
                    "(docs/security.md)", self.config.topics.command(ANY), f" ({why})" if why else "")
        if now:
            self._subscribe_commands(self._client)

    def _subscribe_commands(self, client: mqtt.Client) -> None:
        # Retain-as-published: a retained command keeps its flag when delivered live, so it is
        # refused then too; no-local: nothing the table publishes comes back to it.
        options = SubscribeOptions(qos=QOS, noLocal=True, retainAsPublished=True)
        # The bare topic too: an older tool's command there is answered (refused unless
        # mqtt.unnamed_commands), never left without a word.
        client.subscribe([(self.config.topics.command(ANY), options), (self.config.topics.unnamed_command, options)])

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: mqtt.ConnectFlags,
                    reason: ReasonCode, properties: Properties | None) -> None:
        if reason.is_failure:
            self._set_health(f"down: refused by the broker: {reason}")
            return
        with self._cond:
            subscribed = self._subscribes_commands
        if subscribed:
            self._subscribe_commands(client)
        with self._cond:
            late = self._subscribes_commands and not subscribed  # take_commands() in between
            self._connected = True
            self._in_flight.restart(time.monotonic())  # deadlines count on a connection
            for latest in self._latests():
                # An empty retained payload (next cleared) goes once: sent again at a reconnect it
                # would clear what the desk handed on meanwhile.
                latest.force = latest.payload != b""
            self._cond.notify_all()
        if late:
            self._subscribe_commands(client)
        self._set_health("ok")
        for hook in self._connect_hooks:
            try:
                hook(client)
            except Exception:
                log.exception("a connection hook failed")

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        reason = getattr(client, "last_error", "") or "no connection"
        self._set_health(f"down: cannot connect to {self.config.host}:{self.config.port} ({reason})")

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: mqtt.DisconnectFlags,
                       reason: ReasonCode, properties: Properties | None) -> None:
        with self._cond:
            lost = self._connected and not self._stopping
            self._connected = False
            self._cond.notify_all()
        if lost:
            # paho reports a dropped connection as "Unspecified error"; a broker's MQTT 5
            # DISCONNECT says why (e.g. "Session taken over").
            why = "" if reason.getName() == "Unspecified error" else f" ({reason})"
            self._set_health(f"down: connection lost{why}")

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason: ReasonCode,
                    properties: Properties | None) -> None:
        if reason.is_failure:  # MQTT 5: the broker refused it (e.g. its ACL); it will not take it later
            log.warning("MQTT broker refused a message: %s", reason)
        with self._cond:
            job = self._in_flight.pop(mid)
            if job is None:
                self._in_flight.early(mid, now=time.monotonic())
                return
            self._acknowledged(job)
            self._cond.notify_all()

    def _on_command_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        assert self._on_command is not None
        # The broker's ACL lets a login write only the topic ending in its own name.
        topic = message.topic
        user = None if topic == self.config.topics.unnamed_command else topic.rsplit("/", 1)[1]
        try:
            self._on_command(bytes(message.payload), bool(message.retain), user)
        except Exception:
            log.exception("on_command failed")


__all__ = ["SCHEMA", "Feed", "MqttConfig", "MqttConfigError", "TlsConfig", "devices_payload", "encode",
           "event_payload", "input_payload", "parse_mqtt", "record_payload", "rejected_payload", "state_payload",
           "timestamp"]
