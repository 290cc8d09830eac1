#!/usr/bin/env python3
"""The wiring diagrams of docs/hardware.md, drawn as SVG from the facts below.

    python3 scripts/wiring.py            # writes docs/img/wiring-*.svg
    python3 scripts/wiring.py --check    # exit 1 if a picture is out of date

The pin numbers come from the tables here (the Pi's 40-pin header, the Pico's pins) and
from what the code uses (the example config's referee-box pins, the SPI0 pins, the
keypad firmware's pins); ``tests/hw/test_wiring.py`` checks them against each other and
that each picture is what this script draws. Standard library only.
"""

from __future__ import annotations

import argparse
import ast
import sys
import tomllib
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "img"

# The Raspberry Pi's 40-pin header (Pi 4, Pi 5, Zero 2 W alike): physical pin -> name.
HEADER: dict[int, str] = {
    1: "3V3", 2: "5V", 3: "GPIO 2", 4: "5V", 5: "GPIO 3", 6: "GND", 7: "GPIO 4", 8: "GPIO 14", 9: "GND",
    10: "GPIO 15", 11: "GPIO 17", 12: "GPIO 18", 13: "GPIO 27", 14: "GND", 15: "GPIO 22", 16: "GPIO 23",
    17: "3V3", 18: "GPIO 24", 19: "GPIO 10", 20: "GND", 21: "GPIO 9", 22: "GPIO 25", 23: "GPIO 11",
    24: "GPIO 8", 25: "GND", 26: "GPIO 7", 27: "GPIO 0", 28: "GPIO 1", 29: "GPIO 5", 30: "GND", 31: "GPIO 6",
    32: "GPIO 12", 33: "GPIO 13", 34: "GND", 35: "GPIO 19", 36: "GPIO 16", 37: "GPIO 26", 38: "GPIO 20",
    39: "GND", 40: "GPIO 21",
}
SPI0 = {"MOSI": 10, "SCLK": 11, "CE0": 8}

# The Pico's pins: physical pin -> name (the ones the keypad uses, and its power pins).
PICO: dict[int, str] = {
    3: "GND", 4: "GP2", 5: "GP3", 6: "GP4", 7: "GP5", 9: "GP6", 10: "GP7", 11: "GP8", 12: "GP9", 14: "GP10",
    17: "GP13", 18: "GND", 19: "GP14", 20: "GP15", 36: "3V3", 38: "GND", 40: "VBUS",
}


def header_pin(gpio: int) -> int:
    """The header pin of BCM GPIO ``gpio``."""
    return next(pin for pin, name in HEADER.items() if name == f"GPIO {gpio}")


def pico_pin(gp: int) -> int:
    return next(pin for pin, name in PICO.items() if name == f"GP{gp}")


def referee_pins() -> list[int]:
    """The referee box's GPIOs, button 0 first, as the example config wires them."""
    config = tomllib.loads((ROOT / "examples" / "snooker-table.toml").read_text())
    return list(config["referee_box"][0]["pins"])


def keypad_config() -> dict[str, Any]:
    """The keypad firmware's wiring (firmware/keypad_config.py: plain constants)."""
    values: dict[str, Any] = {}
    for node in ast.parse((ROOT / "firmware" / "keypad_config.py").read_text()).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            values[node.targets[0].id] = ast.literal_eval(node.value)
    return values


def referee_buttons() -> list[str]:
    keymap = tomllib.loads((ROOT / "examples" / "keymaps" / "referee-box-12.toml").read_text())
    return [name for row in keymap["layout"] for name in row]


# -- drawing ------------------------------------------------------------------------------

COLOURS = {"5V": "#d62728", "3V3": "#ff7f0e", "GND": "#222222", "signal": "#1f5fbf", "data": "#2ca02c",
           "box": "#f4f4f4", "pi": "#e8f3e8", "part": "#fff7e0", "pico": "#e8eef8"}
FONT = "DejaVu Sans, Verdana, sans-serif"


