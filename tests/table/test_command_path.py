"""The command path from the network (issue 16, findings 1 and 3), through a real mosquitto.

1. A retained command is never applied: a desk tool that publishes ``{"type": "match", ...}``
   with the retain flag would otherwise reset the table at every restart of the daemon.
3. The network cannot delay the table's own buttons, nor queue without bound: during a flood
   of 20,000 commands a referee's press is applied ahead of the network's queued lines, the
   daemon answers ``cueboard match state``, and every command it received was either applied
   or refused with a reason naming the limit (none dropped in silence); a flood of ``match``
   lines makes one new journal file, not 200.

The table authenticates over TLS (the command topic is subscribed only then).
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from gpiozero.pins.mock import MockFactory
from paho.mqtt.enums import CallbackAPIVersion

from cueboard.boards.shown import Shown as Drawn
from cueboard.hw.clock import ManualClock
from cueboard.table.daemon import ControlServer, ask_daemon
from cueboard.table.inputs import Call, Command, HealthChanged, KeyInput
from tests.helpers.daemon import StillOutput, table_config
from tests.helpers.mosquitto import Mosquitto, Subscriber
from tests.table.test_reliability import KEYMAP, PINS, PREFIX, TIMEOUT, Daemon

pytestmark = pytest.mark.system


USERS = {"t1": "table-one-pw", "t1.commands": "table-one-pw", "t1.scorers": "table-one-pw", "desk": "desk-pw"}
"""``t1.commands``, ``t1.scorers``: the table's paced links (cueboard.table.mqtt.paced_link), with its password."""
FOUL, BLUE = 8, 4  # referee-box-12.toml: FOUL, then BLUE: a five-point foul


class Shown(StillOutput):
    """A board that keeps the states it was given."""

    def __init__(self) -> None:
        self.states: list[dict[str, Any]] = []

    def show(self, shown: Drawn, clock: float | None = None, now: float | None = None) -> bool:
        self.states.append(shown.state.to_json())
        return True

    def flash(self, now: float | None = None, reason: str | None = None) -> None:
        pass


def config_for(tmp_path: Path, broker: Mosquitto, **sections: Any) -> Any:
    mqtt_section = {"host": "localhost", "port": broker.port, "username": "t1", "password": USERS["t1"],
                    "command": True, "tls": {"ca": str(broker.tls_files.ca)}}  # type: ignore[attr-defined]
    return table_config(tmp_path, mqtt=mqtt_section, referee_box=[{"pins": PINS[0], "keymap": str(KEYMAP)}],
                        **sections)


def desk(broker: Mosquitto) -> mqtt.Client:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="desk")
    client.username_pw_set("desk", USERS["desk"])
    client.tls_set(ca_certs=str(broker.tls_files.ca))  # type: ignore[attr-defined]
    client.connect("localhost", broker.port)
    client.loop_start()
    return client


def subscribed(daemon: Daemon, broker: Mosquitto) -> None:
    """Wait until the daemon's command subscription is in place (the broker logs it)."""
    broker.wait_for_log(lambda line: line.endswith(f"{PREFIX}/command/+"), TIMEOUT)


def test_a_retained_command_is_refused_live_and_after_a_restart(tmp_path: Path, broker: Mosquitto) -> None:
    """Over MQTT 3.1.1 the broker clears the retain flag of a message delivered live, and a
    retained command was applied (issue 26). The daemon subscribes with MQTT 5's
    retain-as-published: the flag arrives as published, live and after a restart."""
    config = config_for(tmp_path, broker)
    rejected = Subscriber(f"{PREFIX}/rejected", port=broker.port, host="localhost", username="desk",
                          password=USERS["desk"], ca=broker.tls_files.ca)  # type: ignore[attr-defined]
    rejected.wait_subscribed()
    client = desk(broker)
    try:
        with Daemon(config, boards=[], control=False, pin_factory=MockFactory()) as daemon:
            subscribed(daemon, broker)
            # A desk tool that sets the retain flag: refused live, with its id and user.
            client.publish(f"{PREFIX}/command/desk", json.dumps({"type": "no_pot", "id": "r1"}), qos=1,
                           retain=True).wait_for_publish(TIMEOUT)
            live = rejected.wait_for(lambda m: "retained" in m.json()["reason"]).json()
            assert (live["id"], live["type"], live["user"], live["source"]) == ("r1", "no_pot", "desk", "command")
            assert daemon.state()["seq"] == 0
        files = sorted(p.name for p in Path(config.journal_dir).glob("match-*.jsonl"))
        # The restart: the broker hands the retained command to the new subscription.
        with Daemon(config, boards=[], control=False, pin_factory=MockFactory()) as again:
            subscribed(again, broker)
            message = rejected.wait_for(lambda m: "retained" in m.json()["reason"])
            assert message.json()["source"] == "command" and message.json()["user"] == "desk"
            assert again.state()["seq"] == 0  # never applied
        assert sorted(p.name for p in Path(config.journal_dir).glob("match-*.jsonl")) == files
    finally:
        client.publish(f"{PREFIX}/command/desk", b"", qos=1, retain=True).wait_for_publish(TIMEOUT)  # clear it
        client.disconnect()
        client.loop_stop()
        rejected.close()


