"""paho's client as the table's connections use it (the feed, the paced links): remembering why
the last connection attempt failed, small messages sent at once, an error said in a few words."""

from __future__ import annotations

import contextlib
import logging
import socket
import ssl
import threading
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode, MQTTProtocolVersion

from cueboard.table.mqtt.config import RECONNECT_MIN, MqttConfig
from cueboard.table.mqtt.matcher import TopicMatcher

__all__ = ["QOS", "MqttClient", "describe", "no_delay", "open_client", "tell_health"]

QOS = 1


class MqttClient(mqtt.Client):
    """paho's client, remembering why the last connection attempt failed (for ``health``).

    paho's network thread catches only ``OSError`` from a connection attempt; anything
    else would end that thread, and the feed with it, so it becomes an ``OSError`` here."""

    last_error = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # paho's own matcher leaves a reference cycle a message: a collection every 150 or so
        # lines of a flood (cueboard.table.mqtt.matcher, issue 37)
        self._on_message_filtered = TopicMatcher()

    def reconnect(self) -> MQTTErrorCode:
        try:
            return super().reconnect()
        except OSError as exc:
            self.last_error = describe(exc)
            raise
        except Exception as exc:  # e.g. a host name that is not valid IDNA
            self.last_error = describe(exc)
            raise OSError(self.last_error) from exc


def no_delay(client: mqtt.Client, userdata: Any, sock: Any) -> None:
    """Small messages go out at once: without TCP_NODELAY a command's answer waited some 40 ms
    behind the PUBACK before it (Nagle's algorithm meeting the broker's delayed ACK)."""
    with contextlib.suppress(OSError, AttributeError):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def describe(exc: BaseException) -> str:
    """A connection's failure in a few words, for ``health``."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"TLS: {exc.reason}: {exc.verify_message}"
    if isinstance(exc, ssl.SSLError):
        return f"TLS: {exc.reason or exc}"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def open_client(config: MqttConfig, *, client_id: str, protocol: MQTTProtocolVersion, username: str | None,
                **extra: Any) -> MqttClient:
    """A client of ``config``'s broker (its login, TLS, reconnect delays; small messages sent
    at once), not connected yet: the feed's and each paced link's, which add their callbacks."""
    client = MqttClient(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=protocol, **extra)
    if username is not None:
        client.username_pw_set(username, config.password)
    if config.tls is not None:
        client.tls_set_context(config.tls.context())
    client.reconnect_delay_set(RECONNECT_MIN, config.reconnect_max)
    client.on_socket_open = no_delay
    return client


def tell_health(on_health: Callable[[str], None] | None, health: str, log: logging.Logger) -> None:
    """Report a connection's new health; a listener that fails is logged (on ``log``, the
    connection's), never ends paho's thread."""
    if on_health is not None:
        try:
            on_health(health)
        except Exception:
            log.exception("on_health failed")


def disconnect(client: mqtt.Client, *, name: str, timeout: float) -> None:
    """Disconnect and wait for paho's thread at most ``timeout`` seconds: it may be inside a
    connection attempt (up to its 5 s connect timeout), which ends by itself after that."""
    client.disconnect()
    stopper = threading.Thread(target=client.loop_stop, name=name, daemon=True)
    stopper.start()
    stopper.join(timeout)