@dataclass
class Drawing:
    width: int
    height: int
    title: str
    items: list[str] = field(default_factory=list)

    def text(self, x: float, y: float, s: str, size: int = 13, anchor: str = "start", weight: str = "normal",
             colour: str = "#111") -> None:
        self.items.append(f'<text x="{x:g}" y="{y:g}" font-size="{size}" text-anchor="{anchor}" '
                          f'font-weight="{weight}" fill="{colour}">{escape(s)}</text>')

    def box(self, x: float, y: float, w: float, h: float, fill: str = COLOURS["box"], label: str = "",
            sub: str = "") -> None:
        self.items.append(f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="6" fill="{fill}" '
                          'stroke="#555" stroke-width="1.5"/>')
        if label:
            self.text(x + w / 2, y + 20, label, 14, "middle", "bold")
        if sub:
            self.text(x + w / 2, y + 37, sub, 11, "middle", colour="#444")

    def wire(self, points: list[tuple[float, float]], colour: str, width: float = 2.2, dash: bool = False) -> None:
        path = " ".join(f"{x:g},{y:g}" for x, y in points)
        extra = ' stroke-dasharray="6 4"' if dash else ""
        self.items.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="{width:g}" '
                          f'stroke-linejoin="round"{extra}/>')

    def dot(self, x: float, y: float, colour: str = "#222", r: float = 3.5) -> None:
        self.items.append(f'<circle cx="{x:g}" cy="{y:g}" r="{r:g}" fill="{colour}"/>')

    def part(self, x: float, y: float, label: str, w: float = 54, h: float = 20, vertical: bool = False) -> None:
        """A small inline part (resistor, capacitor...) centred at (x, y), labelled (beside it
        when ``vertical``)."""
        if vertical:
            w, h = h, w
        self.items.append(f'<rect x="{x - w / 2:g}" y="{y - h / 2:g}" width="{w:g}" height="{h:g}" rx="3" '
                          f'fill="{COLOURS["part"]}" stroke="#555" stroke-width="1.2"/>')
        if vertical:
            self.text(x + w / 2 + 5, y + 4, label, 11)
        else:
            self.text(x, y + 4, label, 11, "middle")

    def pin_row(self, x: float, y: float, number: int, name: str, note: str = "", right: bool = True) -> None:
        """A labelled pin on a board's edge at (x, y): its number in a circle, its name beside."""
        self.items.append(f'<circle cx="{x:g}" cy="{y:g}" r="9" fill="#fff" stroke="#333" stroke-width="1.2"/>')
        self.text(x, y + 4, str(number), 10, "middle", "bold")
        if right:
            self.text(x - 14, y + 4, name + (f"  {note}" if note else ""), 12, "end")
        else:
            self.text(x + 14, y + 4, name + (f"  {note}" if note else ""), 12, "start")

    def svg(self) -> str:
        body = "\n".join(self.items)
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
                f'viewBox="0 0 {self.width} {self.height}" font-family="{FONT}">\n'
                f'<title>{escape(self.title)}</title>\n'
                f'<rect width="100%" height="100%" fill="#ffffff"/>\n{body}\n</svg>\n')


def header_inset(d: Drawing, x: float, y: float, used: dict[int, str]) -> None:
    """The 40-pin header seen from above (pin 1 top left, square pad), used pins coloured."""
    d.text(x, y - 8, "Pi header, from above (pin 1: square)", 11, colour="#444")
    for pin in range(1, 41):
        row, column = (pin - 1) // 2, (pin - 1) % 2
        cx, cy = x + 10 + column * 18, y + 8 + row * 14
        colour = used.get(pin, "#ffffff")
        if pin == 1:
            d.items.append(f'<rect x="{cx - 5:g}" y="{cy - 5:g}" width="10" height="10" fill="{colour}" '
                           'stroke="#333"/>')
        else:
            d.items.append(f'<circle cx="{cx:g}" cy="{cy:g}" r="5" fill="{colour}" stroke="#333"/>')
        if pin in used:
            d.text(cx + (-9 if column == 0 else 9), cy + 4, str(pin), 9, "end" if column == 0 else "start")


def kind(name: str) -> str:
    return "5V" if name in ("5V", "VBUS") else "3V3" if name == "3V3" else "GND" if name == "GND" else "signal"


# -- the referee box ----------------------------------------------------------------------

