"""WS2812 panels on SPI (``cueboard.hw.ws2812_spi``, the default ``driver``): the exact
bytes spidev is given for known pixels, the pulse timings they make on the wire, the
same LEDs lit as luma's ``ws2812`` (``rpi_ws281x``) lights, and the refusals (a frame
larger than spidev's ``bufsiz``, ``driver = "pwm"`` on a Pi 5), each with its reason.

Only spidev is a stand-in (``FakeSpiDev``: it records every transfer); the device is
driven through the real ``open_device`` and ``Board``.
"""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest
from PIL import Image

from cueboard.hw import ws2812_spi
from cueboard.hw.clock import ManualClock
from cueboard.hw.display_config import DisplayConfigError, parse_display
from cueboard.hw.display_devices import open_device, wiring_map
from cueboard.hw.ws2812_spi import SPI_HZ, UnsupportedDriver, check_pwm_supported, open_ws2812_spi
from cueboard.table.devices import open_board
from tests.helpers.boards import FakeWs281x, shown, simple_state

RESET = "00" * 240
B0, B1 = "e0", "f8"  # the SPI byte of a WS2812 0 bit (11100000) and of a 1 bit (11111000)


def spi_bytes(*colour_bytes: int) -> str:
    """The SPI bytes (hex) of the colour bytes as the strip takes them, one SPI byte a bit."""
    return "".join(B1 if byte >> bit & 1 else B0 for byte in colour_bytes for bit in range(7, -1, -1))
SIMPLE = shown(simple_state())
PI5 = b"raspberrypi,5-model-b\0brcm,bcm2712\0"
PI4 = b"raspberrypi,4-model-b\0brcm,bcm2711\0"


class FakeSpiDev:
    """What is used of ``spidev.SpiDev``; every transfer recorded, whole."""

    def __init__(self) -> None:
        self.opened: tuple[int, int] | None = None
        self.max_speed_hz = 0
        self.mode = -1
        self.transfers: list[bytes] = []
        self.closed = False
        self.failing: OSError | None = None

    def open(self, bus: int, device: int) -> None:
        self.opened = (bus, device)

    def writebytes2(self, data: bytes) -> None:
        if self.closed:
            raise OSError(9, "Bad file descriptor")
        if self.failing is not None:
            raise self.failing
        self.transfers.append(bytes(data))

    def close(self) -> None:
        self.closed = True


def image(pixels: list[tuple[int, int, int]], width: int, height: int = 1) -> Image.Image:
    picture = Image.new("RGB", (width, height))
    picture.putdata(pixels)
    return picture


# -- the bytes --------------------------------------------------------------------------


def test_the_modules_examples_run_as_written() -> None:
    assert doctest.testmod(ws2812_spi).failed == 0


def test_known_pixels_give_exactly_these_spi_bytes() -> None:
    spi = FakeSpiDev()
    panel = open_ws2812_spi(width=3, height=1, spi=spi, bufsiz=4096)
    assert spi.opened == (0, 0) and spi.mode == 0 and spi.max_speed_hz == 6_250_000
    assert spi.transfers == [bytes.fromhex(RESET + B0 * 8 * 9 + RESET)]  # opened dark
    panel.display(image([(255, 0, 0), (0, 255, 0), (0x12, 0x34, 0x56)], 3))
    # Each LED is green, red, blue; each bit one SPI byte: 0 -> 11100000, 1 -> 11111000.
    red = B0 * 8 + B1 * 8 + B0 * 8
    green = B1 * 8 + B0 * 8 + B0 * 8
    mixed = ((B0 + B0 + B1 + B1 + B0 + B1 + B0 + B0) + (B0 + B0 + B0 + B1 + B0 + B0 + B1 + B0)
             + (B0 + B1 + B0 + B1 + B0 + B1 + B1 + B0))
    assert mixed == spi_bytes(0x34, 0x12, 0x56)  # G 0x34, R 0x12, B 0x56, written out bit by bit
    assert spi.transfers[-1] == bytes.fromhex(RESET + red + green + mixed + RESET)


