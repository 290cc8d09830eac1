"""A Debian root built with ``mmdebstrap`` and commands run in it under ``chroot``.

Shared by the installer's test (tests/install/test_install.py: a Raspberry Pi OS Lite-like
root of Bookworm or Trixie) and the Python 3.13 run (tests/install/python313.py: Trixie's
python3.13). A root is built once and kept as a tarball in ``.cache/install-test/`` (git
ignores it), named by what went into it, so a change of suite or packages builds a new one.
A command runs in a mount namespace of its own (``unshare -m``): ``/proc``, a ``/dev`` of a
few nodes and whatever the caller binds are mounted for it; nothing outside is touched.
Needs root (CI runs as root), ``mmdebstrap`` (scripts/lib.sh installs it) and Debian's archive.
"""

from __future__ import annotations

import fcntl
import hashlib
import shlex
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / ".cache" / "install-test"
MIRROR = "http://deb.debian.org/debian"
CHROOT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# pip's own certificate store does not know a local CA; the system's bundle does.
PIP_CERT = "PIP_CERT=/etc/ssl/certs/ca-certificates.crt"


class RootError(RuntimeError):
    """A root could not be built or a tool it needs is missing (the message says which)."""


def need(tool: str, package: str) -> str:
    path = shutil.which(tool)
    if path is None:
        raise RootError(f"{tool} is missing: apt-get install {package} (scripts/lib.sh installs it)")
    return path


