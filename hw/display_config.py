"""The ``[display]`` section: which LED board, how it is wired, how it behaves.

One board a table::

    [display]
    device = "max7219"          # max7219 | ws2812 | dummy | capture | gifanim | pygame | asciiblock
    width = 32                  # pixels (or, for a MAX7219 chain in one row, cascaded = 4)
    height = 8
    block_orientation = -90     # MAX7219: 0, 90, -90 or 180, as luma's (most 4-in-1 modules: -90)
    brightness = 112            # 0-255

Several boards a table (the same state on each, e.g. one for the hall, one for the
marker)::

    [[display]]
    name = "hall"
    device = "ws2812"
    width = 64
    height = 16
    wiring = "snake_columns"
    driver = "spi"              # spi (GPIO 10, any Pi) | pwm (rpi_ws281x, GPIO 18, Pi 4 and older, root)

    [[display]]
    name = "marker"
    device = "max7219"
    cascaded = 4

Unknown keys, and keys of another kind of device, are refused at start-up
(:class:`DisplayConfigError`, naming the key), like a misspelt key in Klipper's config.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["DEVICES", "DisplayConfig", "DisplayConfigError", "parse_display", "parse_displays"]


class DisplayConfigError(ValueError):
    """A board's configuration is wrong; the message names the key."""


COMMON = ("device", "name", "width", "height", "layout", "rotate", "brightness", "page_seconds",
          "scroll_speed")
DEVICES: dict[str, tuple[str, ...]] = {
    "max7219": ("cascaded", "spi_port", "spi_device", "spi_speed_hz", "block_orientation",
                "blocks_reversed", "resync_seconds"),
    "ws2812": ("wiring", "driver", "spi_port", "spi_device"),
    "dummy": ("mode",),
    "capture": ("mode", "scale", "transform", "file"),
    "gifanim": ("mode", "scale", "transform", "file", "frame_seconds"),
    "pygame": ("mode", "scale", "transform"),
    "asciiblock": ("mode",),
}
"""Each kind of device and the keys it takes besides :data:`COMMON`."""

LAYOUTS = ("auto", "32x8", "64x16", "128x32")
WIRINGS = ("rows", "snake_rows", "columns", "snake_columns")
WS2812_DRIVERS = ("spi", "pwm")
"""How a WS2812 panel is driven: ``spi`` (``ws2812_spi``: GPIO 10, any Pi, no privilege) or
``pwm`` (luma's ``ws2812`` on ``rpi_ws281x``: GPIO 18, root, not on a Pi 5)."""
TRANSFORMS = ("none", "identity", "scale2x", "smoothscale", "led_matrix")
SPI_SPEEDS = tuple(int(mhz * 1_000_000) for mhz in (0.5, 1, 2, 4, 8, 16, 20, 24, 28, 32, 36, 40, 44, 48, 50, 52))
"""The bus speeds luma's ``spi`` accepts."""


@dataclass(frozen=True)
class DisplayConfig:
    """One board. Sizes are in pixels; times in seconds."""

    device: str
    width: int
    height: int
    name: str = ""
    layout: str = "auto"
    rotate: int = 0
    brightness: int = 112
    page_seconds: float = 2.5
    scroll_speed: float = 15.0
    # max7219
    cascaded: int | None = None
    spi_port: int = 0
    spi_device: int = 0
    spi_speed_hz: int = 2_000_000
    block_orientation: int = 0
    blocks_reversed: bool = False
    resync_seconds: float = 60.0
    # ws2812
    wiring: str = "rows"
    driver: str = "spi"
    # emulators
    mode: str = "RGB"
    scale: int = 8
    transform: str = "identity"
    file: str = ""
    frame_seconds: float = 0.1

    @property
    def label(self) -> str:
        """How logs and health name this board."""
        return self.name or f"{self.device} {self.width}x{self.height}"

    @property
    def layout_size(self) -> tuple[int, int] | None:
        """The layout size forced by ``layout``, or None for the one that fits."""
        if self.layout == "auto":
            return None
        w, h = self.layout.split("x")
        return int(w), int(h)

    @property
    def colour(self) -> bool:
        """The board shows colours (WS2812, an RGB emulator); a MAX7219 is on or off."""
        if self.device == "max7219":
            return False
        return self.device == "ws2812" or self.mode == "RGB"


def _fail(where: str, message: str) -> DisplayConfigError:
    return DisplayConfigError(f"{where}: {message}")


