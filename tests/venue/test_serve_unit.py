"""The venue service's unit (docs/venue-service.md): ``systemd/cueboard-venue.service`` is the
unit ``cueboard venue init`` writes, for the default folder; it passes ``systemd-analyze
verify`` (in a root of its own with the system's units, as tests/venue/test_expire_timer.py
checks the expiry's) and runs ``cueboard venue serve`` on the venue's folder."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from cueboard.cli import parser
from cueboard.venue.command import DEFAULT_DIR
from cueboard.venue.serve_unit import UNIT_NAME, unit_text, write_unit

REPO = Path(__file__).resolve().parents[2]
UNIT = REPO / "systemd" / UNIT_NAME
UNIT_DIRS = (Path("/usr/lib/systemd/system"), Path("/lib/systemd/system"))


def _setting(text: str, key: str) -> str:
    (value,) = [line.partition("=")[2] for line in text.splitlines() if line.startswith(f"{key}=")]
    return value


def test_the_repositorys_unit_is_the_one_init_writes_for_the_default_folder(tmp_path: Path) -> None:
    assert UNIT.read_text() == unit_text(DEFAULT_DIR)
    written = write_unit(tmp_path).read_text()
    assert written == unit_text(str(tmp_path.resolve()))
    command = shlex.split(_setting(written, "ExecStart"))
    args = parser().parse_args(command[1:])
    assert command[1:3] == ["venue", "serve"] and args.venue_func.__name__ == "_serve"
    assert args.dir == str(tmp_path.resolve())
    assert _setting(written, "ReadWritePaths") == str(tmp_path.resolve())  # the archive, in the venue's folder
    assert _setting(written, "Type") == "notify"


@pytest.mark.system
def test_the_venue_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    source = next((d for d in UNIT_DIRS if (d / "multi-user.target").exists()), None)
    if analyze is None or source is None:
        pytest.fail("systemd-analyze and the system's units are needed: apt-get install systemd")
    shutil.copytree(source, tmp_path / "usr/lib/systemd/system", symlinks=True)
    (tmp_path / "etc/systemd/system").mkdir(parents=True)
    shutil.copy(UNIT, tmp_path / "etc/systemd/system" / UNIT.name)
    program = tmp_path / shlex.split(_setting(UNIT.read_text(), "ExecStart"))[0].lstrip("/")
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(0o755)
    env = {**os.environ, "SYSTEMD_PAGER": "cat", "SYSTEMD_COLORS": "0", "LC_ALL": "C.UTF-8"}
    result = subprocess.run([analyze, "verify", f"--root={tmp_path}", UNIT.name], env=env,
                            capture_output=True, text=True, check=False)
    assert (result.returncode, result.stdout + result.stderr) == (0, "")
