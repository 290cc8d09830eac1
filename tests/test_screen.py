"""The venue screen (``screen/``): served by ``cueboard screen``, and end to end in headless Chromium.

The end-to-end test runs a real mosquitto with a WebSockets listener, serves the page with
``cueboard.screen``, and runs ``tests/screen_e2e.mjs`` (node, playwright-core driving Debian's
``chromium``): a publisher sends real states (``cueboard replay --each`` of the examples) for
four tables, and the script checks the numbers on the page, that each update shows within a
second, that a table's last will marks it offline, and that malformed payloads are reported
and survived. It saves the README's screenshots (``CUEBOARD_SCREENSHOTS`` to choose where).

Needs: Debian ``chromium`` and ``nodejs``, and ``npm ci`` in ``screen/`` (playwright-core, mqtt);
without them the end-to-end test is skipped (``CUEBOARD_REQUIRE_SCREEN=1``: a failure).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
import urllib.request
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from mosquitto import Mosquitto

from cueboard.screen import SCREEN_DIR, make_server, serve_in_thread

pytest_plugins = ["mosquitto"]

ROOT = Path(__file__).resolve().parent.parent
E2E = Path(__file__).with_name("screen_e2e.mjs")
CHROMIUM = next((p for p in (shutil.which("chromium"), "/usr/bin/chromium") if p and os.access(p, os.X_OK)), None)


def _require(what: bool, why: str) -> None:
    if not what:
        if os.environ.get("CUEBOARD_REQUIRE_SCREEN", "") not in ("", "0"):
            pytest.fail(why)
        pytest.skip(why)


def _require_browser() -> None:
    _require(CHROMIUM is not None, "chromium is not installed: apt-get install chromium")
    _require(shutil.which("node") is not None, "node is not installed: apt-get install nodejs")
    modules = SCREEN_DIR / "node_modules"
    _require((modules / "playwright-core").is_dir() and (modules / "mqtt").is_dir(),
             "screen/node_modules is missing: (cd screen && npm ci)")


@pytest.fixture
def screen_server() -> Iterator[str]:
    server = make_server("127.0.0.1", 0)
    serve_in_thread(server)
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, ""


def test_server_serves_the_page_and_its_settings() -> None:
    server = make_server("127.0.0.1", 0, broker_ws="ws://broker.club.lan:9001", venue="club")
    serve_in_thread(server)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        status, page = _get(base)
        assert status == 200 and "screen.js" in page and "vendor/mqtt.min.js" in page
        status, config = _get(base + "config.js")
        assert status == 200
        assert json.loads(config.split("=", 1)[1].rstrip().rstrip(";")) == {
            "broker": "ws://broker.club.lan:9001", "venue": "club"}
        assert _get(base + "vendor/mqtt.min.js")[0] == 200
        assert _get(base + "vendor/state.schema.json")[0] == 200
        assert _get(base + "package.json")[0] == 404
        assert _get(base + "node_modules/mqtt/package.json")[0] == 404
    finally:
        server.shutdown()
        server.server_close()


def test_vendored_files_are_current() -> None:
    """screen/vendor/ holds the project's schemas as they are, and mqtt.js at the locked version."""
    for schema in (ROOT / "schema").glob("*.schema.json"):
        assert (SCREEN_DIR / "vendor" / schema.name).read_text() == schema.read_text(), \
            f"screen/vendor/{schema.name} is stale: run `node screen/vendor.mjs`"
    lock = json.loads((SCREEN_DIR / "package-lock.json").read_text())
    version = lock["packages"]["node_modules/mqtt"]["version"]
    assert json.loads((SCREEN_DIR / "package.json").read_text())["dependencies"]["mqtt"] == version
    bundle = (SCREEN_DIR / "vendor" / "mqtt.min.js").read_text()
    assert len(bundle) > 100_000 and "mqtt" in bundle
    installed = SCREEN_DIR / "node_modules" / "mqtt" / "dist" / "mqtt.min.js"
    if installed.exists():
        assert installed.read_text() == bundle, "screen/vendor/mqtt.min.js is stale: run `node screen/vendor.mjs`"


