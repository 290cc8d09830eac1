"""``systemd/install.sh`` run for real in a fresh Debian root, as on a new Raspberry Pi OS
Lite: Bookworm (Debian 12, Python 3.11) and Trixie (Debian 13, Python 3.13; issue 40), the
same test for each (issue 17, finding 1: the install stopped on Lite, because pip had to
compile spidev and rpi_ws281x and Lite has no ``python3-dev``).

Each root is built from Debian's packages with ``mmdebstrap`` (minbase, plus systemd, udev,
python3: no ``python3-dev``, no compiler; tests/install/debian_root.py), once a session, and
kept as a tarball in ``.cache/install-test/`` (git ignores it) for the next run. Trixie's
also gets a stand-in for Raspberry Pi's archive with ``python3-lgpio`` (PyPI has no lgpio
wheel for 3.13; debian_root.raspberry_pi_archive). Each test unpacks its root afresh and
runs the installer under ``chroot`` in a mount namespace of its own (``unshare -m``:
``/proc`` and a few device nodes mounted for it, nothing outside touched), with

- the installer run as docs/install.md says: ``cd <clone> && bash systemd/install.sh`` (from
  the clone's root, where ``import cueboard`` would find the checkout's ``cueboard/``: issue 24);
- a stub ``systemctl`` that records its calls, and ``/run/systemd/system`` present, so the
  installer takes the path of a booted Pi (daemon-reload, enable, restart). Its ``restart``
  starts the service as systemd would (the unit's ``ExecStart`` as its ``User=`` in its
  ``WorkingDirectory=``, with its ``Environment=``, ``StateDirectory=`` and
  ``RuntimeDirectory=``, and a ``NOTIFY_SOCKET``) and waits for ``READY=1``: it fails, and
  with it the installer, when the daemon exits before that (no GPIO, SPI, keypad or broker
  in this root: the daemon must start all the same);
- a Raspberry Pi OS ``/boot/firmware/config.txt`` (SPI commented out, as shipped);
- apt's and pip's download caches in ``.cache/install-test/`` (faster reruns; the first
  run downloads everything).

It checks every step, then runs the installer again and checks that nothing changed
(idempotence) and that apt was not asked anything; then ``--uninstall``; then an
install on a Pi with ``raspi-config`` (a stub that records ``do_spi``). The test runs
in CI every time (a few minutes with cold caches): it needs root, network access to
Debian's archive and PyPI, and ``mmdebstrap`` (scripts/lib.sh installs it).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.install import debian_root

pytestmark = pytest.mark.system

REPO = debian_root.REPO
CACHE = debian_root.CACHE
# Raspberry Pi OS Bookworm (Debian 12, Python 3.11) and Trixie (Debian 13, Python 3.13, the
# Raspberry Pi OS of a Pi bought since October 2025): each suite and its python3's version.
SUITES = {"bookworm": "3.11", "trixie": "3.13"}
# What a Raspberry Pi OS Lite has that matters here, and nothing to compile with.
PACKAGES = ("systemd", "udev", "python3", "ca-certificates", "kmod")
SOURCE = "/root/cueboard"

# Raspberry Pi OS Bookworm's config.txt as shipped, the part that matters.
CONFIG_TXT = """\
# For more options and information see
# http://rptl.io/configtxt
# Some settings may impact device functionality. See link above for details

# Uncomment some or all of these to enable the optional hardware interfaces
#dtparam=i2c_arm=on
#dtparam=i2s=on
#dtparam=spi=on

# Enable audio (loads snd_bcm2835)
dtparam=audio=on

[cm4]
# Enable host mode on the 2711 built-in XHCI USB controller.
otg_mode=1

[all]
"""

SYSTEMCTL_STUB = """\
#!/usr/bin/python3
# The test's systemctl: records the call; 'restart cueboard.service' starts the unit as
# systemd does for Type=notify and waits for READY=1 (then stops it); the rest succeed.
import grp, os, pwd, shlex, signal, socket, subprocess, sys, time

