"""The bytes that reach a MAX7219 chain: luma's real device class over a recording serial
interface (its ``data``/``command``), and under luma's real ``spi`` over a fake spidev.

Every expected byte here is the MAX7219's register map: 0x01-0x08 digit (row) 0-7,
0x09 decode mode, 0x0A intensity, 0x0B scan limit, 0x0C shutdown, 0x0F display test;
one (register, value) pair a chip, the chip furthest down the chain first.
"""

from __future__ import annotations

import random
import warnings

import pytest
from luma.led_matrix.device import max7219
from PIL import Image

from cueboard.boards import render
from cueboard.hw.clock import ManualClock
from cueboard.hw.display_config import parse_display
from cueboard.hw.display_devices import open_device
from cueboard.hw.max7219 import Max7219Chain
from cueboard.table.devices import open_board
from tests.helpers.boards import FakeSpidev, SerialRecorder, golden, max7219_board, shown, simple_state

BREAK = golden("snooker", "break")
GROUPS = golden("blackball", "groups")

DIGIT = list(range(1, 9))
DECODE, INTENSITY, SCANLIMIT, SHUTDOWN, TEST = 0x09, 0x0A, 0x0B, 0x0C, 0x0F


def luma_frame(device_kwargs: dict[str, object], image: Image.Image) -> list[list[int]]:
    """What luma's own max7219 class sends for ``image``."""
    serial = SerialRecorder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # luma's getdata, Pillow 13
        device = max7219(serial, **device_kwargs)
        serial.take()
        device.display(image.copy())  # luma reverses blocks in place: give it a copy
    return serial.take()


def test_the_chain_is_set_up_as_luma_sets_it_up() -> None:
    serial, clock = SerialRecorder(), ManualClock()
    max7219_board({"cascaded": 4, "brightness": 0x70}, serial, clock)
    assert serial.take() == [
        [SCANLIMIT, 7] * 4,
        [DECODE, 0] * 4,
        [TEST, 0] * 4,
        [INTENSITY, 0x70 >> 4] * 4,
        *([d, 0] * 4 for d in DIGIT),   # luma clears the chain
        [SHUTDOWN, 1] * 4,
    ]  # and a blank board sends no frame after that


def test_one_pixel_lands_on_the_right_chip_row_and_bit() -> None:
    serial = SerialRecorder()
    chain = Max7219Chain(serial, width=32, height=8)
    serial.take()
    image = Image.new("1", (32, 8))
    image.putpixel((0, 2), 1)    # chip 0 (the last in the chain), column 0, row 2
    image.putpixel((31, 7), 1)   # chip 3 (the first in the chain), column 7, row 7
    chain.display(image)
    assert serial.take() == [
        [1, 0, 1, 0, 1, 0, 1, 0b00000100],   # digit 0 = column 0 of each chip: bit 2 on chip 0
        [8, 0b10000000, 8, 0, 8, 0, 8, 0],   # digit 7 = column 7: bit 7 on chip 3
    ]  # rows 1-6 are blank as before: not sent


@pytest.mark.parametrize("lookup", ["bytes", "bits"])
@pytest.mark.parametrize("rotate", [0, 1, 2, 3])
@pytest.mark.parametrize("orientation", [0, 90, -90, 180])
@pytest.mark.parametrize("size", [(32, 8), (64, 16), (128, 32)])
def test_a_whole_frame_is_byte_for_byte_what_luma_sends(size: tuple[int, int], orientation: int,
                                                        rotate: int, lookup: str) -> None:
    kwargs: dict[str, object] = {"width": size[0], "height": size[1], "block_orientation": orientation,
                                 "rotate": rotate}
    serial = SerialRecorder()
    chain = Max7219Chain(serial, **kwargs)
    assert chain._fast is not None  # every wiring luma knows packs a chip's row into one byte
    if lookup == "bits":
        chain._fast = None  # the general path, a lookup a pixel, for a wiring that would not
    rng = random.Random(f"{size}{orientation}{rotate}")
    image = Image.new("1", chain.size)
    image.putdata([rng.random() < 0.4 for _ in range(chain.width * chain.height)])
    serial.take()
    chain.forget()
    chain.display(image)
    assert serial.take() == luma_frame(kwargs, image)


def test_blocks_in_reverse_order_as_luma_reverses_them() -> None:
    kwargs: dict[str, object] = {"width": 32, "height": 8, "block_orientation": -90,
                                 "blocks_arranged_in_reverse_order": True}
    serial = SerialRecorder()
    chain = Max7219Chain(serial, **kwargs)
    image = render(BREAK, 32, 8, mode="1")
    serial.take()
    chain.forget()
    chain.display(image)
    assert serial.take() == luma_frame(kwargs, image)


