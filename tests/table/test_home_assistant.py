"""Home Assistant's MQTT discovery (cueboard/table/home_assistant.py, docs/home-assistant.md).

Against a real mosquitto and a real daemon: with ``[home_assistant] discovery = true`` the
table's device discovery message appears (retained) on ``homeassistant/device/<id>/config``
in the documented shape; it is sent again when Home Assistant's birth message (``online`` on
``homeassistant/status``) comes; ``cueboard home-assistant remove`` clears it. The sensors'
templates read fields every state has (or guard them), checked against real states.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from cueboard.games.replay import replay
from cueboard.table.config import ConfigFileError, parse_config
from cueboard.table.daemon import ask_daemon
from cueboard.table.home_assistant import HomeAssistantConfigError, device_id, discovery_payload, parse_home_assistant
from tests.helpers.mosquitto import Mosquitto, Subscriber

pytestmark = pytest.mark.system


ROOT = Path(__file__).resolve().parents[2]
TOPIC = "cueboard/hall/t7"
CONFIG_TOPIC = "homeassistant/device/cueboard_hall_t7/config"


def _states(log: str) -> list[dict[str, Any]]:
    path = ROOT / "examples" / log
    return [match.state().to_json() for match, _ in replay(path.read_bytes().splitlines(keepends=True))]


# -- the configuration ------------------------------------------------------------------------


def _config(extra: str, *, mqtt: bool = True) -> dict[str, Any]:
    import tomllib

    text = '[table]\nname = "t7"\nvenue = "hall"\n' + ('[mqtt]\nhost = "127.0.0.1"\n' if mqtt else "") + extra
    return tomllib.loads(text)


def test_discovery_is_opt_in_and_its_section_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "cueboard.toml"
    assert parse_config(_config(""), path).home_assistant is None
    assert parse_config(_config("[home_assistant]\ndiscovery = false\n"), path).home_assistant is None
    on = parse_config(_config("[home_assistant]\ndiscovery = true\n"), path).home_assistant
    assert on is not None and on.prefix == "homeassistant"
    assert parse_home_assistant({"discovery": True, "prefix": "ha"}).prefix == "ha"
    refused = [
        ('discovery = "yes"', "home_assistant.discovery"),
        ("discovery = true\nprefix = \"ha/#\"", "home_assistant.prefix: must be topic levels"),
        ("discovery = true\nprefx = \"ha\"", "prefx"),
    ]
    for body, why in refused:
        with pytest.raises(ConfigFileError, match=re.escape(why)):
            parse_config(_config(f"[home_assistant]\n{body}\n"), path)
    with pytest.raises(ConfigFileError, match=r"home_assistant.discovery: needs \[mqtt\]"):
        parse_config(_config("[home_assistant]\ndiscovery = true\n", mqtt=False), path)
    with pytest.raises(HomeAssistantConfigError):
        parse_home_assistant({"prefix": ""})


# -- the documented shape ---------------------------------------------------------------------

# Home Assistant's device-based discovery (2024.11+): <prefix>/device/<object_id>/config, a JSON
# object with the device ("dev", with identifiers), the origin ("o", with its name: required for
# device discovery) and the components ("cmps"), each with its platform ("p") and a unique_id;
# options shared by the components (state_topic, availability, qos) at the top. The ids in the
# topic: [a-zA-Z0-9_-] only.
PLATFORMS = {"sensor", "binary_sensor"}


def _check_shape(payload: dict[str, Any]) -> None:
    assert {"dev", "o", "cmps"} <= set(payload), sorted(payload)
    assert payload["dev"]["ids"] and payload["dev"]["name"]
    assert payload["o"]["name"] == "cueboard"
    assert payload["state_topic"] == f"{TOPIC}/state"
    assert payload["availability_topic"] == f"{TOPIC}/status"
    assert (payload["payload_available"], payload["payload_not_available"]) == ("online", "offline")
    ids = set()
    for key, component in payload["cmps"].items():
        assert re.fullmatch(r"[a-zA-Z0-9_-]+", key), key
        assert component["p"] in PLATFORMS, key
        assert component["unique_id"] == key and component["name"]
        ids.add(component["unique_id"])
    assert len(ids) == len(payload["cmps"])
    names = {c["name"] for c in payload["cmps"].values()}
    # What the issue asks a venue can see: the scores, frames, break, remaining, who is at the
    # table, whether a match is live.
    assert {"Side 1 score", "Side 2 score", "Side 1 frames", "Side 2 frames", "Break", "Remaining",
            "At the table", "Match live"} <= names


def _fields(template: str) -> set[str]:
    """The state's fields a template reads (value_json.a / value_json['a'])."""
    return set(re.findall(r"value_json(?:\.|\[')(\w+)", template))


