"""The feed recovers by itself when PUBACKs never come (issue 37, row 2: the retained state,
devices and history stopped for good while paho held messages the broker had acknowledged).

A proxy between the feed and a real mosquitto drops the broker's PUBACKs (MQTT packets of type
4) while told to, exactly what the flood's runs showed (the broker logged ``Sending PUBACK`` for
ids paho never heard of). Before the fix the state's slot stayed busy and the events' window full
for good; now the feed drops the connection after ``ack_deadline``, paho sends the messages again,
and everything after them goes out. The deadline is short here so the test is quick; nothing
waits on it (each step waits for the message it causes, TIMEOUT is an upper bound)."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

import pytest

from cueboard.table.mqtt.feed import WINDOW, Feed, MqttConfig
from tests.helpers.feed import HealthLog
from tests.helpers.mosquitto import HOST, TIMEOUT, Message, Mosquitto, Subscriber

pytestmark = pytest.mark.system

PREFIX = "cueboard/club/t1"
PUBACK = 4


class AckEater:
    """A TCP forwarder to the broker that reads the broker's stream packet by packet and drops
    PUBACKs while :attr:`eating` is set (counting them in :attr:`eaten`)."""

    def __init__(self, target_port: int) -> None:
        self.target = (HOST, target_port)
        self.listener = socket.create_server((HOST, 0))
        self.port = int(self.listener.getsockname()[1])
        self.eating = threading.Event()
        self.eaten = 0
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target, timeout=TIMEOUT)
            upstream.settimeout(None)
            self._sockets += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._packets, args=(upstream, client), daemon=True).start()

    @staticmethod
    def _close(*sockets: socket.socket) -> None:
        for s in sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        self._close(source, sink)

    def _packets(self, source: socket.socket, sink: socket.socket) -> None:
        buffer = b""
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                buffer += data
                while (packet := _whole_packet(buffer)) is not None:
                    buffer = buffer[len(packet):]
                    if packet[0] >> 4 == PUBACK and self.eating.is_set():
                        self.eaten += 1
                        continue
                    sink.sendall(packet)
        self._close(source, sink)

    def close(self) -> None:
        self.listener.close()
        self._close(*self._sockets)


def _whole_packet(buffer: bytes) -> bytes | None:
    """The first MQTT packet in ``buffer`` if it is all there (fixed header, remaining length)."""
    length, multiplier = 0, 1
    for i in range(1, min(len(buffer), 5)):
        length += (buffer[i] & 127) * multiplier
        multiplier *= 128
        if not buffer[i] & 128:
            end = i + 1 + length
            return buffer[:end] if len(buffer) >= end else None
    return None


def arrived(live: Subscriber, *wanted: tuple[str, int]) -> None:
    """Wait until each (topic's last part, seq) has come, in any order (the feed sends a latest
    value such as the state ahead of the events waiting)."""
    missing = set(wanted)

    def seen(message: Message) -> bool:
        kind = message.topic.rsplit("/", 1)[1]
        if kind in ("event", "state"):
            missing.discard((kind, message.json()["seq"]))
        return not missing

    live.wait_for(seen)


@pytest.fixture
def eater(mosquitto_broker: Mosquitto) -> Iterator[AckEater]:
    proxy = AckEater(mosquitto_broker.port)
    yield proxy
    proxy.close()


def test_the_feed_recovers_when_pubacks_never_come(mosquitto_broker: Mosquitto, eater: AckEater) -> None:
    health = HealthLog()
    feed = Feed(MqttConfig(prefix=PREFIX, host=HOST, port=eater.port, client_id="cueboard-club-t1", reconnect_max=1,
                           protocol="5"), table="t1", on_health=health, ack_deadline=1.0)
    with Subscriber(f"{PREFIX}/#", port=mosquitto_broker.port).wait_subscribed() as live:
        feed.start()
        try:
            feed.publish_state({"schema": 1, "seq": 1})
            assert feed.flush(TIMEOUT)
            eater.eating.set()
            feed.publish_state({"schema": 1, "seq": 2})
            for seq in range(1, WINDOW + 1):  # the events' whole window, none acknowledged
                feed.publish_event(seq, {"type": "no_pot"})
            arrived(live, ("event", WINDOW), ("state", 2))
            eaten = eater.eaten
            eater.eating.clear()
            # Behind them: before the fix neither ever went out (the state's slot busy, the window full).
            feed.publish_state({"schema": 1, "seq": 3})
            feed.publish_event(WINDOW + 1, {"type": "marker"})
            arrived(live, ("event", WINDOW + 1), ("state", 3))
            assert feed.flush(TIMEOUT)
            assert eaten >= 1 and any(h.startswith("down: connection lost") for h in health.history)
        finally:
            feed.stop(TIMEOUT)
    with Subscriber(f"{PREFIX}/state", port=mosquitto_broker.port) as late:
        assert late.get().json()["seq"] == 3
