"""The drawing side of the boards: what the state means to them, fonts, layouts, time."""

from __future__ import annotations

import doctest
import importlib
import math

import pytest
from PIL import ImageChops

from cueboard.boards import LayoutOptions, Motion, Renderer, layout_for, render
from cueboard.boards.catalogue import find_layout
from cueboard.boards.fonts import LARGE, NARROW, NORMAL, TINY, ascii_text
from cueboard.boards.layout import TinyLayout
from cueboard.boards.scene import Pages, Text, duration, next_change, phase
from cueboard.boards.shown import Handed, clock_shown
from cueboard.engine import IllegalEvent
from cueboard.engine.shot_clock import ShotTime
from tests.helpers.boards import GOLDEN_STATES, golden, golden_state, shown

CASE = {(game, c["name"]): shown(c["state"]) for game, cases in GOLDEN_STATES.items() for c in cases}


# -- the state as the boards read it ----------------------------------------------------


def test_a_state_that_does_not_fit_is_refused_naming_the_field() -> None:
    state = golden_state("snooker", "break")
    state["sides"][0]["score"] = 12.9
    with pytest.raises(IllegalEvent, match=r"^state: sides\[0\]\.score must be a whole number"):
        shown(state)
    with pytest.raises(IllegalEvent, match=r"^state: next\.names must be a list of strings \(2 or more\)"):
        shown(golden_state("snooker", "break"), next={"fixture": "F1", "competition": None, "names": "Ann"})


def test_the_extras_beside_the_state_are_read() -> None:
    read = shown(golden_state("blackball", "groups"), next={"fixture": "F1", "competition": "Cup", "names": ["A", "B"]},
                 message={"text": "Bar closes", "until": None},
                 clock={"running": False, "paused": True, "left": 41.0, "length": 60})
    assert read.handed == Handed(("A", "B"), "Cup") and read.message == "Bar closes" and read.held
    assert read.shot == ShotTime(60, 30)


@pytest.mark.parametrize(("left", "seconds", "called"), [
    (60.0, 60, False), (59.99, 60, False), (30.01, 31, False), (30.0, 30, True), (0.2, 1, True),
    (0.0, 0, True), (-3.0, 0, True)])
def test_the_shot_clock_shows_whole_seconds_rounded_up_and_the_call_at_thirty(
        left: float, seconds: int, called: bool) -> None:
    shot = clock_shown(CASE["blackball", "groups"], left)  # 60 s a shot, the call 30 s in (rule 8a)
    assert shot is not None and (shot.seconds, shot.called) == (seconds, called)


def test_no_call_without_a_call_time() -> None:
    state = golden("blackball", "groups", shot_clock=15, shot_clock_call=None)
    shot = clock_shown(state, 1.0)
    assert shot is not None and not shot.called
    assert clock_shown(state, None) is None and clock_shown(state, float("nan")) is None


# -- fonts ------------------------------------------------------------------------------


def test_fonts() -> None:
    assert (NORMAL.height, TINY.height, NARROW.height, LARGE.height) == (7, 5, 7, 14)
    assert NORMAL.width("147") == 17 and NARROW.width("147") == 14 and LARGE.width("14") == 22
    assert NORMAL.width("1") == NORMAL.width("8")  # scores do not jump about
    assert TINY.render("brk").tobytes() == TINY.render("BRK").tobytes()
    assert ascii_text("Zoë Ó Súilleabháin 丁俊晖") == "Zoe O Suilleabhain ???"


# -- layouts and sizes ------------------------------------------------------------------


@pytest.mark.parametrize(("size", "expected"), [
    ((32, 8), "snooker 32x8"), ((64, 16), "snooker 64x16"), ((128, 32), "snooker 128x32"),
    ((40, 8), "snooker 32x8"), ((64, 32), "snooker 64x32"), ((256, 64), "snooker 128x64"),
    ((64, 24), "snooker 64x16"), ((200, 100), "snooker 192x96"), ((128, 48), "snooker 128x32"),
    ((16, 8), "tiny 16x8"), ((8, 8), "tiny 8x8"), ((128, 8), "snooker 32x8")])
def test_each_board_gets_the_largest_layout_that_fits(size: tuple[int, int], expected: str) -> None:
    assert find_layout(CASE["snooker", "break"].state, *size).name == expected


