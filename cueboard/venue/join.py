"""``cueboard join BUNDLE``: a Pi becomes a table of the venue (:mod:`.bundle`).

Writes ``cueboard.toml`` (0640 root:cueboard), ``mqtt-password`` (0640 root:cueboard: the daemon
reads it, nobody else) and ``venue-ca.crt`` (0644) in ``/etc/cueboard``, and the example keymaps
the configuration names in ``/etc/cueboard/keymaps`` where there are none yet (so local edits
survive, as with systemd/install.sh); then restarts the service. A configuration already
joined to another venue's table (an ``[mqtt]`` login that is not this bundle's table) is
refused unless ``--force``: a Pi moved between venues by mistake would score for the wrong
one. Every check comes before the first write: a refused bundle changes nothing.
"""

from __future__ import annotations

import argparse
import grp
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import TextIO

from cueboard.common.errors import JoinRefused, VenueError
from cueboard.common.resources import examples_dir
from cueboard.venue.bundle import ETC, Bundle, read_bundle

__all__ = ["JoinRefused", "add_arguments", "join", "run"]

DEFAULT_RESTART = "systemctl restart cueboard.service"


def _joined_to(conf: Path) -> tuple[str, str] | None:
    """The (venue, table) an existing configuration logs in as, or None: not a venue's table
    (the installer's example has no login) or not readable as TOML (replaced, kept aside)."""
    try:
        raw = tomllib.loads(conf.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    table, mqtt = raw.get("table"), raw.get("mqtt")
    if not isinstance(table, dict) or not isinstance(mqtt, dict) or not mqtt.get("username"):
        return None
    return str(table.get("venue", "venue")), str(table.get("name", ""))


def _keymaps(config: str) -> list[str]:
    """The keymap files the configuration names under ``/etc/cueboard/keymaps``."""
    raw = tomllib.loads(config)
    rows: list[object] = []
    for key in ("referee_box", "keypad"):
        value = raw.get(key, [])
        rows.extend(value if isinstance(value, list) else [value])
    names = [str(r["keymap"]) for r in rows if isinstance(r, dict) and "keymap" in r]
    return [n.removeprefix(f"{ETC}/keymaps/") for n in names if n.startswith(f"{ETC}/keymaps/")]


def _write(path: Path, text: str, mode: int, gid: int) -> None:
    """Written whole or not at all (a temporary file renamed), with its mode and group first."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(fd, mode)
        os.fchown(fd, -1, gid)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def join(bundle_path: Path, *, root: Path = Path("/"), group: str = "cueboard", force: bool = False,
         out: TextIO | None = None) -> Bundle:
    """Apply the bundle under ``root`` (``/``; a folder for an image being built, or a test)."""
    bundle = read_bundle(bundle_path)
    etc = root / ETC.lstrip("/")
    conf = etc / "cueboard.toml"
    try:
        gid = grp.getgrnam(group).gr_gid
    except KeyError:
        raise JoinRefused(f"--group: no group {group!r} on this machine: install cueboard first (sudo bash "
                          "systemd/install.sh --join BUNDLE does both)", "no_group") from None
    names = _keymaps(bundle.config)
    missing = [n for n in names
               if not (examples_dir() / "keymaps" / n).is_file() and not (etc / "keymaps" / n).is_file()]
    if missing:
        raise JoinRefused(f"{bundle_path}: its config names keymaps this cueboard does not have: {', '.join(missing)} "
                          "(update cueboard on the Pi)", "unknown_keymap")
    joined = _joined_to(conf) if conf.exists() else None
    if joined is not None and joined != (bundle.venue, bundle.table) and not force:
        raise JoinRefused(f"{conf} is table {joined[1]} of venue {joined[0]} already; {bundle_path} is table "
                          f"{bundle.table} of venue {bundle.venue}: nothing changed (--force replaces it)",
                          "joined_elsewhere")
    etc.mkdir(mode=0o750, parents=True, exist_ok=True)
    (etc / "keymaps").mkdir(mode=0o750, exist_ok=True)
    for name in names:
        target = etc / "keymaps" / name
        if not target.exists():
            _write(target, (examples_dir() / "keymaps" / name).read_text(encoding="utf-8"), 0o640, gid)
    if conf.exists() and joined is None:
        # The installer's example or a hand-written file: kept beside, once, for whoever edited it.
        kept = conf.with_name("cueboard.toml.before-join")
        if not kept.exists():
            shutil.copy2(conf, kept)
    _write(etc / "venue-ca.crt", bundle.ca if bundle.ca.endswith("\n") else bundle.ca + "\n", 0o644, -1)
    _write(etc / "mqtt-password", bundle.password + "\n", 0o640, gid)
    _write(conf, bundle.config, 0o640, gid)
    print(f"this Pi is table {bundle.table} of venue {bundle.venue}: {conf}, {etc}/mqtt-password, "
          f"{etc}/venue-ca.crt", file=sys.stdout if out is None else out)
    return bundle


def _restart(args: argparse.Namespace, out: TextIO) -> int:
    if args.no_restart:
        print("not restarted (--no-restart): systemctl restart cueboard makes the table start as joined", file=out)
        return 0
    try:
        done = subprocess.run(shlex.split(args.restart), capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        print(f"cueboard join: the files are written, but {args.restart!r} failed: {exc}; restart it yourself "
              "(systemctl restart cueboard)", file=sys.stderr)
        return 1
    if done.returncode != 0:
        print(f"cueboard join: the files are written, but {args.restart!r} failed (status {done.returncode}): "
              f"{done.stderr.strip()[-300:]}; see journalctl -u cueboard", file=sys.stderr)
        return 1
    print(f"restarted ({args.restart}): the table is on the venue's broker, idle, free for the desk", file=out)
    return 0


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("bundle", help="the table's bundle from cueboard venue add-table "
                   "(cueboard-join-<venue>-<table>.json)")
    p.add_argument("--force", action="store_true", help="replace a configuration joined to another table or venue")
    p.add_argument("--root", default="/", help="write under this folder instead of / (an image being built)")
    p.add_argument("--group", default="cueboard", help="the service's group, that may read the files (cueboard)")
    p.add_argument("--restart", default=DEFAULT_RESTART, metavar="COMMAND",
                   help=f"how the service is restarted afterwards (default: {DEFAULT_RESTART})")
    p.add_argument("--no-restart", action="store_true", help="write the files only")


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Exit status: 0 joined, 1 written but the restart failed, 2 refused (the message says why)."""
    out = sys.stdout if out is None else out
    try:
        join(Path(args.bundle), root=Path(args.root), group=args.group, force=args.force, out=out)
    except JoinRefused as exc:
        print(f"cueboard join: refused ({exc.short}): {exc}", file=sys.stderr)
        return 2
    except VenueError as exc:
        print(f"cueboard join: refused (bad_bundle): {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"cueboard join: cannot write {exc.filename or ''}: {exc.strerror or exc} (run it as root: sudo)",
              file=sys.stderr)
        return 2
    return _restart(args, out)