with open("/var/log/systemctl-calls", "a") as calls:
    calls.write(" ".join(sys.argv[1:]) + "\\n")
if sys.argv[1:] != ["restart", "cueboard.service"]:
    sys.exit(0)
unit = {}
env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
for line in open("/etc/systemd/system/cueboard.service"):
    key, _, value = line.strip().partition("=")
    if key == "Environment":
        env.update(word.split("=", 1) for word in shlex.split(value))
    elif key and not key.startswith("#"):
        unit[key] = value
user = pwd.getpwnam(unit["User"])
for directory, mode in ((unit["StateDirectory"], unit["StateDirectoryMode"]),):
    os.makedirs("/var/lib/" + directory, exist_ok=True)
os.makedirs("/run/" + unit["RuntimeDirectory"], exist_ok=True)
for path in ("/var/lib/" + unit["StateDirectory"], "/run/" + unit["RuntimeDirectory"]):
    os.chown(path, user.pw_uid, user.pw_gid)
    os.chmod(path, 0o750)
notify_path = "/run/test-notify"
if os.path.exists(notify_path):
    os.unlink(notify_path)
notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
notify.bind(notify_path)
os.chmod(notify_path, 0o777)
env["NOTIFY_SOCKET"] = notify_path

def become():
    os.initgroups(user.pw_name, user.pw_gid)
    os.setgid(user.pw_gid)
    os.setuid(user.pw_uid)
    os.umask(0o027)

with open("/var/log/cueboard-start.log", "w") as out:
    daemon = subprocess.Popen(shlex.split(unit["ExecStart"]), cwd=unit["WorkingDirectory"], env=env,
                              preexec_fn=become, stdout=out, stderr=subprocess.STDOUT)
notify.settimeout(1.0)
ready, deadline = False, time.monotonic() + 120
while not ready and daemon.poll() is None and time.monotonic() < deadline:
    try:
        ready = b"READY=1" in notify.recv(4096).split(b"\\n")
    except socket.timeout:
        pass
if ready:
    with open("/var/log/systemctl-calls", "a") as calls:
        calls.write("READY=1 from cueboard\\n")
    # Let it say what it serves (and what it lacks) before it is stopped.
    while daemon.poll() is None and time.monotonic() < deadline:
        if "cueboard serving" in open("/var/log/cueboard-start.log").read():
            break
        time.sleep(0.2)
    daemon.send_signal(signal.SIGTERM)
    daemon.wait(30)
    sys.exit(0)
daemon.kill()
print("cueboard.service failed: exit status", daemon.wait(), file=sys.stderr)
print(open("/var/log/cueboard-start.log").read(), file=sys.stderr)
sys.exit(1)
"""

RASPI_CONFIG_STUB = """\
#!/bin/sh
# The test's raspi-config: 'nonint get_spi' says 1 (off) until 'nonint do_spi 0'.
echo "$*" >> /var/log/raspi-config-calls
case "$*" in
    "nonint get_spi") if [ -e /var/lib/spi-on ]; then echo 0; else echo 1; fi ;;
    "nonint do_spi 0") touch /var/lib/spi-on ;;
    *) exit 1 ;;
