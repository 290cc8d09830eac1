"""HUB75 boards: the library chosen by the Pi (fakes of rpi-rgb-led-matrix and piomatter,
their calls checked), the configuration's refusals, and frames through the real
RGBMatrixEmulator, headless."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageDraw

from cueboard.boards.board import Board
from cueboard.hw.display_config import DisplayConfigError, parse_display
from cueboard.hw.display_devices import open_device
from cueboard.hw.hub75 import Hub75, Hub75Setup, MissingLibrary, choose_backend, last_frame, open_hub75, pi_model
from tests.helpers.boards import golden_state, shown

STATE_JSON = {**golden_state("snooker", "break"), "frame": 1, "best_of": 7, "striker": 0, "ball_on": "red", "break": 8,
              "sides": [{"name": "Ann", "players": ["Ann"], "score": 8, "frames": 1, "high_break": 8, "total": 8},
                        {"name": "Bea", "players": ["Bea"], "score": 0, "frames": 0, "high_break": 0, "total": 0}]}
STATE = shown(STATE_JSON)


class FakeCanvas:
    def __init__(self, log: list[tuple[Any, ...]], number: int) -> None:
        self.log = log
        self.number = number

    def SetImage(self, image: Image.Image, x: int, y: int) -> None:
        self.log.append(("SetImage", self.number, image.getpixel((0, 0)), x, y))


class FakeRgbMatrix:
    """rpi-rgb-led-matrix's RGBMatrix: two canvases that SwapOnVSync exchanges."""

    def __init__(self, options: Any) -> None:
        self.options = options
        self.log: list[tuple[Any, ...]] = [("RGBMatrix", options)]
        self._brightness = options.brightness
        self.canvases = [FakeCanvas(self.log, 1), FakeCanvas(self.log, 2)]

    def CreateFrameCanvas(self) -> FakeCanvas:
        self.log.append(("CreateFrameCanvas",))
        return self.canvases[0]

    def SwapOnVSync(self, canvas: FakeCanvas) -> FakeCanvas:
        self.log.append(("SwapOnVSync", canvas.number))
        return self.canvases[1] if canvas is self.canvases[0] else self.canvases[0]

    @property
    def brightness(self) -> int:
        return self._brightness

    @brightness.setter
    def brightness(self, value: int) -> None:
        self.log.append(("brightness", value))
        self._brightness = value

    def Clear(self) -> None:
        self.log.append(("Clear",))


def fake_rgbmatrix() -> Any:
    made: list[FakeRgbMatrix] = []

    def matrix(options: Any) -> FakeRgbMatrix:
        made.append(FakeRgbMatrix(options))
        return made[-1]

    return SimpleNamespace(RGBMatrixOptions=SimpleNamespace, RGBMatrix=matrix, made=made)


class FakePioMatter:
    def __init__(self, *, colorspace: str, pinout: str, framebuffer: Any, geometry: Any) -> None:
        self.colorspace, self.pinout, self.framebuffer, self.geometry = colorspace, pinout, framebuffer, geometry
        self.shown: list[Any] = []

    def show(self) -> None:
        self.shown.append(self.framebuffer.copy())


def fake_piomatter() -> Any:
    made: list[FakePioMatter] = []

    def pio(**kw: Any) -> FakePioMatter:
        made.append(FakePioMatter(**kw))
        return made[-1]

    return SimpleNamespace(Pinout=SimpleNamespace(AdafruitMatrixBonnet="bonnet", AdafruitMatrixHat="hat"),
                           Orientation=SimpleNamespace(Normal="normal"), Colorspace=SimpleNamespace(RGB888Packed="888"),
                           Geometry=lambda **kw: SimpleNamespace(**kw), PioMatter=pio, made=made)


def red_corner(size: tuple[int, int]) -> Image.Image:
    image = Image.new("RGB", size)
    ImageDraw.Draw(image).rectangle((0, 0, 3, 3), fill=(200, 0, 0))
    return image


def test_the_pi_model_is_read_from_the_device_tree(tmp_path: Path) -> None:
    compatible = tmp_path / "compatible"
    for names, model in ((b"raspberrypi,5-model-b\0brcm,bcm2712\0", 5), (b"raspberrypi,4-model-b\0brcm,bcm2711\0", 4),
                         (b"raspberrypi,model-zero-2-w\0brcm,bcm2837\0", 3), (b"qemu,virt\0", None)):
        compatible.write_bytes(names)
        assert pi_model(compatible) == model
    assert pi_model(tmp_path / "none") is None


def test_each_pi_gets_its_library_and_a_wrong_choice_says_why() -> None:
    assert [choose_backend(m) for m in (None, 1, 3, 4, 5)] == ["emulator", "rgbmatrix", "rgbmatrix", "rgbmatrix",
                                                               "piomatter"]
    assert choose_backend(4, "emulator") == "emulator"
    with pytest.raises(MissingLibrary, match="does not drive a Raspberry Pi 5"):
        choose_backend(5, "rgbmatrix")
    with pytest.raises(MissingLibrary, match="Pi 5 only"):
        choose_backend(4, "piomatter")


