"""The scorer's page reads the table's topics through the pages' shared payload reader
(screen/shared/payloads.js, checked against schema/): a payload that is not JSON or does not
fit the contract is said on the page with the reason and changes nothing shown (tests/
scorer_payloads_e2e.mjs drives Chromium at a phone's size). A plain broker, no table daemon:
the script publishes what a table would."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from cueboard.venue.pages import make_server, serve_in_thread
from tests.helpers.mosquitto import Mosquitto
from tests.screen.test_screen import CHROMIUM, _final, _now, _require_browser

pytestmark = pytest.mark.system

E2E = Path(__file__).with_name("scorer_payloads_e2e.mjs")


def test_the_scorer_says_a_payload_it_refuses_and_shows_nothing_of_it(tmp_path: Path) -> None:
    _require_browser()
    good, following = ({**state, "table": "t1", "ts": _now()} for state in _final()[10:12])
    assert following["seq"] == good["seq"] + 1
    with Mosquitto(tmp_path / "broker", websockets=True) as broker:
        # The scorer connects to its server's broker only (issue 37): this plain one's WebSockets.
        server = make_server("127.0.0.1", 0, venue="club", page={"desk_broker": f"ws://127.0.0.1:{broker.ws_port}"})
        serve_in_thread(server)
        try:
            plan = {"chromium": CHROMIUM, "url": f"http://127.0.0.1:{server.server_address[1]}", "port": broker.port,
                    "ws_port": broker.ws_port, "venue": "club", "table": "t1", "states": [good, following],
                    "shots": str(tmp_path)}
            plan_file = tmp_path / "plan.json"
            plan_file.write_text(json.dumps(plan))
            run = subprocess.run(["node", str(E2E), str(plan_file)], capture_output=True, text=True, timeout=240,
                                 stdin=subprocess.DEVNULL)
        finally:
            server.shutdown()
            server.server_close()
    print(run.stdout)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "all ok" in run.stdout
