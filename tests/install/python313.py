"""The package's quick tests on Python 3.13: Trixie's own python3.13, in a Trixie root.

Raspberry Pi OS Trixie runs cueboard on Python 3.13; this machine (Debian 12) has 3.11. So CI
(``.ci/run`` sets ``CUEBOARD_PYTHON313=1`` for ``scripts/test``) builds a Debian Trixie root
with ``mmdebstrap`` (tests/install/debian_root.py's development root, the one the install
test builds lgpio in: once, kept in ``.cache/install-test/``),
binds this checkout into it at the same path, makes a venv there with the root's python3.13
(kept in ``.cache/install-test/venv-py313``, so a rerun only checks it), installs the package
and its test tools into it and runs ``pytest -m "not system"`` and any arguments given:

    sudo .venv/bin/python -m tests.install.python313 [pytest arguments...]

Everything the run needs it installs itself; anything missing (root, mmdebstrap, the
archive) is an error with its reason, never a skip. The exit status is pytest's.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import tarfile
import time

from tests.install import debian_root

SUITE = "trixie"
PYTHON = "3.13"
VENV = "/opt/cueboard-py313"


def main(pytest_args: list[str]) -> int:
    if os.geteuid() != 0:
        print("python313: needs root (chroot, mount namespace); CI runs as root", file=sys.stderr)
        return 1
    started = time.monotonic()
    try:
        tarball = debian_root.root_tarball(SUITE, debian_root.DEV_PACKAGES)
    except debian_root.RootError as error:
        print(f"python313: {error}", file=sys.stderr)
        return 1
    built = time.monotonic()
    root = debian_root.CACHE / "root-py313"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    venv = debian_root.CACHE / "venv-py313"
    venv.mkdir(exist_ok=True)
    pip_cache = debian_root.CACHE / "pip"
    pip_cache.mkdir(exist_ok=True)
    try:
        with tarfile.open(tarball) as tar:
            tar.extractall(root, filter="fully_trusted")
        debian_root.trust_this_machine(root)
        repo = str(debian_root.REPO)
        binds = ((debian_root.REPO, repo), (venv, VENV), (pip_cache, "/root/.cache/pip"))
        command = f"""set -e
python3 -c 'import sys; assert sys.version_info[:2] == ({PYTHON.replace(".", ", ")}), sys.version'
[ -x {VENV}/bin/python ] || python3 -m venv {VENV}
{VENV}/bin/python -m pip install --quiet --disable-pip-version-check -e '{repo}[test,demo]'
cd {repo}
echo "== pytest on $({VENV}/bin/python -c 'import sys; print(sys.version.split()[0])') (Debian {SUITE}'s python3)"
exec {VENV}/bin/python -m pytest -p no:cacheprovider -m "not system" {' '.join(map(shlex.quote, pytest_args))}
"""
        result = debian_root.chroot(root, command, binds=binds, capture=False, timeout=3600)
    except debian_root.RootError as error:
        print(f"python313: {error}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"python313: root {built - started:.0f} s, venv and tests {time.monotonic() - built:.0f} s,"
          f" exit status {result.returncode}", file=sys.stderr)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