def referee_box() -> Drawing:
    gpios = referee_pins()
    names = referee_buttons()
    top, step = 170, 36
    bottom = top + 13 * step + 50
    d = Drawing(1000, bottom + 60, "Referee box: 12 buttons on the Pi's GPIO, each line conditioned")
    d.text(20, 30, "Referee box → Raspberry Pi (12 buttons; any Pi 4, Pi 5, Zero 2 W)", 18, weight="bold")
    d.box(20, 50, 300, bottom - 50, COLOURS["pi"], "Raspberry Pi")
    used = {header_pin(g): COLOURS["signal"] for g in gpios} | {1: COLOURS["3V3"], 9: COLOURS["GND"]}
    header_inset(d, 40, 100, used)
    for i, gpio in enumerate(gpios):
        d.pin_row(300, top + i * step, header_pin(gpio), f"GPIO {gpio}", f"button {i}: {names[i]}")
    rail_3v3, rail_gnd = top + 12 * step, top + 12 * step + 34
    d.pin_row(300, rail_3v3, 1, "3V3", "pull-ups")
    d.pin_row(300, rail_gnd, 9, "GND", "")
    # One channel drawn in full: the conditioning board near the Pi.
    d.box(360, 50, 340, bottom - 50, "#fbfbfb", "Conditioning board, at the Pi", "the same for each of the 12 lines")
    d.box(760, 50, 220, bottom - 50, COLOURS["box"], "Referee box", "12 push buttons, to GND")
    y0 = top
    d.wire([(309, y0), (452, y0)], COLOURS["signal"])
    d.part(480, y0, "1 kΩ")
    d.wire([(507, y0), (740, y0)], COLOURS["signal"])
    d.dot(430, y0)
    d.wire([(430, y0), (430, y0 + 40)], COLOURS["signal"])
    d.part(430, y0 + 62, "100 nF", 44, 18, vertical=True)
    d.wire([(430, y0 + 84), (430, y0 + 110)], COLOURS["GND"])
    d.text(430, y0 + 124, "GND", 11, "middle")
    d.dot(570, y0)
    d.wire([(570, y0), (570, y0 - 20)], COLOURS["signal"])
    d.part(570, y0 - 42, "10 kΩ", 44, 18, vertical=True)
    d.wire([(570, y0 - 64), (570, y0 - 70)], COLOURS["3V3"])
    d.dot(650, y0)
    d.wire([(650, y0), (650, y0 + 40)], COLOURS["signal"])
    d.part(650, y0 + 62, "ESD diode", 44, 18, vertical=True)
    d.wire([(650, y0 + 84), (650, y0 + 110)], COLOURS["GND"])
    d.text(650, y0 + 124, "GND", 11, "middle")
    # The 3V3 rail from pin 1, over the top of the channel.
    d.wire([(309, rail_3v3), (340, rail_3v3), (340, y0 - 70), (600, y0 - 70)], COLOURS["3V3"])
    d.text(606, y0 - 66, "3V3", 11, colour=COLOURS["3V3"])
    notes = ["1 kΩ + 100 nF at the Pi: a 0.1 ms filter against spikes",
             "picked up on the cable, far under the 20 ms debounce;",
             "a press still counts at its first clean edge.",
             "",
             "10 kΩ to 3V3: a firm pull-up (the Pi's own is ~50 kΩ);",
             "the Pi's internal pull-up may stay on (pull_up = true).",
             "",
             "ESD diode of low leakage (TPD4E1U06: 4 lines,",
             "10 nA; not SMAJ3.3A, ~600 µA) at the connector:",
             "static from hands and from the cable.",
             "",
             "Lines 1-11: the same parts, each to its own pin."]
    for i, line in enumerate(notes):
        d.text(380, y0 + 160 + i * 18, line, 12, colour="#222" if i < 11 else "#555")
    for i in range(1, 12):
        y = top + i * step
        d.wire([(309, y), (360, y)], COLOURS["signal"], 1.4, dash=True)
    d.wire([(309, rail_gnd), (790, rail_gnd)], COLOURS["GND"])
    # The cable and the box.
    d.text(750, y0 - 6, "cable", 11, "middle", colour="#444")
    d.items.append(f'<circle cx="815" cy="{y0}" r="12" fill="#fff" stroke="#333" stroke-width="1.5"/>')
    d.wire([(740, y0), (803, y0)], COLOURS["signal"])
    d.text(835, y0 + 4, f"0 {names[0]}", 12)
    for i in range(1, 12):
        y = top + i * step
        d.items.append(f'<circle cx="815" cy="{y}" r="9" fill="#fff" stroke="#999"/>')
        d.text(835, y + 4, f"{i} {names[i]}", 12, colour="#444")
    d.wire([(790, rail_gnd), (790, y0 + 12), (805, y0 + 8)], COLOURS["GND"])
    d.text(800, rail_gnd + 30, "one GND wire in the cable", 11, colour="#444")
    d.text(800, rail_gnd + 46, "to every button's other side", 11, colour="#444")
    return d


