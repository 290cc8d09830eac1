"""luma devices from a :class:`~.display_config.DisplayConfig`, libraries imported only here.

``spidev`` (through luma's ``spi``, or ``ws2812_spi``), ``rpi_ws281x``, ``pygame`` and a HUB75
board's library (``rgbmatrix``, ``piomatter`` or ``RGBMatrixEmulator``: ``hub75``) are
imported when a board of that kind is opened, so the package imports, and the layouts
draw, on any machine. Tests reach the lowest levels by injection: ``serial`` (what luma's
``spi`` is: ``data``/``command``), ``spi`` (a spidev-like object under luma's real ``spi``
or a WS2812 panel on SPI), or ``dma`` (the ``rpi_ws281x`` module luma's ``ws2812`` drives,
``driver = "pwm"``).
"""

from __future__ import annotations

import os
from typing import Any

from PIL import Image

from cueboard.common.errors import SpiUnavailable

from .display_config import DisplayConfig
from .max7219 import Max7219Chain
from .pixels import pixel_values

__all__ = ["open_device", "pixel_values", "wiring_map"]


def _led_index(wiring: str, x: int, y: int, width: int, height: int) -> int:
    """The position along the strip of the LED at (x, y) of the panel as wired."""
    if wiring == "rows":
        return y * width + x
    if wiring == "snake_rows":
        return y * width + (x if y % 2 == 0 else width - 1 - x)
    if wiring == "columns":
        return x * height + y
    if wiring == "snake_columns":
        return x * height + (y if x % 2 == 0 else height - 1 - y)
    raise ValueError(f"unknown wiring {wiring!r}")


def wiring_map(wiring: str, width: int, height: int, rotate: int = 0) -> list[int]:
    """luma's ``ws2812`` ``mapping``: for each pixel of the image drawn (row by row), the
    LED it lights. luma's ``ws2812`` does not rotate the image itself, so the rotation is
    folded in here, the way luma rotates every other device (a ``rotate`` of 1 turns the
    picture a quarter clockwise onto the panel).

    >>> wiring_map("snake_rows", 3, 2)
    [0, 1, 2, 5, 4, 3]
    """
    lw, lh = (height, width) if rotate % 2 else (width, height)
    numbers = Image.new("I", (lw, lh))
    numbers.putdata(range(lw * lh))
    physical = numbers.rotate(rotate * -90, expand=True) if rotate else numbers
    mapping = [0] * (lw * lh)
    for index, logical in enumerate(pixel_values(physical)):
        x, y = index % width, index // width
        mapping[logical] = _led_index(wiring, x, y, width, height)
    return mapping


def hub75_setup(config: DisplayConfig) -> Any:
    """The :class:`~.hub75.Hub75Setup` of a ``hub75`` board's configuration."""
    from .hub75 import Hub75Setup

    c = config
    pw, ph = (int(n) for n in c.panel.split("x"))
    return Hub75Setup(width=c.width, height=c.height, panel_width=pw, panel_height=ph, chain=c.chain,
                      parallel=c.parallel, hat=c.hat, gpio_slowdown=c.gpio_slowdown, pwm_bits=c.pwm_bits,
                      brightness=c.brightness, night_brightness=c.night_brightness, night_hours=c.night_hours,
                      rotate=c.rotate, backend=c.backend, emulator=c.emulator)


def _spi_trouble(exc: BaseException, config: DisplayConfig) -> SpiUnavailable | None:
    """What to do when opening a board's ``/dev/spidev<port>.<device>`` failed, or None when it
    is not one of the known troubles (then the error itself is reported)."""
    node = f"/dev/spidev{config.spi_port}.{config.spi_device}"
    if isinstance(exc, ModuleNotFoundError) and exc.name == "spidev":
        return SpiUnavailable(f"{config.device} board: the spidev module is not installed: apt-get install "
                              "python3-spidev (systemd/install.sh does)")
    # luma's spi interface says these in its own words (luma.core.error).
    name = type(exc).__name__
    if isinstance(exc, FileNotFoundError) or name == "DeviceNotFoundError":
        return SpiUnavailable(f"{config.device} board: no {node}: SPI is off (systemd/install.sh turns it on: "
                              "reboot once after it) or spi_port/spi_device name a bus this Pi does not have")
    if isinstance(exc, PermissionError) or name == "DevicePermissionError":
        return SpiUnavailable(f"{config.device} board: {node}: permission denied: the service's user must be "
                              "in the group spi (systemd/install.sh puts it there)")
    return None