esac
"""


@pytest.fixture(scope="session", params=sorted(SUITES))
def root_tarball(request: pytest.FixtureRequest) -> tuple[str, Path]:
    """Each suite's root (its name and tarball), built once a session and kept in
    .cache/install-test/ for the next: some 25 s each to build."""
    suite: str = request.param
    try:
        return suite, debian_root.root_tarball(suite, PACKAGES)
    except debian_root.RootError as error:
        pytest.fail(str(error))


class Pi:
    """An unpacked root, and commands run in it (chroot, own mount namespace)."""

    def __init__(self, root: Path, suite: str) -> None:
        self.root = root
        self.suite = suite

    def run(self, command: str, *, check: bool = True, timeout: float = 1800) -> subprocess.CompletedProcess[str]:
        apt_cache, pip_cache = CACHE / "apt-archives" / self.suite, CACHE / "pip"
        (apt_cache / "partial").mkdir(parents=True, exist_ok=True)
        pip_cache.mkdir(parents=True, exist_ok=True)
        try:
            result = debian_root.chroot(self.root, command, timeout=timeout, binds=(
                (apt_cache, "/var/cache/apt/archives"), (pip_cache, "/root/.cache/pip")))
        except debian_root.RootError as error:
            pytest.fail(str(error))
        if check:
            assert result.returncode == 0, f"{command} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
        return result

    def install(self, *args: str, env: str = "") -> str:
        """The installer as docs/install.md runs it: from the clone's root."""
        result = self.run(f"cd {SOURCE} && {env} bash systemd/install.sh {' '.join(args)}".replace("  ", " "))
        return result.stdout + result.stderr

    def path(self, inside: str) -> Path:
        return self.root / inside.lstrip("/")

    def read(self, inside: str) -> str:
        return self.path(inside).read_text()

    def calls(self, log: str) -> list[str]:
        path = self.path(log)
        calls = path.read_text().splitlines() if path.exists() else []
        path.unlink(missing_ok=True)
        return calls

    def snapshot(self) -> dict[str, str]:
        """What the installer made or changed, file by file (a digest each)."""
        seen: dict[str, str] = {}
        for inside in ("/etc/cueboard", "/etc/systemd/system", "/etc/udev/rules.d", "/etc/modprobe.d",
                       "/boot/firmware", "/etc/passwd", "/etc/group", "/usr/local/bin", "/opt/cueboard/install.md"):
            base = self.path(inside)
            paths = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file() or p.is_symlink())
            for p in paths:
                stat = p.lstat()
                content = os.readlink(p) if p.is_symlink() else hashlib.sha256(p.read_bytes()).hexdigest()
                seen[str(p.relative_to(self.root))] = f"{oct(stat.st_mode)} {stat.st_uid}:{stat.st_gid} {content}"
        return seen


@pytest.fixture
def pi(tmp_path: Path, root_tarball: tuple[str, Path]) -> Iterator[Pi]:
    suite, tarball = root_tarball
    if os.geteuid() != 0:
        pytest.fail("the installer test needs root (chroot, mount namespace); CI runs as root")
    root = tmp_path / "root"
    root.mkdir()
    with tarfile.open(tarball) as tar:
        tar.extractall(root, filter="fully_trusted")
    debian_root.trust_this_machine(root)
    if suite == "trixie":
        # Raspberry Pi OS's own archive, where its python3-lgpio comes from (debian_root.py).
        try:
            shutil.copytree(debian_root.raspberry_pi_archive(suite), root / "srv/raspberrypi-archive")
        except debian_root.RootError as error:
            pytest.fail(str(error))
        (root / "etc/apt/sources.list.d/raspi.list").write_text(
            "deb [trusted=yes] file:/srv/raspberrypi-archive ./\n")
    ignore = shutil.ignore_patterns(".git", ".venv", "node_modules", ".cache", "build", "*.egg-info",
                                    "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis")
    shutil.copytree(REPO, root / SOURCE.lstrip("/"), ignore=ignore, symlinks=True)
    stub = root / "usr/local/sbin/systemctl"
    stub.write_text(SYSTEMCTL_STUB)
    stub.chmod(0o755)
    (root / "run/systemd/system").mkdir(parents=True, exist_ok=True)
    (root / "boot/firmware").mkdir(parents=True, exist_ok=True)
    (root / "boot/firmware/config.txt").write_text(CONFIG_TXT)
    yield Pi(root, suite)
    shutil.rmtree(root, ignore_errors=True)


