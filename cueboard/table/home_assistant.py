"""Home Assistant's MQTT discovery (opt-in, ``[home_assistant] discovery = true``): the table
publishes one retained device discovery message whose sensors read its own retained state, and
again when Home Assistant comes back. docs/home-assistant.md has the whole of it.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from cueboard import __version__
from cueboard.common.errors import HomeAssistantConfigError
from cueboard.common.settings import Section
from cueboard.contract.topics import HA_PREFIX, TableTopics, ha_config, ha_status

log = logging.getLogger(__name__)

DEFAULT_PREFIX = HA_PREFIX
QOS = 1
ORIGIN = {"name": "cueboard", "sw": __version__}


@dataclass(frozen=True)
class HomeAssistantConfig:
    """``[home_assistant]``: ``discovery`` (off unless asked) and the discovery ``prefix``."""

    discovery: bool = False
    prefix: str = DEFAULT_PREFIX


def parse_home_assistant(section: Mapping[str, Any]) -> HomeAssistantConfig:
    """The ``[home_assistant]`` table of the daemon's configuration.

    >>> parse_home_assistant({"discovery": True})
    HomeAssistantConfig(discovery=True, prefix='homeassistant')
    >>> parse_home_assistant({"discovery": True, "prefix": "ha/"})
    Traceback (most recent call last):
    ...
    cueboard.common.errors.HomeAssistantConfigError: home_assistant.prefix: must be topic levels joined by '/', \
