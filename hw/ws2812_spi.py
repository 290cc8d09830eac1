"""WS2812 panels driven through SPI (``driver = "spi"``): each bit of a colour is one SPI byte
at 6.25 MHz on SPI0 MOSI (GPIO 10), a frame one transfer. Why SPI, the encoding, the clocks
and the limits: docs/hardware.md, "WS2812 timing" and "The SPI driver's design".
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

# the ignore below: luma ships no type hints (no py.typed, no stubs)
from luma.core.device import device as luma_device  # type: ignore[import-untyped]  # luma ships no type hints (no py.typed, no stubs)
from PIL import Image

from cueboard.common.errors import UnsupportedDriver

__all__ = ["CLOCKS", "LED_BYTES", "RESET_BYTES", "SPI_HZ", "WINDOWS", "SpiBus", "UnsupportedDriver", "Ws2812Spi",
           "bcm2835_spi_hz", "check_pwm_supported", "dw_spi_hz", "encode_frame", "encode_leds", "pulse_widths"]

SPI_HZ = 6_250_000
"""One SPI byte a WS2812 bit: 8 x 160 ns = 1.28 us (the datasheet's 1.25 us +- 600 ns)."""
ZERO = 0b11100000
ONE = 0b11111000
RESET_BYTES = 240
"""Zero bytes before and after each frame: 307 us low at 6.25 MHz."""
LED_BYTES = 24
"""SPI bytes an LED: 3 colours x 8 bits, one SPI byte each."""

WINDOWS: dict[str, tuple[float, float]] = {
    "T0H": (400 - 150, 400 + 150), "T1H": (800 - 150, 800 + 150),
    "T0L": (850 - 150, 850 + 150), "T1L": (450 - 150, 450 + 150)}
"""Nanoseconds each part of a bit may last, from the WS2812B datasheet's data transfer time
table (Worldsemi: T0H 0.4 us, T1H 0.8 us, T0L 0.85 us, T1L 0.45 us, each +-150 ns)."""


def bcm2835_spi_hz(source_hz: int, asked_hz: int) -> float:
    """The clock a Pi 1-4's (and Zero 2 W's) SPI0 makes: Linux's spi-bcm2835 divides the core
    clock it read at probe by ``DIV_ROUND_UP(clk, asked)``, made even (CDIV is even).

    >>> bcm2835_spi_hz(500_000_000, 3_200_000)  # the old 3.2 MHz: 500 / 158
    3164556.9620253164
    """
    divider = -(-source_hz // asked_hz)
    divider += divider % 2
    return source_hz / divider


def dw_spi_hz(source_hz: int, asked_hz: int) -> float:
    """The clock a Pi 5's SPI makes: its RP1's DesignWare SSI, whose Linux driver (spi-dw-core)
    divides ``clk_sys`` by ``(DIV_ROUND_UP(clk, asked) + 1) & 0xfffe`` (no odd dividers).

    >>> dw_spi_hz(200_000_000, 3_200_000)  # the old 3.2 MHz: 200 / 64
    3125000.0
    """
    divider = (-(-source_hz // asked_hz) + 1) & 0xFFFE
    return source_hz / divider


CLOCKS: dict[str, float] = {
    "Pi 4 (core 500 MHz, core_freq_min=500)": bcm2835_spi_hz(500_000_000, SPI_HZ),
    "Pi 5 (RP1 clk_sys 200 MHz)": dw_spi_hz(200_000_000, SPI_HZ),
    "Zero 2 W (core 250 MHz, core_freq=250)": bcm2835_spi_hz(250_000_000, SPI_HZ),
    "Pi 3 / Zero 2 W (core 400 MHz)": bcm2835_spi_hz(400_000_000, SPI_HZ),
}
"""The SPI clock each Pi really makes when asked for :data:`SPI_HZ` (docs/hardware.md)."""


def pulse_widths(spi_hz: float) -> dict[str, float]:
    """T0H, T0L, T1H and T1L in nanoseconds at ``spi_hz``, from the symbols' bits.

    >>> {k: round(v) for k, v in pulse_widths(6_250_000).items()}
    {'T0H': 480, 'T0L': 800, 'T1H': 800, 'T1L': 480}
    """
    bit_ns = 1e9 / spi_hz

    def high(symbol: int) -> int:
        return f"{symbol:08b}".index("0")

    return {"T0H": high(ZERO) * bit_ns, "T0L": (8 - high(ZERO)) * bit_ns,
            "T1H": high(ONE) * bit_ns, "T1L": (8 - high(ONE)) * bit_ns}
DEFAULT_BUFSIZ = 4096
"""spidev's own default for ``bufsiz``."""
BUFSIZ_PARAMETER = Path("/sys/module/spidev/parameters/bufsiz")
DEVICE_TREE_COMPATIBLE = Path("/proc/device-tree/compatible")
"""Where the kernel says which board this is (``raspberrypi,5-model-b`` ... ``brcm,bcm2712``)."""


def _symbols(byte: int) -> bytes:
    """The eight SPI bytes of one colour byte, its most significant bit first."""
    return bytes(ONE if byte >> bit & 1 else ZERO for bit in range(7, -1, -1))


SYMBOLS: tuple[bytes, ...] = tuple(_symbols(b) for b in range(256))
"""``SYMBOLS[b]``: the SPI bytes that send the colour byte ``b``."""


def encode_leds(grb: bytes) -> bytes:
    """The SPI bytes for the LEDs' colour bytes as the strip takes them (G, R, B per LED).

    >>> encode_leds(bytes((0x00, 0xFF, 0x80))).hex(" ", 8)
    'e0e0e0e0e0e0e0e0 f8f8f8f8f8f8f8f8 f8e0e0e0e0e0e0e0'
    """
    return b"".join(map(SYMBOLS.__getitem__, grb))


def encode_frame(grb: bytes) -> bytes:
    """A whole transfer: the reset, the LEDs, the reset that latches them."""
    reset = bytes(RESET_BYTES)
    return reset + encode_leds(grb) + reset


def check_pwm_supported(compatible: Path = DEVICE_TREE_COMPATIBLE) -> None:
    """Refuse ``driver = "pwm"`` (``rpi_ws281x``) on a Raspberry Pi 5, which it does not support.

    ``rpi_ws281x`` drives the BCM283x's PWM and DMA through ``/dev/mem``; the Pi 5's GPIO
    are on the RP1 chip, and the library stops with "Hardware revision is not supported".
    """
    try:
        names = compatible.read_bytes().split(b"\0")
    except OSError:
        return  # not a Pi with a device tree (a laptop, a test): nothing to say
    if b"brcm,bcm2712" in names or b"raspberrypi,5-model-b" in names:
        raise UnsupportedDriver(
            "WS2812 'driver' = \"pwm\" (rpi_ws281x, GPIO 18) does not work on a Raspberry Pi 5; "
            "use 'driver' = \"spi\" (the default) with the panel's data on GPIO 10, header pin 19 "
            "(docs/hardware.md)")


class SpiDevice(Protocol):
    """What is used of ``spidev.SpiDev`` (or a fake in tests)."""

    max_speed_hz: int
    mode: int

    def open(self, bus: int, device: int) -> None: ...

    def writebytes2(self, data: bytes) -> None: ...

    def close(self) -> None: ...


def spidev_bufsiz(parameter: Path = BUFSIZ_PARAMETER) -> int:
    """The most spidev sends in one transfer, as the loaded module says."""
    try:
        return int(parameter.read_text().strip())
    except (OSError, ValueError):
        return DEFAULT_BUFSIZ


class SpiBus:
    """``/dev/spidev<port>.<device>`` opened for a WS2812 chain: mode 0, 6.25 MHz, one
    transfer a frame. Its ``cleanup`` closes it (luma's serial interfaces have one)."""

    def __init__(self, spi: SpiDevice | None = None, port: int = 0, device: int = 0,
                 bufsiz: int | None = None) -> None:
        if spi is None:
            import spidev  # type: ignore[import-not-found]  # Debian's python3-spidev, on the Pi only

            spi = spidev.SpiDev()
        spi.open(port, device)
        spi.mode = 0
        spi.max_speed_hz = SPI_HZ
        self.spi = spi
        self.port = port
        self.device = device
        self.bufsiz = spidev_bufsiz() if bufsiz is None else bufsiz

    def write(self, frame: bytes) -> None:
        if len(frame) > self.bufsiz:  # checked when opened; here in case bufsiz was changed
            raise OSError(f"a WS2812 frame of {len(frame)} bytes exceeds spidev's bufsiz {self.bufsiz}")
        self.spi.writebytes2(frame)

    def cleanup(self) -> None:
        self.spi.close()


class Ws2812Spi(luma_device):  # type: ignore[misc]  # luma's class is untyped (Any): a subclass of it
    """A WS2812 panel of ``width`` x ``height`` LEDs on SPI, drawn like any luma device.

    ``mapping[i]`` is the LED (its place along the strip) that lights pixel ``i`` of the
    image, row by row (``display_devices.wiring_map``); by default pixel ``i`` is LED ``i``.
    """

    def __init__(self, bus: SpiBus, *, width: int, height: int, rotate: int = 0,
                 mapping: Sequence[int] | None = None) -> None:
        count = width * height
        needed = LED_BYTES * count + 2 * RESET_BYTES
        if needed > bus.bufsiz:
            bus.cleanup()
            raise OSError(
                f"a {width}x{height} WS2812 panel ({count} LEDs) needs {needed} bytes in one SPI transfer and "
                f"spidev takes {bus.bufsiz} ({BUFSIZ_PARAMETER}): systemd/install.sh sets 'options spidev "
                "bufsiz=131072' in /etc/modprobe.d/cueboard-spidev.conf; reboot once after it ran "
                "(docs/hardware.md)")
        super().__init__(serial_interface=bus)
        self.capabilities(width, height, rotate, mode="RGB")
        self.cascaded = count
        self._bus = bus
        order = list(range(count)) if mapping is None else list(mapping)
        if sorted(order) != list(range(count)):
            bus.cleanup()
            raise ValueError(f"a mapping for {count} LEDs names each of 0 to {count - 1} once")
        # The strip's bytes come from the image's RGB bytes: strip byte 3 * led + k (G, R,
        # B) is image byte 3 * pixel + (1, 0, 2)[k].
        self._gather = [0] * (3 * count)
        for pixel, led in enumerate(order):
            for k, channel in enumerate((1, 0, 2)):
                self._gather[3 * led + k] = 3 * pixel + channel
        self._rgb = bytes(3 * count)
        self._contrast = 255
        self._hidden_contrast: int | None = None
        self.frames = 0
        self._send()

    def display(self, image: Image.Image) -> None:
        """Light the panel as ``image`` (RGB, the device's size) shows."""
        if image.mode != self.mode or image.size != self.size:
            raise ValueError(f"a {self.width}x{self.height} WS2812 panel shows {self.mode} images of that size, "
                             f"not {image.mode} {image.size[0]}x{image.size[1]}")
        self._rgb = image.tobytes()
        self._send()

    def contrast(self, level: int) -> None:
        """Brightness 0-255, as ``rpi_ws281x`` scales it: ``colour * (level + 1) >> 8``."""
        if not 0 <= level <= 255:
            raise ValueError(f"brightness is 0-255, not {level}")
        self._contrast = level
        self._send()

    def hide(self) -> None:
        if self._hidden_contrast is None:
            self._hidden_contrast = self._contrast
            self.contrast(0)

    def show(self) -> None:
        if self._hidden_contrast is not None:
            level, self._hidden_contrast = self._hidden_contrast, None
            self.contrast(level)

    def leds(self) -> bytes:
        """The strip's bytes as sent: G, R, B of LED 0, then LED 1 ..., brightness applied."""
        scale = self._contrast + 1
        table = bytes((v * scale) >> 8 for v in range(256))
        rgb = self._rgb.translate(table)
        return bytes(map(rgb.__getitem__, self._gather))

    def _send(self) -> None:
        self._bus.write(encode_frame(self.leds()))
        self.frames += 1


def open_ws2812_spi(*, width: int, height: int, rotate: int = 0, mapping: Sequence[int] | None = None,
                    port: int = 0, device: int = 0, spi: Any = None, bufsiz: int | None = None) -> Ws2812Spi:
    """The panel on ``/dev/spidev<port>.<device>`` (``spi``: a spidev-like object, for tests)."""
    return Ws2812Spi(SpiBus(spi, port, device, bufsiz), width=width, height=height, rotate=rotate,
                     mapping=mapping)
