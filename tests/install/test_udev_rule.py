"""The keypad's udev rule (``systemd/99-cueboard-keypad.rules``), run by udev itself.

``udevadm test`` runs the rules on one device and prints what they did; it needs the
device in ``/sys``. So the test builds the sysfs a Pico running MicroPython has (its USB
device 2e8a:0005, interface 00 on ``cdc_acm``, ``tty/ttyACM0``: the attributes a real one
shows) and runs ``udevadm test`` in a mount namespace of its own (``unshare -m``) where
that tree is ``/sys``, the rules directory holds only our rule and Debian's
``60-serial.rules`` (whose ``/dev/serial/by-id/`` link proves the fake device looks
real to udev), and ``/dev`` and ``/run`` are empty tmpfs (``udevadm test`` really creates
the links there, so the test reads them back). ``SYSTEMD_DEVICE_VERIFY_SYSFS=0`` lets
udev take a tree that is not the kernel's, as systemd's own udev tests do. Nothing
outside the namespace is touched. Needs root and ``udevadm`` (Debian's ``udev``; CI
has both); ``udevadm verify`` (systemd 253 and newer) is run too where it exists.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

pytestmark = pytest.mark.system

REPO = Path(__file__).resolve().parents[2]
RULE = REPO / "systemd" / "99-cueboard-keypad.rules"
SERIAL_RULES = next((d / "60-serial.rules" for d in (Path("/usr/lib/udev/rules.d"), Path("/lib/udev/rules.d"))
                     if (d / "60-serial.rules").exists()), None)
TTY = "devices/platform/soc/fe980000.usb/usb1/1-1/1-1:{interface}/tty/{tty}"


@dataclass
class UsbSerial:
    """One USB serial port as sysfs shows it."""

    vendor: str = "2e8a"
    product_id: str = "0005"
    manufacturer: str = "MicroPython"
    product: str = "Board in FS mode"
    serial: str = "e6614c311b7d2a2c"
    interface: str = "00"
    driver: str = "cdc_acm"
    tty: str = "ttyACM0"
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def path(self) -> str:
        return TTY.format(interface=f"1.{int(self.interface)}", tty=self.tty)

    def build(self, sys: Path) -> None:
        tty = sys / self.path
        interface = tty.parent.parent
        usb = interface.parent
        tty.mkdir(parents=True)
        files = {
            usb / "uevent": f"MAJOR=189\nMINOR=1\nDEVNAME=bus/usb/001/002\nDEVTYPE=usb_device\nDRIVER=usb\n"
                            f"PRODUCT={self.vendor}/{int(self.product_id, 16):x}/100\nBUSNUM=001\nDEVNUM=002\n",
            usb / "idVendor": self.vendor, usb / "idProduct": self.product_id, usb / "bcdDevice": "0100",
            usb / "manufacturer": self.manufacturer, usb / "product": self.product, usb / "serial": self.serial,
            usb / "bDeviceClass": "ef", usb / "busnum": "1", usb / "devnum": "2", usb / "devpath": "1",
            interface / "uevent": f"DEVTYPE=usb_interface\nDRIVER={self.driver}\nINTERFACE=2/2/0\n",
            interface / "bInterfaceNumber": self.interface, interface / "bInterfaceClass": "02",
            interface / "bInterfaceSubClass": "02", interface / "bInterfaceProtocol": "00",
            tty / "uevent": f"MAJOR=166\nMINOR=0\nDEVNAME={self.tty}\n", tty / "dev": "166:0",
        }
        for path, text in files.items():
            path.write_text(text + "\n")
        for name, value in self.extra.items():
            (usb / name).write_text(value + "\n")
        (usb / "subsystem").symlink_to("/sys/bus/usb")
        (interface / "subsystem").symlink_to("/sys/bus/usb")
        (interface / "driver").symlink_to(f"/sys/bus/usb/drivers/{self.driver}")
        (tty / "subsystem").symlink_to("/sys/class/tty")


@dataclass
class Outcome:
    output: str
    properties: dict[str, str]
    links: dict[str, str]  # /dev/<link> -> its target, as created


def run_udev(tmp_path: Path, port: UsbSerial, rule_text: str | None = None) -> Outcome:
    """``udevadm test --action=add`` on ``port``, in a namespace of its own (see the module doc)."""
    udevadm = shutil.which("udevadm") or pytest.fail("udevadm is missing: apt-get install udev")
    unshare = shutil.which("unshare") or pytest.fail("unshare is missing (util-linux)")
    if os.geteuid() != 0:
        pytest.fail("the udev rule test needs root (a mount namespace); CI runs as root")
    if SERIAL_RULES is None:
        pytest.fail("Debian's 60-serial.rules is missing: apt-get install udev")
    sys, rules, empty = tmp_path / "sys", tmp_path / "rules", tmp_path / "empty"
    for d in (sys, rules, empty):
        d.mkdir()
    port.build(sys)
    (rules / RULE.name).write_text(RULE.read_text() if rule_text is None else rule_text)
    shutil.copy(SERIAL_RULES, rules)
    script = f"""set -e
