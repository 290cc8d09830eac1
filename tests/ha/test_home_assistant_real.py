"""A table seen by a real Home Assistant (docs/home-assistant.md, cueboard/table/home_assistant.py).

Home Assistant 2026.2.3 on Debian Trixie's Python 3.13 (tests/ha/hass.py), its MQTT
integration set up through its config flow and pointed at the test's mosquitto; a table
(``cueboard run``, its referee box on gpiozero's mock pins) with ``[home_assistant]
discovery = true``. Read through Home Assistant's own APIs (the WebSocket API's registries and
state events, and REST's ``/api/states``): the table's device and its entities appear with the
state's values; they follow a frame live; a picture of the documented dashboard card is taken in
Chromium after logging in; they go unavailable when the table stops; and the device and its
entities are gone after ``cueboard home-assistant remove``.

Skipped, saying why, where Home Assistant cannot run (not root, no mmdebstrap), unless
``CI=true`` or ``CUEBOARD_REQUIRE_HOME_ASSISTANT=1`` (.ci/run): there it fails.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from cueboard.table.daemon import ask_daemon
from cueboard.table.home_assistant import _SENSORS, device_id
from tests.ha import hass as ha_run
from tests.ha.ws import HassSocket
from tests.helpers.mosquitto import Mosquitto

pytestmark = pytest.mark.system

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "home-assistant.md"
PICTURE = "home-assistant-card.png"
VENUE, TABLE = "club", "t1"
IDENT = device_id(VENUE, TABLE)


def _require_home_assistant() -> None:
    why = ha_run.unavailable()
    if why is None:
        return
    if os.environ.get("CI") == "true" or os.environ.get("CUEBOARD_REQUIRE_HOME_ASSISTANT") == "1":
        pytest.fail(f"CI runs a real Home Assistant: {why}")
    pytest.skip(why)


def _doc_card() -> dict[str, Any]:
    """The Lovelace card of docs/home-assistant.md: the yaml block under "A dashboard card"."""
    text = DOC.read_text()
    section = text.split("## A dashboard card", 1)[1]
    block = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert block, "docs/home-assistant.md: no yaml block under '## A dashboard card'"
    card: dict[str, Any] = yaml.safe_load(block.group(1))
    return card


def _card_entities(card: Any) -> set[str]:
    if isinstance(card, dict):
        found = {card["entity"]} if isinstance(card.get("entity"), str) else set()
        return found.union(*(_card_entities(v) for v in card.values()))
    if isinstance(card, list):
        return set().union(*(_card_entities(v) for v in card))
    return set()


def _expected(state: dict[str, Any]) -> dict[str, str]:
    """What each sensor should show for the table's state (docs/home-assistant.md's table),
    worked out here from the state, not with the templates: unique_id suffix -> HA state."""
    sides = state["sides"]
    out = {f"side{i}_name": sides[i]["name"] for i in (0, 1)}
    out |= {f"side{i}_score": str(sides[i]["score"]) for i in (0, 1)}
    out |= {f"side{i}_frames": str(sides[i]["frames"]) for i in (0, 1)}
    out |= {"break": str(state["break"]), "remaining": str(state["remaining"]),
            "at_table": state["player"] if state["player"] is not None else "nobody",
            "frame": str(state["frame"]), "game": state["game"],
            "match_live": "off" if state["match_over"] else "on"}
    return out


def _wait_socket(sock: Path, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the daemon exited with {proc.returncode}"
        try:
            ask_daemon(sock, {"type": "state"}, timeout=30)
            return
        except (OSError, ValueError):
            time.sleep(0.02)  # still starting: its socket is not there yet
    raise AssertionError("the daemon did not come up")


def _table_config(tmp: Path, port: int) -> Path:
    config = tmp / "cueboard.toml"
    config.write_text(f"""