# -- MAX7219 ------------------------------------------------------------------------------

def max7219() -> Drawing:
    d = Drawing(1000, 520, "MAX7219 chain on SPI0 through a 74AHCT125 level shifter")
    d.text(20, 30, "MAX7219 chain → Raspberry Pi SPI0 (/dev/spidev0.0)", 18, weight="bold")
    d.box(20, 50, 250, 420, COLOURS["pi"], "Raspberry Pi")
    pins = [(header_pin(SPI0["MOSI"]), "GPIO 10", "MOSI"), (header_pin(SPI0["SCLK"]), "GPIO 11", "SCLK"),
            (header_pin(SPI0["CE0"]), "GPIO 8", "CE0"), (6, "GND", ""), (2, "5V", "")]
    header_inset(d, 40, 100, {19: COLOURS["data"], 23: COLOURS["data"], 24: COLOURS["data"], 6: COLOURS["GND"],
                              2: COLOURS["5V"]})
    ys = [150, 190, 230, 390, 430]
    for (pin, name, note), y in zip(pins, ys, strict=True):
        d.pin_row(250, y, pin, name, note)
    d.box(360, 110, 200, 200, COLOURS["part"], "74AHCT125", "powered from 5 V")
    inputs = ["1A", "2A", "3A"]
    outputs = [("1Y", "DIN"), ("2Y", "CLK"), ("3Y", "CS")]
    for i, y in enumerate(ys[:3]):
        d.wire([(259, y), (360, y)], COLOURS["data"])
        d.text(368, y + 4, inputs[i], 11)
        d.text(552, y + 4, outputs[i][0], 11, "end")
        d.wire([(560, y), (700, y)], COLOURS["data"])
    d.text(370, 270, "1OE 2OE 3OE → GND (enabled)", 11)
    d.text(370, 290, "VCC 5 V, 100 nF to GND beside it", 11)
    d.box(700, 110, 260, 200, COLOURS["box"], "MAX7219 module 1", "4-in-1, 32x8")
    for (pin_name, label), y in zip(outputs, ys[:3], strict=True):
        d.text(712, y + 4, label, 12, weight="bold")
        del pin_name
    d.text(712, 280, "VCC   GND", 12, weight="bold")
    d.text(800, 200, "DOUT → DIN of module 2,", 11, colour="#444")
    d.text(800, 216, "CLK → CLK, CS → CS ...", 11, colour="#444")
    d.text(800, 232, "(the chain's next block)", 11, colour="#444")
    d.box(700, 340, 260, 130, "#fdeaea", "5 V supply", "sized by hardware.md's budget")
    d.wire([(259, ys[3]), (640, ys[3]), (640, 300), (760, 300), (760, 290)], COLOURS["GND"])
    d.wire([(640, ys[3]), (700, ys[3])], COLOURS["GND"])
    d.text(708, ys[3] + 4, "GND", 11, weight="bold")

    d.text(600, ys[3] - 6, "common GND", 11, "end")
    d.wire([(730, 340), (730, 290)], COLOURS["5V"], 3)
    d.text(736, 328, "+5 V to the modules", 11, colour=COLOURS["5V"])
    d.wire([(259, ys[4]), (330, ys[4]), (330, 320), (460, 320), (460, 310)], COLOURS["5V"])
    d.text(340, ys[4] + 4, "5 V for the buffer only (a few mA)", 11, colour=COLOURS["5V"])
    d.text(20, 500, "Keep the 74AHCT125 next to the Pi; up to ~3 m of cable to the board at the default 2 MHz "
                    "(spi_speed_hz). Never power the modules from the Pi's 5 V pin.", 12)
    return d


