"""The systemd service: the unit file, its installer, and ``cueboard.common.systemd`` (sd_notify).

The unit is checked with systemd's own tools: ``systemd-analyze verify`` must print
nothing, and ``systemd-analyze security --offline=true`` must rate the exposure 4.0 or
less. They come with Debian's ``systemd`` package; without it these tests fail, saying
so, rather than skip (CI installs it).

``verify`` insists that the ``ExecStart=`` program exists, and ``/opt/cueboard/venv``
exists only on an installed Pi. So the tests build a throw-away root for ``verify
--root=``: the unit, unchanged, in ``etc/systemd/system``; an executable stub at the
``ExecStart=`` path; and a copy of this machine's ``/usr/lib/systemd/system`` for the
units it names (``network.target``, ``modprobe@.service``...). The unit checked is the
file we ship, byte for byte.

The sd_notify tests bind a real ``AF_UNIX`` datagram socket, as systemd does, and read
exactly what arrived, with the sender's PID from ``SCM_CREDENTIALS`` (what
``NotifyAccess=main`` checks). Datagrams on a unix socket are queued by the time
``send`` returns, so every read is non-blocking: no sleeps, no time-outs.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cueboard.common import systemd

REPO = Path(__file__).resolve().parents[2]
UNIT = REPO / "systemd" / "cueboard.service"
INSTALL = REPO / "systemd" / "install.sh"
INSTALL_DOC = REPO / "docs" / "install.md"
EXPOSURE_LIMIT = 4.0
SYSTEM_UNIT_DIRS = (Path("/usr/lib/systemd/system"), Path("/lib/systemd/system"))


# --- the unit file, read the way systemd reads it (enough of it) -----------------------

def unit_settings(text: str) -> dict[str, list[str]]:
    """``Key`` -> every value assigned to it, in order, across sections (no continuation lines)."""
    settings: dict[str, list[str]] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;[":
            continue
        key, _, value = line.partition("=")
        settings.setdefault(key.strip(), []).append(value.strip())
    return settings


def exec_start_program(text: str) -> str:
    """The program of the (single) ``ExecStart=`` line, without systemd's prefixes (``-@:+!``)."""
    (command,) = unit_settings(text)["ExecStart"]
    return command.lstrip("-@:+!").split()[0]


def systemd_analyze() -> str:
    path = shutil.which("systemd-analyze")
    if path is None:
        pytest.fail("systemd-analyze is missing: install the Debian package 'systemd' "
                    "(apt-get install systemd); CI's .ci/run installs it")
    return path