def test_brightness_scales_as_rpi_ws281x_does() -> None:
    spi = FakeSpiDev()
    panel = open_ws2812_spi(width=1, height=1, spi=spi, bufsiz=4096)
    panel.display(image([(255, 128, 1)], 1))
    panel.contrast(47)  # colour * 48 >> 8: 255 -> 47 (0x2f), 128 -> 24 (0x18), 1 -> 0
    assert panel.leds() == bytes((24, 47, 0))
    assert spi.transfers[-1] == bytes.fromhex(RESET + spi_bytes(24, 47, 0) + RESET)


def test_the_mapping_puts_each_pixel_on_its_led() -> None:
    spi = FakeSpiDev()
    mapping = wiring_map("snake_rows", 2, 2)  # [0, 1, 3, 2]
    panel = open_ws2812_spi(width=2, height=2, mapping=mapping, spi=spi, bufsiz=4096)
    panel.display(image([(1, 0, 0), (2, 0, 0), (3, 0, 0), (4, 0, 0)], 2, 2))
    assert panel.leds() == bytes((0, 1, 0, 0, 2, 0, 0, 4, 0, 0, 3, 0))


def pulses(frame: bytes, hz: int = SPI_HZ) -> list[tuple[int, float]]:
    """The line as (level, microseconds) runs, from the SPI bytes, most significant bit first."""
    bits = "".join(f"{b:08b}" for b in frame)
    runs: list[tuple[int, float]] = []
    start = 0
    for i in range(1, len(bits) + 1):
        if i == len(bits) or bits[i] != bits[start]:
            runs.append((int(bits[start]), (i - start) * 1e6 / hz))
            start = i
    return runs


def decode_like_a_ws2812(frame: bytes) -> bytes:
    """What a WS2812 chain takes from the line: a high under 0.6 us is a 0, longer a 1."""
    runs = pulses(frame)
    assert runs[0][0] == 0 and runs[-1][0] == 0
    bits = [1 if us > 0.6 else 0 for level, us in runs if level == 1]
    return bytes(int("".join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8))


