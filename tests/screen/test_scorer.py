"""The scorer's page (/score, issue 29) end to end: Debian's Chromium as a phone (touch,
390x844) through playwright-core, the venue broker exactly as ``cueboard venue init`` writes it
(TLS, secure WebSockets, the ACL, the password files), the page served over HTTPS with the
venue's certificate, and real table daemons (mock pins) on the broker. tests/screen/scorer_e2e.mjs
drives the page; this side runs the venue, answers its requests (hold the table's engine, revoke
a login) and checks the tables' journals: every tap applied once, in the order it was made.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from cueboard.table.inputs import Call
from cueboard.table.journal import read_lines
from tests.helpers.daemon import table_config
from tests.helpers.mosquitto import TIMEOUT, TcpProxy
from tests.helpers.venue import Venue, spki_hash, venue_pages
from tests.screen.node_e2e import Handler, run_e2e
from tests.screen.test_screen import CHROMIUM, _require_browser
from tests.table.test_reliability import KEYMAP, PINS, Daemon

# The club fixture (tests/conftest.py): tables t1 and t2, a scorer each.
pytestmark = [pytest.mark.system, pytest.mark.club(scorers=["t1", "t2"])]


E2E = Path(__file__).with_name("scorer_e2e.mjs")
# Where the screenshots go: CUEBOARD_SCORER_SHOTS=docs/img redraws the docs' pictures; else the test's folder
# (a run must not rewrite tracked files: a key caught mid-press differs by a pixel).
SHOTS = os.environ.get("CUEBOARD_SCORER_SHOTS")


def table_daemon(tmp_path: Path, club: Venue, name: str, match: dict[str, Any]) -> Daemon:
    mqtt_section = {"host": "localhost", "port": club.ports["tables"], "username": name,
                    "password": club.password(name), "command": True, "tls": {"ca": str(club.ca)}}
    config = table_config(tmp_path / name, table={"venue": "club", "name": name}, match=match, mqtt=mqtt_section,
                          referee_box=[{"pins": PINS[0], "keymap": str(KEYMAP if match["game"] == "snooker" else
                                                                        KEYMAP.with_name("referee-box-12-blackball.toml"))}])
    return Daemon(config, boards=[], control=False, pin_factory=MockFactory())


def journal(daemon: Daemon) -> list[dict[str, Any]]:
    lines = []
    for path in sorted(Path(daemon.table.config.journal_dir).glob("match-*.jsonl")):
        if path.name.endswith(".refused.jsonl"):
            continue
        lines += [json.loads(line) for line in read_lines(path)]
    return lines


def comparable(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k not in ("table", "ts", "clock")}


def _pages_broker(club: Venue, port: int | None = None) -> dict[str, str | int | float]:
    """The scorer's broker, as cueboard screen --desk-broker names it: the pages' listener (or
    ``port``, a :class:`TcpProxy` to it: the phone's Wi-Fi, to cut)."""
    return {"desk_broker": f"wss://localhost:{port or club.ports['pages']}"}


def test_the_scorer_scores_through_anything(tmp_path: Path, club: Venue) -> None:
    _require_browser()
    snooker = {"game": "snooker", "sides": ["Ann", "Bob"], "best_of": 3, "reds": 6}
    blackball = {"game": "blackball", "sides": ["Chloé", "Dirk"], "race_to": 2}
    gate = threading.Event()
    reports: dict[str, Any] = {}

    def report(line: str) -> None:
        if line.startswith("report "):
            key, _, value = line[len("report "):].partition(" ")
            reports[key] = json.loads(value)

    # The phones reach the broker through a proxy that can black-hole the bytes both ways (a Wi-Fi
    # gone: no FIN, nothing more on the socket). Chromium's setOffline does not cut an open
    # WebSocket, so with it the page only ever saw the drop when its keepalive gave up.
    wifi = TcpProxy(club.ports["pages"])
    with venue_pages(club.directory, page=_pages_broker(club, wifi.port)) as pages, \
            table_daemon(tmp_path, club, "t1", snooker) as t1, table_daemon(tmp_path, club, "t2", blackball) as t2:
        for name in ("t1", "t2"):
            club.broker.wait_for_log(lambda line, n=name: line.endswith(f"cueboard/club/{n}/score/+/presence"))
        # One login per device: a second phone at a table, and the test's own watcher, have logins of
        # their own (a second connection of one login takes the first one's session).
        second, watch, second_t2 = (club.add_user(name, "scorer", table) for name, table in
                                    (("scorer-t1-b", "t1"), ("watch-t1", "t1"), ("scorer-t2-b", "t2")))
        desk = club.add_user("desk-test", "desk")
        plan = {
            "chromium": CHROMIUM, "spki": spki_hash(club.directory / "certs" / "server.crt"),
            "url": f"{pages.base}/score", "broker": f"wss://localhost:{wifi.port}", "venue": "club",
            "direct": f"wss://localhost:{club.ports['pages']}",
            "desk": {"user": desk["user"], "pass": desk["password"]},
            "logins": {t: {"user": f"scorer-{t}", "pass": club.password(f"scorer-{t}")} for t in ("t1", "t2")},
            **{k: {"user": v["user"], "pass": v["password"]} for k, v in
               (("second", second), ("watch", watch), ("second_t2", second_t2))},
            # Longer than the broker keeps a silent phone (1.5 keepalives): its session and its will go too.
            "shots": str(Path(SHOTS).resolve()) if SHOTS else str(tmp_path / "shots"), "offline_seconds": 10,
        }

        def hold(args: list[str]) -> None:
            gate.clear()
            t1.table.submit(Call("test", lambda: gate.wait(TIMEOUT)))

        def check_state(name: str, daemon: Daemon) -> Handler:
            def check(args: list[str]) -> None:
                assert comparable(reports[f"state-{name}"]) == comparable(daemon.state())
            return check

        try:
            run_e2e(E2E, plan, tmp_path / "plan.json", timeout=600, on_line=report, handlers={
                "hold-t1": hold, "release-t1": lambda args: gate.set(),
                "cut-wifi": lambda args: wifi.hold(), "restore-wifi": lambda args: wifi.cut(),
                "revoke-scorer-t2": lambda args: club.change("revoke", "scorer-t2"),
                "check-state-t1": check_state("t1", t1), "check-state-t2": check_state("t2", t2)})
        finally:
            gate.set()
            wifi.close()
        lines = journal(t1)
    # Every tap the page reported applied is in the journal once, in the order it was made; none
    # it dropped or the table refused.
    ids = [line["id"] for line in lines if "id" in line]
    assert len(ids) == len(set(ids)), "an id applied twice"
    for key in ("frame", "offline", "reload", "held", "call"):
        applied = reports[f"applied-{key}"]
        positions = [ids.index(i) for i in applied]
        assert positions == sorted(positions), key
    assert len(reports["applied-offline"]) == 20
    # Each tap made offline keeps the time it was tapped (the outbox's), and says when it was applied:
    # after the Wi-Fi came back, the offline wait later.
    made, back = reports["made-offline"], reports["restored-at"] / 1000
    by_id = {line["id"]: line for line in lines if "id" in line}
    for ident in reports["applied-offline"]:
        line = by_id[ident]
        assert line["t"] == round(made[ident]) / 1000 and line["t"] < back <= line["applied"], (ident, line)
    # Concede asked first, naming the frame and the striker: "no" sent nothing, "yes" the striker's concession.
    conceded = by_id[reports["applied-concede"][0]]
    assert conceded["type"] == "concede" and conceded["user"] == "scorer-t1"
    second_tap = reports["applied-reload"][1]
    assert all(line.get("user") == ("scorer-t1-b" if line["id"] == second_tap else "scorer-t1")
               for line in lines if "id" in line)
    for refused in reports["refused"]:
        assert refused not in ids


def test_outbox_units() -> None:
    """The outbox's own logic under node (tests/screen/scorer_units.mjs): ids, order, holding, send, drop."""
    if shutil.which("node") is None:
        if os.environ.get("CUEBOARD_REQUIRE_SCREEN", "") not in ("", "0"):
            pytest.fail("node is not installed: apt-get install nodejs")
        pytest.skip("node is not installed: apt-get install nodejs")
    run = subprocess.run(["node", str(Path(__file__).with_name("scorer_units.mjs"))], capture_output=True, text=True,
                         timeout=60)
    print(run.stdout)
    assert run.returncode == 0, run.stdout + run.stderr
