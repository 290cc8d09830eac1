"""What an LED board draws at a brightness (WS2812, MAX7219, HUB75, the datasheets' figures for
an all-white frame), and the brightness a ``[display] supply_amps`` can feed
(:func:`cap_brightness`). The figures: docs/hardware.md, "Power".
"""

from __future__ import annotations

__all__ = ["LED_DEVICES", "cap_brightness", "draw_amps"]

WS2812_FULL_A = 0.060
WS2812_IDLE_A = 0.001
MAX7219_CHIP_A = 0.330
HUB75_PIXEL_A = 4.0 / (64 * 32)
LED_DEVICES = ("ws2812", "max7219", "hub75")
"""The boards that draw from a supply of their own (the emulators draw nothing)."""


def draw_amps(device: str, width: int, height: int, brightness: int) -> float:
    """Amps the board draws with every LED lit white at ``brightness`` (0-255).

    >>> round(draw_amps("ws2812", 128, 32, 48), 1), round(draw_amps("ws2812", 128, 32, 255), 1)
    (51.1, 249.9)
    >>> round(draw_amps("max7219", 128, 32, 255), 1)
    21.1
    """
    leds = width * height
    if device == "ws2812":
        return leds * (WS2812_FULL_A * (brightness + 1) / 256 + WS2812_IDLE_A)
    if device == "max7219":
        intensity = brightness >> 4
        return leds // 64 * MAX7219_CHIP_A * (2 * intensity + 1) / 31
    if device == "hub75":
        return leds * HUB75_PIXEL_A * brightness / 255
    return 0.0


def cap_brightness(device: str, width: int, height: int, brightness: int, supply_amps: float) -> int:
    """The highest brightness up to ``brightness`` whose all-white frame the supply feeds
    (0 when even the idle draw is more than the supply)."""
    level = brightness
    while level > 0 and draw_amps(device, width, height, level) > supply_amps:
        level -= 1
    return level