def test_install_on_a_fresh_lite_then_again_then_uninstall(pi: Pi) -> None:
    # The root is a Lite of its suite (Bookworm's Python 3.11, Trixie's 3.13): no python3-dev,
    # no compiler.
    assert pi.run("python3 -c 'import sys; print(sys.version)'").stdout.startswith(SUITES[pi.suite] + ".")
    assert pi.run("dpkg-query -W -f='${Status}' python3-dev", check=False).stdout.find("ok installed") < 0
    assert pi.run("command -v gcc cc", check=False).returncode != 0

    if pi.suite == "trixie":
        # A Debian Trixie without Raspberry Pi's archive: no lgpio for 3.13 anywhere. Said
        # before anything is installed.
        raspi = pi.path("/etc/apt/sources.list.d/raspi.list")
        raspi.rename(raspi.with_suffix(".off"))
        refused = pi.run(f"cd {SOURCE} && bash systemd/install.sh", check=False)
        assert refused.returncode == 1, refused.stdout + refused.stderr
        assert "PyPI has no wheel of it for Python 3.13" in refused.stderr and "archive.raspberrypi.com" in (
            refused.stderr) and "Nothing was installed." in refused.stderr, refused.stderr
        assert not pi.path("/opt/cueboard").exists() and pi.run("id cueboard", check=False).returncode != 0
        assert "ok installed" not in pi.run("dpkg-query -W -f='${Status}' python3-venv", check=False).stdout
        raspi.with_suffix(".off").rename(raspi)

    first = pi.install()

    # 1. Debian's compiled libraries, seen by the venv; nothing compiled.
    assert "installing Debian packages: python3-venv python3-spidev python3-pil python3-cbor2" in first
    where = pi.run(f"{'/opt/cueboard/venv/bin/python'} -c 'import spidev, PIL, lgpio, cbor2; "
                   "print(spidev.__file__); print(PIL.__file__); print(lgpio.__file__)'").stdout.split()
    assert where[0].startswith("/usr/lib/python3/dist-packages/")  # Debian's spidev
    assert where[1].startswith("/usr/lib/python3/dist-packages/")  # Debian's Pillow
    if pi.suite == "trixie":  # Raspberry Pi's lgpio (no wheel for 3.13 on PyPI); Bookworm: PyPI's
        assert "python3-lgpio" in first and where[2].startswith("/usr/lib/python3/dist-packages/")
    assert "include-system-site-packages = true" in pi.read("/opt/cueboard/venv/pyvenv.cfg")
    assert pi.path(f"/opt/cueboard/venv/lib/python{SUITES[pi.suite]}/site-packages/cueboard").is_dir()
    assert pi.run("dpkg-query -W -f='${Status}' python3-dev", check=False).stdout.find("ok installed") < 0
    assert pi.run("/usr/local/bin/cueboard --help").stdout.startswith("usage: cueboard")

    # 2. The user, in the device groups.
    groups = pi.run("id -nG cueboard").stdout.split()
    assert {"cueboard", "gpio", "spi", "dialout"} <= set(groups)
    assert pi.run("getent passwd cueboard").stdout.strip().endswith(":/var/lib/cueboard:/usr/sbin/nologin")

    # 4. The config from the example, with its keypad named as the udev rule names it.
    assert pi.read("/etc/cueboard/cueboard.toml") == (REPO / "examples/snooker-table.toml").read_text()
    assert 'port = "/dev/cueboard-keypad"' in pi.read("/etc/cueboard/cueboard.toml")
    keymaps = sorted(p.name for p in pi.path("/etc/cueboard/keymaps").iterdir())
    assert keymaps == sorted(p.name for p in (REPO / "examples/keymaps").glob("*.toml"))

    # 5. The udev rule, as shipped.
    assert pi.read("/etc/udev/rules.d/99-cueboard-keypad.rules") == (
        REPO / "systemd/99-cueboard-keypad.rules").read_text()

    # 6. SPI on (the commented line of the shipped config.txt, uncommented), spidev's buffer.
    config = pi.read("/boot/firmware/config.txt").splitlines()
    assert config.count("dtparam=spi=on") == 1 and "#dtparam=spi=on" not in config
    assert config.index("dtparam=spi=on") < config.index("[cm4]")  # where it was: under no filter
    assert pi.read("/etc/modprobe.d/cueboard-spidev.conf") == "options spidev bufsiz=131072\n"
    assert "REBOOT NEEDED (sudo reboot) for: SPI (dtparam=spi=on), spidev's buffer (bufsiz=131072)." in first
    assert "core_freq_min" not in pi.read("/boot/firmware/config.txt")  # not a Pi 4 with a WS2812 board
    # mpremote for the keypad's Pico, in the venv (Bookworm's pip refuses it outside one).
    assert pi.run("/opt/cueboard/venv/bin/mpremote --help", check=False).stdout.startswith("mpremote")

    # 7. The unit, verified, enabled and (re)started.
    assert pi.read("/etc/systemd/system/cueboard.service") == (REPO / "systemd/cueboard.service").read_text()
    calls = pi.calls("/var/log/systemctl-calls")
    assert calls[:4] == ["daemon-reload", "enable cueboard.service", "restart cueboard.service",
                         "READY=1 from cueboard"], calls
    # It started with none of the table's devices here, and said what each lacks.
    started = pi.read("/var/log/cueboard-start.log")
    assert "cueboard serving" in started and "Traceback" not in started, started
    assert "no /dev/spidev0.0: SPI is off" in started  # what to do, for each device
    assert "keypad lost (/dev/cueboard-keypad: " in started

    # Again: nothing changes, apt is asked nothing, the config is kept.
    before = pi.snapshot()
    second = pi.install()
    assert pi.snapshot() == before
    assert "Debian packages: all there" in second and "updating the package lists" not in second
    assert "keeping /etc/cueboard/cueboard.toml" in second
    assert "turning SPI on" not in second and "REBOOT NEEDED" not in second
    assert pi.calls("/var/log/systemctl-calls")[:4] == ["daemon-reload", "enable cueboard.service",
                                                       "restart cueboard.service", "READY=1 from cueboard"]

    # Uninstall: the service, the code, the rule go; the config and the user stay.
    pi.path("/etc/cueboard/cueboard.toml").write_text(pi.read("/etc/cueboard/cueboard.toml") + "# edited\n")
    pi.install("--uninstall")
    for gone in ("/opt/cueboard", "/etc/systemd/system/cueboard.service", "/usr/local/bin/cueboard",
                 "/etc/udev/rules.d/99-cueboard-keypad.rules"):
        assert not pi.path(gone).exists() and not pi.path(gone).is_symlink(), gone
    assert pi.read("/etc/cueboard/cueboard.toml").endswith("# edited\n")
    assert "disable --now cueboard.service" in pi.calls("/var/log/systemctl-calls")

    # On Raspberry Pi OS, raspi-config turns SPI on (here a stub that records it).
    stub = pi.path("/usr/local/bin/raspi-config")
    stub.write_text(RASPI_CONFIG_STUB)
    stub.chmod(0o755)
    third = pi.install()
    assert pi.calls("/var/log/raspi-config-calls") == ["nonint get_spi", "nonint do_spi 0"]
    assert "keeping /etc/cueboard/cueboard.toml" in third and pi.read("/etc/cueboard/cueboard.toml").endswith(
        "# edited\n")
    pi.install()
    assert pi.calls("/var/log/raspi-config-calls") == ["nonint get_spi"]

    # A Pi 4 with a WS2812 board: core_freq_min=500 for it (under [pi4]), once, and said to
    # need the reboot.
    (pi.path("/etc/fake-device-tree")).write_bytes(b"raspberrypi,4-model-b\0brcm,bcm2711\0")
    conf = pi.read("/etc/cueboard/cueboard.toml")
    start = conf.index("[display]")
    end = conf.index("\n[", start + 1)
    pi.path("/etc/cueboard/cueboard.toml").write_text(
        conf[:start] + '[display]\ndevice = "ws2812"\nwidth = 32\nheight = 8\n' + conf[end:])
    fourth = pi.install(env="CUEBOARD_DEVICE_TREE=/etc/fake-device-tree")
    config_txt = pi.read("/boot/firmware/config.txt")
    assert config_txt.endswith("[pi4]\n# cueboard: WS2812 on SPI needs a steady core clock (docs/hardware.md)\n"
                               "core_freq_min=500\n[all]\n"), config_txt
    assert "REBOOT NEEDED (sudo reboot) for: core_freq_min=500." in fourth
    assert "READY=1 from cueboard" in pi.calls("/var/log/systemctl-calls")
    fifth = pi.install(env="CUEBOARD_DEVICE_TREE=/etc/fake-device-tree")
    assert pi.read("/boot/firmware/config.txt") == config_txt and "REBOOT NEEDED" not in fifth


