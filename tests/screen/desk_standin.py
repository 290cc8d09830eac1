"""A stand-in table for the desk's tests of tonight's competition (tests/screen/test_desk_competition.py)
while the table side of the hand-off (docs/mqtt.md ``next``, ``start_next``, ``history``,
``preview``) is built in parallel: the contract's table half and nothing more, over real MQTT
with the table's own login. It keeps its ``next``, starts it once on ``start_next`` (a second is
refused naming the fixture), publishes the state, the answer on ``event`` and the record, and
finishes a match when the test says who won. The real table's tests are its own
(tests/screen/test_desk_knockout.py plays the desk against real daemons)."""

from __future__ import annotations

import json
import ssl
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class StandIn:
    def __init__(self, name: str, venue_dir: Path, port: int, venue: str = "club") -> None:
        self.name = name
        self.prefix = f"cueboard/{venue}/{name}"
        self.next: dict[str, Any] | None = None
        self.started: set[str] = set()
        self.live: dict[str, Any] | None = None  # the match being played: its next payload
        self.lock = threading.Lock()
        self.connected = threading.Event()
        password = (venue_dir / "logins" / f"{name}.password").read_text().strip()
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"cueboard-{name}", protocol=mqtt.MQTTv5)
        client.username_pw_set(name, password)
        client.tls_set(ca_certs=str(venue_dir / "ca" / "venue-ca.crt"), cert_reqs=ssl.CERT_REQUIRED)
        client.will_set(f"{self.prefix}/status", "offline", qos=1, retain=True)
        client.on_connect = self._connected
        client.on_message = self._message
        self.client = client
        client.connect("localhost", port)
        client.loop_start()
        assert self.connected.wait(30), f"{name}: no connection to the broker"

    def _connected(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, *args: Any) -> None:
        assert not reason.is_failure, f"{self.name}: the broker refused the stand-in: {reason}"
        client.subscribe([(f"{self.prefix}/next", 1), (f"{self.prefix}/command/+", 1)])
        client.publish(f"{self.prefix}/status", "online", qos=1, retain=True)
        client.publish(f"{self.prefix}/devices", json.dumps({"schema": 1, "journal": "ok", "ts": now()}), 1, True)
        self._state()
        self.connected.set()

    def _pub(self, kind: str, body: Any, retain: bool = False) -> None:
        payload = body if isinstance(body, str) else "" if body is None else json.dumps(body)
        self.client.publish(f"{self.prefix}/{kind}", payload, qos=1, retain=retain)

    def _state(self, over: bool = False, frames: tuple[int, int] = (0, 0)) -> None:
        n = self.next
        shown = None if n is None else {"fixture": n["fixture"], "competition": n["competition"],
                                        "names": [_name(s) for s in n["sides"]]}
        body: dict[str, Any] = {"schema": 1, "table": self.name, "ts": now(), "seq": 0, "next": shown}
        if self.live is not None:
            body.update({"game": "snooker", "frame": 1, "best_of": self.live["format"].get("best_of", 1),
                         "fixture": self.live["fixture"], "match_over": over, "frame_over": over,
                         "sides": [{"name": _name(s), "score": 0, "frames": frames[i]}
                                   for i, s in enumerate(self.live["sides"])]})
        self._pub("state", body, retain=True)

    def _message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        with self.lock:
            if message.topic.endswith("/next"):
                body = json.loads(message.payload) if message.payload else None
                if body is None or body.get("fixture") in self.started:
                    self.next = None  # a re-delivered next of a begun fixture: ignored
                else:
                    self.next = body
                self._state()
                return
            line = json.loads(message.payload)
            if line.get("type") == "amend" and line.get("preview") is True:
                self._preview(line, message.topic.rsplit("/", 1)[1])
                return
            if line.get("type") != "start_next":
                self._pub("rejected", {"schema": 1, "id": line.get("id"), "reason": "the stand-in table only starts",
                                       "ts": now()})
                return
            reason = self._start(line.get("fixture"))
            if reason:
                self._pub("rejected", {"schema": 1, "id": line.get("id"), "type": "start_next", "reason": reason,
                                       "source": "command", "ts": now()})
            else:
                self._pub("event", {"schema": 1, "seq": 0, "event": {"type": "start_next", "fixture": line["fixture"]},
                                    "id": line.get("id"), "user": message.topic.rsplit("/", 1)[1], "ts": now()})

    def _preview(self, line: dict[str, Any], user: str) -> None:
        """An amend's preview (docs/mqtt.md ``preview``): the state after, on a copy; never applied."""
        if line.get("seq") not in (1, 2):
            self._pub("rejected", {"schema": 1, "id": line.get("id"), "type": "amend", "source": "command",
                                   "reason": f"amend: there is no event {line.get('seq')} in this match", "ts": now()})
            return
        self._pub("preview", {"schema": 1, "id": line["id"], "user": user, "ts": now(), "state": {
            "sides": [{"name": "Ann", "score": 5, "frames": 0}, {"name": "Hal", "score": 0, "frames": 0}]}})

    def history(self) -> None:
        """The current match's events, retained (docs/mqtt.md ``history``): a referee's red, the desk's pink."""
        events = [{"seq": 1, "event": {"type": "pot", "balls": ["red"]}, "source": "referee_box:0", "user": None},
                  {"seq": 2, "event": {"type": "pot", "balls": ["pink"]}, "source": "command", "user": "desk"}]
        self._pub("history", {"schema": 1, "match_id": f"club/{self.name}/x", "truncated": 0,
                              "events": [{**e, "ts": now()} for e in events]}, retain=True)

    def status(self, online: bool) -> None:
        self._pub("status", "online" if online else "offline", retain=True)

    def _start(self, fixture: Any) -> str:
        if fixture in self.started:
            return f"fixture {fixture} has been started on this table already"
        if self.next is None or self.next.get("fixture") != fixture:
            return f"fixture {fixture} is not this table's next"
        if self.live is not None:
            return "a match is on: the next waits until it is over"
        self.live, self.next = self.next, None
        self.started.add(fixture)
        self._pub("next", None, retain=True)  # the table clears its next (docs/mqtt.md)
        self._state()
        self._pub("record", self._record(None, (0, 0)), retain=True)
        return ""

    def start(self) -> str:
        """The referee presses NEW MATCH: the next begins."""
        with self.lock:
            return self._start(self.next["fixture"]) if self.next else "nothing handed"

    def finish(self, winner: int) -> None:
        with self.lock:
            assert self.live is not None
            frames = (1, 0) if winner == 0 else (0, 1)
            self._pub("record", self._record(winner, frames), retain=True)
            self._state(over=True, frames=frames)
            self.live = None
            self._state()

    def _record(self, winner: int | None, frames: tuple[int, int]) -> dict[str, Any]:
        assert self.live is not None
        return {"schema": 1, "table": self.name, "ts": now(), "fixture": self.live["fixture"],
                "competition": self.live["competition"], "game": "snooker", "started": now(),
                "sides": [{"name": _name(s)} for s in self.live["sides"]], "frames": [], "frames_won": list(frames),
                "winner": winner}

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def _name(side: Any) -> str:
    return " & ".join(side) if isinstance(side, list) else str(side)