def run_analyze(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SYSTEMD_PAGER": "cat", "SYSTEMD_COLORS": "0", "LC_ALL": "C.UTF-8"}
    return subprocess.run([systemd_analyze(), *args], capture_output=True, text=True, env=env, check=False)


def make_verify_root(root: Path, unit_text: str, *, with_program: bool = True) -> None:
    """A root for ``systemd-analyze verify --root=``: the unit, the system's units, the program."""
    source = next((d for d in SYSTEM_UNIT_DIRS if (d / "multi-user.target").exists()), None)
    if source is None:
        pytest.fail("no systemd unit directory (/usr/lib/systemd/system): install the Debian package 'systemd'")
    shutil.copytree(source, root / "usr/lib/systemd/system", symlinks=True)
    (root / "etc/systemd/system").mkdir(parents=True)
    (root / "etc/systemd/system" / UNIT.name).write_text(unit_text, encoding="utf-8")
    if with_program:
        program = root / exec_start_program(unit_text).lstrip("/")
        program.parent.mkdir(parents=True)
        program.write_text("#!/bin/sh\nexit 0\n")
        program.chmod(0o755)


def verify(root: Path) -> subprocess.CompletedProcess[str]:
    return run_analyze("verify", f"--root={root}", UNIT.name)


@pytest.mark.system
def test_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    make_verify_root(tmp_path, UNIT.read_text(encoding="utf-8"))
    result = verify(tmp_path)
    assert (result.returncode, result.stdout + result.stderr) == (0, "")


@pytest.mark.system
def test_verify_would_catch_a_missing_program(tmp_path: Path) -> None:
    # The control for the test above: verify really looks for ExecStart= inside the root.
    make_verify_root(tmp_path, UNIT.read_text(encoding="utf-8"), with_program=False)
    result = verify(tmp_path)
    assert result.returncode != 0
    assert exec_start_program(UNIT.read_text(encoding="utf-8")) in result.stderr


@pytest.mark.system
def test_verify_would_catch_a_misspelt_setting(tmp_path: Path) -> None:
    # Unknown keys are only a warning (exit 0): hence the test above wants no output at all.
    make_verify_root(tmp_path, UNIT.read_text(encoding="utf-8").replace("NoNewPrivileges=", "NoNewPrivilege="))
    result = verify(tmp_path)
    assert "Unknown key" in result.stderr


PWM_DROP_IN = REPO / "systemd" / "ws2812-pwm.conf"


@pytest.mark.system
def test_the_pwm_drop_in_verifies_with_the_unit(tmp_path: Path) -> None:
    make_verify_root(tmp_path, UNIT.read_text(encoding="utf-8"))
    drop_ins = tmp_path / "etc/systemd/system" / f"{UNIT.name}.d"
    drop_ins.mkdir()
    (drop_ins / PWM_DROP_IN.name).write_text(PWM_DROP_IN.read_text(encoding="utf-8"), encoding="utf-8")
    result = verify(tmp_path)
    assert (result.returncode, result.stdout + result.stderr) == (0, "")
    s = unit_settings(PWM_DROP_IN.read_text(encoding="utf-8"))
    assert s["User"] == ["root"] and s["CapabilityBoundingSet"] == ["CAP_SYS_RAWIO"]
    assert s["DeviceAllow"] == ["/dev/mem rw", "/dev/vcio rw"]


@pytest.mark.system
@pytest.mark.parametrize("name", ["hub75-rgbmatrix.conf", "hub75-pio.conf"])
def test_the_hub75_drop_ins_verify_with_the_unit(tmp_path: Path, name: str) -> None:
    drop_in = REPO / "systemd" / name
    make_verify_root(tmp_path, UNIT.read_text(encoding="utf-8"))
    drop_ins = tmp_path / "etc/systemd/system" / f"{UNIT.name}.d"
    drop_ins.mkdir()
    (drop_ins / name).write_text(drop_in.read_text(encoding="utf-8"), encoding="utf-8")
    chown = tmp_path / "bin/chown"
    chown.parent.mkdir(parents=True, exist_ok=True)
    chown.write_text("#!/bin/sh\nexit 0\n")
    chown.chmod(0o755)
    result = verify(tmp_path)
    assert (result.returncode, result.stdout + result.stderr) == (0, "")
    s = unit_settings(drop_in.read_text(encoding="utf-8"))
    # Only what the library needs; the sandbox of the unit (ProtectSystem=, NoNewPrivileges= ...) stays.
    assert not {"ProtectSystem", "NoNewPrivileges", "PrivateTmp", "DevicePolicy"} & set(s)
    if name == "hub75-pio.conf":
        assert s["DeviceAllow"] == ["/dev/pio0 rw"] and "User" not in s
    else:
        assert s["User"] == ["root"] and s["DeviceAllow"] == ["/dev/mem rw", "/dev/gpiomem rw"]
        assert set(s["CapabilityBoundingSet"][0].split()) == {"CAP_SYS_RAWIO", "CAP_SYS_NICE", "CAP_SETUID",
                                                              "CAP_SETGID"}


@pytest.mark.system
def test_security_exposure_is_at_most_4() -> None:
    # --threshold is in tenths: the command itself fails above 4.0 as well.
    result = run_analyze("security", "--offline=true", f"--threshold={round(EXPOSURE_LIMIT * 10)}",
                         "--no-pager", str(UNIT))
    report = result.stdout + result.stderr
    found = re.search(r"Overall exposure level for \S+: (\d+(?:\.\d+)?)", report)
    assert found, f"no exposure figure in:\n{report}"
    exposure = float(found.group(1))
    assert exposure <= EXPOSURE_LIMIT, report
    assert result.returncode == 0, report


def test_unit_is_a_notify_service_with_a_watchdog() -> None:
    s = unit_settings(UNIT.read_text(encoding="utf-8"))
    assert s["Type"] == ["notify"]
    assert s["NotifyAccess"] == ["main"]
    assert s["WatchdogSec"] and s["WatchdogSec"][-1] not in ("0", "infinity")
    assert s["Restart"] == ["on-failure"]  # covers the watchdog's kill
    assert s["User"] == ["cueboard"]
    assert s["StateDirectory"] == ["cueboard"]
    assert s["RuntimeDirectory"] == ["cueboard"]


def test_lgpio_pipes_go_to_the_runtime_directory() -> None:
    # lgpio makes its FIFOs in $LG_WD and chdir()s there: it must be writable, i.e. /run/cueboard.
    s = unit_settings(UNIT.read_text(encoding="utf-8"))
    environment = " ".join(s["Environment"]).split()
    assert "LG_WD=/run/cueboard" in environment
    assert s["WorkingDirectory"] == ["/run/cueboard"]


def test_modules_behind_the_device_allow_list_load_first() -> None:
    # char-ttyACM etc. resolve through /proc/devices at start: their drivers must be loaded.
    s = unit_settings(UNIT.read_text(encoding="utf-8"))
    wants = " ".join(s["Wants"]).split()
    after = " ".join(s["After"]).split()
    for module in ("cdc_acm", "usbserial", "spidev"):
        assert f"modprobe@{module}.service" in wants
        assert f"modprobe@{module}.service" in after
    allowed = {entry.split()[0] for entry in s["DeviceAllow"]}
    # No char-*gpiomem: WS2812 panels go through spidev (hw/ws2812_spi.py), not rpi_ws281x.
    assert allowed == {"char-gpiochip", "char-spi", "char-ttyACM", "char-ttyUSB"}


def test_unit_and_installer_agree_on_paths() -> None:
    script = INSTALL.read_text(encoding="utf-8")
    variables = dict(re.findall(r"^([A-Z_]+)=(\S+)$", script, re.MULTILINE))
    venv = variables["VENV"].replace("$PREFIX", variables["PREFIX"])
    conf = variables["CONF"].replace("$CONF_DIR", variables["CONF_DIR"])
    (command,) = unit_settings(UNIT.read_text(encoding="utf-8"))["ExecStart"]
    assert command == f"{venv}/bin/cueboard run --config {conf}"
    assert variables["UNIT"] == f"/etc/systemd/system/{UNIT.name}"
    assert variables["SERVICE_USER"] == unit_settings(UNIT.read_text(encoding="utf-8"))["User"][0]


# --- the installer ---------------------------------------------------------------------

@pytest.mark.system
def test_install_script_parses() -> None:
    result = subprocess.run(["bash", "-n", str(INSTALL)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


@pytest.mark.system
def test_install_script_passes_shellcheck() -> None:
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck is not installed (Debian package 'shellcheck')")
    result = subprocess.run([shellcheck, str(INSTALL)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_install_doc_gives_the_one_command() -> None:
    assert "sudo bash systemd/install.sh" in INSTALL_DOC.read_text(encoding="utf-8")


# --- sd_notify -------------------------------------------------------------------------

UCRED = struct.Struct("iII")  # struct ucred: pid, uid, gid


class Listener:
    """systemd's end of the notify socket: ``SO_PASSCRED`` on, reads without waiting."""

    def __init__(self, address: str | bytes) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        self.sock.bind(address)

    def receive(self) -> tuple[bytes, int]:
        """The next datagram and the sender's PID; ``BlockingIOError`` if none is queued."""
        data, ancillary, _, _ = self.sock.recvmsg(4096, socket.CMSG_SPACE(UCRED.size), socket.MSG_DONTWAIT)
        pids = [UCRED.unpack(payload[:UCRED.size])[0] for level, kind, payload in ancillary
                if (level, kind) == (socket.SOL_SOCKET, socket.SCM_CREDENTIALS)]
        assert len(pids) == 1, ancillary
        return data, pids[0]

    def messages(self) -> list[bytes]:
        """Every datagram queued now, each checked to come from this process."""
        found: list[bytes] = []
        while True:
            try:
                data, pid = self.receive()
            except BlockingIOError:
                return found
            assert pid == os.getpid()
            found.append(data)


@pytest.fixture
def listener(monkeypatch: pytest.MonkeyPatch) -> Iterator[Listener]:
    # A short directory: sun_path holds 108 bytes, and pytest's tmp_path can be longer.
    with tempfile.TemporaryDirectory(prefix="cueboard-notify-") as directory:
        path = os.path.join(directory, "notify")
        end = Listener(path)
        monkeypatch.setenv("NOTIFY_SOCKET", path)
        try:
            yield end
        finally:
            end.sock.close()


@pytest.mark.parametrize(("call", "expected"), [
    (systemd.ready, b"READY=1"),
    (systemd.stopping, b"STOPPING=1"),
    (systemd.watchdog_ping, b"WATCHDOG=1"),
    (lambda: systemd.status("frame 3: 45-12, break 37"), b"STATUS=frame 3: 45-12, break 37"),
    (lambda: systemd.notify("READY=1\nSTATUS=first frame shown"), b"READY=1\nSTATUS=first frame shown"),
])
def test_each_call_sends_exactly_its_message(listener: Listener, call: Callable[[], bool],
                                             expected: bytes) -> None:
    assert call() is True
    assert listener.messages() == [expected]


def test_messages_arrive_one_datagram_each_in_order(listener: Listener) -> None:
    systemd.ready()
    systemd.watchdog_ping()
    systemd.watchdog_ping()
    systemd.stopping()
    assert listener.messages() == [b"READY=1", b"WATCHDOG=1", b"WATCHDOG=1", b"STOPPING=1"]


def test_status_cannot_smuggle_in_another_assignment(listener: Listener) -> None:
    systemd.status("all well\nREADY=1")
    assert listener.messages() == [b"STATUS=all well READY=1"]


def test_status_text_is_utf8(listener: Listener) -> None:
    systemd.status("Ó Súilleabháin 61–40")
    assert listener.messages() == ["STATUS=Ó Súilleabháin 61–40".encode()]


def test_a_ping_from_the_engine_thread_comes_from_the_main_process(listener: Listener) -> None:
    # NotifyAccess=main accepts only the main PID; a thread's datagram carries the process's.
    results: list[bool] = []
    engine = threading.Thread(target=lambda: results.append(systemd.watchdog_ping()))
    engine.start()
    engine.join()
    assert results == [True]
    data, pid = listener.receive()
    assert (data, pid) == (b"WATCHDOG=1", os.getpid())


def test_abstract_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    name = f"cueboard-test-{os.getpid()}-{uuid.uuid4().hex}"
    end = Listener(b"\0" + name.encode())
    try:
        monkeypatch.setenv("NOTIFY_SOCKET", "@" + name)
        assert systemd.ready() is True
        assert systemd.watchdog_ping() is True
        assert end.messages() == [b"READY=1", b"WATCHDOG=1"]
    finally:
        end.sock.close()


@pytest.mark.parametrize("value", [None, ""])
def test_outside_systemd_every_call_is_a_no_op(monkeypatch: pytest.MonkeyPatch, value: str | None) -> None:
    if value is None:
        monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    else:
        monkeypatch.setenv("NOTIFY_SOCKET", value)
    assert systemd.ready() is False
    assert systemd.status("x") is False
    assert systemd.watchdog_ping() is False
    assert systemd.stopping() is False
    assert systemd.notify("READY=1") is False


@pytest.mark.parametrize("value", ["/nonexistent/cueboard/notify", "@", "vsock:2:9999", "relative/path"])
def test_an_unusable_socket_is_reported_not_raised(monkeypatch: pytest.MonkeyPatch,
                                                  caplog: pytest.LogCaptureFixture, value: str) -> None:
    monkeypatch.setenv("NOTIFY_SOCKET", value)
    assert systemd.watchdog_ping() is False
    assert "notify" in caplog.text.lower()


# --- watchdog_interval -----------------------------------------------------------------

@pytest.mark.parametrize(("usec", "pid", "expected"), [
    ("15000000", None, 15.0),
    ("15000000", "self", 15.0),
    ("2500", None, 0.0025),
    ("15000000", "other", None),  # the watchdog is another process's (inherited environment)
    ("15000000", "garbage", None),
    (None, None, None),
    ("", None, None),
    ("0", None, None),
    ("-5", None, None),
    ("15s", None, None),
])
def test_watchdog_interval(monkeypatch: pytest.MonkeyPatch, usec: str | None, pid: str | None,
                           expected: float | None) -> None:
    for name, value in (("WATCHDOG_USEC", usec), ("WATCHDOG_PID", pid)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            value = {"self": str(os.getpid()), "other": str(os.getpid() + 1)}.get(value, value)
            monkeypatch.setenv(name, value)
    assert systemd.watchdog_interval() == expected