def _bundles(tmp_path: Path) -> Path:
    """A venue's folder made by ``cueboard venue init`` here (two tables, the broker on
    127.0.0.1: no name to resolve in the root), with a join bundle for each."""
    from cueboard.cli import main

    venue = tmp_path / "venue"
    assert main(["venue", "init", "--venue", "club", "--tables", "2", "--host", "127.0.0.1",
                 "--dir", str(venue)]) == 0
    return venue / "joins"


def test_install_join_makes_a_table_of_the_venue_that_starts(pi: Pi, tmp_path: Path) -> None:
    """issue 38: a fresh Pi becomes table t1 of the venue with one command, and its service
    reaches READY=1 on the configuration the bundle brought."""
    joins = _bundles(tmp_path)
    bundle = json.loads((joins / "cueboard-join-club-t1.json").read_text())
    shutil.copy(joins / "cueboard-join-club-t1.json", pi.path("/root/cueboard-join-club-t1.json"))
    # As a club runs it: from the clone, the bundle copied next to it (a relative path).
    out = pi.run(f"cd {SOURCE} && bash systemd/install.sh --join ../cueboard-join-club-t1.json")
    said = out.stdout + out.stderr
    assert "this Pi is table t1 of venue club" in said, said
    assert pi.read("/etc/cueboard/cueboard.toml") == bundle["config"]
    assert 'start = "idle"' in bundle["config"] and "/etc/cueboard/keymaps/referee-box-12.toml" in bundle["config"]
    assert pi.read("/etc/cueboard/mqtt-password") == bundle["password"] + "\n"
    assert pi.read("/etc/cueboard/venue-ca.crt").strip() == bundle["ca"].strip()
    group = pi.run("getent group cueboard").stdout.split(":")[2]
    for name, mode, gid in (("cueboard.toml", 0o640, int(group)), ("mqtt-password", 0o640, int(group)),
                            ("venue-ca.crt", 0o644, None)):
        st = pi.path(f"/etc/cueboard/{name}").stat()
        assert (st.st_mode & 0o777, st.st_uid) == (mode, 0), name
        assert gid is None or st.st_gid == gid, name
    assert pi.path("/etc/cueboard/keymaps/referee-box-12.toml").is_file()
    calls = pi.calls("/var/log/systemctl-calls")
    assert calls[:4] == ["daemon-reload", "enable cueboard.service", "restart cueboard.service",
                         "READY=1 from cueboard"], calls
    started = pi.read("/var/log/cueboard-start.log")
    assert "cueboard serving" in started and "Traceback" not in started, started

    # Another venue's bundle for this Pi: refused by name, nothing changed.
    other = dict(bundle, venue="other", table="t9", config=bundle["config"].replace('venue = "club"', 'venue = "other"')
                 .replace('name = "t1"', 'name = "t9"').replace('username = "t1"', 'username = "t9"'))
    pi.path("/root/cueboard-join-other-t9.json").write_text(json.dumps(other))
    before = pi.snapshot()
    refused = pi.run("cueboard join /root/cueboard-join-other-t9.json", check=False)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "refused (joined_elsewhere)" in refused.stderr and "table t1 of venue club already" in refused.stderr
    assert pi.snapshot() == before
    assert "restart cueboard.service" not in pi.calls("/var/log/systemctl-calls")


