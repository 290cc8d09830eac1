"""The ``[display]`` section: which LED board, how it is wired, how it behaves; unknown keys
are refused at start-up. Examples: :func:`parse_displays`, and docs/boards.md, "Configuration".
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cueboard.common.errors import DisplayConfigError
from cueboard.common.languages import LANGUAGES
from cueboard.common.settings import Section, refusal

from .power import cap_brightness, draw_amps

log = logging.getLogger("cueboard")

__all__ = ["DEVICES", "DisplayConfig", "DisplayConfigError", "parse_display", "parse_displays"]


COMMON = ("device", "name", "width", "height", "layout", "rotate", "brightness", "page_seconds",
          "scroll_speed", "language")
DEVICES: dict[str, tuple[str, ...]] = {
    "max7219": ("cascaded", "spi_port", "spi_device", "spi_speed_hz", "block_orientation",
                "blocks_reversed", "resync_seconds", "supply_amps"),
    "ws2812": ("wiring", "driver", "spi_port", "spi_device", "supply_amps"),
    "dummy": ("mode",),
    "capture": ("mode", "scale", "transform", "file"),
    "gifanim": ("mode", "scale", "transform", "file", "frame_seconds"),
    "pygame": ("mode", "scale", "transform"),
    "asciiblock": ("mode",),
    "hub75": ("panel", "chain", "parallel", "hat", "gpio_slowdown", "pwm_bits", "night_brightness", "night_hours",
              "backend", "emulator", "supply_amps"),
}
"""Each kind of device and the keys it takes besides :data:`COMMON`."""

LAYOUTS = ("auto", "32x8", "64x16", "128x32", "64x32", "128x64", "192x96")
HUB75_HATS = ("regular", "adafruit-hat", "adafruit-hat-pwm")
HUB75_BACKENDS = ("auto", "rgbmatrix", "piomatter", "emulator")
HUB75_EMULATORS = ("headless", "terminal", "window")
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
    language: str = "en"
    supply_amps: float | None = None
    """The rating of the supply feeding the board (amps at 5 V); the brightness is capped to it."""
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
    # hub75 (hw/hub75.py, docs/boards.md)
    panel: str = "64x32"
    chain: int = 1
    parallel: int = 1
    hat: str = "regular"
    gpio_slowdown: int | None = None
    pwm_bits: int = 11
    night_brightness: int | None = None
    night_hours: str = "23:00-07:00"
    backend: str = "auto"
    emulator: str = "headless"

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
        return self.device in ("ws2812", "hub75") or self.mode == "RGB"


def parse_display(table: Any, where: str = "display") -> DisplayConfig:
    """One board from its decoded TOML table; DisplayConfigError naming the key if it is wrong."""
    s = Section(table, where, error=DisplayConfigError)
    device = s.getchoice("device", tuple(DEVICES))
    own = DEVICES[device]
    s.kind = f"a {device} board"
    values: dict[str, Any] = {"device": device}

    def put(key: str, value: Any) -> None:
        # A key left out keeps DisplayConfig's default.
        if value is not None:
            values[key] = value

    put("name", s.getstr("name", None, empty=True))
    cascaded = s.getint("cascaded", None, minval=1, maxval=256) if "cascaded" in own else None
    put("cascaded", cascaded)
    width = s.getint("width", None, minval=1, maxval=4096)
    height = s.getint("height", None, minval=1, maxval=4096)
    if width is None or height is None:
        if cascaded is None or width is not None or height is not None:
            raise s.fail("width" if width is None else "height", "required (pixels" + (
                ", or give a MAX7219 chain's cascaded)" if device == "max7219" else ")"))
        width, height = 8 * cascaded, 8
    values["width"], values["height"] = width, height
    if device == "max7219":
        for key in ("width", "height"):
            if values[key] % 8:
                raise s.fail(key, f"must be a multiple of 8 on a MAX7219 board (8x8 blocks), not {values[key]}")
        if cascaded is not None and cascaded * 64 != width * height:
            raise s.fail("cascaded", f"{cascaded} blocks do not make {width}x{height} pixels")
    put("layout", s.getchoice("layout", LAYOUTS, None))
    put("rotate", s.getint("rotate", None, minval=0, maxval=3))
    brightness = s.getint("brightness", None, minval=0, maxval=255)
    if brightness is None and device == "ws2812":
        # A panel of WS2812s at full power dazzles and draws amps: start low.
        brightness = 48
    elif brightness is None and device == "hub75":
        brightness = 255  # lit at full power: a hall is bright (night_brightness for the dark hours)
    elif brightness is None and device != "max7219":
        brightness = 255  # an emulator: as drawn
    put("brightness", brightness)
    put("page_seconds", s.getfloat("page_seconds", None, above=0, unit="seconds"))
    put("scroll_speed", s.getfloat("scroll_speed", None, minval=0, unit="pixels a second"))
    put("language", s.getchoice("language", LANGUAGES, None))
    for key in ("spi_port", "spi_device"):
        if key in own:
            put(key, s.getint(key, None, minval=0, maxval=9))
    if "spi_speed_hz" in own:
        put("spi_speed_hz", s.getchoice("spi_speed_hz", SPI_SPEEDS, None))
    if "block_orientation" in own:
        put("block_orientation", s.getchoice("block_orientation", (0, 90, -90, 180), None))
    if "blocks_reversed" in own:
        reversed_ = s.getbool("blocks_reversed", None)
        if reversed_ and height != 8:
            raise s.fail("blocks_reversed", "works on a chain one block high (luma reverses one row)")
        put("blocks_reversed", reversed_)
    if "resync_seconds" in own:
        put("resync_seconds", s.getfloat("resync_seconds", None, minval=0, unit="seconds"))
    if "wiring" in own:
        put("wiring", s.getchoice("wiring", WIRINGS, None))
    if "driver" in own:
        driver = s.getchoice("driver", WS2812_DRIVERS, None)
        put("driver", driver)
        if driver == "pwm":
            for key in ("spi_port", "spi_device"):
                if key in s.raw:
                    raise s.fail(key, 'is for a WS2812 panel on SPI; driver = "pwm" uses GPIO 18')
    if "mode" in own:
        put("mode", s.getchoice("mode", ("1", "RGB"), None))
    if "scale" in own:
        put("scale", s.getint("scale", None, minval=1, maxval=32))
    if "transform" in own:
        put("transform", s.getchoice("transform", TRANSFORMS, None))
    if "file" in own:
        put("file", s.getstr("file", None))
    if "frame_seconds" in own:
        put("frame_seconds", s.getfloat("frame_seconds", None, above=0, unit="seconds"))
    supply = s.getfloat("supply_amps", None, above=0, maxval=10000, unit="amps") if "supply_amps" in own else None
    if device == "hub75":
        _hub75(s, values, put)
    s.check_unused(hint=_owners)
    if supply is not None:
        values["supply_amps"] = supply
        _cap_to_supply(s.path, values, supply)
    config = DisplayConfig(**values)
    size = config.layout_size
    w, h = (config.height, config.width) if config.rotate % 2 else (config.width, config.height)
    if size is not None and (size[0] > w or size[1] > h):
        raise s.fail("layout", f"{config.layout!r} does not fit a {w}x{h} board")
    return config


def _cap_to_supply(where: str, values: dict[str, Any], supply: float) -> None:
    """``brightness`` (and ``night_brightness``) lowered to what ``supply_amps`` feeds with every
    LED lit white, saying so with the figures: a typo in a brightness must not overload a
    supply (or its wires)."""
    device, width, height = values["device"], values["width"], values["height"]
    for key in ("brightness", "night_brightness"):
        level = values.get(key, DisplayConfig.brightness if key == "brightness" else None)
        if level is None:
            continue
        capped = cap_brightness(device, width, height, level, supply)
        if capped != level:
            log.warning("%s.%s = %d: a %dx%d %s board all lit would draw %.1f A from a %g A supply "
                        "(%s.supply_amps); lowered to %d (%.1f A). A bigger supply, fed in as docs/hardware.md "
                        "says, allows more.", where, key, level, width, height, device,
                        draw_amps(device, width, height, level), supply, where, capped,
                        draw_amps(device, width, height, capped))
            values[key] = capped


def _hub75(s: Section, values: dict[str, Any], put: Any) -> None:
    """A HUB75 board's keys: its panels (``panel`` = "64x32"), how many in a row (``chain``)
    and how many rows on their own connectors (``parallel``), which together make the board's
    width and height; the HAT, the timing, the night level. Every key is read (and an
    unknown one refused) before they are checked against each other."""
    panel = s.getstr("panel", None) or "64x32"
    chain = s.getint("chain", None, minval=1, maxval=16)
    parallel = s.getint("parallel", None, minval=1, maxval=3)
    hat = s.getchoice("hat", HUB75_HATS, None)
    put("hat", hat)
    put("gpio_slowdown", s.getint("gpio_slowdown", None, minval=0, maxval=5))
    put("pwm_bits", s.getint("pwm_bits", None, minval=1, maxval=11))
    put("night_brightness", s.getint("night_brightness", None, minval=0, maxval=255))
    hours = s.getstr("night_hours", None)
    put("backend", s.getchoice("backend", HUB75_BACKENDS, None))
    put("emulator", s.getchoice("emulator", HUB75_EMULATORS, None))
    s.check_unused(hint=_owners)
    if hours is not None:
        from .hub75 import night_span

        try:
            night_span(hours)
        except ValueError as exc:
            raise s.fail("night_hours", str(exc)) from None
        put("night_hours", hours)
    try:
        pw, ph = (int(part) for part in panel.lower().split("x"))
    except ValueError:
        raise s.fail("panel", f"a panel's size is WIDTHxHEIGHT in pixels, such as 64x32, not {panel!r}") from None
    if pw not in (16, 32, 64, 128) or ph not in (8, 16, 32, 64):
        raise s.fail("panel", f"HUB75 panels are 16 to 128 pixels wide and 8 to 64 high (powers of two), not {panel}")
    values["panel"] = f"{pw}x{ph}"
    width, height = values["width"], values["height"]
    if chain is None:
        chain = max(1, width // pw)
    if parallel is None:
        parallel = max(1, height // ph)
    if (pw * chain, ph * parallel) != (width, height):
        raise s.fail("chain" if pw * chain != width else "parallel",
                     f"{chain} panel(s) of {pw}x{ph} in a chain, {parallel} chain(s) in parallel make "
                     f"{pw * chain}x{ph * parallel} pixels, not the board's {width}x{height}")
    values["chain"], values["parallel"] = chain, parallel
    if parallel > 1 and hat is not None and hat != "regular":
        # Adafruit's HAT and Bonnet have one HUB75 output: one chain.
        raise s.fail("parallel", f"{parallel} chains need a board with as many outputs (hat = \"regular\", e.g. "
                     f"an active-3 board); Adafruit's {hat} drives one chain: use panels as high as the board "
                     f"(panel = \"{pw}x{height}\") if they exist, or one row of panels")


def _owners(key: str) -> str:
    """Whose key an unknown key is, if it is another kind of board's."""
    owners = [d for d, keys in DEVICES.items() if key in keys]
    return f"it is a key of {' and '.join(owners)} boards" if owners else ""