def test_the_line_keeps_the_ws2812_timing() -> None:
    spi = FakeSpiDev()
    panel = open_ws2812_spi(width=4, height=2, spi=spi, bufsiz=4096)
    panel.display(image([(v, 255 - v, v // 2) for v in (0, 1, 77, 128, 200, 254, 255, 15)], 4, 2))
    frame = spi.transfers[-1]
    runs = pulses(frame)
    # A reset that latches (>= 280 us low) before and after; between, each bit is 1.28 us:
    # a 0 high 0.48 us then low 0.80 us, a 1 high 0.80 us then low 0.48 us (WS2812B:
    # T0H 0.4, T1H 0.8, T0L 0.85, T1L 0.45, each +- 0.15; a bit 1.25 +- 0.6).
    assert runs[0][1] >= 280 and runs[-1][1] >= 280
    highs = {round(us, 4) for level, us in runs if level == 1}
    lows = {round(us, 4) for level, us in runs[1:-1] if level == 0}
    assert highs == {0.48, 0.8}
    assert lows == {0.48, 0.8}  # each bit's low ends at its byte's end: no two run together
    assert sum(1 for level, _ in runs if level == 1) == 8 * 24
    # Every SPI byte ends low, so a pause between bytes only stretches a low.
    assert all(b & 1 == 0 for b in frame)


@pytest.mark.filterwarnings("ignore:Image.Image.getdata:DeprecationWarning")  # luma's, on Pillow 13
def test_the_spi_driver_lights_the_leds_as_luma_s_ws2812_does() -> None:
    # The same configuration through both drivers: the SPI bytes, decoded as the LEDs
    # decode them, are the colours rpi_ws281x would send (its brightness applied).
    table = {"device": "ws2812", "width": 8, "height": 4, "wiring": "snake_columns", "rotate": 1,
             "brightness": 200}
    spi, dma = FakeSpiDev(), FakeWs281x()
    by_spi = open_device(parse_display(table), spi=spi)
    by_pwm = open_device(parse_display({**table, "driver": "pwm"}), dma=dma)
    picture = Image.new("RGB", by_spi.size)
    picture.putdata([((i * 37) % 256, (i * 91) % 256, (255 - i * 5) % 256) for i in range(32)])
    by_spi.display(picture)
    by_pwm.display(picture)
    scale = dma.brightness + 1
    expected = bytearray()
    for led in range(32):
        colour = dma.leds[led]
        r, g, b = colour >> 16 & 255, colour >> 8 & 255, colour & 255
        expected += bytes(((g * scale) >> 8, (r * scale) >> 8, (b * scale) >> 8))
    assert decode_like_a_ws2812(spi.transfers[-1]) == bytes(expected)


# -- the timing on each Pi's real SPI clock ---------------------------------------------------


@pytest.mark.parametrize(("pi", "source_hz", "divides"), [
    ("Pi 4, core 500 MHz (core_freq_min=500)", 500_000_000, ws2812_spi.bcm2835_spi_hz),
    ("Pi 5, RP1 clk_sys 200 MHz", 200_000_000, ws2812_spi.dw_spi_hz),
    ("Zero 2 W, core 250 MHz (core_freq=250)", 250_000_000, ws2812_spi.bcm2835_spi_hz),
    ("Pi 3 / Zero 2 W, core 400 MHz", 400_000_000, ws2812_spi.bcm2835_spi_hz),
])
def test_every_pulse_sits_well_inside_the_datasheet_window_at_each_pis_real_clock(
        pi: str, source_hz: int, divides: object) -> None:
    assert callable(divides)
    hz = divides(source_hz, SPI_HZ)  # the controller's even divider, as its Linux driver picks it
    assert hz <= SPI_HZ  # never faster than asked
    widths = ws2812_spi.pulse_widths(hz)
    # Measured on the bytes themselves too: the runs of the line for a 0 and a 1.
    line = pulses(bytes(120) + ws2812_spi.encode_leds(bytes((0b01010101,))) + bytes(120), round(hz))
    measured = {round(us * 1000, 1) for _, us in line[1:-1]}
    assert measured == {round(widths["T0H"], 1), round(widths["T0L"], 1), round(widths["T1H"], 1),
                        round(widths["T1L"], 1)} - {None}
    for name, (low, high) in ws2812_spi.WINDOWS.items():
        margin = min(widths[name] - low, high - widths[name])
        assert margin >= 70, f"{pi}: {name} {widths[name]:.0f} ns is {margin:.0f} ns inside {low}-{high} ns"


def test_the_old_encoding_and_a_dropping_core_clock_fall_outside_the_windows() -> None:
    """What the windows test catches: 1110 at 3.2 MHz on a Pi 5 (T1H 960 ns), and a Pi 4
    whose core clock fell to 250 MHz under a divider chosen for 500 (why core_freq_min)."""
    pi5_old = ws2812_spi.dw_spi_hz(200_000_000, 3_200_000)
    assert 3 * 1e9 / pi5_old > ws2812_spi.WINDOWS["T1H"][1]  # 960 ns > 950 ns
    dropped = 250_000_000 / 80  # the divider for 500 MHz, the core at 250: 3.125 MHz
    widths = ws2812_spi.pulse_widths(dropped)
    assert widths["T0H"] > ws2812_spi.WINDOWS["T0H"][1] and widths["T1H"] > ws2812_spi.WINDOWS["T1H"][1]


# -- the refusals -----------------------------------------------------------------------


def test_a_frame_larger_than_spidev_takes_is_refused_saying_why() -> None:
    spi = FakeSpiDev()
    with pytest.raises(OSError, match=r"64x16 WS2812 panel \(1024 LEDs\) needs 25056 bytes .* spidev takes 4096"
                                      r".*bufsiz=131072.*reboot"):
        open_ws2812_spi(width=64, height=16, spi=spi, bufsiz=4096)
    assert spi.closed and spi.transfers == []
    assert open_ws2812_spi(width=64, height=16, spi=FakeSpiDev(), bufsiz=65536).cascaded == 1024
    # What install.sh sets takes the biggest board of docs/hardware.md, 128x32 (4,096 LEDs).
    assert open_ws2812_spi(width=128, height=32, spi=FakeSpiDev(), bufsiz=131072).cascaded == 4096


def test_bufsiz_is_read_from_the_module_parameter(tmp_path: Path) -> None:
    parameter = tmp_path / "bufsiz"
    assert ws2812_spi.spidev_bufsiz(parameter) == 4096  # no module loaded: spidev's default
    parameter.write_text("65536\n")
    assert ws2812_spi.spidev_bufsiz(parameter) == 65536


def test_pwm_is_refused_on_a_pi_5_and_taken_elsewhere(tmp_path: Path) -> None:
    compatible = tmp_path / "compatible"
    check_pwm_supported(compatible)  # no device tree: not a Pi
    compatible.write_bytes(PI4)
    check_pwm_supported(compatible)
    compatible.write_bytes(PI5)
    with pytest.raises(UnsupportedDriver, match=r"does not work on a Raspberry Pi 5.*'driver' = \"spi\".*GPIO 10"):
        check_pwm_supported(compatible)


def test_a_pi_5_board_on_pwm_reports_the_reason_in_its_health(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    compatible = tmp_path / "compatible"
    compatible.write_bytes(PI5)
    monkeypatch.setattr(ws2812_spi, "DEVICE_TREE_COMPATIBLE", compatible)
    monkeypatch.setattr(ws2812_spi.check_pwm_supported, "__defaults__", (compatible,))
    dma = FakeWs281x()
    config = parse_display({"device": "ws2812", "width": 8, "height": 8, "driver": "pwm"})
    board = open_board(config, time_source=ManualClock(), device_factory=lambda c: open_device(c, dma=dma))
    assert board.health.startswith("failed: UnsupportedDriver: WS2812 'driver' = \"pwm\"")
    assert dma.renders == 0


@pytest.mark.parametrize(("table", "named"), [
    ({"driver": "dma"}, "display.driver: must be one of 'spi', 'pwm'"),
    ({"driver": "pwm", "spi_port": 1}, "display.spi_port: is for a WS2812 panel on SPI"),
    ({"spi_speed_hz": 2_000_000}, "display.spi_speed_hz: unknown key; it is a key of max7219 boards"),
])
def test_bad_driver_keys_are_refused(table: dict[str, object], named: str) -> None:
    with pytest.raises(DisplayConfigError, match=named):
        parse_display({"device": "ws2812", "width": 8, "height": 8, **table})


def test_spi_is_the_default_and_its_port_can_be_chosen() -> None:
    config = parse_display({"device": "ws2812", "width": 8, "height": 8, "spi_port": 1, "spi_device": 2})
    assert (config.driver, config.spi_port, config.spi_device) == ("spi", 1, 2)
    spi = FakeSpiDev()
    open_device(config, spi=spi)
    assert spi.opened == (1, 2)


# -- on a board -------------------------------------------------------------------------


def test_a_board_on_spi_draws_dim_sends_nothing_unchanged_and_survives_a_failing_bus(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parameter = tmp_path / "bufsiz"  # spidev as systemd/install.sh loads it
    parameter.write_text("131072\n")
    monkeypatch.setattr(ws2812_spi.spidev_bufsiz, "__defaults__", (parameter,))
    clock = ManualClock()
    spis: list[FakeSpiDev] = []

    def factory(config: object) -> object:
        spis.append(FakeSpiDev())
        return open_device(parse_display({"device": "ws2812", "width": 32, "height": 8}), spi=spis[-1])

    board = open_board(parse_display({"device": "ws2812", "width": 32, "height": 8}), time_source=clock,
                       device_factory=factory)
    board.show(SIMPLE)
    first = spis[0]
    lit = decode_like_a_ws2812(first.transfers[-1])
    assert max(lit) <= 48 * 256 >> 8 and any(lit)  # brightness 48: dim, but something shows
    sent = len(first.transfers)
    board.show(SIMPLE)
    assert len(first.transfers) == sent
    first.failing = OSError(5, "Input/output error")
    board.flash()
    assert board.health == "failed: OSError: [Errno 5] Input/output error"
    assert first.closed  # the failing bus released
    clock.advance(1.0)
    assert board.health == "ok" and len(spis) == 2
    assert decode_like_a_ws2812(spis[1].transfers[-1]) == lit