# -- WS2812 -------------------------------------------------------------------------------

def ws2812() -> Drawing:
    d = Drawing(1000, 490, "WS2812 panel on SPI0 MOSI through a 74AHCT125")
    d.text(20, 30, "WS2812 panel → Raspberry Pi SPI0 MOSI (driver = \"spi\", any Pi)", 18, weight="bold")
    d.box(20, 50, 250, 380, COLOURS["pi"], "Raspberry Pi")
    header_inset(d, 40, 100, {19: COLOURS["data"], 6: COLOURS["GND"], 2: COLOURS["5V"]})
    d.pin_row(250, 150, 19, "GPIO 10", "MOSI")
    d.pin_row(250, 350, 6, "GND", "")
    d.pin_row(250, 390, 2, "5V", "")
    d.box(340, 100, 180, 130, COLOURS["part"], "74AHCT125", "one gate, VCC 5 V")
    d.wire([(259, 150), (340, 150)], COLOURS["data"])
    d.text(348, 154, "1A", 11)
    d.text(512, 154, "1Y", 11, "end")
    d.text(350, 200, "1OE → GND", 11)
    d.wire([(520, 150), (575, 150)], COLOURS["data"])
    d.part(605, 150, "330 Ω", 56)
    d.wire([(633, 150), (700, 150)], COLOURS["data"])
    d.box(700, 80, 270, 200, COLOURS["box"], "WS2812 panel", "e.g. 64x16, wiring = snake_columns")
    d.text(712, 154, "DIN", 12, weight="bold")
    d.text(712, 214, "+5V", 12, weight="bold", colour=COLOURS["5V"])
    d.text(712, 254, "GND", 12, weight="bold")
    d.box(700, 320, 270, 110, "#fdeaea", "5 V supply", "sized by hardware.md's budget")
    d.wire([(259, 350), (640, 350), (640, 250), (700, 250)], COLOURS["GND"])
    d.wire([(640, 350), (700, 350)], COLOURS["GND"])
    d.text(708, 354, "GND", 11, weight="bold")
    d.text(630, 344, "common GND", 11, "end")
    d.wire([(880, 320), (880, 210), (760, 210)], COLOURS["5V"], 3)
    d.dot(820, 210)
    d.part(820, 230, "1000 µF", 36, 16, vertical=True)
    d.dot(820, 250)
    d.wire([(820, 248), (820, 250), (760, 250)], COLOURS["GND"])
    d.wire([(259, 390), (320, 390), (320, 245), (430, 245), (430, 230)], COLOURS["5V"])
    d.text(330, 405, "5 V for the buffer only", 11, colour=COLOURS["5V"])
    d.text(20, 455, "A large panel: feed 5 V in at both ends (and every 256 LEDs or so), 1000 µF at each feed.", 12)
    d.text(20, 473, "driver = \"pwm\" (rpi_ws281x, Pi 4 and older, root): the same, with DIN from GPIO 18, "
                    "header pin 12, instead.", 12)
    return d


# -- the Pico keypad ----------------------------------------------------------------------

