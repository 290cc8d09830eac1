"""The scorer's page (/score, issue 29) end to end: Debian's Chromium as a phone (touch,
390x844) through playwright-core, the venue broker exactly as ``cueboard venue init`` writes it
(TLS, secure WebSockets, the ACL, the password files), the page served over HTTPS with the
venue's certificate, and real table daemons (mock pins) on the broker. tests/scorer_e2e.mjs
drives the page; this side runs the venue, answers its requests (hold the table's engine, revoke
a login) and checks the tables' journals: every tap applied once, in the order it was made.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import shutil
import signal
import ssl
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from daemon_helpers import table_config
from gpiozero.pins.mock import MockFactory
from mosquitto import TIMEOUT, Mosquitto, free_port, require_mosquitto
from test_reliability import KEYMAP, PINS, Daemon
from test_screen import CHROMIUM, _require_browser

from cueboard.cli import parser
from cueboard.inputs import Call
from cueboard.journal import read_lines
from cueboard.screen import make_server, serve_in_thread
from cueboard.venue.command import run as venue_command
from cueboard.web_server import tls_context

pytest_plugins = ["mosquitto"]

E2E = Path(__file__).with_name("scorer_e2e.mjs")
DOCS_IMG = Path(__file__).resolve().parent.parent / "docs" / "img"


def venue_cli(*argv: str) -> str:
    out = io.StringIO()
    status = venue_command(parser().parse_args(["venue", *argv]), out)
    assert status == 0, out.getvalue()
    return out.getvalue()


@dataclass
class Venue:
    directory: Path
    broker: Mosquitto
    ports: dict[str, int]

    def password(self, login: str) -> str:
        return (self.directory / "logins" / f"{login}.password").read_text().strip()

    @property
    def ca(self) -> Path:
        return self.directory / "ca" / "venue-ca.crt"

    def change(self, *argv: str) -> None:
        """A ``cueboard venue`` change, then the broker reloaded as systemd does (SIGHUP)."""
        venue_cli(*argv, "--dir", str(self.directory), "--no-reload")
        since = len(self.broker.log)
        assert self.broker._process is not None
        self.broker._process.send_signal(signal.SIGHUP)
        self.broker.wait_for_log(lambda line: "Reloading config" in line, since=since)


@pytest.fixture
def club(tmp_path: Path) -> Iterator[Venue]:
    require_mosquitto()
    ports = {"tables": free_port(), "people": free_port(), "pages": free_port(), "screens": free_port()}
    directory = tmp_path / "venue"
    venue_cli("init", "--dir", str(directory), "--venue", "club", "--tables", "2", "--host", "localhost",
              "--host", "127.0.0.1", "--bind", "127.0.0.1", "--tables-port", str(ports["tables"]),
              "--people-port", str(ports["people"]), "--pages-port", str(ports["pages"]),
              "--screens-port", str(ports["screens"]))
    for table in ("t1", "t2"):
        venue_cli("add-user", f"scorer-{table}", "--role", "scorer", "--table", table, "--dir", str(directory),
                  "--no-reload")
    config = (directory / "mosquitto" / "venue.conf").read_text()
    with Mosquitto(tmp_path / "broker", port=ports["tables"], config=config) as broker:
        yield Venue(directory, broker, ports)


def table_daemon(tmp_path: Path, club: Venue, name: str, match: dict[str, Any]) -> Daemon:
    mqtt_section = {"host": "localhost", "port": club.ports["tables"], "username": name,
                    "password": club.password(name), "command": True, "tls": {"ca": str(club.ca)}}
    config = table_config(tmp_path / name, table={"venue": "club", "name": name}, match=match, mqtt=mqtt_section,
                          referee_box=[{"pins": PINS[0], "keymap": str(KEYMAP if match["game"] == "snooker" else
                                                                        KEYMAP.with_name("referee-box-12-blackball.toml"))}])
    return Daemon(config, boards=[], control=False, pin_factory=MockFactory())


def spki_hash(certificate: Path) -> str:
    """Chromium's --ignore-certificate-errors-spki-list form of the venue's server key: the
    browser trusts that one key (as a phone that installed the venue's CA trusts its certificate)."""
    der = ssl.PEM_cert_to_DER_cert(certificate.read_text())
    public = subprocess.run(["openssl", "x509", "-inform", "DER", "-pubkey", "-noout"], input=der,
                            capture_output=True, check=True).stdout
    spki = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "DER"], input=public, capture_output=True,
                          check=True).stdout
    return base64.b64encode(hashlib.sha256(spki).digest()).decode()


