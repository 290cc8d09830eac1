"""An MQTT 5 device of a venue for the logins' tests: it says what the broker answered to its
CONNECT (the reason, whether a session was present), keeps the messages it gets and whether
the broker dropped it, and can ask the broker's log which client id it was given."""

from __future__ import annotations

import queue
import threading
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tests.helpers.mosquitto import TIMEOUT, Mosquitto

WEBSOCKETS = ("pages", "screens")


class Device:
    """A client of ``broker`` on ``port`` (over secure WebSockets for ``pages`` and ``screens``)
    as ``login`` (None: anonymous), with the client id it chooses, never starting clean: it
    takes over any session the broker files under the id it is given. ``persistent``: that
    session outlives it (an hour), as a device that wants its messages kept; else it ends with
    the connection (so a thief's own earlier session is never there for it to find)."""

    def __init__(self, broker: Mosquitto, ca: Path, listener: str, port: int, login: str | None,
                 password: str | None, client_id: str, *, persistent: bool = True) -> None:
        self.login, self.client_id, self.listener = login, client_id, listener
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5,
                                  transport="websockets" if listener in WEBSOCKETS else "tcp")
        if login is not None:
            self.client.username_pw_set(login, password)
        self.client.tls_set(str(ca))
        self.answered = threading.Event()
        self.dropped = threading.Event()
        self.dropped_why = ""
        self.reason = ""
        self.session_present = False
        self.messages: queue.Queue[tuple[str, bytes]] = queue.Queue()
        self._subscribed = threading.Event()
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = lambda client, userdata, message: self.messages.put((message.topic,
                                                                                       message.payload))
        self.client.on_subscribe = lambda *args: self._subscribed.set()
        properties = Properties(PacketTypes.CONNECT)
        properties.SessionExpiryInterval = 3600 if persistent else 0
        self.since = len(broker.log)
        self.client.connect_async(broker.host, port, clean_start=False, properties=properties)
        self.client.loop_start()
        assert self.answered.wait(TIMEOUT), f"{login} {client_id}: no CONNACK"

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self.reason = str(reason)
        self.session_present = bool(flags.session_present)
        self.answered.set()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self.dropped_why = str(reason)
        self.dropped.set()
        self.answered.set()

    @property
    def ok(self) -> bool:
        return self.reason == "Success" and not self.dropped.is_set()

    def subscribe(self, topic: str) -> None:
        self._subscribed.clear()
        self.client.subscribe(topic, qos=1)
        assert self._subscribed.wait(TIMEOUT), f"{self.login}: no SUBACK for {topic}"

    def publish(self, topic: str, payload: bytes) -> None:
        self.client.publish(topic, payload, qos=1).wait_for_publish(TIMEOUT)

    def next_message(self) -> tuple[str, bytes]:
        return self.messages.get(timeout=TIMEOUT)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def __enter__(self) -> Device:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def given_id(broker: Mosquitto, device: Device) -> str:
    """The client id the broker gave ``device`` (connected), from its log line ``New client
    connected from ... as <id> (p5, c0, k60, u'<login>').`` (anonymous: no ``u'...'``)."""
    mark = f", u'{device.login}')." if device.login is not None else f" as {device.client_id} ("
    line = broker.wait_for_log(lambda line: "New client connected from" in line and mark in line,
                               since=device.since)
    return line.split(" as ", 1)[1].split(" (", 1)[0]