def open_device(config: DisplayConfig, *, serial: Any = None, spi: Any = None, dma: Any = None,
                hub75: dict[str, Any] | None = None) -> Any:
    """The luma device ``config`` describes, at its brightness, blank. ``hub75``: the
    libraries a HUB75 board is drawn with (``model``, ``rgbmatrix``, ``piomatter``), for tests.
    An SPI bus that cannot be had raises :class:`SpiUnavailable` saying what to do."""
    try:
        return _open_device(config, serial=serial, spi=spi, dma=dma, hub75=hub75)
    except Exception as exc:
        trouble = _spi_trouble(exc, config) if config.device in ("max7219", "ws2812") else None
        if trouble is None:
            raise
        raise trouble from exc


def _open_device(config: DisplayConfig, *, serial: Any, spi: Any, dma: Any, hub75: dict[str, Any] | None) -> Any:
    c = config
    if c.device == "hub75":  # rgbmatrix, piomatter or RGBMatrixEmulator, by the Pi (hw/hub75.py)
        from .hub75 import open_hub75

        return open_hub75(hub75_setup(c), **(hub75 or {}))
    if c.device == "max7219":
        if serial is None:
            # the ignore below: luma ships no type hints (no py.typed, no stubs)
            from luma.core.interface.serial import noop  # type: ignore[import-untyped]  # luma ships no type hints (no py.typed, no stubs)
            from luma.core.interface.serial import spi as luma_spi

            serial = luma_spi(spi=spi, gpio=noop(), port=c.spi_port, device=c.spi_device,
                              bus_speed_hz=c.spi_speed_hz)
        return Max7219Chain(serial, width=c.width, height=c.height, rotate=c.rotate,
                            block_orientation=c.block_orientation,
                            blocks_arranged_in_reverse_order=c.blocks_reversed, contrast=c.brightness)
    if c.device == "ws2812":
        mapping = wiring_map(c.wiring, c.width, c.height, c.rotate)
        if c.driver == "spi":  # the default: GPIO 10, any Pi, no privilege (ws2812_spi)
            from .ws2812_spi import open_ws2812_spi

            device = open_ws2812_spi(width=c.width, height=c.height, rotate=c.rotate, mapping=mapping,
                                     port=c.spi_port, device=c.spi_device, spi=spi)
        else:  # "pwm": rpi_ws281x on GPIO 18, root, not on a Pi 5
            # the ignore below: luma ships no type hints (no py.typed, no stubs)
            from luma.led_matrix.device import ws2812  # type: ignore[import-untyped]  # luma ships no type hints (no py.typed, no stubs)

            from .ws2812_spi import check_pwm_supported

            check_pwm_supported()
            device = ws2812(dma_interface=dma, width=c.width, height=c.height, rotate=c.rotate, mapping=mapping)
        device.contrast(c.brightness)
        return device
    if c.device == "dummy":
        # the ignore below: luma ships no type hints (no py.typed, no stubs)
        from luma.core.device import dummy  # type: ignore[import-untyped]  # luma ships no type hints (no py.typed, no stubs)

        return dummy(width=c.width, height=c.height, rotate=c.rotate, mode=c.mode)
    # The emulators, on pygame (which greets stdout on import unless told not to).
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    # the ignore below: luma ships no type hints (no py.typed, no stubs)
    from luma.emulator import device as emulator  # type: ignore[import-untyped]  # luma ships no type hints (no py.typed, no stubs)

    common: dict[str, Any] = {"width": c.width, "height": c.height, "rotate": c.rotate, "mode": c.mode}
    if c.device == "capture":
        device = emulator.capture(**common, transform=c.transform, scale=c.scale,
                                  file_template=c.file or "board-{0:06}.png")
    elif c.device == "gifanim":
        device = emulator.gifanim(**common, transform=c.transform, scale=c.scale,
                                  filename=c.file or "board.gif", duration=c.frame_seconds)
    elif c.device == "pygame":
        device = emulator.pygame(**common, transform=c.transform, scale=c.scale)
    elif c.device == "asciiblock":
        device = emulator.asciiblock(**common)
    else:
        raise ValueError(f"unknown display device {c.device!r}")
    device.contrast(c.brightness)
    return device
