"""The scorers' link: the table's second MQTT connection, for ``<prefix>/score/<user>``.

A scorer's phone publishes the strokes it keys on ``<prefix>/score/<user>`` (docs/mqtt.md);
the desk its commands on ``<prefix>/command/<user>``. mosquitto sends one client's messages in
the order it took them, over one socket: on the feed's own connection a scorer's flood was
delivered ahead of the desk's commands, and 13 of 24 desk steps waited more than 5 s (issue
26). So the table takes the scorers' lines on a connection of their own, whose reading can be
held back without holding back anything else:

- **Its own session.** It logs in as ``<username>.scorers`` with the table's password (a name
  no person's login can have: ``cueboard venue`` writes it, with read on the table's
  ``score/#`` alone), client id ``<client_id>-scorers`` when the feed has one. The broker ties
  that id to that login (``use_username_as_clientid`` on the tables' listener), so no other
  client can take it.
- **Read no faster than answered.** Before it hands on a user's line it waits while that
  user's lane of answers on the feed is full (:meth:`~cueboard.feed.Feed.wait_for_room`): a
  flooding scorer's lines are read as fast as the table answers them, each by its id, and the
  rest stay with the broker (which drops QoS 0 lines past its ``max_queued_messages`` for this
  session, as it does for any slow subscriber: lines the table never got, so never answered).
  Nothing here waits for the feed's own connection, which carries the acknowledgements the
  answers need.
- MQTT 5 with a clean start, retain-as-published (a retained line is refused, live or after a
  restart) and no-local, like the command topic; no will (the feed's ``status`` says whether
  the table is up).

``on_line(payload, retained, user)`` is called on this link's paho thread for every line.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode
from paho.mqtt.subscribeoptions import SubscribeOptions

from .feed import QOS, Feed, MqttConfig, _Client, _no_delay
from .feed_config import RECONNECT_MIN, SCORERS

__all__ = ["ROOM_WAIT", "SCORERS", "ScoreLink", "scorers_login"]

log = logging.getLogger(__name__)

ROOM_WAIT = 5.0
"""Seconds the link waits at most for room in a user's answers before it reads the line anyway
(the answer then pushes that user's oldest waiting one out, counted in ``Feed.dropped``)."""


def scorers_login(username: str | None) -> str | None:
    """The scorers' link's login: ``t1.scorers`` for the table ``t1`` (None: no login)."""
    return None if username is None else username + SCORERS


class ScoreLink:
    """The table's connection for ``<prefix>/score/+`` (see the module's documentation)."""

    def __init__(self, config: MqttConfig, feed: Feed, on_line: Callable[[bytes, bool, str], None]) -> None:
        self.config = config
        self.feed = feed
        self._on_line = on_line
        self._health = "down: not started"
        self._lock = threading.Lock()
        self._started = False
        client_id = "" if config.client_id is None else f"{config.client_id}-scorers"
        client = _Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
        if config.username is not None:
            client.username_pw_set(scorers_login(config.username), config.password)
        if config.tls is not None:
            client.tls_set_context(config.tls.context())
        client.reconnect_delay_set(RECONNECT_MIN, config.reconnect_max)
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_socket_open = _no_delay
        client.message_callback_add(config.topic("score/+"), self._on_message)
        self._client = client

    @property
    def health(self) -> str:
        """``ok``, ``connecting`` or ``down: <reason>``, as the feed's."""
        return self._health

    def start(self) -> None:
        """Connect in the background and keep reconnecting; never blocks."""
        with self._lock:
            if self._started:
                return
            self._started = True
        self._set_health("connecting")
        self._client.connect_async(self.config.host, self.config.port, self.config.keepalive, clean_start=True)
        self._client.loop_start()

    def stop(self, timeout: float = 5.0) -> None:
        """Disconnect; returns within about ``timeout`` seconds even if paho's thread is inside a
        connection attempt or waiting for room (it ends by itself after that)."""
        with self._lock:
            if not self._started:
                return
            self._started = False
        self._client.disconnect()
        stopper = threading.Thread(target=self._client.loop_stop, name="cueboard-scorers-stop", daemon=True)
        stopper.start()
        stopper.join(timeout)
        self._set_health("down: stopped")

    def _set_health(self, health: str) -> None:
        if health != self._health:
            self._health = health
            quiet = health in ("ok", "connecting", "down: stopped")
            (log.info if quiet else log.warning)("MQTT scorers' link %s:%d: %s", self.config.host, self.config.port,
                                                 health)

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: mqtt.ConnectFlags, reason: ReasonCode,
                    properties: Properties | None) -> None:
        if reason.is_failure:
            self._set_health(f"down: refused by the broker: {reason} (login {scorers_login(self.config.username)}: "
                             "cueboard venue add-table writes it)")
            return
        options = SubscribeOptions(qos=QOS, noLocal=True, retainAsPublished=True)
        client.subscribe([(self.config.topic("score/+"), options)])
        self._set_health("ok")

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        reason = getattr(client, "last_error", "") or "no connection"
        self._set_health(f"down: cannot connect to {self.config.host}:{self.config.port} ({reason})")

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: mqtt.DisconnectFlags, reason: ReasonCode,
                       properties: Properties | None) -> None:
        if self._started:
            why = "" if reason.getName() == "Unspecified error" else f" ({reason})"
            self._set_health(f"down: connection lost{why}")

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        user = message.topic.rsplit("/", 1)[1]
        # Read no faster than the table answers: this user's answers wait unsent already.
        self.feed.wait_for_room(user, ROOM_WAIT)
        try:
            self._on_line(bytes(message.payload), bool(message.retain), user)
        except Exception:
            log.exception("on_line failed")
