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

from cueboard.contract.codes import Reason
from cueboard.contract.payloads import record_payload, rejected_payload
from cueboard.engine import Match
from cueboard.engine.record import record_of


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

    def _line(self) -> dict[str, Any]:
        """The match line of the match being played, or of the table's default one while none is."""
        live = self.live
        if live is None:
            return {"type": "match", "game": "snooker", "sides": ["Home", "Away"]}
        return {"type": "match", "game": "snooker", "sides": [_name(s) for s in live["sides"]], "best_of": 1,
                "fixture": live["fixture"], "competition": live["competition"]}

    def _state(self) -> None:
        """The engine's own state of the match being played (or of the table's default match while
        none is), as a table publishes it (the schema's: the desk refuses any other), with the
        match handed on (``next``)."""
        n = self.next
        shown = None if n is None else {"fixture": n["fixture"], "competition": n["competition"],
                                        "names": [_name(s) for s in n["sides"]]}
        body = Match.from_json(self._line()).state().to_json()
        body.update(table=self.name, ts=now(), next=shown)
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
                self._refuse(line, "the stand-in table only starts")
                return
            reason = self._start(line.get("fixture"))
            if reason:
                self._refuse(line, reason)
            else:
                self._pub("event", {"schema": 1, "seq": 0, "event": {"type": "start_next", "fixture": line["fixture"]},
                                    "id": line.get("id"), "user": message.topic.rsplit("/", 1)[1], "ts": now()})

    def _refuse(self, line: dict[str, Any], reason: str) -> None:
        """``rejected`` as a table says it (cueboard.contract.payloads), its code ``refused``."""
        self._pub("rejected", rejected_payload(line, Reason(reason, "refused"), "command", ts=now()))

    def _preview(self, line: dict[str, Any], user: str) -> None:
        """An amend's preview (docs/mqtt.md ``preview``): the state after, on a copy; never applied."""
        if line.get("seq") not in (1, 2):
            self._refuse(line, f"amend: there is no event {line.get('seq')} in this match")
            return
        amend = {k: v for k, v in line.items() if k not in ("id", "preview")}
        self._pub("preview", {"schema": 1, "id": line["id"], "user": user, "event": amend, "ts": now(), "state": {
            "sides": [{"name": "Ann", "score": 5, "frames": 0}, {"name": "Hal", "score": 0, "frames": 0}]}})

    def history(self) -> None:
        """The current match's events, retained (docs/mqtt.md ``history``): a referee's red, the desk's pink."""
        events = [{"seq": 1, "event": {"type": "pot", "balls": ["red"]}, "source": "referee", "user": None},
                  {"seq": 2, "event": {"type": "pot", "balls": ["pink"]}, "source": "desk", "user": "desk"}]
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
        record = record_of(Match.from_json(self._line()))  # begun: no winner yet
        self._pub("record", record_payload(record, table=self.name, ts=now()), retain=True)
        return ""

    def start(self) -> str:
        """The referee presses NEW MATCH: the next begins."""
        with self.lock:
            return self._start(self.next["fixture"]) if self.next else "nothing handed"

    def finish(self, winner: int) -> None:
        """The match played to its end as the engine has it (best of one: the loser concedes),
        its record and final state published as a table publishes them."""
        with self.lock:
            assert self.live is not None
            match = Match.from_json(self._line())
            if winner == 0:
                match.push(match.parse({"type": "no_pot"}))  # the loser (side 1) to play
            match.push(match.parse({"type": "concede", "match": True}))
            record = record_of(match)
            self._pub("record", record_payload(record, table=self.name, ts=now()), retain=True)
            self._pub("state", {**match.state().to_json(), "table": self.name, "ts": now(), "next": None},
                      retain=True)
            self.live = None
            self._state()

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def _name(side: Any) -> str:
    return " & ".join(side) if isinstance(side, list) else str(side)