def test_a_layout_can_be_forced_and_is_drawn_in_the_middle() -> None:
    small = render(CASE["snooker", "break"], 32, 8, mode="1")
    big = render(CASE["snooker", "break"], 64, 16, mode="1", size=(32, 8))
    assert big.crop((16, 4, 48, 12)).tobytes() == small.tobytes()
    # Forced but too big for the board: the largest that fits instead.
    assert isinstance(layout_for(CASE["snooker", "break"], 8, 8, (32, 8), LayoutOptions()), TinyLayout)


def test_no_state_is_a_blank_board() -> None:
    assert render(None, 32, 8, mode="1").getbbox() is None


def test_the_flash_inverts_the_board() -> None:
    normal = render(CASE["snooker", "break"], 64, 16, mode="1")
    inverted = render(CASE["snooker", "break"], 64, 16, mode="1", inverted=True)
    assert ImageChops.invert(normal.convert("L")).convert("1").tobytes() == inverted.tobytes()


# -- time -------------------------------------------------------------------------------


def test_pages_take_turns_and_say_when() -> None:
    a, b = Text(0, 0, 10, "A", NORMAL), Text(0, 0, 10, "B", NORMAL)
    pages = Pages("k", ((a,), (b,)), 2.5)
    motion = Motion()
    assert duration(pages, motion) == 5000  # milliseconds
    assert [phase(pages, ms, motion) for ms in (0, 2499, 2500, 4999, 5000)] == [
        (0, ()), (0, ()), (1, ()), (1, ()), (0, ())]
    assert next_change(pages, 0, motion) == 2500 and next_change(pages, 2500, motion) == 5000
    assert next_change(Pages("k", ((a,),), 2.5), 0, motion) is None


def test_a_marquee_holds_scrolls_holds() -> None:
    text = Text(0, 0, 20, "Ronnie O'Sullivan", NORMAL)
    motion = Motion(scroll_speed=10.0, hold=1.0)  # a pixel every 100 ms
    distance = NORMAL.width(text.text) - 20
    assert duration(text, motion) == 2000 + distance * 100
    assert phase(text, 500, motion) == 0 and phase(text, 1099, motion) == 0 and phase(text, 1100, motion) == 1
    assert phase(text, 1000 + distance * 100 + 500, motion) == distance
    assert next_change(text, 0, motion) == 1100
    assert next_change(text, 1000 + distance * 100, motion) == 2000 + distance * 100  # back to the start


@pytest.mark.parametrize(("epoch", "now"), [(15.4, 20.4), (7.0, 11.999999999999998), (0.1, 0.3)])
def test_the_next_change_is_after_now_and_the_picture_changes_right_then(epoch: float, now: float) -> None:
    # A bug: epoch 15.4, now 20.4 (4.999999999999998 s on): the page was the last one and
    # its end was now, so a timer at now ran for ever. Another: a turn seen a hair before
    # the timer for it. Deadlines and phases are the same arithmetic now.
    renderer = Renderer(64, 16, "1")
    renderer.update(CASE["snooker", "break"], None, epoch)
    deadline = renderer.next_change(now)
    assert deadline is not None and deadline > now
    assert renderer.phase(deadline) != renderer.phase(now)
    assert renderer.phase(math.nextafter(deadline, 0)) == renderer.phase(now)


def test_the_renderer_changes_its_scene_only_when_the_picture_would() -> None:
    renderer = Renderer(32, 8, "1")
    state = CASE["blackball", "groups"]
    assert renderer.update(state, 45.0, 0.0)
    assert not renderer.update(shown(golden_state("blackball", "groups")), 44.5, 0.5)  # an equal state, same second
    assert renderer.update(state, 44.0, 1.0)
    assert not renderer.update(state, 44.0, 1.0)


def test_a_page_turn_goes_on_across_a_new_score() -> None:
    renderer = Renderer(64, 16, "1")
    state = golden_state("snooker", "break")
    renderer.update(shown(state), None, 0.0)
    before = renderer.phase(3.0)
    state["sides"][1]["score"] += 1
    state["break"] += 1
    renderer.update(shown(state), None, 3.0)
    assert renderer.phase(3.0) == before  # the same pages: no jump back to the first


@pytest.mark.parametrize("name", ["cueboard.boards.render", "cueboard.boards.fonts", "cueboard.boards.shown",
                                  "cueboard.boards.notices", "cueboard.boards.preview", "cueboard.hw.display_devices"])
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
