"""Pins checked across the whole configuration (issue 24): one GPIO, one device. A HUB75 HAT
and the example referee box on one Pi were accepted, though 11 of the box's 12 pins are the
HAT's; a pin the Pi does not have (66) passed and was retried every second for ever. Both
are refused at start-up now, naming the keys and the file.

And gpiozero's floor: releases before the fix of gpiozero issue 1166 open gpiochip4 on a Pi 5,
which kernels from 6.6.45 no longer have (the RP1's GPIO are gpiochip0, with gpiochip4 left
only as a compatibility link on some images). The fixed release's chip choice is run here on
a Pi 5's revision with and without ``/dev/gpiochip4``.
"""

from __future__ import annotations

import importlib
import os
import sys
import tomllib
import types
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from cueboard.hw.pins import HEADER, gpio_number
from cueboard.table.config import ConfigFileError, load_config

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_BOX = "pins = [5, 6, 13, 19, 26, 12, 16, 20, 21, 4, 17, 27]"


def write(tmp_path: Path, body: str) -> Path:
    (tmp_path / "keymaps").mkdir(exist_ok=True)
    for keymap in (ROOT / "examples" / "keymaps").glob("*.toml"):
        (tmp_path / "keymaps" / keymap.name).write_bytes(keymap.read_bytes())
    path = tmp_path / "cueboard.toml"
    path.write_text(f'[table]\nname = "t1"\n[journal]\ndir = "{tmp_path / "journal"}"\n{body}')
    return path


def box(pins: str = EXAMPLE_BOX) -> str:
    return f'[[referee_box]]\n{pins}\nkeymap = "keymaps/referee-box-12.toml"\n'