def journal(daemon: Daemon) -> list[dict[str, Any]]:
    lines = []
    for path in sorted(Path(daemon.table.config.journal_dir).glob("match-*.jsonl")):
        if path.name.endswith(".refused.jsonl"):
            continue
        lines += [json.loads(line) for line in read_lines(path)]
    return lines


def comparable(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k not in ("table", "ts", "clock")}


def test_the_scorer_scores_through_anything(tmp_path: Path, club: Venue) -> None:
    _require_browser()
    certs = club.directory / "certs"
    server = make_server("127.0.0.1", 0, tls=tls_context(str(certs / "server.crt"), str(certs / "server.key")))
    serve_in_thread(server)
    snooker = {"game": "snooker", "sides": ["Ann", "Bob"], "best_of": 3, "reds": 6}
    blackball = {"game": "blackball", "sides": ["Chloé", "Dirk"], "race_to": 2}
    gate = threading.Event()
    try:
        with table_daemon(tmp_path, club, "t1", snooker) as t1, table_daemon(tmp_path, club, "t2", blackball) as t2:
            for name in ("t1", "t2"):
                club.broker.wait_for_log(lambda line, n=name: line.endswith(f"cueboard/club/{n}/score/+/presence"))
            plan = {
                "chromium": CHROMIUM, "spki": spki_hash(certs / "server.crt"),
                "url": f"https://localhost:{server.server_address[1]}/score",
                "broker": f"wss://localhost:{club.ports['pages']}", "venue": "club",
                "logins": {t: {"user": f"scorer-{t}", "pass": club.password(f"scorer-{t}")} for t in ("t1", "t2")},
                "shots": str(DOCS_IMG), "offline_seconds": 60,
            }
            plan_file = tmp_path / "plan.json"
            plan_file.write_text(json.dumps(plan))
            node = subprocess.Popen(["node", str(E2E), str(plan_file)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
            timer = threading.Timer(600, node.kill)
            timer.start()
            out: list[str] = []
            reports: dict[str, Any] = {}
            try:
                assert node.stdout is not None and node.stdin is not None
                for line in node.stdout:
                    out.append(line)
                    if line.startswith("report "):
                        key, _, value = line[len("report "):].partition(" ")
                        reports[key] = json.loads(value)
                    elif line.startswith("need: "):
                        what = line[len("need: "):].strip()
                        if what == "hold-t1":
                            gate.clear()
                            t1.table.submit(Call("test", lambda: gate.wait(TIMEOUT)))
                        elif what == "release-t1":
                            gate.set()
                        elif what == "revoke-scorer-t2":
                            club.change("revoke", "scorer-t2")
                        elif what.startswith("check-state-"):
                            name = what[len("check-state-"):]
                            daemon = {"t1": t1, "t2": t2}[name]
                            assert comparable(reports[f"state-{name}"]) == comparable(daemon.state())
                        node.stdin.write("done\n")
                        node.stdin.flush()
                node.wait()
            finally:
                timer.cancel()
                gate.set()
            err = node.stderr.read() if node.stderr else ""
            assert node.returncode == 0, "".join(out[-15:]) + err
            lines = journal(t1)
    finally:
        server.shutdown()
        server.server_close()
    # Every tap the page reported applied is in the journal once, in the order it was made; none
    # it dropped or the table refused.
    ids = [line["id"] for line in lines if "id" in line]
    assert len(ids) == len(set(ids)), "an id applied twice"
    for key in ("frame", "offline", "reload", "held", "call"):
        applied = reports[f"applied-{key}"]
        positions = [ids.index(i) for i in applied]
        assert positions == sorted(positions), key
    assert len(reports["applied-offline"]) == 20
    assert all(line.get("user") == "scorer-t1" for line in lines if "id" in line)
    for refused in reports["refused"]:
        assert refused not in ids


def test_outbox_units() -> None:
    """The outbox's own logic under node (tests/scorer_units.mjs): ids, order, holding, send, drop."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed: apt-get install nodejs")
    run = subprocess.run(["node", str(Path(__file__).with_name("scorer_units.mjs"))], capture_output=True, text=True,
                         timeout=60)
    print(run.stdout)
    assert run.returncode == 0, run.stdout + run.stderr
