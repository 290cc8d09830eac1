"""The expiry timer the venue's broker machine runs (docs/security.md, "Scorer cards"):
``systemd/cueboard-venue-expire.{service,timer}`` pass ``systemd-analyze verify`` (in a root of
their own with the system's units, as tests/install/test_systemd.py checks the daemon's) and run
``cueboard venue expire`` on the venue's folder every minute, a command the CLI has."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from cueboard.cli import parser
from cueboard.venue.command import DEFAULT_DIR

REPO = Path(__file__).resolve().parents[2]
SERVICE = REPO / "systemd" / "cueboard-venue-expire.service"
TIMER = REPO / "systemd" / "cueboard-venue-expire.timer"
UNIT_DIRS = (Path("/usr/lib/systemd/system"), Path("/lib/systemd/system"))


def _setting(path: Path, key: str) -> str:
    (value,) = [line.partition("=")[2] for line in path.read_text().splitlines() if line.startswith(f"{key}=")]
    return value


@pytest.mark.system
def test_the_expiry_units_pass_systemd_analyze_verify(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    source = next((d for d in UNIT_DIRS if (d / "timers.target").exists()), None)
    if analyze is None or source is None:
        pytest.fail("systemd-analyze and the system's units are needed: apt-get install systemd")
    shutil.copytree(source, tmp_path / "usr/lib/systemd/system", symlinks=True)
    (tmp_path / "etc/systemd/system").mkdir(parents=True)
    for unit in (SERVICE, TIMER):
        shutil.copy(unit, tmp_path / "etc/systemd/system" / unit.name)
    program = tmp_path / shlex.split(_setting(SERVICE, "ExecStart"))[0].lstrip("/")
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(0o755)
    env = {**os.environ, "SYSTEMD_PAGER": "cat", "SYSTEMD_COLORS": "0", "LC_ALL": "C.UTF-8"}
    result = subprocess.run([analyze, "verify", f"--root={tmp_path}", SERVICE.name, TIMER.name], env=env,
                            capture_output=True, text=True, check=False)
    assert (result.returncode, result.stdout + result.stderr) == (0, "")


def test_the_timer_runs_venue_expire_on_the_venues_folder_every_minute() -> None:
    command = shlex.split(_setting(SERVICE, "ExecStart"))
    assert command[1:] == ["venue", "expire", "--dir", DEFAULT_DIR]
    args = parser().parse_args(command[1:])
    assert args.venue_func.__name__ == "_expire" and args.dir == DEFAULT_DIR
    assert _setting(SERVICE, "ReadWritePaths") == DEFAULT_DIR  # it may write the venue's folder only
    assert _setting(TIMER, "OnCalendar") == "minutely"