def test_a_flood_from_the_network_never_delays_the_referee(tmp_path: Path, broker: Mosquitto,
                                                            finding: Any) -> None:
    limits = {"rate": 5, "burst": 40, "queue": 32}
    config = config_for(tmp_path, broker, commands=limits)
    pins = MockFactory()
    clock = ManualClock(start=1000.0)
    with Daemon(config, boards=[Shown()], pin_factory=pins, button_clock=clock, control=False) as daemon:
        table = daemon.table
        subscribed(daemon, broker)
        server = ControlServer(config.control_socket, table)
        server.start()
        received: list[str] = []  # what reached the daemon from the network
        refusals: list[str] = []
        handled: list[str] = []  # the engine thread's inputs in the order it took them
        full = threading.Event()
        gate = threading.Event()
        admit, submit_remote, refuse_remote, handle = (table.admit, table.submit_remote, table.refuse_remote,
                                                       table._handle)

        def counting_admit(source: str, user: str | None = None) -> str | None:
            received.append(source)  # every line the MQTT client hands on is first admitted, or not
            return admit(source, user)

        def counting_submit_remote(item: Command, **options: Any) -> None:
            submit_remote(item, **options)
            if table.inbox.waiting() >= limits["queue"]:
                full.set()

        def counting_refuse_remote(obj: Any, reason: str, source: str, reply: Any = None, **options: Any) -> None:
            refusals.append(reason)
            refuse_remote(obj, reason, source, reply, **options)

        def recording_handle(item: Any) -> None:
            # A link's health (the commands link connecting late on a loaded machine: seen once
            # in CI) is the table's own input too, taken in its order; not a line or a press.
            if not isinstance(item, HealthChanged):
                handled.append("referee" if isinstance(item, KeyInput) else getattr(item, "source", "?"))
            handle(item)

        table.admit = counting_admit  # type: ignore[method-assign]
        table.submit_remote = counting_submit_remote  # type: ignore[method-assign]
        table.refuse_remote = counting_refuse_remote  # type: ignore[method-assign]
        table._handle = recording_handle  # type: ignore[method-assign]
        client = desk(broker)
        try:
            # Hold the engine thread while the flood fills the network's queue, so that the
            # referee's press meets a full queue.
            table.submit(Call("test", lambda: gate.wait(TIMEOUT * 4) and None))
            for _ in range(20_000):
                client.publish(f"{PREFIX}/command/desk", b'{"type": "no_pot"}', qos=0)
            assert full.wait(TIMEOUT), f"the queue never filled: {len(received)} received"
            for button in (FOUL, BLUE):
                pin = pins.pin(PINS[0][button])
                pin.drive_low()
                clock.advance(0.05)
                pin.drive_high()
                clock.advance(0.05)
            # cueboard match state, answered while the engine is busy and the queue full.
            answer = ask_daemon(config.control_socket, {"type": "state"}, timeout=TIMEOUT)
            assert answer["ok"] and answer["state"]["seq"] == 0
            gate.set()
            # At the end of the network's queue (past its bounds): answered once all before it were.
            drained = threading.Event()
            table.inbox.put_remote(Command("barrier", {"type": "state"}, lambda answer: drained.set()), "barrier",
                                   lambda waiting: True)
            assert drained.wait(TIMEOUT)
            state = daemon.state()
            assert state["sides"][1]["score"] == 5  # the referee's five-point foul, on Ann
            first_network = handled.index("command")
            assert handled[1:first_network] == ["referee", "referee"]  # ahead of the queued lines
            # The flood's last lines may still be on their way through the MQTT client's thread:
            # wait until every line it admitted or refused has been applied or refused.
            deadline = time.monotonic() + 30
            while True:
                daemon.on_engine(lambda: None)
                applied = handled.count("command")
                if len(received) == applied + len(refusals) or time.monotonic() > deadline:
                    break
                threading.Event().wait(0.05)  # not a wall-clock limit: a poll step, bounded above
            assert applied >= limits["queue"]  # the queue's worth (and what came once it drained)
            assert len(received) == applied + len(refusals)  # none dropped in silence
            assert refusals and all("commands.rate" in r or "commands.queue" in r for r in refusals)
            finding(f"{len(received)} of 20,000 commands reached the daemon while its engine was held: "
                    f"{limits['queue']} queued, {len(refusals)} refused naming the limit; the referee's "
                    f"two presses were taken before the queued lines, and the state was answered meanwhile",
                    received=len(received), refused=len(refusals), queued=limits["queue"])
        finally:
            gate.set()
            client.disconnect()
            client.loop_stop()
            server.stop()


