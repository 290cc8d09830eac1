"""Power you can wire safely (issue 24): ``[display] supply_amps`` is the rating of the board's
supply, and the board never draws more than it. A brightness that would (a typo, a default
on a bigger board than planned) is lowered to the highest the supply feeds with every LED lit
white, with a warning naming the figures; the LEDs' bytes as the panel gets them are checked
against the supply, not only the arithmetic.
"""

from __future__ import annotations

import doctest

import pytest
from PIL import Image

from cueboard.hw import power
from cueboard.hw.display_config import DisplayConfigError, parse_display
from cueboard.hw.display_devices import open_device
from cueboard.hw.power import cap_brightness, draw_amps
from tests.hw.test_ws2812_spi import FakeSpiDev


def test_the_module_s_examples_run_as_written() -> None:
    assert doctest.testmod(power).failed == 0


def test_the_figures_of_docs_hardware_md() -> None:
    # WS2812 128x32: 51 A at the default 48, some 250 A at 255; MAX7219 128x32: 21 A at full.
    assert 50 < draw_amps("ws2812", 128, 32, 48) < 52
    assert 245 < draw_amps("ws2812", 128, 32, 255) < 251
    assert 20.5 < draw_amps("max7219", 128, 32, 255) < 21.5
    assert draw_amps("hub75", 64, 32, 255) == pytest.approx(4.0)
    assert draw_amps("capture", 128, 32, 255) == 0.0


def test_a_brightness_the_supply_cannot_feed_is_lowered_with_the_figures(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("WARNING", logger="cueboard"):
        config = parse_display({"device": "ws2812", "width": 64, "height": 16, "brightness": 255,
                                "supply_amps": 20})
    assert config.supply_amps == 20 and config.brightness == cap_brightness("ws2812", 64, 16, 255, 20)
    assert draw_amps("ws2812", 64, 16, config.brightness) <= 20 < draw_amps("ws2812", 64, 16, config.brightness + 1)
    [said] = [r.getMessage() for r in caplog.records]
    assert said == (f"display.brightness = 255: a 64x16 ws2812 board all lit would draw 62.5 A from a 20 A supply "
                    f"(display.supply_amps); lowered to {config.brightness} "
                    f"({draw_amps('ws2812', 64, 16, config.brightness):.1f} A). A bigger supply, fed in as "
                    "docs/hardware.md says, allows more.")


def test_a_brightness_the_supply_feeds_is_kept_silently(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("WARNING", logger="cueboard"):
        config = parse_display({"device": "ws2812", "width": 32, "height": 8, "supply_amps": 5})
    assert config.brightness == 48 and not caplog.records  # 3.2 A at the default 48
    assert parse_display({"device": "ws2812", "width": 32, "height": 8}).supply_amps is None


@pytest.mark.parametrize(("table", "keys"), [
    ({"device": "max7219", "width": 128, "height": 32, "supply_amps": 5}, ("brightness",)),  # the default 112
    ({"device": "hub75", "width": 128, "height": 64, "night_brightness": 200, "supply_amps": 10},
     ("brightness", "night_brightness")),
    ({"device": "ws2812", "width": 128, "height": 32, "supply_amps": 0.5}, ("brightness",)),  # not even idle
])
def test_every_board_and_level_is_capped_to_its_supply(table: dict[str, object], keys: tuple[str, ...]) -> None:
    config = parse_display(table)
    assert config.supply_amps is not None
    for key in keys:
        level = getattr(config, key)
        assert level < 255 and (level == 0 or draw_amps(config.device, config.width, config.height, level)
                                <= config.supply_amps)


def test_the_leds_lit_white_at_the_capped_level_draw_no_more_than_the_supply() -> None:
    """From the bytes the panel gets: 20 mA a channel at 255, 1 mA an LED idle."""
    config = parse_display({"device": "ws2812", "width": 16, "height": 8, "brightness": 200, "supply_amps": 2.5})
    panel = open_device(config, spi=FakeSpiDev())  # 128 LEDs: one transfer of spidev's default 4096 bytes
    panel.display(Image.new("RGB", (16, 8), (255, 255, 255)))
    amps = sum(panel.leds()) / 255 * 0.020 + 128 * 0.001
    assert config.brightness < 200 and 2.4 < amps <= 2.5


def test_supply_amps_is_checked_and_only_for_boards_with_a_supply() -> None:
    with pytest.raises(DisplayConfigError, match=r"display\.supply_amps: .*above 0"):
        parse_display({"device": "ws2812", "width": 8, "height": 8, "supply_amps": 0})
    with pytest.raises(DisplayConfigError, match=r"display\.supply_amps: unknown key"):
        parse_display({"device": "capture", "width": 8, "height": 8, "supply_amps": 5})