without '+', '#' or empty levels, not 'ha/'
    """
    s = Section(section, "home_assistant", error=HomeAssistantConfigError)
    discovery = s.getbool("discovery", False)
    prefix = s.getstr("prefix", DEFAULT_PREFIX)
    if any(c in prefix for c in "+#\0") or prefix.startswith("/") or prefix.endswith("/") or "//" in prefix:
        raise s.fail("prefix", f"must be topic levels joined by '/', without '+', '#' or empty levels, not {prefix!r}")
    s.check_unused()
    return HomeAssistantConfig(discovery=discovery, prefix=prefix)


def device_id(venue: str, table: str) -> str:
    """The device's id in Home Assistant and in its discovery topic: only ``[a-zA-Z0-9_-]``
    are allowed there, anything else becomes ``_``.

    >>> device_id("club", "table 1")
    'cueboard_club_table_1'
    """
    return re.sub(r"[^a-zA-Z0-9_-]", "_", f"cueboard_{venue}_{table}")


# The sensors: (key, platform, name, value template, extra options). Each reads the table's
# state (docs/state.md); a template that meets a state without the field shows "unknown".
_SIDE = "value_json.sides[{i}]"
_SENSORS: tuple[tuple[str, str, str, str, dict[str, Any]], ...] = (
    *((f"side{i}_name", "sensor", f"Side {i + 1}", f"{{{{ {_SIDE.format(i=i)}.name }}}}",
       {"icon": "mdi:account"}) for i in (0, 1)),
    *((f"side{i}_score", "sensor", f"Side {i + 1} score",
       f"{{{{ {_SIDE.format(i=i)}.score if {_SIDE.format(i=i)}.score is defined else 'unknown' }}}}",
       {"state_class": "measurement", "icon": "mdi:scoreboard"}) for i in (0, 1)),
    *((f"side{i}_frames", "sensor", f"Side {i + 1} frames", f"{{{{ {_SIDE.format(i=i)}.frames }}}}",
       {"state_class": "measurement", "icon": "mdi:counter"}) for i in (0, 1)),
    ("break", "sensor", "Break", "{{ value_json['break'] if value_json['break'] is defined else 'unknown' }}",
     {"state_class": "measurement", "icon": "mdi:billiards"}),
    ("remaining", "sensor", "Remaining",
     "{{ value_json.remaining if value_json.remaining is defined else 'unknown' }}",
     {"state_class": "measurement", "icon": "mdi:billiards-rack"}),
    ("at_table", "sensor", "At the table", "{{ value_json.player if value_json.player is not none else 'nobody' }}",
     {"icon": "mdi:account-arrow-right"}),
    ("frame", "sensor", "Frame", "{{ value_json.frame }}", {"icon": "mdi:numeric"}),
    ("game", "sensor", "Game", "{{ value_json.game }}", {"icon": "mdi:billiards", "entity_category": "diagnostic"}),
    ("match_live", "binary_sensor", "Match live", "{{ 'OFF' if value_json.match_over else 'ON' }}",
     {"payload_on": "ON", "payload_off": "OFF", "icon": "mdi:play-circle"}),
)


def discovery_payload(venue: str, table: str, state_topic: str, status_topic: str) -> dict[str, Any]:
    """The device discovery message for a table (Home Assistant's ``device`` discovery:
    ``dev``, ``o``, ``cmps``, with the shared ``state_topic`` and availability)."""
    ident = device_id(venue, table)
    components: dict[str, Any] = {}
    for key, platform, name, template, extra in _SENSORS:
        components[f"{ident}_{key}"] = {"p": platform, "name": name, "unique_id": f"{ident}_{key}",
                                        "value_template": template, **extra}
    return {
        "dev": {"ids": [ident], "name": f"{venue} {table}", "mf": "cueboard", "mdl": "cueboard table",
                "sw": __version__, "sa": venue},
        "o": ORIGIN,
        "cmps": components,
        "state_topic": state_topic,
        "availability_topic": status_topic,
        "payload_available": "online",
        "payload_not_available": "offline",
        "qos": QOS,
    }


class _Client(Protocol):
    """What discovery needs of a paho client."""

    def publish(self, topic: str, payload: bytes, qos: int = ..., retain: bool = ...) -> Any: ...

    def subscribe(self, topic: str, qos: int = ...) -> Any: ...

    def message_callback_add(self, sub: str, callback: Any) -> None: ...


class Discovery:
    """One table's discovery messages, sent on the feed's MQTT connection.

    :meth:`on_connect` is called by the feed on every connection (it subscribes to Home
    Assistant's status and announces); Home Assistant's ``online`` announces again."""

    def __init__(self, config: HomeAssistantConfig, *, venue: str, table: str, topic_prefix: str) -> None:
        self.config = config
        self.venue = venue
        self.table = table
        self.config_topic = ha_config(config.prefix, device_id(venue, table))
        self.birth_topic = ha_status(config.prefix)
        table_topics = TableTopics(topic_prefix)
        self.payload = json.dumps(discovery_payload(venue, table, table_topics.state, table_topics.status),
                                  separators=(",", ":"), ensure_ascii=False).encode()

    def announce(self, client: _Client) -> None:
        client.publish(self.config_topic, self.payload, qos=QOS, retain=True)

    def remove(self, client: _Client) -> None:
        """The empty retained message: Home Assistant removes the device and its sensors."""
        client.publish(self.config_topic, b"", qos=QOS, retain=True)

    def on_connect(self, client: _Client) -> None:
        client.message_callback_add(self.birth_topic, self._on_birth)
        client.subscribe(self.birth_topic, qos=QOS)
        self.announce(client)

    def _on_birth(self, client: Any, userdata: Any, message: Any) -> None:
        # Home Assistant's birth message: it came (back) online and wants the devices again.
        # Its last will says "offline": nothing to do then.
        if bytes(message.payload).strip() == b"online":
            log.info("Home Assistant is online: announcing %s", self.config_topic)
            self.announce(client)


def send_once(config: HomeAssistantConfig, mqtt_config: Any, *, venue: str, table: str, remove: bool,
              timeout: float = 10.0) -> str:
    """Connect as the table's feed would (``mqtt_config``: a cueboard.table.mqtt.feed.MqttConfig), publish
    the discovery message (or, ``remove``, the empty one that removes the device), wait for the
    broker to take it, and disconnect. Returns what was done; raises OSError when the broker
    cannot be reached or does not take it within ``timeout`` seconds."""
    import threading

    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    discovery = Discovery(config, venue=venue, table=table, topic_prefix=mqtt_config.prefix)
    protocol = mqtt.MQTTv5 if mqtt_config.protocol == "5" else mqtt.MQTTv311
    # Its own client id: the running daemon keeps its connection.
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"{mqtt_config.client_id or 'cueboard'}-ha",
                         protocol=protocol)
    if mqtt_config.username is not None:
        client.username_pw_set(mqtt_config.username, mqtt_config.password)
    if mqtt_config.tls is not None:
        client.tls_set_context(mqtt_config.tls.context())
    done = threading.Event()
    client.on_publish = lambda *args: done.set()
    client.connect(mqtt_config.host, mqtt_config.port, 30)
    client.loop_start()
    try:
        (discovery.remove if remove else discovery.announce)(client)
        if not done.wait(timeout):
            raise OSError(f"the broker {mqtt_config.host}:{mqtt_config.port} did not take {discovery.config_topic} "
                          f"within {timeout:g} s")
    finally:
        client.disconnect()
        client.loop_stop()
    return f"{'removed' if remove else 'announced'} {discovery.config_topic}"


__all__ = ["DEFAULT_PREFIX", "Discovery", "HomeAssistantConfig", "HomeAssistantConfigError", "device_id",
           "discovery_payload", "parse_home_assistant", "send_once"]