def test_a_flood_of_new_matches_makes_one_journal_file(tmp_path: Path, broker: Mosquitto) -> None:
    # One new match an hour from the network: the flood may take as long as a busy machine makes it.
    config = config_for(tmp_path, broker, commands={"new_match_every": 3600})
    with Daemon(config, boards=[], control=False, pin_factory=MockFactory()) as daemon:
        subscribed(daemon, broker)
        client = desk(broker)
        try:
            for n in range(200):
                line = {"type": "match", "sides": ["Ann", f"Bob {n}"], "id": f"m{n}"}
                client.publish(f"{PREFIX}/command/desk", json.dumps(line), qos=1).wait_for_publish(TIMEOUT)
        finally:
            client.disconnect()
            client.loop_stop()
        daemon.on_engine(lambda: None)
        files = list(Path(config.journal_dir).glob("match-*.jsonl"))
        assert len(files) == 2  # the table's first match, and one from the network


# -- issue 15: a snooker match from first break to match end with the referee box alone ------------


def test_a_match_from_first_break_to_match_end_on_the_referee_box_alone_through_the_daemon(
        tmp_path: Path) -> None:
    """The same calls as tests/table/test_referee_box.py's, through the real daemon: gpiozero's mock
    pins, the box's own debounce on a ManualClock, the journal, the boards' prompts."""
    from cueboard.hw.debounce import HOLD_TIME
    from cueboard.table.keymap import load_keymap

    keymap = load_keymap(KEYMAP)
    index = {keymap.action(i): i for i in range(keymap.size)}
    config = table_config(tmp_path, match={"game": "snooker", "sides": ["Ann", "Bob"], "best_of": 3},
                          referee_box=[{"pins": PINS[0], "keymap": str(KEYMAP)}])
    pins = MockFactory()
    clock = ManualClock(start=1000.0)
    with Daemon(config, boards=[Shown()], pin_factory=pins, button_clock=clock, control=False) as daemon:

        def keys(*names: str) -> dict[str, Any]:
            for name in names:
                pin = pins.pin(PINS[0][index[name.rstrip("~")]])
                pin.drive_low()
                clock.advance(HOLD_TIME + 0.05 if name.endswith("~") else 0.05)
                pin.drive_high()
                clock.advance(0.05)
            return daemon.state()

        def score() -> tuple[int, int]:
            s = daemon.state()["sides"]
            return s[0]["score"], s[1]["score"]

        keys("RED", "BLACK", "NO_POT")
        assert score() == (8, 0) and daemon.state()["striker"] == 1
        s = keys("FOUL~", "BLUE")  # a foul and a miss
        assert score() == (13, 0) and s["misses"] == 1
        keys("SHIFT", "GREEN")  # replace
        keys("RED", "UNDO")
        assert score() == (13, 0)
        keys("SHIFT", "UNDO", "PINK")  # redo the red, then the pink
        assert score() == (13, 7)
        s = keys("FREE_BALL", "RED")  # a foul, free ball called
        assert s["free_ball"] and s["striker"] == 0
        keys("FREE_BALL", "BLACK", "NO_POT")
        assert score() == (25, 7)
        s = keys("SHIFT", "NO_POT")  # Bob concedes frame 1
        assert s["frame_over"] and s["frame_winner"] == 0
        refused = daemon.table.refused
        keys("RED")  # refused: the frame is over
        assert daemon.on_engine(lambda: daemon.table.refused) == refused + 1
        s = keys("SHIFT", "FREE_BALL")  # next frame
        assert s["frame"] == 2 and s["striker"] == 1
        keys("NO_POT", "SHIFT", "NO_POT", "SHIFT", "FREE_BALL")  # Ann concedes frame 2
        s = keys("RED", "BLACK", "NO_POT", "SHIFT", "NO_POT")  # Bob concedes the decider
        assert s["match_over"] and s["match_winner"] == 0
        assert [side["frames"] for side in s["sides"]] == [2, 1]


def test_a_pending_call_goes_out_on_the_input_topic_through_the_real_feed(tmp_path: Path,
                                                                          mosquitto_broker: Mosquitto) -> None:
    """Issue 15: a call keyed on the referee box (mock pins) appears on <prefix>/input, then is
    over when the ball that finishes it is pressed."""
    from cueboard.table.keymap import load_keymap

    keymap = load_keymap(KEYMAP)
    index = {keymap.action(i): i for i in range(keymap.size)}
    config = table_config(tmp_path, mqtt={"host": mosquitto_broker.host, "port": mosquitto_broker.port},
                          referee_box=[{"pins": PINS[0], "keymap": str(KEYMAP)}])
    pins = MockFactory()
    clock = ManualClock(start=1000.0)
    with Subscriber(f"{PREFIX}/input", port=mosquitto_broker.port) as inputs:
        inputs.wait_subscribed()
        with Daemon(config, boards=[Shown()], pin_factory=pins, button_clock=clock, control=False) as daemon:
            for name in ("FOUL", "BLUE"):
                pin = pins.pin(PINS[0][index[name]])
                pin.drive_low()
                clock.advance(0.05)
                pin.drive_high()
                clock.advance(0.05)
            pending = inputs.wait_for(lambda m: m.json()["keys"] == ["FOUL"]).json()
            assert pending["source"] == "referee_box:0" and pending["next"] and pending["expires_at"]
            done = inputs.wait_for(lambda m: m.json()["keys"] == []).json()
            assert done["source"] == "referee_box:0"
            assert daemon.state()["sides"][1]["score"] == 5