def _int(where: str, key: str, value: Any, low: int | None = None, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(where, f"{key!r} must be a whole number, not {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        span = f"from {low}" if high is None else f"from {low} to {high}"
        raise _fail(where, f"{key!r} must be {span}, not {value}")
    return value


def _seconds(where: str, key: str, value: Any, *, zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0 or (value == 0 and not zero):
        raise _fail(where, f"{key!r} must be a number of seconds {'from' if zero else 'above'} 0, not {value!r}")
    return float(value)


def _choice(where: str, key: str, value: Any, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise _fail(where, f"{key!r} must be one of {', '.join(repr(c) for c in choices)}, not {value!r}")
    return str(value)


def parse_display(table: Any, where: str = "display") -> DisplayConfig:
    """One board from its decoded TOML table; DisplayConfigError naming the key if it is wrong."""
    if not isinstance(table, Mapping):
        raise _fail(where, f"a display is a table with 'device', 'width' and 'height', not {table!r}")
    if "device" not in table:
        raise _fail(where, f"'device' is required (one of {', '.join(DEVICES)})")
    device = _choice(where, "device", table["device"], tuple(DEVICES))
    allowed = COMMON + DEVICES[device]
    for key in table:
        if key in allowed:
            continue
        owners = [d for d, keys in DEVICES.items() if key in keys]
        hint = f"; it is a key of {' and '.join(owners)} boards" if owners else ""
        raise _fail(where, f"unknown key {key!r} for a {device} board{hint} (a {device} board takes: "
                    f"{', '.join(allowed)})")
    values: dict[str, Any] = {"device": device}
    if "name" in table:
        if not isinstance(table["name"], str):
            raise _fail(where, f"'name' must be text, not {table['name']!r}")
        values["name"] = table["name"]
    cascaded = table.get("cascaded")
    if cascaded is not None:
        values["cascaded"] = _int(where, "cascaded", cascaded, 1, 256)
    if "width" in table or "height" in table or cascaded is None:
        for key in ("width", "height"):
            if key not in table:
                raise _fail(where, f"{key!r} is required (pixels)" + (
                    ", or give a MAX7219 chain's 'cascaded'" if device == "max7219" else ""))
            values[key] = _int(where, key, table[key], 1, 4096)
    else:
        values["width"], values["height"] = 8 * values["cascaded"], 8
    if device == "max7219":
        for key in ("width", "height"):
            if values[key] % 8:
                raise _fail(where, f"{key!r} of a MAX7219 board is a multiple of 8 (8x8 blocks), "
                            f"not {values[key]}")
        if cascaded is not None and values["cascaded"] * 64 != values["width"] * values["height"]:
            raise _fail(where, f"'cascaded' = {cascaded} blocks do not make {values['width']}x"
                        f"{values['height']} pixels")
    if "layout" in table:
        values["layout"] = _choice(where, "layout", table["layout"], LAYOUTS)
    if "rotate" in table:
        values["rotate"] = _int(where, "rotate", table["rotate"], 0, 3)
    if "brightness" in table:
        values["brightness"] = _int(where, "brightness", table["brightness"], 0, 255)
    elif device == "ws2812":
        # A panel of WS2812s at full power dazzles and draws amps: start low.
        values["brightness"] = 48
    elif device != "max7219":
        values["brightness"] = 255  # an emulator: as drawn
    if "page_seconds" in table:
        values["page_seconds"] = _seconds(where, "page_seconds", table["page_seconds"])
    if "scroll_speed" in table:
        speed = table["scroll_speed"]
        if isinstance(speed, bool) or not isinstance(speed, int | float) or speed < 0:
            raise _fail(where, f"'scroll_speed' must be pixels a second from 0 (0: cut long names), "
                        f"not {speed!r}")
        values["scroll_speed"] = float(speed)
    for key in ("spi_port", "spi_device"):
        if key in table:
            values[key] = _int(where, key, table[key], 0, 9)
    if "spi_speed_hz" in table:
        speed = table["spi_speed_hz"]
        if speed not in SPI_SPEEDS or isinstance(speed, bool):
            raise _fail(where, f"'spi_speed_hz' must be one of {', '.join(map(str, SPI_SPEEDS))}, not {speed!r}")
        values["spi_speed_hz"] = int(speed)
    if "block_orientation" in table:
        orientation = table["block_orientation"]
        if orientation not in (0, 90, -90, 180) or isinstance(orientation, bool):
            raise _fail(where, f"'block_orientation' must be 0, 90, -90 or 180, not {orientation!r}")
        values["block_orientation"] = int(orientation)
    if "blocks_reversed" in table:
        if not isinstance(table["blocks_reversed"], bool):
            raise _fail(where, f"'blocks_reversed' must be true or false, not {table['blocks_reversed']!r}")
        if table["blocks_reversed"] and values["height"] != 8:
            raise _fail(where, "'blocks_reversed' works on a chain one block high (luma reverses one row)")
        values["blocks_reversed"] = table["blocks_reversed"]
    if "resync_seconds" in table:
        values["resync_seconds"] = _seconds(where, "resync_seconds", table["resync_seconds"], zero=True)
    if "wiring" in table:
        values["wiring"] = _choice(where, "wiring", table["wiring"], WIRINGS)
    if "driver" in table:
        values["driver"] = _choice(where, "driver", table["driver"], WS2812_DRIVERS)
        if values["driver"] == "pwm":
            for key in ("spi_port", "spi_device"):
                if key in table:
                    raise _fail(where, f"{key!r} is for a WS2812 panel on SPI; driver = \"pwm\" uses GPIO 18")
    if "mode" in table:
        values["mode"] = _choice(where, "mode", table["mode"], ("1", "RGB"))
    if "scale" in table:
        values["scale"] = _int(where, "scale", table["scale"], 1, 32)
    if "transform" in table:
        values["transform"] = _choice(where, "transform", table["transform"], TRANSFORMS)
    if "file" in table:
        if not isinstance(table["file"], str) or not table["file"]:
            raise _fail(where, f"'file' must be a file name, not {table['file']!r}")
        values["file"] = table["file"]
    if "frame_seconds" in table:
        values["frame_seconds"] = _seconds(where, "frame_seconds", table["frame_seconds"])
    config = DisplayConfig(**values)
    size = config.layout_size
    w, h = (config.height, config.width) if config.rotate % 2 else (config.width, config.height)
    if size is not None and (size[0] > w or size[1] > h):
        raise _fail(where, f"'layout' = {config.layout!r} does not fit a {w}x{h} board")
    return config


def parse_displays(value: Any, where: str = "display") -> tuple[DisplayConfig, ...]:
    """A ``[display]`` table or a ``[[display]]`` array of them: the boards of one table."""
    tables = [value] if isinstance(value, Mapping) else value
    if not isinstance(tables, list) or not tables:
        raise _fail(where, f"give one board as [{where}] or several as [[{where}]] tables")
    if len(tables) == 1:
        return (parse_display(tables[0], where),)
    return tuple(parse_display(t, f"{where}[{i}]") for i, t in enumerate(tables))