def root_tarball(suite: str, packages: Sequence[str]) -> Path:
    """The root of ``suite`` with ``packages`` (minbase), built once and kept in the cache."""
    key = hashlib.sha256(f"{suite} {MIRROR} {' '.join(packages)}".encode()).hexdigest()[:12]
    tarball = CACHE / f"{suite}-{key}.tar"
    CACHE.mkdir(parents=True, exist_ok=True)
    # CI builds the Trixie development root from two processes at once (the install test and
    # the 3.13 run, side by side): the second waits for the first's tarball.
    with open(tarball.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not tarball.exists():
            _build(suite, packages, tarball)
    return tarball


def _build(suite: str, packages: Sequence[str], tarball: Path) -> None:
    partial = tarball.with_suffix(".partial.tar")
    result = subprocess.run([need("mmdebstrap", "mmdebstrap"), "--variant=minbase", "--quiet",
                             f"--include={','.join(packages)}", suite, str(partial), MIRROR],
                            capture_output=True, text=True, timeout=1800, check=False)
    if result.returncode != 0:
        raise RootError(f"mmdebstrap {suite} failed:\n{result.stdout}\n{result.stderr}")
    partial.rename(tarball)


def trust_this_machine(root: Path) -> None:
    """The root trusts what this machine's network needs (an intercepting proxy's CA, say):
    the local CAs and the bundle made with them; and resolves names as this machine does."""
    shutil.copy("/etc/resolv.conf", root / "etc/resolv.conf")
    for local_ca in Path("/usr/local/share/ca-certificates").glob("*.crt"):
        shutil.copy(local_ca, root / "usr/local/share/ca-certificates")
    shutil.copy("/etc/ssl/certs/ca-certificates.crt", root / "etc/ssl/certs/ca-certificates.crt")


def chroot(root: Path, command: str, *, binds: Sequence[tuple[Path, str]] = (), env: Sequence[str] = (),
           timeout: float = 1800, capture: bool = True) -> subprocess.CompletedProcess[str]:
    """``command`` (bash) in ``root``, run to its end: see :func:`chroot_argv`."""
    return subprocess.run(chroot_argv(root, command, binds=binds, env=env),
                          capture_output=capture, text=True, timeout=timeout, check=False)


def chroot_argv(root: Path, command: str, *, binds: Sequence[tuple[Path, str]] = (),
                env: Sequence[str] = ()) -> list[str]:
    """The command line that runs ``command`` (bash) in ``root``, with each (outside, inside) of
    ``binds`` bind-mounted (a server started with Popen, as tests/ha/hass.py does).

    ``/dev`` is a tmpfs with null, zero, full, random, urandom and tty, a pty instance of its
    own (``/dev/pts``, ``/dev/ptmx``) and ``/dev/shm``; ``/tmp`` is a fresh tmpfs."""
    mounts = []
    for outside, inside in binds:
        target = root / inside.lstrip("/")
        target.mkdir(parents=True, exist_ok=True)
        # made again after /tmp's tmpfs is mounted: a checkout under /tmp (CI's clone) is
        # bound below it, and the tmpfs hides the folder made here
        mounts.append(f"mkdir -p {shlex.quote(str(target))} && mount --bind {shlex.quote(str(outside))} "
                      f"{shlex.quote(str(target))}")
    setup = f"""set -e
mount --make-rprivate /
mount -t proc proc {root}/proc
mount -t tmpfs -o mode=0755 tmpfs {root}/dev
for node in null zero full random urandom tty; do touch {root}/dev/$node; mount --bind /dev/$node {root}/dev/$node; done
mkdir -p {root}/dev/pts {root}/dev/shm
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts {root}/dev/pts
ln -s pts/ptmx {root}/dev/ptmx
mount -t tmpfs -o mode=1777 tmpfs {root}/dev/shm
mount -t tmpfs -o mode=1777 tmpfs {root}/tmp
{chr(10).join(mounts)}
exec chroot {root} /usr/bin/env -i PATH={CHROOT_PATH} HOME=/root LANG=C.UTF-8 {PIP_CERT} {' '.join(env)} bash -c "$1"
"""
    return [need("unshare", "util-linux"), "-m", "sh", "-c", setup, "sh", command]


# Raspberry Pi OS takes lgpio from Raspberry Pi's own archive (archive.raspberrypi.com):
# python3-lgpio, built for its Python. Debian has no python3-lgpio, and PyPI's lgpio has no
# wheel for Python 3.13, so a Trixie root needs that archive; it cannot be reached from here,
# so the test stands in for it with a local one holding python3-lgpio built the same way: from
# lgpio's own source (PyPI's sdist, the C library linked in) in a build root of the suite.
LGPIO_VERSION = "0.2.2.0"
# One development root of the suite serves both the lgpio build and the 3.13 run
# (tests/install/python313.py): one root to build in CI, not two. Besides the compiler: what
# the quick tests call besides Python; libfribidi0 because Pillow lays text out with raqm only
# where the system has fribidi (Raspberry Pi OS has it: python3-pil needs it), and without it
# the boards' smooth text is drawn otherwise and the golden images differ.
DEV_PACKAGES = ("python3-dev", "python3-setuptools", "python3-venv", "gcc", "libc6-dev", "swig", "dpkg-dev",
                "ca-certificates", "systemd", "udev", "shellcheck", "openssl", "libfribidi0")
BUILD_LGPIO = f"""set -e
cd /tmp && tar -xzf /src/lgpio-{LGPIO_VERSION}.tar.gz && cd lgpio-{LGPIO_VERSION}
PYPI=1 python3 setup.py --quiet build_ext --inplace >/dev/null
pkg=/tmp/pkg; site=$pkg/usr/lib/python3/dist-packages
mkdir -p $site $pkg/DEBIAN
cp lgpio.py _lgpio.*.so $site/
cp -r lgpio.egg-info $site/lgpio-{LGPIO_VERSION}.egg-info
py=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
cat > $pkg/DEBIAN/control <<CONTROL
Package: python3-lgpio
Version: {LGPIO_VERSION}-1+cueboard.test
Architecture: $(dpkg --print-architecture)
Maintainer: cueboard tests <root@localhost>
Depends: python3 (>= $py), python3 (<< $py.99)
Section: python
Priority: optional
Description: lgpio for Python $py (built by cueboard's tests, as Raspberry Pi's archive has it)
CONTROL
mkdir -p /out && dpkg-deb --root-owner-group --build $pkg /out/python3-lgpio.deb >/dev/null
cd /out && dpkg-scanpackages --multiversion . > Packages 2>/dev/null
"""


def raspberry_pi_archive(suite: str) -> Path:
    """A local apt archive (``deb [trusted=yes] file:<it> ./``) with python3-lgpio for ``suite``:
    built once (a build root and a compile, about a minute) and kept in the cache."""
    archive = CACHE / f"raspberrypi-archive-{suite}-lgpio-{LGPIO_VERSION}"
    if (archive / "Packages").exists():
        return archive
    source = CACHE / "sources"
    sdist = source / f"lgpio-{LGPIO_VERSION}.tar.gz"
    if not sdist.exists():
        result = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                                 "--no-binary=:all:", "--dest", str(source), f"lgpio=={LGPIO_VERSION}"],
                                capture_output=True, text=True, timeout=600, check=False)
        if result.returncode != 0 or not sdist.exists():
            raise RootError(f"pip could not download lgpio {LGPIO_VERSION}'s source:\n{result.stderr}")
    build_root = CACHE / f"build-{suite}"
    shutil.rmtree(build_root, ignore_errors=True)
    build_root.mkdir(parents=True)
    partial = archive.with_name(archive.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir()
    try:
        with tarfile.open(root_tarball(suite, DEV_PACKAGES)) as tar:
            tar.extractall(build_root, filter="fully_trusted")
        result = chroot(build_root, BUILD_LGPIO, binds=((source, "/src"), (partial, "/out")), timeout=1800)
        if result.returncode != 0:
            raise RootError(f"building python3-lgpio for {suite} failed:\n{result.stdout}\n{result.stderr}")
    finally:
        shutil.rmtree(build_root, ignore_errors=True)
    partial.rename(archive)
    return archive