mount --make-rprivate /
mount --bind {sys} /sys
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /dev
mkdir -p /run/udev
for d in /usr/lib/udev/rules.d /lib/udev/rules.d /run/udev/rules.d; do [ -d $d ] && mount --bind {empty} $d; done
mount --bind {rules} /etc/udev/rules.d
SYSTEMD_DEVICE_VERIFY_SYSFS=0 {udevadm} test --action=add /sys/{port.path}
echo "=== links"
find /dev -type l -printf '%p %l\\n'
"""
    result = subprocess.run([unshare, "-m", "sh", "-c", script], capture_output=True, text=True, timeout=120,
                            check=False)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    text, _, found = result.stdout.partition("=== links\n")
    properties = dict(line.split("=", 1) for line in text.splitlines() if re.match(r"^[A-Z_]+=", line))
    links = dict(line.split(" ", 1) for line in found.splitlines())
    return Outcome(output, properties, links)


def rule_lines(outcome: Outcome) -> list[str]:
    """What udev said about our rule file."""
    return [line for line in outcome.output.splitlines() if RULE.name in line]


def test_a_pico_running_micropython_gets_the_keypad_names(tmp_path: Path) -> None:
    outcome = run_udev(tmp_path, UsbSerial())
    links = outcome.links
    # The control: Debian's own rule names it as docs/firmware.md says a Pico shows up.
    assert links["/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_e6614c311b7d2a2c-if00"] == "../../ttyACM0"
    assert links["/dev/cueboard-keypad"] == "ttyACM0"
    assert links["/dev/cueboard-keypad-e6614c311b7d2a2c"] == "ttyACM0"
    assert outcome.properties["ID_MM_DEVICE_IGNORE"] == "1"
    said = "\n".join(rule_lines(outcome))
    assert re.search(r"GROUP \d+", said) and "MODE 0660" in said
    group = re.search(r"GROUP (\d+)", said)
    assert group and int(group.group(1)) == _gid("dialout")


def _gid(name: str) -> int:
    import grp

    return grp.getgrnam(name).gr_gid


def test_several_keypads_are_told_apart_by_serial(tmp_path: Path) -> None:
    outcome = run_udev(tmp_path, UsbSerial(serial="e66141040396b52c", tty="ttyACM1"))
    assert outcome.links["/dev/cueboard-keypad-e66141040396b52c"] == "ttyACM1"


@pytest.mark.parametrize("port", [
    UsbSerial(vendor="0403", product_id="6001", manufacturer="FTDI", product="FT232R USB UART",
              serial="A50285BI", driver="ftdi_sio", tty="ttyUSB0"),
    UsbSerial(vendor="2341", product_id="0043", manufacturer="Arduino", product="Uno", serial="75735"),
    UsbSerial(product_id="000a", manufacturer="Raspberry Pi", product="Pico"),  # the Pico SDK's stdio, not MicroPython
    UsbSerial(interface="02"),  # another interface of a composite device
], ids=["ftdi", "arduino", "pico-sdk", "interface-2"])
def test_other_serial_ports_are_left_alone(tmp_path: Path, port: UsbSerial) -> None:
    outcome = run_udev(tmp_path, port)
    assert not [link for link in outcome.links if "cueboard" in link]
    assert "ID_MM_DEVICE_IGNORE" not in outcome.properties
    assert not [line for line in rule_lines(outcome) if "GROUP" in line or "MODE" in line]


def test_udev_reads_the_rule_without_a_complaint(tmp_path: Path) -> None:
    outcome = run_udev(tmp_path, UsbSerial())
    assert f"Reading rules file: /etc/udev/rules.d/{RULE.name}" in outcome.output
    expected = re.compile(r"(Reading rules file|Importing properties|Skipping builtin|GROUP \d+|MODE 0660"
                          r"|LINK 'cueboard-keypad)")
    assert [line for line in rule_lines(outcome) if not expected.search(line)] == []


def test_a_mistake_in_the_rule_would_be_reported(tmp_path: Path) -> None:
    # The control for the test above: udev names the file and line of a bad key.
    broken = RULE.read_text().replace('SYMLINK+="cueboard-keypad"\n', 'SYMLNK+="cueboard-keypad"\n')
    outcome = run_udev(tmp_path, UsbSerial(), broken)
    assert [line for line in rule_lines(outcome) if "SYMLNK" in line or "Invalid" in line]
    assert "/dev/cueboard-keypad" not in outcome.links


def test_udevadm_verify_where_it_exists() -> None:
    udevadm = shutil.which("udevadm") or pytest.fail("udevadm is missing: apt-get install udev")
    probe = subprocess.run([udevadm, "verify", "--help"], capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        pytest.skip("this udevadm has no 'verify' (systemd 253 and newer); 'udevadm test' above covers it")
    result = subprocess.run([udevadm, "verify", str(RULE)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("example", sorted((REPO / "examples").glob("*-table.toml")), ids=lambda p: p.name)
def test_the_example_configs_name_the_keypad_as_the_rule_does(example: Path, tmp_path: Path) -> None:
    # Issue 17: the examples named /dev/serial/by-id/usb-cueboard_keypad-if00, which no
    # Pico on MicroPython ever shows; the keypad stayed "lost" until the config was edited.
    import tomllib

    port = tomllib.loads(example.read_text())["keypad"]["port"]
    assert port in run_udev(tmp_path, UsbSerial()).links
