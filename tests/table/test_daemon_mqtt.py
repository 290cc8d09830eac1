"""The daemon and the demo against a real mosquitto broker: the retained state a late
subscriber gets is the daemon's, valid against the shipped schema; the last will fires
when the daemon is SIGKILLed; ``cueboard demo`` publishes a match to a broker."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest

from cueboard.table.daemon import ask_daemon
from tests.helpers.mosquitto import Mosquitto, Subscriber

pytestmark = pytest.mark.system


SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "schema" / "state.schema.json").read_text())
TOPIC = "cueboard/hall/t7"


def _wait_socket(sock: Path, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the daemon exited with {proc.returncode}"
        try:
            ask_daemon(sock, {"type": "state"}, timeout=30)
            return
        except (OSError, ValueError):
            time.sleep(0.02)  # still starting: its socket is not there yet
    raise AssertionError("the daemon did not come up")


def test_late_subscriber_gets_the_daemons_state_and_the_will_fires_on_sigkill(
        tmp_path: Path, mosquitto_broker: Mosquitto) -> None:
    config = tmp_path / "cueboard.toml"
    config.write_text(f"""
[table]
venue = "hall"
name = "t7"
[match]
sides = ["Ann", "Bob"]
best_of = 3
[journal]
dir = "{tmp_path}/journal"
[control]
socket = "{tmp_path}/control.sock"
[mqtt]
host = "127.0.0.1"
port = {mosquitto_broker.port}
""")
    sock = tmp_path / "control.sock"
    proc = subprocess.Popen([sys.executable, "-m", "cueboard.cli", "run", "--config", str(config)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_socket(sock, proc)
        for obj in ({"type": "pot", "balls": ["red"]}, {"type": "pot", "balls": ["black"]}, {"type": "no_pot"}):
            assert ask_daemon(sock, obj)["ok"]
        live = ask_daemon(sock, {"type": "state"})["state"]
        with Subscriber([f"{TOPIC}/state", f"{TOPIC}/status"], port=mosquitto_broker.port) as late:
            got = late.wait_for(lambda m: m.topic.endswith("/state") and m.json()["seq"] == 3)
            state = got.json()
            assert state["table"] == "t7" and state["ts"].endswith("Z")
            assert {k: v for k, v in state.items() if k not in ("table", "ts")} == live
            jsonschema.validate(state, SCHEMA)
            # The retained "online" may have come before the state of seq 3, and the wait for that
            # state consumed it: look at what came first.
            status = f"{TOPIC}/status"
            if not any(m.topic == status and m.payload == b"online" for m in late.seen):
                late.wait_topic(status, b"online")
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            late.wait_topic(f"{TOPIC}/status", b"offline")  # the last will
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_demo_plays_a_match_onto_a_broker(tmp_path: Path, mosquitto_broker: Mosquitto) -> None:
    result = subprocess.run([sys.executable, "-m", "cueboard.cli", "demo", "--autoplay", "--events", "30",
                             "--broker", f"127.0.0.1:{mosquitto_broker.port}", "--journal", str(tmp_path)],
                            capture_output=True, text=True, timeout=120, check=False, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    assert "demo: 30 events applied, 0 refused" in result.stderr
    with Subscriber("cueboard/demo/table-1/state", port=mosquitto_broker.port) as late:
        state = late.wait_for(lambda m: m.json()["seq"] == 30).json()
    jsonschema.validate(state, SCHEMA)
    assert (tmp_path / "journal" / "match-000001.jsonl").read_text().count("\n") == 31


def test_the_demo_runs_its_own_broker_when_none_is_given(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "cueboard.cli", "demo", "--autoplay", "--events", "10",
                             "--journal", str(tmp_path)], capture_output=True, text=True, timeout=120,
                            check=False, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    assert "(WebSockets :" in result.stderr and "demo: 10 events applied, 0 refused" in result.stderr