def _pi_generation(tmp_path: Path, names: bytes) -> str:
    """install.sh's own pi_generation, run on a device tree of ``names``."""
    script = (Path(__file__).parents[2] / "systemd" / "install.sh").read_text(encoding="utf-8")
    start = script.index("pi_generation() {")
    function = script[start:script.index("\n}\n", start) + 3]
    tree = tmp_path / "compatible"
    tree.write_bytes(names)
    result = subprocess.run(["bash", "-c", f"DEVICE_TREE={tree}\n{function}\npi_generation"], capture_output=True,
                            text=True, check=True)
    return result.stdout.strip()


def test_the_installer_tells_the_pis_apart_for_hub75(tmp_path: Path) -> None:
    assert _pi_generation(tmp_path, b"raspberrypi,5-model-b\0brcm,bcm2712\0") == "5"
    assert _pi_generation(tmp_path, b"raspberrypi,4-model-b\0brcm,bcm2711\0") == "4"
    assert _pi_generation(tmp_path, b"raspberrypi,model-zero-2-w\0brcm,bcm2837\0") == "3"
    assert _pi_generation(tmp_path, b"qemu,virt\0") == ""


def test_hub75_off_a_pi_is_refused_before_anything_is_changed(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("install.sh runs as root")  # CI runs as root
    tree = tmp_path / "compatible"
    tree.write_bytes(b"qemu,virt\0")
    calls = tmp_path / "calls"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("apt-get", "useradd", "groupadd", "install", "systemctl"):
        fake = bin_dir / tool
        fake.write_text(f"#!/bin/sh\necho {tool} >> {calls}\nexit 0\n")
        fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "CUEBOARD_DEVICE_TREE": str(tree)}
    result = subprocess.run(["bash", str(Path(__file__).parents[2] / "systemd" / "install.sh"), "--hub75"],
                            capture_output=True, text=True, env=env, check=False)
    assert result.returncode == 1
    assert "--hub75: this is not a Raspberry Pi" in result.stderr and "Nothing was changed" in result.stderr
    assert not calls.exists()


def test_hub75_builds_a_pinned_library_and_its_drop_in_keeps_the_groups() -> None:
    """--hub75 (issue 24): the same rpi-rgb-led-matrix on every Pi (it has no releases: a commit),
    fetched and checked out by that commit, never a moving branch; and once the library drops
    root with setresgid/setresuid alone, the daemon keeps gpio, spi and dialout, not root's."""
    import re

    script = (REPO / "systemd" / "install.sh").read_text()
    pinned = re.search(r"^RGBMATRIX_COMMIT=([0-9a-f]{40})$", script, re.M)
    assert pinned is not None
    assert 'fetch --quiet --depth 1 "$RGBMATRIX_GIT" "$RGBMATRIX_COMMIT"' in script
    assert 'checkout --quiet --force --detach "$RGBMATRIX_COMMIT"' in script
    assert "git pull" not in script and "git clone" not in script  # no moving branch
    drop_in = (REPO / "systemd" / "hub75-rgbmatrix.conf").read_text().splitlines()
    assert "User=root" in drop_in and "SupplementaryGroups=gpio spi dialout" in drop_in
    assert "Group=cueboard" in (REPO / "systemd" / "cueboard.service").read_text().splitlines()
