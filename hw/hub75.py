"""HUB75 RGB LED panels (P4, P5, P10 modules of 64x32, chained), drawn like any luma device
through rgbmatrix (Pi 1-4), piomatter (Pi 5) or an emulator, chosen by :func:`choose_backend`.
How each draws a frame, and brightness: docs/hardware.md, "HUB75 panels".
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

from PIL import Image

from cueboard.common.errors import MissingLibrary

__all__ = [
    "BACKENDS",
    "HATS",
    "Hub75",
    "Hub75Setup",
    "MissingLibrary",
    "choose_backend",
    "last_frame",
    "night_span",
    "open_hub75",
    "percent",
    "pi_model",
]

log = logging.getLogger(__name__)

BACKENDS = ("auto", "rgbmatrix", "piomatter", "emulator")
HATS: dict[str, str] = {"regular": "regular", "adafruit-hat": "adafruit-hat", "adafruit-hat-pwm": "adafruit-hat-pwm"}
"""The wirings (rpi-rgb-led-matrix's ``hardware_mapping``): ``regular`` (the library's own
pinout, e.g. Electrodragon's board), ``adafruit-hat`` (Adafruit's RGB Matrix HAT or Bonnet),
``adafruit-hat-pwm`` (the HAT with GPIO 4 bridged to GPIO 18, for hardware pulsing: less
flicker)."""
EMULATORS = ("headless", "terminal", "window")
DEVICE_TREE_COMPATIBLE = Path("/proc/device-tree/compatible")

_SOCS = {b"brcm,bcm2712": 5, b"brcm,bcm2711": 4, b"brcm,bcm2837": 3, b"brcm,bcm2836": 2, b"brcm,bcm2835": 1}


def pi_model(compatible: Path = DEVICE_TREE_COMPATIBLE) -> int | None:
    """The Raspberry Pi's generation by its chip (5: BCM2712 ... 1: BCM2835; a Zero 2 W is a 3),
    or None on a machine that is not a Pi."""
    try:
        names = compatible.read_bytes().split(b"\0")
    except OSError:
        return None
    if not any(n.startswith(b"raspberrypi,") for n in names):
        return None
    for soc, model in _SOCS.items():
        if soc in names:
            return model
    return None


def choose_backend(model: int | None, backend: str = "auto") -> str:
    """The library for a Pi of ``model`` (None: not a Pi): ``backend`` unless it is ``auto``."""
    if backend != "auto":
        if backend == "rgbmatrix" and model == 5:
            raise MissingLibrary("hub75 'backend' = \"rgbmatrix\": rpi-rgb-led-matrix does not drive a Raspberry "
                                 "Pi 5's GPIO (RP1); use \"piomatter\" or \"auto\" (docs/boards.md)")
        if backend == "piomatter" and model != 5:
            raise MissingLibrary("hub75 'backend' = \"piomatter\" works on a Raspberry Pi 5 only (its PIO); "
                                 "use \"rgbmatrix\" or \"auto\" (docs/boards.md)")
        return backend
    if model is None:
        return "emulator"
    return "piomatter" if model == 5 else "rgbmatrix"


def percent(level: int) -> int:
    """luma's brightness 0-255 as rpi-rgb-led-matrix's percent (0-100; never 0 unless 0)."""
    if not 0 <= level <= 255:
        raise ValueError(f"brightness is 0-255, not {level}")
    return 0 if level == 0 else max(1, round(level * 100 / 255))


def night_span(text: str) -> tuple[dt.time, dt.time]:
    """``"22:00-07:30"`` -> the night's start and end (ValueError naming the text otherwise)."""
    try:
        start, end = (dt.time.fromisoformat(part.strip()) for part in text.split("-"))
    except ValueError:
        raise ValueError(f"night hours are HH:MM-HH:MM, such as 22:00-07:00, not {text!r}") from None
    return start, end


def _in_span(now: dt.time, span: tuple[dt.time, dt.time]) -> bool:
    start, end = span
    if start <= end:
        return start <= now < end
    return now >= start or now < end  # over midnight