def test_a_missing_library_names_what_to_install() -> None:
    # No rgbmatrix and no piomatter on this machine: the Pi's model alone picks them.
    with pytest.raises(MissingLibrary, match=r"Pi 4 needs hzeller's rpi-rgb-led-matrix .*--hub75"):
        open_hub75(Hub75Setup(width=64, height=32), model=4)
    with pytest.raises(MissingLibrary, match="pip install adafruit-blinka-raspberry-pi5-piomatter"):
        open_hub75(Hub75Setup(width=64, height=32), model=5)


def test_on_a_pi_4_rgbmatrix_gets_the_options_and_each_frame_goes_on_vsync() -> None:
    lib = fake_rgbmatrix()
    config = parse_display({"device": "hub75", "width": 128, "height": 64, "hat": "regular",
                            "pwm_bits": 9, "brightness": 204, "night_brightness": 51, "night_hours": "22:00-07:00"})
    now = [dt.time(12, 0)]  # the time of day the board sees, from its opening on (not the machine's)
    board = Board(config, device_factory=lambda c: open_device(c, hub75={"model": 4, "rgbmatrix": lib,
                                                                         "clock": lambda: now[0]}))
    assert isinstance(board.device, Hub75)
    matrix = lib.made[0]
    o = matrix.options
    assert (o.rows, o.cols, o.chain_length, o.parallel) == (32, 64, 2, 2)
    assert (o.hardware_mapping, o.gpio_slowdown, o.pwm_bits, o.brightness) == ("regular", 4, 9, 80)
    assert o.drop_privileges is True
    del matrix.log[:]
    assert board.show(STATE)
    # The blank frame at opening went out on canvas 1; this one is drawn on canvas 2.
    assert [e[:2] for e in matrix.log] == [("SetImage", 2), ("SwapOnVSync", 2)]
    assert not board.show(STATE), "an unchanged frame is not sent"
    assert len(matrix.log) == 2
    # The next frame is drawn on the canvas SwapOnVSync handed back, at night at the night level.
    now[0] = dt.time(23, 30)
    board.show(shown(STATE_JSON, **{"break": 9}))
    assert matrix.log[2:] == [("brightness", 20), ("SetImage", 1, (0, 0, 0), 0, 0), ("SwapOnVSync", 1)]
    assert (matrix.canvases[0].brightness, matrix.canvases[1].brightness) == (20, 80)  # each canvas drawn at its own
    board.close()
    assert matrix.log[-1] == ("Clear",)


def test_on_a_pi_5_piomatter_gets_the_geometry_and_the_scaled_frame() -> None:
    lib = fake_piomatter()
    device = open_hub75(Hub75Setup(width=128, height=32, chain=2, hat="adafruit-hat", pwm_bits=10, brightness=128),
                        model=5, piomatter=lib)
    pio = lib.made[0]
    assert (pio.pinout, pio.colorspace) == ("hat", "888")
    assert (pio.geometry.width, pio.geometry.height, pio.geometry.n_addr_lines, pio.geometry.n_planes) == (
        128, 32, 4, 10)
    device.display(red_corner((128, 32)))
    assert tuple(pio.shown[-1][0, 0]) == (100, 0, 0)  # 200 at 50 %
    assert tuple(pio.shown[-1][10, 10]) == (0, 0, 0)
    with pytest.raises(MissingLibrary, match="one chain"):
        open_hub75(Hub75Setup(width=64, height=64, parallel=2), model=5, piomatter=lib)


def test_the_emulator_shows_what_the_board_draws_at_its_brightness() -> None:
    device = open_device(parse_display({"device": "hub75", "width": 64, "height": 32, "brightness": 128}))
    assert device.backend == "emulator"
    device.display(red_corner((64, 32)))
    frame = last_frame(device)
    assert frame.size == (64, 32)
    assert frame.getpixel((0, 0)) == (100, 0, 0) and frame.getpixel((4, 4)) == (0, 0, 0)
    other = open_device(parse_display({"device": "hub75", "width": 128, "height": 64}))
    assert last_frame(other).size == (128, 64), "each panel has its own frames"
    assert last_frame(device).getpixel((0, 0)) == (100, 0, 0)
    assert np.asarray(last_frame(other)).max() == 0


@pytest.mark.parametrize(("table", "reason"), [
    ({"width": 100, "height": 32}, r"display.chain: 1 panel\(s\) of 64x32 .* not the board's 100x32"),
    ({"width": 64, "height": 32, "panel": "60x30"}, "display.panel: HUB75 panels are"),
    ({"width": 64, "height": 32, "hat": "bonnet"}, "display.hat"),
    ({"width": 128, "height": 64, "hat": "adafruit-hat"}, r"display.parallel: 2 chains need .* one chain"),
    ({"width": 64, "height": 32, "night_hours": "late"}, "display.night_hours: night hours are HH:MM-HH:MM"),
    ({"width": 64, "height": 32, "pwm_bits": 12}, "display.pwm_bits"),
    ({"width": 64, "height": 32, "wiring": "rows"}, "display.wiring"),
])
def test_a_wrong_hub75_configuration_is_refused_naming_the_key(table: dict[str, Any], reason: str) -> None:
    with pytest.raises(DisplayConfigError, match=reason):
        parse_display({"device": "hub75", **table})
