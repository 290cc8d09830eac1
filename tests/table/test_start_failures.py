"""A start that never crashes (issue 24): a journal folder that cannot be used leaves the
table up, showing its match, serving the desk and the feed, with ``devices.journal`` saying
``failed: ...`` and what to do; every input is refused as not saved (nothing unsaved is ever
shown) and the folder is tried again at each input, so fixing it needs no restart.

Before, ``cueboard run`` stopped with a traceback (``NotADirectoryError`` for a folder under a
file, ``PermissionError`` for an immutable one) and systemd restarted it every 3 s.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cueboard.table.daemon import ask_daemon
from tests.helpers.daemon import table_config
from tests.helpers.mosquitto import Mosquitto, Subscriber
from tests.table.test_reliability import Daemon

pytestmark = pytest.mark.system

ROOT = Path(__file__).resolve().parents[2]
WAIT = 60.0


def test_a_journal_folder_under_a_file_leaves_the_table_serving_and_is_tried_again(tmp_path: Path) -> None:
    (tmp_path / "journal").write_text("a file where the folder should be\n")
    config = table_config(tmp_path, journal={"dir": str(tmp_path / "journal" / "table-1")})
    with Daemon(config, boards=[], control=False) as daemon:
        health = daemon.on_engine(daemon.table.device_health)["journal"]
        assert health.startswith(f"failed: Not a directory: {tmp_path / 'journal' / 'table-1'}"), health
        assert f"journal.dir ({tmp_path / 'journal' / 'table-1'}, in {tmp_path / 'cueboard.toml'})" in health
        assert daemon.state()["sides"][0]["name"] == "Ann"  # the table's match, shown
        refused = daemon.send({"type": "pot", "balls": ["red"]})
        assert not refused["ok"] and refused["reason"].startswith("not saved: the journal cannot be written")
        assert daemon.state()["seq"] == 0  # nothing unsaved is shown
        # The technician fixes the folder: the next input goes in, no restart.
        (tmp_path / "journal").unlink()
        assert daemon.send({"type": "pot", "balls": ["red"]})["ok"]
        assert daemon.on_engine(daemon.table.device_health)["journal"] == "ok"
        files = sorted((tmp_path / "journal" / "table-1").glob("match-*.jsonl"))
        lines = [json.loads(line) for line in files[-1].read_bytes().rstrip(b"\0").decode().splitlines()]
        assert [line["type"] for line in lines] == ["match", "pot"]


def _run_with_read_only_journal(config: Path, journal: Path) -> subprocess.Popen[str]:
    """``cueboard run`` with ``journal`` read-only: a read-only bind mount in a mount namespace of
    its own when run as root (root writes through file modes; CI runs as root), else its mode."""
    command = [sys.executable, "-m", "cueboard.cli", "run", "--config", str(config)]
    if os.geteuid() == 0:
        unshare = shutil.which("unshare")
        if unshare is None:
            pytest.fail("unshare is missing: apt-get install util-linux")
        command = [unshare, "-m", "sh", "-c",
                   f'mount --make-rprivate / && mount --bind -o ro "{journal}" "{journal}" && exec "$@"', "sh",
                   *command]
    else:
        journal.chmod(0o555)
    return subprocess.Popen(command, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def test_a_read_only_journal_folder_leaves_cueboard_run_serving_with_devices_journal_failed(
        tmp_path: Path, mosquitto_broker: Mosquitto) -> None:
    journal = tmp_path / "journal"
    journal.mkdir()
    config = tmp_path / "cueboard.toml"
    config.write_text(f"""