@dataclass(frozen=True)
class Hub75Setup:
    """What the libraries need to know of the panels (from ``[display]``; docs/boards.md)."""

    width: int
    height: int
    panel_width: int = 64
    panel_height: int = 32
    chain: int = 1
    parallel: int = 1
    hat: str = "regular"
    gpio_slowdown: int | None = None
    pwm_bits: int = 11
    brightness: int = 255
    night_brightness: int | None = None
    night_hours: str = "23:00-07:00"
    rotate: int = 0
    backend: str = "auto"
    emulator: str = "headless"


class Panel(Protocol):
    """One library's way of showing a frame (RGB, the chain's size) at a brightness in percent."""

    name: str

    def show(self, image: Image.Image, brightness: int) -> None: ...

    def close(self) -> None: ...


def default_slowdown(model: int | None) -> int:
    """rpi-rgb-led-matrix's advice: the faster the Pi, the more it must wait for the panels."""
    return {4: 4, 3: 2}.get(model or 0, 1)


class RgbMatrixPanel:
    """rpi-rgb-led-matrix (or RGBMatrixEmulator, which has its API): a frame drawn on the
    offscreen canvas, shown by ``SwapOnVSync``, which hands back the next one to draw on."""

    def __init__(self, module: Any, setup: Hub75Setup, model: int | None, name: str = "rgbmatrix",
                 before_canvas: Callable[[Any], None] | None = None) -> None:
        self.name = name
        s = setup
        options = module.RGBMatrixOptions()
        options.rows = s.panel_height
        options.cols = s.panel_width
        options.chain_length = s.chain
        options.parallel = s.parallel
        options.hardware_mapping = s.hat
        options.gpio_slowdown = s.gpio_slowdown if s.gpio_slowdown is not None else default_slowdown(model)
        options.pwm_bits = s.pwm_bits
        options.brightness = percent(s.brightness)
        # The library drops root once the GPIO are set up; the unit's drop-in starts it as
        # root for that (systemd/install.sh, docs/boards.md).
        options.drop_privileges = True
        if hasattr(options, "drop_priv_user"):
            options.drop_priv_user = "cueboard"
            options.drop_priv_group = "cueboard"
        self.options = options
        self.matrix = module.RGBMatrix(options=options)
        if before_canvas is not None:
            before_canvas(options)
        self.canvas = self.matrix.CreateFrameCanvas()
        self.brightness = options.brightness

    def show(self, image: Image.Image, brightness: int) -> None:
        if brightness != self.brightness:
            self.matrix.brightness = brightness
            self.brightness = brightness
        # The canvas drawn on carries its own brightness in rpi-rgb-led-matrix (the one
        # SwapOnVSync handed back may have the old one).
        self.canvas.brightness = brightness
        self.canvas.SetImage(image, 0, 0)
        self.canvas = self.matrix.SwapOnVSync(self.canvas)

    def close(self) -> None:
        self.matrix.Clear()