def refusal(tmp_path: Path, body: str) -> str:
    path = write(tmp_path, body)
    with pytest.raises(ConfigFileError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(f"{path}: "), message  # the file, first
    return message


def test_a_hub75_hat_and_the_example_referee_box_are_refused_naming_both_owners(tmp_path: Path) -> None:
    message = refusal(tmp_path, '[display]\ndevice = "hub75"\nwidth = 64\nheight = 32\nhat = "adafruit-hat"\n'
                      + box())
    assert ("GPIO 4 has two owners: referee_box[0].pins[9] (button 9 of referee box 0) and display (a hub75 board "
            'on hat = "adafruit-hat": its OE line); 10 more GPIO have two owners: 5, 6, 12, 13, 16, 17, 20, 21, 26, '
            "27") in message


def test_a_pin_the_pi_does_not_have_is_refused_at_start_up_naming_the_key(tmp_path: Path) -> None:
    message = refusal(tmp_path, box("pins = [66, 6, 13, 19, 26, 12, 16, 20, 21, 4, 17, 27]"))
    assert message.endswith("referee_box[0].pins[0]: GPIO 66 is not on the Raspberry Pi's 40-pin header "
                            "(GPIO 0 to 27)")
    message = refusal(tmp_path, box('pins = [5, 6, 13, 19, 26, 12, 16, 20, 21, 4, 17, "BOARD2"]'))
    assert message.endswith("referee_box[0].pins[11]: header pin 2 (BOARD2) is power or ground, not a GPIO")
    # The same GPIO under two names is one pin listed twice.
    message = refusal(tmp_path, box('pins = [5, 6, 13, 19, 26, 12, 16, 20, 21, 4, 17, "BOARD11"]'))
    assert message.endswith("referee_box[0].pins[11]: pin 'BOARD11' (GPIO 17) is listed twice")


@pytest.mark.parametrize(("body", "owners"), [
    # A MAX7219 on SPI0 takes GPIO 7-11 (both chip selects: dtparam=spi=on).
    ('[display]\ndevice = "max7219"\ncascaded = 4\n' + box(EXAMPLE_BOX.replace("27]", "10]")),
     "GPIO 10 has two owners: referee_box[0].pins[11] (button 11 of referee box 0) and display (a max7219 board "
     "on SPI0: MOSI)"),
    # A WS2812 hears all of its bus's MOSI: no other board on it.
    ('[[display]]\ndevice = "max7219"\ncascaded = 4\n[[display]]\ndevice = "ws2812"\nwidth = 8\nheight = 8\n'
     "spi_device = 1\n", "GPIO 9 has two owners: display[0] (a max7219 board on SPI0: MISO) and display[1] (a ws2812 "
     "board on SPI0: MISO)"),
    ('[[display]]\ndevice = "max7219"\ncascaded = 4\n[[display]]\ndevice = "max7219"\ncascaded = 4\n',
     "display[0] and display[1] are both on /dev/spidev0.0: give one another spi_port or spi_device"),
    # The E line of a 1:32 scan panel (64 rows) on the Adafruit HAT is GPIO 24.
    ('[display]\ndevice = "hub75"\nwidth = 64\nheight = 64\npanel = "64x64"\nhat = "adafruit-hat"\n'
     + box("pins = [2, 3, 7, 8, 9, 10, 11, 14, 15, 18, 19, 24]"),
     "GPIO 24 has two owners: referee_box[0].pins[11] (button 11 of referee box 0) and display (a hub75 board on "
     'hat = "adafruit-hat": its E line)'),
    # The HAT's PWM bridge takes GPIO 18 as well as GPIO 4.
    ('[display]\ndevice = "hub75"\nwidth = 64\nheight = 32\nhat = "adafruit-hat-pwm"\n'
     + box("pins = [2, 3, 7, 8, 9, 10, 11, 14, 15, 18, 19, 25]"),
     'GPIO 18 has two owners: referee_box[0].pins[9] (button 9 of referee box 0) and display (a hub75 board on hat '
     '= "adafruit-hat-pwm": its OE (PWM, bridged to GPIO 4) line)'),
    # rpi-rgb-led-matrix's own pinout: the second chain with parallel = 2.
    ('[display]\ndevice = "hub75"\nwidth = 64\nheight = 64\nparallel = 2\n'
     + box("pins = [0, 1, 2, 3, 14, 15, 16, 21, 26, 13, 6, 5]"),
     "GPIO 5 has two owners: referee_box[0].pins[11] (button 11 of referee box 0) and display (a hub75 board on "
     'hat = "regular": its chain 2 G1 line)'),
    # A keypad on the Pi's own UART takes GPIO 14 and 15.
    ('[keypad]\nport = "/dev/ttyAMA0"\nkeymap = "keymaps/keypad-4x5.toml"\n'
     + box("pins = [2, 3, 7, 8, 9, 10, 11, 12, 13, 14, 16, 17]"),
     "GPIO 14 has two owners: referee_box[0].pins[9] (button 9 of referee box 0) and keypad.port (the keypad on "
     "the UART (/dev/ttyAMA0): TXD)"),
])
def test_every_device_s_pins_are_checked_against_the_others(tmp_path: Path, body: str, owners: str) -> None:
    assert owners in refusal(tmp_path, body)


@pytest.mark.parametrize("body", [
    # Two MAX7219 chains on SPI0, one on each chip select.
    '[[display]]\ndevice = "max7219"\ncascaded = 4\n[[display]]\ndevice = "max7219"\ncascaded = 4\nspi_device = 1\n',
    # A WS2812 on SPI1, a MAX7219 on SPI0, the example box on neither.
    '[[display]]\ndevice = "max7219"\ncascaded = 4\n[[display]]\ndevice = "ws2812"\nwidth = 8\nheight = 8\n'
    'spi_port = 1\n' + box("pins = [2, 3, 4, 5, 6, 12, 13, 14, 15, 22, 23, 24]"),
    # The boxes docs/hardware.md gives beside a HUB75 HAT.
    '[display]\ndevice = "hub75"\nwidth = 64\nheight = 32\nhat = "adafruit-hat"\n'
    + box("pins = [2, 3, 7, 8, 9, 10, 11, 14, 15, 18, 19, 25]"),
    '[display]\ndevice = "hub75"\nwidth = 64\nheight = 32\nhat = "adafruit-hat-pwm"\n'
    + box("pins = [2, 3, 7, 8, 9, 10, 11, 14, 15, 24, 19, 25]"),
    '[display]\ndevice = "hub75"\nwidth = 64\nheight = 32\nhat = "regular"\n'
    + box("pins = [2, 3, 5, 6, 12, 13, 14, 15, 16, 19, 20, 21]"),
    # A HUB75 board the emulator draws (the demo's) drives no GPIO.
    '[display]\ndevice = "hub75"\nwidth = 64\nheight = 32\nbackend = "emulator"\n' + box(),
    # The example box beside the example MAX7219 board, and a keypad on USB.
    '[display]\ndevice = "max7219"\ncascaded = 4\n[keypad]\nport = "/dev/cueboard-keypad"\n'
    'keymap = "keymaps/keypad-4x5.toml"\n' + box(),
])
def test_devices_on_pins_of_their_own_are_taken(tmp_path: Path, body: str) -> None:
    load_config(write(tmp_path, body))


@pytest.mark.parametrize("example", sorted((ROOT / "examples").glob("*.toml")), ids=lambda p: p.name)
def test_the_examples_give_each_gpio_one_owner(example: Path, tmp_path: Path) -> None:
    raw = tomllib.loads(example.read_text())
    if "table" not in raw:
        pytest.skip("not a table's configuration")
    body = example.read_text().replace('"/var/lib/cueboard/journal"', f'"{tmp_path / "j"}"')
    (tmp_path / "keymaps").symlink_to(ROOT / "examples" / "keymaps")
    path = tmp_path / "cueboard.toml"
    path.write_text(body)
    load_config(path)


def test_the_header_brings_out_gpio_0_to_27_once_each() -> None:
    assert sorted(HEADER.values()) == list(range(28))
    assert all(gpio_number(f"BOARD{physical}") == gpio for physical, gpio in HEADER.items())
    assert gpio_number("GPIO27") == gpio_number("BCM27") == gpio_number("J8:13") == 27


# -- gpiozero on a Pi 5 ------------------------------------------------------------------


def test_gpiozero_s_floor_is_the_release_that_opens_the_pi_5_s_chip() -> None:
    floor = next(d for d in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
                 if d.startswith("gpiozero"))
    assert floor == "gpiozero>=2.0.1.post3"  # 2.0.1 opens gpiochip4; .post1 and .post2 are yanked
    from packaging.version import Version

    assert Version(version("gpiozero")) >= Version("2.0.1.post3")


@pytest.mark.parametrize(("dev", "chip"), [
    (["gpiochip0", "gpiochip10", "gpiochip11", "gpiochip12", "gpiochip13"], 0),  # kernel 6.6.45 and later
    (["gpiochip0", "gpiochip10", "gpiochip11", "gpiochip12", "gpiochip13", "gpiochip4"], 4),  # the compat link
    (["gpiochip0", "gpiochip1", "gpiochip2", "gpiochip3", "gpiochip4"], 4),  # kernels before 6.6.45
])
def test_gpiozero_opens_the_chip_a_pi_5_has(dev: list[str], chip: int, monkeypatch: pytest.MonkeyPatch,
                                            tmp_path: Path) -> None:
    """gpiozero's own choice of chip (LGPIOFactory), on a Pi 5's revision and a /dev of these
    nodes: lgpio, which opens the real chip, is the one stand-in (it cannot run here)."""
    opened: list[int] = []
    fake_dev = tmp_path / "dev"
    fake_dev.mkdir()
    for node in dev:
        (fake_dev / node).touch()

    def gpiochip_open(number: int) -> int:
        if not (fake_dev / f"gpiochip{number}").exists():
            raise OSError(f"can not open gpiochip{number}")  # lgpio's refusal of a missing chip
        opened.append(number)
        return 7

    lgpio = types.ModuleType("lgpio")
    lgpio.gpiochip_open = gpiochip_open  # type: ignore[attr-defined]
    lgpio.gpiochip_close = lambda handle: None  # type: ignore[attr-defined]
    for name in ("SET_PULL_NONE", "SET_PULL_UP", "SET_PULL_DOWN", "SET_BIAS_DISABLE", "SET_BIAS_PULL_UP",
                 "SET_BIAS_PULL_DOWN", "RISING_EDGE", "FALLING_EDGE", "BOTH_EDGES"):
        setattr(lgpio, name, 0)
    lgpio.error = OSError  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "lgpio", lgpio)
    monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)
    module: Any = importlib.import_module("gpiozero.pins.lgpio")
    real_exists = os.path.exists

    def exists(path: Any) -> bool:
        text = os.fspath(path)
        return (fake_dev / text.removeprefix("/dev/")).exists() if text.startswith("/dev/") else real_exists(path)

    monkeypatch.setattr(module.os.path, "exists", exists)
    monkeypatch.setattr(module.LGPIOFactory, "_get_revision", lambda self: 0xD04170)  # a Pi 5 4GB
    factory = module.LGPIOFactory()
    try:
        assert factory.chip == chip and opened == [chip]
    finally:
        factory.close()
    monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)
