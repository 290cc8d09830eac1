"""A live venue for the desk's and the scorer's benches (bench/desk.py, bench/scorer.py).

- :class:`BenchVenue`: ``cueboard venue init`` for N tables (its CA, certificates, logins,
  ACL) and one real mosquitto running exactly that configuration, its log without a line per
  message; ``cueboard screen``'s HTTPS server for the pages with the venue's certificate.
- :class:`SimulatedTables`: tables that publish as a table's daemon does, each over its own
  MQTT/TLS session with its own login (``use_username_as_clientid``, its ``offline`` will):
  ``status`` ``online``, ``devices``, and per event the ``event`` then the retained ``state``
  (QoS 1, as ``cueboard.table.mqtt.feed`` sends them), the JSON made by the feed's own payload code
  (``cueboard.contract.payloads``) from states the real engine computed for whole matches
  (``cueboard.games.simulate``), each stamped with the moment it is sent.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(ROOT))  # tests.helpers

import paho.mqtt.client as mqtt  # noqa: E402
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion  # noqa: E402

from cueboard.contract.payloads import devices_payload, event_payload, state_payload  # noqa: E402
from cueboard.contract.times import timestamp  # noqa: E402
from cueboard.contract.topics import TableTopics  # noqa: E402
from cueboard.contract.wire import encode  # noqa: E402
from cueboard.engine import Match  # noqa: E402
from cueboard.games.simulate import blackball_log, realistic_log  # noqa: E402
from tests.helpers.mosquitto import Mosquitto  # noqa: E402
from tests.helpers.venue import init_venue, spki_hash, venue_pages  # noqa: E402

VENUE = "club"
CHROMIUM = "/usr/bin/chromium"
QUIET = "\n".join(f"log_type {t}" for t in ("none", "error", "warning", "notice", "information"))
"""mosquitto's log without a line per message (``log_type none`` clears tests/helpers/mosquitto.py's ``all``)."""
QOS = 1
NAMES = [("Ronnie O'Sullivan", "Judd Trump"), ("赵心童", "Mark Selby"), ("Anne-Sophie Vandermeulen", "Bob"),
         ("Ding Junhui", "Kyren Wilson"), ("Åsa Sjöström", "Jürgen Müller"), ("Luca Brecel", "Neil Robertson")]
DEVICES = {"journal": "ok", "buttons": "ok", "keypad": "ok", "boards": "ok"}


def ms_of(ts: str) -> int:
    """Milliseconds since the epoch of a feed timestamp (as the page's ``Date.parse`` reads it)."""
    return round(datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() * 1000)


class BenchVenue:
    """The venue's files, its broker and the pages' HTTPS server, in a temporary directory."""

    def __init__(self, tables: int, scorers: tuple[str, ...] = ()) -> None:
        self.names = [f"t{k}" for k in range(1, tables + 1)]
        self.scorers = scorers
        self._stack = ExitStack()

    def __enter__(self) -> BenchVenue:
        tmp = Path(self._stack.enter_context(tempfile.TemporaryDirectory()))
        self.directory = tmp / "venue"
        self.ports = init_venue(self.directory, len(self.names), self.scorers, venue=VENUE)
        config = (self.directory / "mosquitto" / "venue.conf").read_text() + "\n" + QUIET + "\n"
        self.broker = self._stack.enter_context(Mosquitto(tmp / "broker", port=self.ports["tables"], config=config))
        self.pages = self._stack.enter_context(venue_pages(self.directory, venue=VENUE,
                                                           page={"desk_broker": self.broker_url}))
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stack.close()

    @property
    def page(self) -> str:
        return self.pages.base

    @property
    def broker_url(self) -> str:
        return f"wss://localhost:{self.ports['pages']}"

    @property
    def ca(self) -> Path:
        return self.directory / "ca" / "venue-ca.crt"

    @property
    def spki(self) -> str:
        return spki_hash(self.directory / "certs" / "server.crt")

    def password(self, login: str) -> str:
        return (self.directory / "logins" / f"{login}.password").read_text().strip()

    def acl(self) -> str:
        return (self.directory / "mosquitto" / "acl").read_text()

    def client(self, login: str, client_id: str | None = None) -> mqtt.Client:
        """An MQTT/TLS session on the tables' listener as ``login`` (a table's), connected."""
        # The daemon's default id (cueboard.table.mqtt.config): the broker's clientid_prefixes wants
        # cueboard-, and names the session after the login (use_username_as_clientid).
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id or f"cueboard-{VENUE}-{login}",
                             protocol=MQTTProtocolVersion.MQTTv5)
        client.tls_set(ca_certs=str(self.ca))
        client.username_pw_set(login, self.password(login))
        return client


Played = list[tuple[dict[str, Any], dict[str, Any]]]
"""A whole match: each event with the engine's state after it."""


