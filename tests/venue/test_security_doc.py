"""docs/security.md's "A venue in a few commands", followed as written (issue 26): its commands
run in order with only the folder, the host names and the ports made the test's own, the
broker's restart and reloads done on a real mosquitto this test runs, and its two checks run
with mosquitto_pub: the desk's command reaches table t1 under the desk's name, t1's scorer's
on t2 is refused by the broker."""

from __future__ import annotations

import re
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cueboard.table.mqtt.feed import Feed, MqttConfig, TlsConfig
from tests.helpers.feed import HealthLog
from tests.helpers.mosquitto import TIMEOUT, Mosquitto, free_port, require_mosquitto

pytestmark = pytest.mark.system

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "security.md"


def walkthrough() -> list[str]:
    """The shell lines of the section's code blocks, in order (comments left out)."""
    text = DOC.read_text()
    section = text[text.index("## A venue in a few commands"):text.index("### The venue's broker as")]
    lines: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", section, re.S):
        lines += [line for line in block.splitlines() if line.strip() and not line.startswith("#")]
    return lines


def test_the_venue_walkthrough(tmp_path: Path) -> None:
    require_mosquitto()
    if shutil.which("mosquitto_pub") is None:
        pytest.skip("mosquitto_pub is not installed (mosquitto-clients)")
    folder = tmp_path / "venue"
    ports = {8883: free_port(), 8884: free_port(), 8885: free_port(), 9001: free_port()}
    lines = walkthrough()
    assert [line.split()[:4] for line in lines if "cueboard venue" in line] == [
        ["sudo", "cueboard", "venue", "init"], ["sudo", "cueboard", "venue", "add-user"],
        ["sudo", "cueboard", "venue", "add-table"]]
    broker: Mosquitto | None = None
    feed: Feed | None = None
    try:
        for line in lines:
            line = line.replace("/etc/cueboard/venue/", f"{folder}/").replace("broker.club.lan", "localhost")
            line = line.replace("sudo ", "")
            for port, ours in ports.items():
                line = line.replace(f"-p {port} ", f"-p {ours} ")
            if line.startswith("ln -s"):
                continue  # the broker below reads the file where it is
            if line.startswith("install "):
                continue  # on the table's Pi: the test's table t1 reads its files where init wrote them
            if line == "systemctl restart mosquitto":
                broker = Mosquitto(tmp_path / "broker", port=ports[8883],
                                   config=(folder / "mosquitto" / "venue.conf").read_text())
                broker.start()
                feed = _table_t1(folder, ports[8883], broker)
                continue
            if line.startswith("cueboard venue"):
                args = [*shlex.split(line)[2:], "--dir", str(folder)]
                if args[0] == "init":
                    args += ["--bind", "127.0.0.1", "--host", "localhost", "--tables-port", str(ports[8883]),
                             "--people-port", str(ports[8884]), "--pages-port", str(ports[8885]),
                             "--screens-port", str(ports[9001])]
                else:
                    args.append("--no-reload")  # the reload: SIGHUP below, as systemctl reload sends it
                run = subprocess.run([sys.executable, "-m", "cueboard.cli", "venue", *args], capture_output=True,
                                     text=True, timeout=120)
                assert run.returncode == 0, run.stderr
                if broker is not None:
                    _reload(broker)
                continue
            if line.startswith("mosquitto_pub"):
                assert broker is not None and feed is not None
                run = subprocess.run(["bash", "-c", line], capture_output=True, text=True, timeout=120)
                if "-u desk" in line:
                    assert run.returncode == 0 and "Not authorized" not in run.stderr, run.stderr
                else:
                    assert "Not authorized" in run.stdout + run.stderr, run.stdout + run.stderr
                continue
            raise AssertionError(f"a line this test does not know how to follow: {line}")
        assert feed is not None
        assert commands_of(feed) == ['desk {"type": "no_pot"}']  # the scorer's on t2 never came
        assert (folder / "logins" / "t5.password").exists() and (folder / "logins" / "scorer-t1.password").exists()
    finally:
        if feed is not None:
            feed.stop()
        if broker is not None:
            broker.stop()


_COMMANDS: dict[int, HealthLog] = {}


def commands_of(feed: Feed) -> list[str]:
    log = _COMMANDS[id(feed)]
    log.wait_for("desk")
    return log.history


def _table_t1(folder: Path, port: int, broker: Mosquitto) -> Feed:
    """Table t1 as its Pi connects with the [mqtt] section the page shows."""
    commands, health = HealthLog(), HealthLog()
    password = (folder / "logins" / "t1.password").read_text().strip()
    config = MqttConfig(prefix="cueboard/club/t1", host="localhost", port=port, username="t1", password=password,
                        tls=TlsConfig(str(folder / "ca" / "venue-ca.crt")), command=True,
                        client_id="cueboard-club-t1")
    feed = Feed(config, table="t1", on_health=health,
                on_command=lambda payload, retained, user: commands(f"{user} {payload.decode()}"))
    _COMMANDS[id(feed)] = commands
    feed.start()
    health.wait_for("ok")
    assert feed.flush(TIMEOUT)
    broker.wait_for_log(lambda line: line.endswith("cueboard/club/t1/command/+"))
    return feed


def _reload(broker: Mosquitto) -> None:
    since = len(broker.log)
    assert broker._process is not None
    broker._process.send_signal(signal.SIGHUP)
    broker.wait_for_log(lambda line: "Reloading config" in line, since=since)
    # Done once the broker answers a client again.
    probe = subprocess.run(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(broker.port), "-t", "x", "-W", "1",
                            "-i", "cueboard-probe"], capture_output=True, text=True, timeout=60)
    del probe  # refused (TLS, no login) or timed out: either way the broker answered after the reload
