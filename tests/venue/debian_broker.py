"""Debian's mosquitto started as Debian starts it, for the venue's and the league's files.

Debian's unit runs ``mosquitto -c /etc/mosquitto/mosquitto.conf`` as root; mosquitto reads that
file and ``include_dir /etc/mosquitto/conf.d`` (where ``docs/security.md`` links the venue's or
the league's conf), then drops to the ``mosquitto`` user before it loads the TLS key, the
password files and the ACL, and reads them all again as that user on a reload. Here the same
layout sits under a folder of its own (``<root>/etc/mosquitto``, ``<root>/var/lib/mosquitto``),
which the ``mosquitto`` user may walk to, and the broker is given no ``user`` line: it drops to
``mosquitto`` as Debian's does. (Debian's file also logs to a file; this one to stderr, which the
test reads.) Root is needed for that, and the ``mosquitto`` user Debian's package makes.
"""

from __future__ import annotations

import os
import pwd
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.helpers.mosquitto import Mosquitto, require_mosquitto


@contextmanager
def debian_root() -> Iterator[Path]:
    """A folder laid out as a Debian machine's, that the ``mosquitto`` user can walk into (a
    test's tmp_path is its owner's only); removed at the end."""
    require_mosquitto()
    if os.geteuid() != 0:
        pytest.skip("starting mosquitto as Debian does (it drops from root to its user) needs root")
    try:
        user = pwd.getpwnam("mosquitto")
    except KeyError:
        pytest.skip("no mosquitto user (Debian's mosquitto package makes it)")
    root = Path(tempfile.mkdtemp(prefix="cueboard-debian-"))
    try:
        root.chmod(0o755)
        (root / "etc" / "mosquitto" / "conf.d").mkdir(parents=True)
        state = root / "var" / "lib" / "mosquitto"
        state.mkdir(parents=True)
        os.chown(state, user.pw_uid, user.pw_gid)
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


class DebianMosquitto(Mosquitto):
    """mosquitto with ``<root>/etc/mosquitto/mosquitto.conf`` as Debian 12 ships it (but the log),
    dropping to the ``mosquitto`` user; ``port``: one of the included conf's listeners."""

    def __init__(self, root: Path, port: int) -> None:
        self.root = root
        super().__init__(root / "etc" / "mosquitto", port=port, config="")

    def _write_config(self) -> None:
        self.config_file.write_text("\n".join([
            "# /etc/mosquitto/mosquitto.conf as Debian 12's mosquitto 2.0.11 ships it, logging to stderr",
            "persistence true", f"persistence_location {self.root}/var/lib/mosquitto/",
            "log_dest stderr", "log_type all", "connection_messages true",
            f"include_dir {self.root}/etc/mosquitto/conf.d", ""]))

    def link(self, conf: Path, name: str) -> None:
        """``ln -s conf /etc/mosquitto/conf.d/<name>``, as docs/security.md says."""
        (self.root / "etc" / "mosquitto" / "conf.d" / name).symlink_to(conf)
