"""docs/hardware.md and its wiring diagrams (scripts/wiring.py): the pictures are current,
render, and name the pins the code uses; the defaults the page recommends are the code's.

Rendering uses ``rsvg-convert`` (Debian's librsvg2-bin; scripts/lib.sh installs it).
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest

from cueboard.hw import debounce, ws2812_spi
from cueboard.hw.display_config import DisplayConfig, parse_display

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "hardware.md"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cueboard_wiring_script", REPO / "scripts" / "wiring.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


wiring = _load()


def test_the_pictures_are_what_the_script_draws() -> None:
    for name, draw in wiring.DIAGRAMS.items():
        assert (REPO / "docs" / "img" / name).read_text() == draw().svg(), (
            f"docs/img/{name} is out of date: python3 scripts/wiring.py")


def test_the_doc_shows_every_picture() -> None:
    text = DOC.read_text()
    for name in wiring.DIAGRAMS:
        assert f"(img/{name})" in text


@pytest.mark.system
@pytest.mark.parametrize("name", sorted(wiring.DIAGRAMS))
def test_each_picture_renders(name: str, tmp_path: Path) -> None:
    rsvg = shutil.which("rsvg-convert") or pytest.fail("rsvg-convert is missing: apt-get install librsvg2-bin")
    svg = REPO / "docs" / "img" / name
    root = ET.parse(svg).getroot()
    png = tmp_path / "out.png"
    result = subprocess.run([rsvg, "-o", str(png), str(svg)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    width, height = struct.unpack(">II", png.read_bytes()[16:24])
    assert (width, height) == (int(root.get("width", 0)), int(root.get("height", 0)))


def test_the_header_table_is_the_pi_s() -> None:
    # SPI0 and the PWM pin where every Pi 4, 5 and Zero 2 W has them.
    assert [wiring.header_pin(g) for g in (10, 11, 8, 18)] == [19, 23, 24, 12]
    assert sorted(p for p, n in wiring.HEADER.items() if n == "GND") == [6, 9, 14, 20, 25, 30, 34, 39]
    assert len({n for n in wiring.HEADER.values() if n.startswith("GPIO")}) == 28


def test_the_referee_picture_has_the_example_config_s_pins() -> None:
    svg = (REPO / "docs" / "img" / "wiring-referee-box.svg").read_text()
    for i, gpio in enumerate(wiring.referee_pins()):
        pin = wiring.header_pin(gpio)
        assert f">GPIO {gpio}  button {i}:" in svg
        assert f">{pin}</text>" in svg


def test_the_keypad_picture_has_the_firmware_s_pins() -> None:
    config = wiring.keypad_config()
    svg = (REPO / "docs" / "img" / "wiring-keypad.svg").read_text()
    for gp in (*config["ROWS"], *config["COLUMNS"], config["BUZZER"], config["LED_ACCEPTED"], config["LED_REFUSED"]):
        assert f">GP{gp} " in svg
        assert f">{wiring.pico_pin(gp)}</text>" in svg


def defaults_table() -> dict[str, str]:
    """The doc's "Defaults in the code" table: what -> default."""
    section = DOC.read_text().split("## Defaults in the code", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1:3] for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    return {what.strip(): value.strip() for what, value in rows[1:]}


def test_the_defaults_the_doc_recommends_are_the_code_s() -> None:
    table = defaults_table()
    assert table["referee button debounce (release)"] == f"{debounce.DEBOUNCE} s"
    assert table["referee button hold"] == f"{debounce.HOLD_TIME} s"
    assert table["MAX7219 SPI speed"] == f"{DisplayConfig.spi_speed_hz} Hz"
    assert parse_display({"device": "max7219", "cascaded": 4}).spi_speed_hz == DisplayConfig.spi_speed_hz
    assert table["WS2812 SPI speed"] == f"{ws2812_spi.SPI_HZ} Hz"
    ws = parse_display({"device": "ws2812", "width": 8, "height": 8})
    assert table["WS2812 brightness"] == str(ws.brightness)
    assert table["WS2812 driver"] == ws.driver
    config = wiring.keypad_config()
    assert table["keypad key press / release"] == f"{config['PRESS_MS']} ms / {config['DEBOUNCE_MS']} ms"


def test_the_power_tables_add_up() -> None:
    # The figures of docs/hardware.md's tables are hw/power.py's (what supply_amps caps by),
    # within the rounding of the table; the caps it quotes are what the code caps at.
    from cueboard.hw.power import cap_brightness, draw_amps

    text = DOC.read_text()
    rows = re.findall(r"^\| (\d+)x(\d+) \| [^|]+ \| ([\d.]+) A \| ([\d.]+) A \| [^|]+ \| ([^|]+) \|$", text, re.M)
    seen = set()
    for width, height, full, default, supply in rows:
        w, h = int(width), int(height)
        device = "ws2812" if "(caps at" in supply else "max7219"
        at_default = 48 if device == "ws2812" else 112
        assert abs(draw_amps(device, w, h, 255) - float(full)) / float(full) < 0.05, (w, h, full)
        assert abs(draw_amps(device, w, h, at_default) - float(default)) / float(default) < 0.05, (w, h, default)
        amps = re.search(r"supply_amps = (\d+)", supply)
        assert amps is not None, supply
        assert draw_amps(device, w, h, at_default) <= int(amps.group(1)), (w, h, supply)  # the default fits
        cap = re.search(r"caps at (\d+)", supply)
        if cap is not None:
            assert cap_brightness(device, w, h, 255, int(amps.group(1))) == int(cap.group(1)), (w, h, supply)
        seen.add((device, w, h))
    assert seen == {(d, w, h) for d in ("max7219", "ws2812") for w, h in ((32, 8), (64, 16), (128, 32))}
