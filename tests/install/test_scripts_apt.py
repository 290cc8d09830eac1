"""``scripts/lib.sh``'s apt helpers (issue 24): ``scripts/demo`` carried on without mosquitto
when another process held the package lock, saying nothing clear. apt-get now waits for the
lock (``DPkg::Lock::Timeout``), and a package it could not install is named (the demo then
says it runs on its embedded broker).

apt-get itself is a stand-in here (a script on ``PATH`` recording its arguments, failing as
apt-get does when the lock stays held): the real one would change this machine.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.system

ROOT = Path(__file__).resolve().parents[2]


def run_lib(tmp_path: Path, script: str, *, apt_status: int) -> subprocess.CompletedProcess[str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    calls = tmp_path / "apt-calls"
    apt = bin_dir / "apt-get"
    apt.write_text(f'#!/bin/sh\necho "$*" >> {calls}\nexit {apt_status}\n')
    apt.chmod(0o755)
    sudo = bin_dir / "sudo"  # not root: lib.sh goes through sudo, which runs the command as given
    sudo.write_text('#!/bin/sh\nexec "$@"\n')
    sudo.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin"}
    return subprocess.run(["bash", "-c", f". scripts/lib.sh\n{script}"], cwd=ROOT, env=env, capture_output=True,
                          text=True, check=False)


def test_apt_waits_for_the_package_lock_and_installs(tmp_path: Path) -> None:
    result = run_lib(tmp_path, "apt_install mosquitto", apt_status=0)
    assert result.returncode == 0, result.stderr
    calls = (tmp_path / "apt-calls").read_text().splitlines()
    assert calls == ["-o DPkg::Lock::Timeout=600 update -qq", "-o DPkg::Lock::Timeout=600 install -y -qq mosquitto"]


def test_what_could_not_be_installed_is_said(tmp_path: Path) -> None:
    result = run_lib(tmp_path, "apt_install mosquitto fonts-noto-cjk", apt_status=100)  # the lock stayed held
    assert result.returncode == 1
    assert "COULD NOT INSTALL: mosquitto fonts-noto-cjk (apt-get failed above, or another apt or dpkg held the " \
           "package lock for 10 minutes" in result.stderr