class PiomatterPanel:
    """Adafruit's piomatter on a Pi 5: the frame copied into its framebuffer, then ``show()``."""

    name = "piomatter"

    def __init__(self, module: Any, numpy: Any, setup: Hub75Setup) -> None:
        s = setup
        if s.parallel != 1:
            raise MissingLibrary(f"hub75 'parallel' = {s.parallel}: on a Raspberry Pi 5 (piomatter) cueboard drives "
                                 "one chain; chain the panels in one row instead (docs/boards.md)")
        pinout = module.Pinout.AdafruitMatrixBonnet if s.hat != "adafruit-hat" else module.Pinout.AdafruitMatrixHat
        # A panel of 2^n rows shows two rows at once: n - 1 address lines (32 rows: A-D).
        address_lines = max(1, (s.panel_height // 2).bit_length() - 1)
        self.geometry = module.Geometry(width=s.width, height=s.height, n_addr_lines=address_lines,
                                        n_planes=s.pwm_bits, rotation=module.Orientation.Normal)
        self.numpy = numpy
        self.framebuffer = numpy.zeros((s.height, s.width, 3), dtype=numpy.uint8)
        self.matrix = module.PioMatter(colorspace=module.Colorspace.RGB888Packed, pinout=pinout,
                                       framebuffer=self.framebuffer, geometry=self.geometry)

    def show(self, image: Image.Image, brightness: int) -> None:
        if brightness < 100:
            scale = bytes(v * brightness // 100 for v in range(256)) * 3
            image = image.point(list(scale))
        self.framebuffer[:] = self.numpy.asarray(image)
        self.matrix.show()

    def close(self) -> None:
        self.framebuffer[:] = 0
        self.matrix.show()


def _emulator_panel(setup: Hub75Setup) -> RgbMatrixPanel:
    """RGBMatrixEmulator with our own settings. It reads them from ``emulator_config.json``
    in the working directory, and writes a default one there if there is none -- already
    on import (a default argument builds its options) -- so the first import runs in a
    directory of ours holding our file, and later panels point the emulator at such a file.
    Headless is its ``raw`` adapter, which opens nothing and keeps the frames in memory."""
    adapter = {"headless": "raw", "terminal": "terminal", "window": "pygame"}[setup.emulator]
    config = {"pixel_outline": 0, "pixel_size": 8 if adapter == "pygame" else 1, "pixel_glow": 0,
              "pixel_style": "circle" if adapter == "pygame" else "square", "display_adapter": adapter,
              "allow_adapter_fallback": False, "icon_path": None,
              "emulator_title": f"cueboard HUB75 {setup.width}x{setup.height}",
              "browser": {"_comment": "unused", "port": 8888, "target_fps": 60, "fps_display": False, "quality": 70,
                          "image_border": True, "debug_text": False, "image_format": "JPEG",
                          "open_immediately": False},
              "log_level": "warning"}
    folder = Path(tempfile.gettempdir()) / f"cueboard-rgbme-{os.getuid()}-{adapter}"
    folder.mkdir(exist_ok=True)
    path = folder / "emulator_config.json"
    part = folder / f"emulator_config.{os.getpid()}.{threading.get_ident()}"
    part.write_text(json.dumps(config), encoding="utf-8")
    part.replace(path)  # whole, whoever reads it
    with _IMPORT_LOCK:
        if "RGBMatrixEmulator" not in sys.modules:
            here = os.getcwd()
            os.chdir(folder)
            try:
                import RGBMatrixEmulator
            finally:
                os.chdir(here)
        import RGBMatrixEmulator
        from RGBMatrixEmulator.internal import emulator_config

        logging.getLogger("RGBME").setLevel(logging.WARNING)
        emulator_config.RGBMatrixEmulatorConfig.CONFIG_PATH = str(path)

        def fresh_adapter(options: Any) -> None:
            # The emulator keeps one adapter per kind for the process; a panel gets its own,
            # so that two boards (or a test's several) do not share one frame store.
            options.display_adapter.INSTANCE = None

        return RgbMatrixPanel(RGBMatrixEmulator, setup, None, name="emulator", before_canvas=fresh_adapter)


_IMPORT_LOCK = threading.Lock()


def last_frame(device: Any) -> Image.Image:
    """What an emulated panel was last handed (brightness applied), as an RGB image: the
    headless emulator's own frame store, for tests, ``cueboard render`` and the bench."""
    frame = device.panel.canvas.display_adapter._last_frame()
    return Image.fromarray(frame, "RGB")


def open_panel(setup: Hub75Setup, *, model: int | None = None, rgbmatrix: ModuleType | None = None,
               piomatter: ModuleType | None = None, numpy: Any = None) -> Panel:
    """The library for this machine (``model``: the Pi's, read from the device tree when None
    and no library is injected), opened for ``setup``. Tests pass fakes of the libraries."""
    backend = choose_backend(model, setup.backend)
    if backend == "rgbmatrix":
        if rgbmatrix is None:
            try:
                # the ignore below: on the Pi only: not installed where mypy runs
                import rgbmatrix as found  # type: ignore[import-not-found]  # hzeller's rpi-rgb-led-matrix binding: built on the Pi only, no stubs
            except ImportError as exc:
                pi = f"Raspberry Pi {model}" if model else "Raspberry Pi"
                raise MissingLibrary(
                    f"a HUB75 board on a {pi} needs hzeller's rpi-rgb-led-matrix Python binding (the module "
                    "rgbmatrix), built from source: run systemd/install.sh with --hub75 (docs/boards.md)") from exc
            rgbmatrix = found
        return RgbMatrixPanel(rgbmatrix, setup, model)
    if backend == "piomatter":
        if piomatter is None:
            try:
                # the ignore below: on the Pi only: not installed where mypy runs
                import adafruit_blinka_raspberry_pi5_piomatter as found_pio  # type: ignore[import-not-found]  # Adafruit's Piomatter: installed on a Pi 5 only, no stubs
            except ImportError as exc:
                raise MissingLibrary(
                    "a HUB75 board on a Raspberry Pi 5 needs Adafruit's piomatter: pip install "
                    "adafruit-blinka-raspberry-pi5-piomatter (systemd/install.sh --hub75 does; docs/boards.md)"
                ) from exc
            piomatter = found_pio
        if numpy is None:
            import numpy as np

            numpy = np
        return PiomatterPanel(piomatter, numpy, setup)
    try:
        return _emulator_panel(setup)
    except ImportError as exc:
        raise MissingLibrary("a HUB75 board off a Raspberry Pi is drawn by RGBMatrixEmulator: "
                             "pip install 'cueboard[demo]' (or RGBMatrixEmulator)") from exc


class Hub75:
    """A chain of HUB75 panels, luma-style: ``size``, ``mode`` (RGB), ``display(image)``,
    ``contrast``, ``hide``/``show``, ``cleanup``. ``clock``: the local time of day, for the
    night level (tests pass their own)."""

    def __init__(self, panel: Panel, setup: Hub75Setup,
                 clock: Callable[[], dt.time] = lambda: dt.datetime.now().time()) -> None:
        self.panel = panel
        self.setup = setup
        self.width, self.height = (setup.height, setup.width) if setup.rotate % 2 else (setup.width, setup.height)
        self.size = (self.width, self.height)
        self.mode = "RGB"
        self.rotate = setup.rotate
        self._clock = clock
        self._night = night_span(setup.night_hours) if setup.night_brightness is not None else None
        self._level = setup.brightness
        self._hidden = False
        self._image = Image.new("RGB", (setup.width, setup.height))
        self.frames = 0
        self._send()

    @property
    def backend(self) -> str:
        return self.panel.name

    def brightness_now(self) -> int:
        """The brightness (0-255) for the time of day: the night level during the night hours."""
        if self._hidden:
            return 0
        if self._night is not None and self.setup.night_brightness is not None and _in_span(self._clock(),
                                                                                               self._night):
            return self.setup.night_brightness
        return self._level

    def display(self, image: Image.Image) -> None:
        if image.mode != "RGB" or image.size != self.size:
            raise ValueError(f"a {self.width}x{self.height} HUB75 board shows RGB images of that size, "
                             f"not {image.mode} {image.size[0]}x{image.size[1]}")
        # luma's rotation: the picture turned a quarter clockwise onto the panels per step.
        self._image = image.rotate(-90 * self.rotate, expand=True) if self.rotate else image
        self._send()

    def contrast(self, level: int) -> None:
        percent(level)  # checks the range
        self._level = level
        self._send()

    def hide(self) -> None:
        self._hidden = True
        self._send()

    def show(self) -> None:
        self._hidden = False
        self._send()

    def clear(self) -> None:
        self._image = Image.new("RGB", (self.setup.width, self.setup.height))
        self._send()

    def cleanup(self) -> None:
        self.panel.close()

    def _send(self) -> None:
        self.panel.show(self._image, percent(self.brightness_now()))
        self.frames += 1


def open_hub75(setup: Hub75Setup, **libraries: Any) -> Hub75:
    """The board's panels, opened with the library for this machine (see :func:`open_panel`).
    ``clock`` (the time of day for the night level; tests give their own, so that the frame
    drawn at opening does not depend on when the test runs)."""
    model = libraries.pop("model", None)
    clock = libraries.pop("clock", None)
    if model is None and not libraries:
        model = pi_model()
    panel = open_panel(setup, model=model, **libraries)
    return Hub75(panel, setup) if clock is None else Hub75(panel, setup, clock)