def parse_displays(value: Any, where: str = "display") -> tuple[DisplayConfig, ...]:
    """A ``[display]`` table or a ``[[display]]`` array of them: the boards of one table.

    One board a table::

        [display]
        device = "max7219"          # max7219 | ws2812 | hub75 | dummy | capture | gifanim | pygame | asciiblock
        width = 32                  # pixels (or, for a MAX7219 chain in one row, cascaded = 4)
        height = 8
        block_orientation = -90     # MAX7219: 0, 90, -90 or 180, as luma's (most 4-in-1 modules: -90)
        brightness = 112            # 0-255
        language = "nl"             # the board's words: en | nl | sv | de | fr (default en)

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

    A hall board of HUB75 panels (docs/boards.md)::

        [display]
        device = "hub75"
        width = 128
        height = 64
        panel = "64x32"             # each panel's pixels; chain and parallel follow from the size
        hat = "adafruit-hat-pwm"    # regular | adafruit-hat | adafruit-hat-pwm
        night_brightness = 60       # 0-255, during night_hours ("23:00-07:00")

    Unknown keys, and keys of another kind of device, are refused at start-up
    (:class:`DisplayConfigError`, naming the key), like a misspelt key in Klipper's config.
    """
    tables = [value] if isinstance(value, Mapping) else value
    if not isinstance(tables, list) or not tables:
        raise DisplayConfigError(refusal(where, f"give one board as [{where}] or several as [[{where}]] tables"))
    if len(tables) == 1:
        return (parse_display(tables[0], where),)
    return tuple(parse_display(t, f"{where}[{i}]") for i, t in enumerate(tables))