[table]
venue = "v"
name = "t1"
[journal]
dir = "{journal}"
[control]
socket = "{tmp_path / 'control.sock'}"
[mqtt]
host = "{mosquitto_broker.host}"
port = {mosquitto_broker.port}
""")
    with Subscriber("cueboard/v/t1/devices", port=mosquitto_broker.port) as devices:
        devices.wait_subscribed()
        proc = _run_with_read_only_journal(config, journal)
        try:
            message = devices.wait_for(lambda m: m.json().get("journal", "").startswith("failed"), WAIT)
            health = message.json()["journal"]
            assert "Read-only file system" in health or "Permission denied" in health, health
            assert f"in {config})" in health and "tried again at each input" in health
            answer = ask_daemon(tmp_path / "control.sock", {"type": "state"}, timeout=WAIT)
            assert answer["ok"] and answer["state"]["seq"] == 0  # serving the desk
            refused = ask_daemon(tmp_path / "control.sock", {"type": "pot", "balls": ["red"]}, timeout=WAIT)
            assert not refused["ok"] and refused["reason"].startswith("not saved")
            proc.send_signal(signal.SIGTERM)
            output, _ = proc.communicate(timeout=WAIT)
        finally:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, output
    assert "Traceback" not in output, output
    # In the log once, though two inputs met it (the start and the refused pot).
    assert sum("journal failed:" in line for line in output.splitlines()) == 1, output
    assert "cueboard serving v/t1" in output


def test_off_a_pi_the_referee_boxes_say_once_how_to_run_without_gpio(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, recwarn: pytest.WarningsRecorder) -> None:
    """gpiozero's own warnings (one per pin library it falls back from) and its BadPinFactory
    every retry were all `cueboard run` said off a Pi: now one line, saying what to do."""
    from gpiozero import Device

    from cueboard.hw.box_config import BoxConfig
    from cueboard.hw.clock import ManualClock
    from cueboard.table.referee_boxes import RETRY_MAX, RefereeBoxes

    compatible = Path("/proc/device-tree/compatible")
    if compatible.exists() and b"raspberrypi" in compatible.read_bytes():
        pytest.skip("a Raspberry Pi has GPIO")
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setattr(Device, "pin_factory", None)  # gpiozero looks for a pin library afresh
    clock = ManualClock(start=1000.0)
    changes: list[str] = []
    boxes = RefereeBoxes([BoxConfig(pins=(5, 6))], lambda press: None, clock=clock, on_health=changes.append)
    with caplog.at_level("INFO", logger="cueboard"):
        boxes.start()
        for _ in range(4):
            clock.advance(RETRY_MAX)
    boxes.close()
    assert boxes.attempts >= 5
    assert boxes.health.startswith("failed: no GPIO here: gpiozero found no pin library that works (lgpio: ")
    assert "GPIOZERO_PIN_FACTORY=mock" in boxes.health and "[[referee_box]]" in boxes.health
    assert changes == [boxes.health]  # one change, reported once
    said = [r.getMessage() for r in caplog.records if "referee boxes" in r.getMessage()]
    assert len(said) == 1 and "GPIOZERO_PIN_FACTORY=mock" in said[0], said
    assert not [w for w in recwarn if type(w.message).__name__ == "PinFactoryFallback"]


def test_a_stop_signal_taken_by_any_thread_stops_cueboard_run(tmp_path: Path) -> None:
    """SIGTERM handed by the kernel to a thread other than the main one (luma's pool, say)
    left the engine asleep on its queue when it had no deadline: `systemctl stop` waited for
    its SIGKILL (found by the read-only test above under load). Sent here to each of the
    daemon's other threads in turn, as tgkill(2) does."""
    import ctypes

    config = tmp_path / "cueboard.toml"
    config.write_text(f'[table]\nname = "t1"\n[journal]\ndir = "{tmp_path / "journal"}"\n'
                      f'[control]\nsocket = "{tmp_path / "control.sock"}"\n')
    libc = ctypes.CDLL(None, use_errno=True)
    proc = subprocess.Popen([sys.executable, "-m", "cueboard.cli", "run", "--config", str(config)], cwd=ROOT,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        for line in proc.stdout:  # serving: the handlers are in place
            if "cueboard serving" in line:
                break
        assert ask_daemon(tmp_path / "control.sock", {"type": "state"}, timeout=WAIT)["ok"]
        others = [int(t.name) for t in Path(f"/proc/{proc.pid}/task").iterdir() if int(t.name) != proc.pid]
        assert others, "the daemon has threads besides the main one"
        assert libc.tgkill(proc.pid, others[-1], signal.SIGTERM) == 0, ctypes.get_errno()
        assert proc.wait(timeout=WAIT) == 0
    finally:
        proc.kill()
        proc.wait()