def _states(log: Path) -> list[dict[str, Any]]:
    out = subprocess.run([str(ROOT / ".venv" / "bin" / "cueboard"), "replay", "--each", str(log)],
                         capture_output=True, text=True, check=True, timeout=60)
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def _steps(log: str, table: str, upto: int | None = None, names: tuple[str, str] | None = None) -> list[dict[str, Any]]:
    path = ROOT / "examples" / log
    events = [json.loads(line) for line in path.read_text().splitlines() if line.strip()][1:]  # after the match line
    states = _states(path)
    assert len(events) == len(states)
    steps = []
    for event, state in list(zip(events, states, strict=True))[:upto]:
        ts = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        state = {**state, "table": table, "ts": ts}
        if names:
            sides = zip(state["sides"], names, strict=True)
            state["sides"] = [{**side, "name": n, "players": [n]} for side, n in sides]
            if state["player"] is not None:
                state["player"] = names[state["striker"]]
        steps.append({"event": {"schema": 1, "seq": state["seq"], "event": event, "ts": ts}, "state": state})
    return steps


def test_screen_end_to_end(mosquitto_factory: Callable[..., Mosquitto], screen_server: str, tmp_path: Path) -> None:
    _require_browser()
    broker = mosquitto_factory(websockets=True)
    screenshots = Path(os.environ.get("CUEBOARD_SCREENSHOTS", tmp_path))
    screenshots.mkdir(parents=True, exist_ok=True)
    plan = {
        "url": screen_server, "venue": "club", "mqtt_port": broker.port, "ws_port": broker.ws_port,
        "chromium": CHROMIUM, "screenshots": str(screenshots),
        "tables": {
            "table-1": _steps("snooker-frame.jsonl", "table-1", upto=20),
            "table-2": _steps("blackball-match.jsonl", "table-2", upto=10),
            "table-3": _steps("snooker-frame.jsonl", "table-3", names=("Mark", "John")),
            "table-4": _steps("blackball-match.jsonl", "table-4", names=("Cath", "Dave")),
        },
        "offline_table": "table-4", "single_table": "table-1",
    }
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan))
    run = subprocess.run(["node", str(E2E), str(plan_file)], capture_output=True, text=True, timeout=180)
    print(run.stdout)
    assert run.returncode == 0, run.stdout + run.stderr
    assert (screenshots / "screen-grid.png").stat().st_size > 10_000
    assert (screenshots / "screen-table.png").stat().st_size > 10_000


def test_screen_on_the_demo(screen_server: str, tmp_path: Path) -> None:
    """``cueboard demo`` opens a WebSockets listener on its embedded broker: the page works on it as is."""
    _require_browser()
    demo = subprocess.Popen([str(ROOT / ".venv" / "bin" / "cueboard"), "demo", "--autoplay",
                             "--journal", str(tmp_path / "demo")],  # the demo keeps its journal
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert demo.stdout is not None
        ws_port = None
        for line in demo.stdout:  # the status lines come first
            found = re.search(r"\(WebSockets :(\d+)\)", line)
            if found:
                ws_port = int(found.group(1))
                break
        assert ws_port, "the demo printed no WebSockets port"
        threading.Thread(target=lambda: [None for _ in demo.stdout or ()], daemon=True).start()  # keep the pipe drained
        plan = {"url": screen_server, "venue": "demo", "ws_port": ws_port, "chromium": CHROMIUM,
                "smoke": "table-1"}
        plan_file = tmp_path / "plan.json"
        plan_file.write_text(json.dumps(plan))
        run = subprocess.run(["node", str(E2E), str(plan_file)], capture_output=True, text=True, timeout=120)
        print(run.stdout)
        assert run.returncode == 0, run.stdout + run.stderr
    finally:
        demo.terminate()
        demo.wait(timeout=30)