def match_states(count: int = 4) -> list[Played]:
    """Whole matches as the engine's state after each event: snooker (best of 3) and blackball."""
    out: list[Played] = []
    logs = [realistic_log({"type": "match", "game": "snooker", "sides": ["A", "B"], "best_of": 3},
                          random.Random(seed)) for seed in range(1, count // 2 + 1)]
    logs += [blackball_log(3, seed=seed) for seed in range(1, count - count // 2 + 1)]
    for log in logs:
        match = Match.from_json(log[0])
        states: Played = []
        for event in log[1:]:
            applied = match.parse(event)
            match.apply(applied)
            states.append((dict(event), match.state().to_json()))
        out.append(states)
    return out


class SimulatedTables:
    """Tables publishing as daemons do (see the module's words). ``sent``: (table, ts in ms) of
    every event published, in order."""

    def __init__(self, venue: BenchVenue, names: list[str]) -> None:
        self.venue = venue
        self.names = names
        matches = match_states()
        self.plays = [{"match": matches[i % len(matches)], "step": (i * 17) % len(matches[i % len(matches)]),
                       "sides": NAMES[i % len(NAMES)]} for i in range(len(names))]
        self.clients: list[mqtt.Client] = []
        self.sent: list[tuple[str, int]] = []
        self.late_ms = 0.0
        self.publish_failures = 0

    def topics(self, table: str) -> TableTopics:
        return TableTopics.of(VENUE, table)

    def _state(self, i: int, ts: str) -> tuple[bytes, bytes]:
        play = self.plays[i]
        event, state = play["match"][play["step"]]
        names = play["sides"]
        sides = [{**side, "name": names[k], "players": [names[k]]} for k, side in enumerate(state["sides"])]
        shown = {**state, "sides": sides}
        return (encode(event_payload(state["seq"], event, ts=ts)),
                encode(state_payload(shown, table=self.names[i], ts=ts)))

    def __enter__(self) -> SimulatedTables:
        connected = threading.Semaphore(0)
        refused: list[str] = []

        def on_connect(client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
            if reason.is_failure:
                refused.append(f"{userdata}: {reason}")
            connected.release()

        for name in self.names:
            client = self.venue.client(name)
            client.user_data_set(name)
            client.will_set(self.topics(name).status, b"offline", qos=QOS, retain=True)
            client.on_connect = on_connect
            client.connect("localhost", self.venue.ports["tables"])
            client.loop_start()
            self.clients.append(client)
        for _ in self.names:
            if not connected.acquire(timeout=60):
                raise RuntimeError("a simulated table did not connect to the venue broker in 60 s")
        if refused:
            raise RuntimeError(f"the venue broker refused simulated tables: {', '.join(refused[:5])}")
        infos = []
        now = timestamp(time.time())
        for i, (name, client) in enumerate(zip(self.names, self.clients, strict=True)):
            infos.append(client.publish(self.topics(name).status, b"online", qos=QOS, retain=True))
            infos.append(client.publish(self.topics(name).devices, encode(devices_payload(DEVICES, ts=now)),
                                        qos=QOS, retain=True))
            infos.append(client.publish(self.topics(name).state, self._state(i, now)[1], qos=QOS, retain=True))
        for info in infos:
            info.wait_for_publish(60)
        return self

    def __exit__(self, *exc: object) -> None:
        for client in self.clients:
            client.disconnect()
            client.loop_stop()

    def run(self, seconds: float, rate: float, stop: threading.Event | None = None) -> None:
        """Each table ``rate`` events a second for ``seconds``, the tables spread evenly within
        each period; every publish waited for (QoS 1), and counted in ``publish_failures`` if
        the broker never took it."""
        period = 1.0 / rate
        count = len(self.names)
        start = time.perf_counter() + 0.05
        infos: list[mqtt.MQTTMessageInfo] = []
        slots = int(seconds * rate)
        for slot in range(slots):
            if stop is not None and stop.is_set():
                break
            for i, name in enumerate(self.names):
                if stop is not None and stop.is_set():
                    break
                target = start + slot * period + i * period / count
                delay = target - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                else:
                    self.late_ms = max(self.late_ms, -delay * 1000)
                play = self.plays[i]
                play["step"] = (play["step"] + 1) % len(play["match"])
                ts = timestamp(time.time())
                event, state = self._state(i, ts)
                client = self.clients[i]
                infos.append(client.publish(self.topics(name).event, event, qos=QOS, retain=False))
                infos.append(client.publish(self.topics(name).state, state, qos=QOS, retain=True))
                self.sent.append((name, ms_of(ts)))
        for info in infos:
            try:
                info.wait_for_publish(30)
            except (RuntimeError, ValueError):
                self.publish_failures += 1
            if not info.is_published():
                self.publish_failures += 1


def read_json_line(line: str) -> Any:
    return json.loads(line.split(" ", 1)[1])