def test_the_discovery_message_has_the_documented_shape() -> None:
    payload = discovery_payload("hall", "t7", f"{TOPIC}/state", f"{TOPIC}/status")
    _check_shape(payload)
    assert device_id("hall", "table 1/a") == "cueboard_hall_table_1_a"
    snooker, blackball = _states("snooker-frame.jsonl")[-1], _states("blackball-match.jsonl")[-1]
    for component in payload["cmps"].values():
        template = component["value_template"]
        for field in _fields(template):
            # A field a game does not have (blackball has no break) is guarded with "is defined".
            assert field in snooker or f"value_json['{field}'] is defined" in template \
                or f"value_json.{field} is defined" in template, (field, template)
            if field not in blackball:
                assert "is defined" in template, (field, template)


def test_the_templates_render_on_real_states() -> None:
    """With jinja2 (Home Assistant's template engine; the test extra installs it)."""
    try:
        import jinja2
    except ModuleNotFoundError:
        pytest.fail("jinja2 is not installed: pip install -e '.[test]'")
    env = jinja2.Environment()
    payload = discovery_payload("hall", "t7", f"{TOPIC}/state", f"{TOPIC}/status")
    snooker, blackball = _states("snooker-frame.jsonl")[-1], _states("blackball-match.jsonl")[-1]
    for state in (snooker, blackball):
        got = {c["name"]: env.from_string(c["value_template"]).render(value_json=state)
               for c in payload["cmps"].values()}
        assert got["Side 1 frames"] == str(state["sides"][0]["frames"])
        assert got["Match live"] == ("OFF" if state["match_over"] else "ON")
        if state["game"] == "blackball":
            assert got["Break"] == "unknown"


# -- against mosquitto and the daemon ---------------------------------------------------------


def _wait_socket(sock: Path, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the daemon exited with {proc.returncode}"
        try:
            ask_daemon(sock, {"type": "state"}, timeout=30)
            return
        except (OSError, ValueError):
            time.sleep(0.02)  # still starting: its socket is not there yet
    raise AssertionError("the daemon did not come up")


def test_a_table_announces_itself_reannounces_and_is_removed(tmp_path: Path, mosquitto_broker: Mosquitto) -> None:
    config = tmp_path / "cueboard.toml"
    config.write_text(f"""
[table]
venue = "hall"
name = "t7"
[match]
sides = ["Ann", "Bob"]
[journal]
dir = "{tmp_path}/journal"
[control]
socket = "{tmp_path}/control.sock"
[mqtt]
host = "127.0.0.1"
port = {mosquitto_broker.port}
[home_assistant]
discovery = true
""")
    sock = tmp_path / "control.sock"
    proc = subprocess.Popen([sys.executable, "-m", "cueboard.cli", "run", "--config", str(config)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_socket(sock, proc)
        with Subscriber(["homeassistant/#", f"{TOPIC}/status"], port=mosquitto_broker.port) as ha:
            first = ha.wait_topic(CONFIG_TOPIC)
            assert first.retain, "the discovery message is retained (Home Assistant may start later)"
            _check_shape(first.json())
            ha.wait_topic(f"{TOPIC}/status", b"online")  # the availability the sensors follow
            # Home Assistant restarts: its birth message asks for the devices again.
            ha.client.publish("homeassistant/status", b"online", qos=1)
            again = ha.wait_topic(CONFIG_TOPIC)
            assert again.payload == first.payload and not again.retain  # sent live, to us already subscribed
            # Its last will ("offline") asks for nothing.
            ha.client.publish("homeassistant/status", b"offline", qos=1)
            ha.client.publish("homeassistant/status", b"online", qos=1)
            ha.wait_topic("homeassistant/status", b"offline")
            assert ha.wait_topic(CONFIG_TOPIC).payload == first.payload
        proc.terminate()
        proc.wait(timeout=30)
        # The table is taken out of the venue: its device removed from Home Assistant.
        run = subprocess.run([sys.executable, "-m", "cueboard.cli", "home-assistant", "remove", "--config",
                              str(config)], capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip() == f"removed {CONFIG_TOPIC}"
        with Subscriber(["homeassistant/#", "done/#"], port=mosquitto_broker.port) as late:
            late.wait_subscribed()
            late.client.publish("done/marker", b"1", qos=1)
            late.wait_topic("done/marker")
            assert not [m for m in late.seen if m.topic == CONFIG_TOPIC], "the retained discovery message is cleared"
        # And announced again by hand, as the daemon does by itself.
        run = subprocess.run([sys.executable, "-m", "cueboard.cli", "home-assistant", "announce", "--config",
                              str(config)], capture_output=True, text=True, timeout=60)
        assert run.returncode == 0 and run.stdout.strip() == f"announced {CONFIG_TOPIC}", run.stderr
        with Subscriber("homeassistant/#", port=mosquitto_broker.port) as late:
            assert json.loads(late.wait_topic(CONFIG_TOPIC).payload)["dev"]["ids"] == ["cueboard_hall_t7"]
    finally:
        if proc.poll() is None:
            proc.kill()
