"""The board the daemon drives: configuration, time, the refusal flash, failures, devices.

Boards run on luma's ``dummy`` device (it keeps the last image) or on the real device
classes over stand-ins (``board_helpers``); time is a :class:`ManualClock`, so nothing
here depends on the speed of the machine.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops

from cueboard.boards import Board, render
from cueboard.hw.clock import ManualClock
from cueboard.hw.display_config import COMMON, DEVICES, DisplayConfig, DisplayConfigError, parse_display, parse_displays
from cueboard.hw.display_devices import open_device, wiring_map
from cueboard.table.devices import open_board, open_boards
from tests.helpers.boards import FakeWs281x, SerialRecorder, golden, max7219_board, shown, simple_state

BREAK = golden("snooker", "break")
GROUPS = golden("blackball", "groups")
SIMPLE = shown(simple_state())


def dummy_board(clock: ManualClock, **table: Any) -> Board:
    config = parse_display({"device": "dummy", "width": 64, "height": 16, "mode": "1", **table})
    return open_board(config, time_source=clock)


# -- configuration ----------------------------------------------------------------------


def test_a_max7219_chain_from_its_cascade() -> None:
    config = parse_display({"device": "max7219", "cascaded": 4, "block_orientation": -90})
    assert (config.width, config.height, config.block_orientation) == (32, 8, -90)
    assert config.brightness == 112 and config.layout_size is None and not config.colour


def test_a_ws2812_panel_starts_dim() -> None:
    config = parse_display({"device": "ws2812", "width": 32, "height": 8, "wiring": "snake_columns"})
    assert config.brightness == 48 and config.colour


@pytest.mark.parametrize(("table", "named"), [
    ({"device": "max7219", "cascaded": 4, "colour": "red"}, "display.colour: "),
    ({"device": "max7219", "cascaded": 4, "wiring": "rows"}, "display.wiring: "),
    ({"device": "ws2812", "width": 8, "height": 8, "block_orientation": 90}, "display.block_orientation: "),
    ({"device": "lcd", "width": 8, "height": 8}, "display.device: "),
    ({"width": 8, "height": 8}, "display.device: "),
    ({"device": "max7219", "width": 30, "height": 8}, "display.width: "),
    ({"device": "max7219", "cascaded": 4, "width": 64, "height": 8}, "display.cascaded: "),
    ({"device": "ws2812", "width": 32}, "display.height: "),
    ({"device": "max7219", "cascaded": 4, "block_orientation": 45}, "display.block_orientation: "),
    ({"device": "max7219", "cascaded": 4, "spi_speed_hz": 3_000_000}, "display.spi_speed_hz: "),
    ({"device": "max7219", "cascaded": 4, "brightness": 256}, "display.brightness: "),
    ({"device": "max7219", "cascaded": 4, "brightness": True}, "display.brightness: "),
    ({"device": "max7219", "cascaded": 4, "rotate": 4}, "display.rotate: "),
    ({"device": "max7219", "cascaded": 4, "layout": "64x16"}, "display.layout: "),
    ({"device": "max7219", "cascaded": 4, "layout": "48x8"}, "display.layout: "),
    ({"device": "max7219", "width": 32, "height": 16, "blocks_reversed": True}, "display.blocks_reversed: "),
    ({"device": "dummy", "width": 8, "height": 8, "page_seconds": 0}, "display.page_seconds: "),
    ({"device": "dummy", "width": 8, "height": 8, "scroll_speed": -1}, "display.scroll_speed: "),
    ({"device": "dummy", "width": 8, "height": 8, "mode": "L"}, "display.mode: "),
    ({"device": "capture", "width": 8, "height": 8, "transform": "blur"}, "display.transform: "),
])
def test_a_wrong_key_is_refused_by_name(table: dict[str, Any], named: str) -> None:
    with pytest.raises(DisplayConfigError) as info:
        parse_display(table)
    assert str(info.value).startswith(named), str(info.value)


def test_a_key_of_another_device_says_whose_it_is() -> None:
    with pytest.raises(DisplayConfigError, match=r"^display\.wiring: unknown key; it is a key of ws2812 "
                                                 r"boards \(a max7219 board takes: device, "):
        parse_display({"device": "max7219", "cascaded": 4, "wiring": "rows"})


def test_every_key_a_device_takes_is_a_field_of_the_config() -> None:
    fields = set(DisplayConfig.__dataclass_fields__)
    assert set(COMMON) <= fields
    for keys in DEVICES.values():
        assert set(keys) <= fields


@pytest.mark.parametrize("device", sorted(DEVICES))
def test_parse_display_reads_every_key_a_device_takes_and_no_other(device: str) -> None:
    """COMMON and DEVICES say which keys a board takes; parse_display reads exactly those."""
    with pytest.raises(DisplayConfigError) as info:
        parse_display({"device": device, "width": 8, "height": 8, "bogus": 1})
    takes = str(info.value).split(f"(a {device} board takes: ")[1].rstrip(")").split(", ")
    assert sorted(takes) == sorted(COMMON + DEVICES[device])


def test_one_board_or_several_per_table() -> None:
    one = parse_displays({"device": "max7219", "cascaded": 4})
    several = parse_displays([{"device": "max7219", "cascaded": 4, "name": "marker"},
                              {"device": "ws2812", "width": 64, "height": 16, "name": "hall"}])
    assert len(one) == 1 and [c.label for c in several] == ["marker", "hall"]
    with pytest.raises(DisplayConfigError, match=r"^display\[1\]\.bogus: unknown key"):
        parse_displays([{"device": "dummy", "width": 8, "height": 8},
                        {"device": "dummy", "width": 8, "height": 8, "bogus": 1}])


# -- showing ----------------------------------------------------------------------------


def test_the_board_shows_what_the_layout_draws() -> None:
    clock = ManualClock()
    board = dummy_board(clock)
    assert board.show(BREAK)
    assert board.device.image.tobytes() == render(BREAK, 64, 16, mode="1").tobytes()
    assert not board.show(BREAK)


def test_a_shot_clock_is_shown_in_whole_seconds_and_a_frame_goes_out_once_a_second() -> None:
    clock = ManualClock()
    board = dummy_board(clock, width=32, height=8, page_seconds=100)
    sent = 0
    for tenth in range(100):  # ten seconds of the clock, a call every 100 ms
        sent += board.show(GROUPS, clock=40 - tenth / 10)
        clock.advance(0.1)
    assert sent == 10


def test_pages_take_turns_on_the_boards_own_timer() -> None:
    clock = ManualClock()
    board = dummy_board(clock)
    board.show(BREAK)  # the striker's line: break, name, points remaining; the other's: the name
    first = board.device.image.copy()
    sent = board.frames_sent
    assert clock.pending == 1
    clock.advance(2.5)
    second = board.device.image.copy()
    clock.advance(2.5)
    third = board.device.image.copy()
    clock.advance(2.5)
    assert len({first.tobytes(), second.tobytes(), third.tobytes()}) == 3
    assert board.device.image.tobytes() == first.tobytes()
    assert board.frames_sent == sent + 3


def test_a_still_scene_leaves_no_timer() -> None:
    clock = ManualClock()
    board = dummy_board(clock)
    board.show(SIMPLE)
    assert clock.pending == 0 and board.next_deadline() is None


def test_the_caller_can_drive_the_ticks_itself() -> None:
    config = parse_display({"device": "dummy", "width": 64, "height": 16, "mode": "1"})
    board = open_board(config)  # no time source: the caller's loop calls tick at next_deadline
    board.show(BREAK, now=100.0)
    deadline = board.next_deadline(now=100.0)
    assert deadline == pytest.approx(102.5)
    before = board.device.image.tobytes()
    assert not board.tick(now=102.4)
    assert board.tick(now=deadline)
    assert board.device.image.tobytes() != before


def test_a_long_name_scrolls_and_stops_scrolling_once_shorter() -> None:
    clock = ManualClock()
    board = dummy_board(clock)
    long = simple_state()
    long["sides"][0]["name"] = "Ronnie O'Sullivan the Rocket"
    board.show(shown(long))
    assert clock.pending == 1
    frames = board.frames_sent
    clock.advance(3.0)
    assert board.frames_sent > frames  # it moved
    board.show(SIMPLE)
    assert clock.pending == 0


def test_names_are_cut_when_scrolling_is_off() -> None:
    clock = ManualClock()
    board = dummy_board(clock, scroll_speed=0)
    long = simple_state()
    long["sides"][0]["name"] = "Ronnie O'Sullivan the Rocket"
    board.show(shown(long))
    assert clock.pending == 0


# -- the refusal flash ------------------------------------------------------------------


def test_a_refusal_flashes_the_board_twice_then_shows_the_state() -> None:
    clock = ManualClock()
    board = dummy_board(clock)
    board.show(SIMPLE)
    normal = board.device.image.copy()
    inverted = ImageChops.invert(normal.convert("L")).convert("1")
    seen = []
    board.flash()
    for step in range(1, 10):
        image = board.device.image
        seen.append("inverted" if image.tobytes() == inverted.tobytes() else
                    "normal" if image.tobytes() == normal.tobytes() else "other")
        clock.advance_to(step * 0.05)
    assert seen == ["inverted"] * 3 + ["normal"] * 2 + ["inverted"] * 3 + ["normal"]
    assert clock.pending == 0


def test_a_refusal_during_a_flash_starts_it_again() -> None:
    clock = ManualClock()
    board = dummy_board(clock)
    board.show(SIMPLE)
    board.flash()
    clock.advance(0.3)
    board.flash()
    clock.advance(0.1)
    assert board.next_deadline() == pytest.approx(clock.now() + 0.05)


# -- failures ---------------------------------------------------------------------------


def test_a_device_that_cannot_open_is_retried_and_scoring_goes_on() -> None:
    clock = ManualClock()
    attempts = []

    def factory(config: DisplayConfig) -> Any:
        attempts.append(clock.now())
        if len(attempts) < 3:
            raise ModuleNotFoundError("No module named 'spidev'")
        return open_device(parse_display({"device": "dummy", "width": 32, "height": 8, "mode": "1"}))

    board = open_board(parse_display({"device": "max7219", "cascaded": 4}), time_source=clock,
                       device_factory=factory)
    assert board.health == "failed: ModuleNotFoundError: No module named 'spidev'"
    assert board.show(SIMPLE) is False
    clock.advance(1.0)
    assert board.health.startswith("failed")
    clock.advance(2.0)
    assert board.health == "ok" and attempts == [0.0, 1.0, 3.0]
    assert board.device.image.tobytes() == render(SIMPLE, 32, 8, mode="1").tobytes()


def test_a_layout_that_fails_keeps_the_last_picture(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = ManualClock()
    board = dummy_board(clock)
    board.show(SIMPLE)
    before = board.device.image.tobytes()

    def broken(*args: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(board.renderer, "update", broken)
    assert board.show(BREAK) is False
    assert board.device.image.tobytes() == before and board.health == "ok"


def test_closing_blanks_the_chain_and_stops_everything() -> None:
    serial, clock = SerialRecorder(), ManualClock()
    board = max7219_board({"cascaded": 4}, serial, clock)
    board.show(BREAK)
    assert clock.pending == 1
    serial.take()
    board.close()
    assert [0x0C, 0] * 4 in serial.take()  # shut down
    assert serial.closed == 1 and clock.pending == 0
    assert board.show(SIMPLE) is False and serial.take() == []


def test_several_boards_share_one_clock() -> None:
    clock = ManualClock()
    boards = open_boards(parse_displays([{"device": "dummy", "width": 32, "height": 8, "mode": "1"},
                                         {"device": "dummy", "width": 128, "height": 32}]), time_source=clock)
    for board in boards:
        board.show(BREAK)
    assert [b.device.image.size for b in boards] == [(32, 8), (128, 32)]
    assert clock.pending == 2


# -- other devices ----------------------------------------------------------------------


def test_wiring_maps() -> None:
    assert wiring_map("rows", 3, 2) == [0, 1, 2, 3, 4, 5]
    assert wiring_map("snake_rows", 3, 2) == [0, 1, 2, 5, 4, 3]
    assert wiring_map("columns", 3, 2) == [0, 2, 4, 1, 3, 5]
    assert wiring_map("snake_columns", 3, 2) == [0, 3, 4, 1, 2, 5]
    # A quarter turn: the picture's top-left pixel lands at the panel's top-right LED.
    assert wiring_map("rows", 3, 2, rotate=1)[0] == 2


@pytest.mark.filterwarnings("ignore:Image.Image.getdata:DeprecationWarning")  # luma's, on Pillow 13
def test_a_ws2812_panel_gets_each_pixel_on_its_led_and_no_render_when_nothing_changed() -> None:
    ws, clock = FakeWs281x(), ManualClock()
    config = parse_display({"device": "ws2812", "width": 32, "height": 8, "wiring": "snake_columns",
                            "driver": "pwm"})
    board = open_board(config, time_source=clock, device_factory=lambda c: open_device(c, dma=ws))
    assert ws.brightness == 48 and ws.count == 256
    board.show(GROUPS, clock=25.0)
    image = render(GROUPS, 32, 8, clock=25.0)
    mapping = wiring_map("snake_columns", 32, 8)
    pixels = image.load()
    assert pixels is not None
    for y in range(8):
        for x in range(32):
            r, g, b = pixels[x, y]
            assert ws.leds[mapping[y * 32 + x]] == (r << 16) | (g << 8) | b
    renders = ws.renders
    board.show(GROUPS, clock=24.5)
    assert ws.renders == renders


def test_the_capture_emulator_writes_a_png_a_frame(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        import pygame  # noqa: F401  (luma.emulator's capture device draws with it)
    except ModuleNotFoundError:
        pytest.fail("pygame is not installed: pip install -e '.[test,demo]' (luma.emulator brings it)")
    clock = ManualClock()
    config = parse_display({"device": "capture", "width": 32, "height": 8, "mode": "1", "scale": 1,
                            "transform": "none", "file": str(tmp_path / "frame-{0:03}.png")})
    board = open_board(config, time_source=clock)
    board.show(SIMPLE)
    board.show(SIMPLE)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["frame-001.png"]
    with Image.open(tmp_path / "frame-001.png") as saved:
        lit = saved.convert("L").point(lambda v: 255 if v else 0).convert("1").tobytes()
    assert lit == render(SIMPLE, 32, 8, mode="1").tobytes()


def test_times_are_on_one_scale() -> None:
    # next_deadline is an absolute time on the board's clock, never a delay.
    clock = ManualClock(1000.0)
    board = dummy_board(clock)
    board.show(BREAK)
    deadline = board.next_deadline()
    assert deadline is not None and math.isclose(deadline, 1002.5)


def test_a_device_unlike_the_configuration_is_drawn_for_what_it_is() -> None:
    clock = ManualClock()
    rgb = parse_display({"device": "dummy", "width": 32, "height": 8, "mode": "RGB"})
    board = open_board(parse_display({"device": "max7219", "cascaded": 4}), time_source=clock,
                       device_factory=lambda c: open_device(rgb))
    board.show(GROUPS)
    assert board.device.image.tobytes() == render(GROUPS, 32, 8).tobytes()