[table]
venue = "{VENUE}"
name = "{TABLE}"
[match]
game = "snooker"
sides = ["Ann", "Bob"]
best_of = 3
[journal]
dir = "{tmp}/journal"
[control]
socket = "{tmp}/control.sock"
[mqtt]
host = "127.0.0.1"
port = {port}
[[referee_box]]
pins = [5, 6, 13, 19, 26, 12, 16, 20, 21, 4, 17, 27]
keymap = "{ROOT}/examples/keymaps/referee-box-12.toml"
[home_assistant]
discovery = true
""")
    return config


def _picture(hass: ha_run.Hass, awaited: str, out: Path) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, "chromium is not installed: apt-get install chromium"
    assert (ROOT / "screen" / "node_modules" / "playwright-core").is_dir(), \
        "screen/node_modules is missing: (cd screen && npm ci)"
    out.parent.mkdir(parents=True, exist_ok=True)
    run = subprocess.run(["node", str(ROOT / "tests" / "ha" / "ha_picture.mjs"), chromium, hass.base,
                          ha_run.USER, ha_run.PASSWORD, str(out), awaited],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}"
    assert out.stat().st_size > 10_000, "the picture is (nearly) empty"


async def _scenario(hass: ha_run.Hass, table: Path, sock: Path, proc: subprocess.Popen[bytes], shots: Path) -> None:
    async with HassSocket(hass.ws_url, hass.token) as ha:
        # The device and its entities, as discovery made them.
        await ha.until(lambda: (d := ha.device(IDENT)) is not None
                       and len(ha.entity_ids(d["id"])) == len(_SENSORS), f"the device {IDENT} with its entities")
        device = ha.device(IDENT)
        assert device is not None
        assert (device["name"], device["manufacturer"], device["model"]) == (f"{VENUE} {TABLE}", "cueboard",
                                                                              "cueboard table")
        ids = {uid.removeprefix(f"{IDENT}_"): entity for uid, entity in ha.entity_ids(device["id"]).items()}

        def shows(expected: dict[str, str]) -> bool:
            return all(ha.states.get(ids[key], {}).get("state") == value for key, value in expected.items())

        async def follows() -> dict[str, str]:
            state = (await asyncio.to_thread(ask_daemon, sock, {"type": "state"}))["state"]
            expected = _expected(state)
            await ha.until(lambda: shows(expected), f"the table's state {expected}")
            return expected

        first = await follows()
        assert first["side0_name"] == "Ann" and first["side0_score"] == "0" and first["match_live"] == "on"
        # REST agrees with the WebSocket API.
        rest = hass.states()
        assert {key: rest[entity]["state"] for key, entity in ids.items()} == first
        assert rest[ids["side0_score"]]["attributes"]["friendly_name"] == f"{VENUE} {TABLE} Side 1 score"

        # A frame followed live: red, black, red; a miss; then the other side.
        for obj in ({"type": "pot", "balls": ["red"]}, {"type": "pot", "balls": ["black"]},
                    {"type": "pot", "balls": ["red"]}):
            assert (await asyncio.to_thread(ask_daemon, sock, obj))["ok"]
            await follows()
        live = await follows()
        assert (live["side0_score"], live["break"]) == ("9", "9")
        for shot in ({"type": "no_pot"}, {"type": "pot", "balls": ["red"]}):
            assert (await asyncio.to_thread(ask_daemon, sock, shot))["ok"]
        live = await follows()
        assert (live["side1_score"], live["at_table"], live["break"]) == ("1", "Bob", "1")

        # The documented card, on a dashboard, in Home Assistant's own page.
        card = _doc_card()
        missing = _card_entities(card) - set(ids.values())
        assert not missing, f"docs/home-assistant.md's card names entities the table does not have: {missing}"
        # A dashboard of its own: the default one is Home Assistant's generated overview.
        await ha.call("lovelace/dashboards/create", url_path="club-tables", title="Tables", icon="mdi:billiards",
                      mode="storage", show_in_sidebar=True, require_admin=False)
        await ha.call("lovelace/config/save", url_path="club-tables", config={"title": "Tables", "views": [
            {"title": "Tables", "path": "tables", "cards": [card]}]})
        await asyncio.to_thread(_picture, hass, "Bob", shots / PICTURE)

        # The table stops: its status goes offline, every entity unavailable.
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(proc.wait, 60) == 0
        await ha.until(lambda: all(ha.states.get(e, {}).get("state") == "unavailable" for e in ids.values()),
                       "every entity unavailable")

        # Taken out of the venue: the device and its entities are removed from Home Assistant.
        run = await asyncio.to_thread(subprocess.run, [sys.executable, "-m", "cueboard.cli", "home-assistant",
                                                       "remove", "--config", str(table)],
                                      capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        await ha.until(lambda: ha.device(IDENT) is None and not set(ids.values()) & set(ha.states),
                       "the device and its entities removed")
        assert not set(ids.values()) & set(hass.states()), "/api/states still has the table's entities"


def test_a_real_home_assistant_shows_follows_and_forgets_a_table(tmp_path: Path,
                                                                 mosquitto_broker: Mosquitto) -> None:
    _require_home_assistant()
    with ha_run.home_assistant(tmp_path) as hass:
        ha_run.add_mqtt(hass, mosquitto_broker.port)
        table = _table_config(tmp_path, mosquitto_broker.port)
        sock = tmp_path / "control.sock"
        env = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock"}
        proc = subprocess.Popen([sys.executable, "-m", "cueboard.cli", "run", "--config", str(table)], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            _wait_socket(sock, proc)
            # docs/img's picture: CUEBOARD_HA_SHOTS=docs/img (else the test's folder).
            shots = Path(os.environ.get("CUEBOARD_HA_SHOTS") or tmp_path / "shots")
            asyncio.run(_scenario(hass, table, sock, proc, shots))
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