def keypad() -> Drawing:
    config = keypad_config()
    rows: tuple[int, ...] = tuple(config["ROWS"])
    columns: tuple[int, ...] = tuple(config["COLUMNS"])
    green, red, buzzer = config["LED_ACCEPTED"], config["LED_REFUSED"], config["BUZZER"]
    assert isinstance(green, int) and isinstance(red, int) and isinstance(buzzer, int), "pins fitted"
    d = Drawing(1000, 600, "Pico keypad: 5 x 4 matrix, LEDs, buzzer through a transistor")
    d.text(20, 30, "Marker's keypad: Raspberry Pi Pico (firmware/keypad_config.py) → Pi over USB", 18,
           weight="bold")
    d.box(20, 50, 260, 520, COLOURS["pico"], "Raspberry Pi Pico", "MicroPython 1.20+")
    y = 100
    for i, gp in enumerate(rows):
        d.pin_row(260, y, pico_pin(gp), f"GP{gp}", f"row {i}")
        d.wire([(269, y), (330 + i * 0, y), (340, y)], COLOURS["signal"])
        y += 30
    for i, gp in enumerate(columns):
        d.pin_row(260, y, pico_pin(gp), f"GP{gp}", f"column {i}")
        d.wire([(269, y), (340, y)], COLOURS["data"])
        y += 30
    d.box(340, 80, 250, 280, COLOURS["box"], "Key matrix 5 x 4", "key = row x 4 + column")
    for r in range(5):
        for c in range(4):
            cx, cy = 385 + c * 50, 140 + r * 43
            d.items.append(f'<rect x="{cx - 14}" y="{cy - 12}" width="28" height="24" rx="4" fill="#fff" '
                           'stroke="#666"/>')
            d.text(cx, cy + 4, str(r * 4 + c), 10, "middle")
    d.text(350, 352, "no diodes needed: ghost readings are ignored", 10, colour="#444")
    # LEDs.
    ly = 410
    d.pin_row(260, ly, pico_pin(green), f"GP{green}", "green")
    d.wire([(269, ly), (330, ly)], COLOURS["signal"])
    d.part(360, ly, "470 Ω", 56)
    d.wire([(388, ly), (420, ly)], COLOURS["signal"])
    d.part(450, ly, "LED green", 62)
    d.wire([(481, ly), (520, ly)], COLOURS["GND"])
    d.text(525, ly + 4, "GND", 11)
    d.pin_row(260, ly + 34, pico_pin(red), f"GP{red}", "red")
    d.wire([(269, ly + 34), (330, ly + 34)], COLOURS["signal"])
    d.part(360, ly + 34, "470 Ω", 56)
    d.wire([(388, ly + 34), (420, ly + 34)], COLOURS["signal"])
    d.part(450, ly + 34, "LED red", 62)
    d.wire([(481, ly + 34), (520, ly + 34)], COLOURS["GND"])
    d.text(525, ly + 38, "GND", 11)
    # Buzzer through an NPN.
    by = 490
    d.pin_row(260, by, pico_pin(buzzer), f"GP{buzzer}", "buzzer")
    d.wire([(269, by), (330, by)], COLOURS["signal"])
    d.part(360, by, "1 kΩ", 56)
    d.wire([(388, by), (640, by)], COLOURS["signal"])
    d.box(640, 460, 150, 70, COLOURS["part"], "NPN BC337", "or 2N2222")
    d.text(646, by + 4, "B", 11, weight="bold")
    d.text(715, 526, "E → GND", 11, "middle")
    d.wire([(715, 460), (715, 420)], COLOURS["signal"])
    d.text(722, 452, "C", 11, weight="bold")
    d.box(660, 370, 110, 50, COLOURS["part"], "buzzer 5 V", "active")
    d.wire([(715, 370), (715, 345), (880, 345)], COLOURS["5V"])
    d.text(885, 349, "VBUS 5 V (pin 40)", 11, colour=COLOURS["5V"])
    # The flyback diode across the buzzer, cathode to 5 V (a magnetic buzzer's coil).
    d.dot(715, 345)
    d.wire([(715, 345), (800, 345), (800, 372)], COLOURS["5V"])
    d.part(800, 395, "1N4148, cathode to 5 V", 46, 18, vertical=True)
    d.wire([(800, 418), (800, 440), (715, 440)], COLOURS["signal"])
    d.dot(715, 440)
    d.pin_row(260, 540, 38, "GND", "")
    d.pin_row(260, 60 + 500 - 520 + 520, 40, "VBUS", "5 V")
    d.box(820, 80, 160, 110, COLOURS["pi"], "Raspberry Pi", "USB port")
    d.wire([(280, 75), (300, 75), (300, 60), (900, 60), (900, 80)], "#666", 3)
    d.text(600, 55, "USB cable: power, serial (/dev/cueboard-keypad)", 11, "middle", colour="#444")
    return d


DIAGRAMS = {"wiring-referee-box.svg": referee_box, "wiring-max7219.svg": max7219, "wiring-ws2812.svg": ws2812,
            "wiring-keypad.svg": keypad}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a picture is out of date")
    args = parser.parse_args(argv)
    stale = []
    for name, draw in DIAGRAMS.items():
        text = draw().svg()
        path = OUT / name
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
            print(path.relative_to(ROOT))
    if stale:
        print(f"out of date: {', '.join(stale)} (run: python3 scripts/wiring.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