def test_a_board_sends_the_state_as_luma_would_then_nothing_while_nothing_changes() -> None:
    serial, clock = SerialRecorder(), ManualClock()
    board = max7219_board({"width": 64, "height": 16, "block_orientation": -90}, serial, clock)
    serial.take()
    assert board.show(BREAK)
    frame = serial.take()
    expected = render(BREAK, 64, 16, mode="1")
    luma = luma_frame({"width": 64, "height": 16, "block_orientation": -90}, expected)
    assert frame == [row for row in luma if any(row[1::2])]  # blank rows were blank already
    assert not board.show(BREAK)
    assert not board.show(golden("snooker", "break"))  # an equal state, another object
    assert serial.take() == []


def test_the_shot_clock_sends_only_the_rows_of_the_digit_that_changed() -> None:
    serial, clock = SerialRecorder(), ManualClock()
    board = max7219_board({"cascaded": 4}, serial, clock)
    board.show(GROUPS, clock=45.0)
    chain = board.device
    before = chain.encode(render(GROUPS, 32, 8, mode="1", clock=45.0))
    serial.take()
    for tenth in range(1, 10):  # 44.9 ... 44.1 all show 45: nothing to send
        clock.advance(0.1)
        assert not board.show(GROUPS, clock=45.0 - tenth / 10)
    assert serial.take() == []
    clock.advance(0.1)
    assert board.show(GROUPS, clock=44.0)
    after = chain.encode(render(GROUPS, 32, 8, mode="1", clock=44.0))
    changed = [list(a) for a, b in zip(after, before, strict=True) if a != b]
    assert serial.take() == changed
    assert 0 < len(changed) < 8  # "45" -> "44": some columns only


def test_an_spi_error_is_health_not_an_exception_and_the_chain_is_set_up_again() -> None:
    serial, clock = SerialRecorder(), ManualClock()
    board = max7219_board({"cascaded": 4}, serial, clock)
    device = board.device
    serial.failing = OSError(121, "Remote I/O error")
    assert not board.show(BREAK)
    assert board.health == "failed: OSError: [Errno 121] Remote I/O error"
    # The failed chain is let go through luma's public interface: persist, then cleanup,
    # which closes the bus without sending (a failing bus gets nothing more).
    assert serial.closed == 1 and device.persist and board.device is None
    assert not board.show(GROUPS)  # still failed: nothing raised, nothing sent
    serial.failing = None
    serial.take()
    clock.advance(1.0)  # the retry, on the board's own timer
    assert board.health == "ok"
    writes = serial.take()
    assert writes[0] == [SCANLIMIT, 7] * 4  # a fresh device: the whole set-up
    image = render(GROUPS, 32, 8, mode="1")
    frame = board.device.encode(image)
    assert writes[-len([r for r in frame if any(r[1::2])]):] == [list(r) for r in frame if any(r[1::2])]


def test_retries_back_off_to_thirty_seconds() -> None:
    serial, clock = SerialRecorder(), ManualClock()
    board = max7219_board({"cascaded": 4}, serial, clock)
    serial.failing = OSError(5, "Input/output error")
    board.show(BREAK)
    attempts = []
    start = clock.now()
    for _ in range(8):
        deadline = board.next_deadline()
        assert deadline is not None
        attempts.append(round(deadline - start, 3))
        clock.advance_to(deadline)
        start = clock.now()
    assert attempts == [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0]
    assert board.health.startswith("failed: OSError")


def test_the_set_up_and_picture_are_sent_again_every_minute() -> None:
    serial, clock = SerialRecorder(), ManualClock()
    board = max7219_board({"cascaded": 4}, serial, clock)
    board.show(shown(simple_state()))
    frame = [list(r) for r in board.device.encode(render(
        shown(simple_state()), 32, 8, mode="1"))]
    serial.take()
    clock.advance(59.9)
    assert serial.take() == []
    clock.advance(0.1)
    assert serial.take() == [[SCANLIMIT, 7] * 4, [DECODE, 0] * 4, [TEST, 0] * 4,
                             [INTENSITY, 112 >> 4] * 4, *frame, [SHUTDOWN, 1] * 4]


def test_the_chain_under_lumas_spi_class_on_a_fake_spidev() -> None:
    spidev = FakeSpidev()
    config = parse_display({"device": "max7219", "cascaded": 4, "spi_port": 0, "spi_device": 1,
                            "spi_speed_hz": 4_000_000, "brightness": 255})
    board = open_board(config, device_factory=lambda c: open_device(c, spi=spidev))
    assert spidev.opened == (0, 1) and spidev.max_speed_hz == 4_000_000
    assert spidev.written[3] == [INTENSITY, 15] * 4
    spidev.written.clear()
    board.show(BREAK)
    chain = board.device
    assert spidev.written == [list(r) for r in chain.encode(render(BREAK, 32, 8, mode="1")) if any(r[1::2])]
    board.close()
    assert spidev.closed
