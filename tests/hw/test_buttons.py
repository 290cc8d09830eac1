"""Referee boxes on GPIO: real gpiozero devices on gpiozero's MockFactory, our debounce and
hold detection on a ManualClock, so no test waits and none depends on the machine's speed.

A button pulls its pin to ground: ``drive_low`` presses it, ``drive_high`` lets it go.
"""

from __future__ import annotations

import doctest
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPin
from hypothesis import given, settings
from hypothesis import strategies as st

from cueboard.engine import Event, Match
from cueboard.hw import buttons, clock, debounce, keys
from cueboard.hw.buttons import BoxConfig, BoxConfigError, RefereeBox, open_boxes, parse_boxes
from cueboard.hw.clock import ManualClock, MonotonicClock
from cueboard.hw.debounce import DEBOUNCE, HOLD_TIME, ButtonContact
from cueboard.hw.keys import ButtonPress
from cueboard.table.keymap import Entry, load_keymap
from tests.helpers.findings import Finding

PINS = [5, 6, 13, 19, 26, 12, 16, 20, 21, 4, 17, 27]
KEYMAPS = Path(__file__).resolve().parents[2] / "examples" / "keymaps"


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    f = MockFactory()
    yield f
    f.reset()


@pytest.fixture
def time() -> ManualClock:
    return ManualClock(start=1000.0)


class Box:
    """A referee box on mock pins, and the presses it has reported."""

    def __init__(self, factory: MockFactory, time: ManualClock, pins: list[int] = PINS, box: int = 0,
                 **options: Any) -> None:
        self.time = time
        self.presses: list[ButtonPress] = []
        self.box = RefereeBox(pins, self.presses.append, box=box, clock=time, pin_factory=factory, **options)
        self.pins: list[MockPin] = [factory.pin(p) for p in pins]

    def down(self, button: int) -> None:
        self.pins[button].drive_low()

    def up(self, button: int) -> None:
        self.pins[button].drive_high()

    def storm(self, button: int, edges: int, within: float, start_pressed: bool = True) -> None:
        """``edges`` edges of the contact, evenly spread over ``within`` seconds."""
        level = start_pressed
        for n in range(edges):
            if n:
                self.time.advance(within / (edges - 1))
            (self.down if level else self.up)(button)
            level = not level

    def tap(self, button: int, length: float = 0.1) -> None:
        self.down(button)
        self.time.advance(length)
        self.up(button)
        self.time.advance(DEBOUNCE * 2)


@pytest.fixture
def box(factory: MockFactory, time: ManualClock) -> Iterator[Box]:
    b = Box(factory, time)
    yield b
    b.box.close()


def press(button: int, held: bool = False, box: int = 0) -> ButtonPress:
    return ButtonPress(box, button, held)


# -- presses ------------------------------------------------------------------------------------


def test_a_press_is_reported_on_its_first_edge(box: Box, time: ManualClock) -> None:
    box.down(3)
    # No clock advance: the press is reported inside the pin's edge callback.
    assert box.presses == [press(3)]
    assert box.box.pressed == {3}


def test_each_press_is_reported_once_and_releases_are_not_reported(box: Box) -> None:
    box.tap(0)
    box.tap(0)
    box.tap(7)
    assert box.presses == [press(0), press(0), press(7)]
    assert box.box.pressed == frozenset()


@pytest.mark.parametrize("edges", [20, 21])
def test_twenty_edges_within_five_ms_make_one_press(box: Box, time: ManualClock, edges: int) -> None:
    box.storm(4, edges, within=0.005)
    assert box.presses == [press(4)]
    time.advance(0.1)
    assert box.presses == [press(4)]
    # 20 edges end with the contact open (a quick, bouncy tap); 21 end with it closed.
    assert box.box.pressed == (frozenset() if edges % 2 == 0 else {4})


def test_a_bounce_storm_on_release_makes_no_press(box: Box, time: ManualClock) -> None:
    box.down(2)
    time.advance(0.3)
    box.storm(2, 21, within=0.005, start_pressed=False)  # opens, bounces, ends open
    time.advance(1.0)
    assert box.presses == [press(2)]
    assert box.box.pressed == frozenset()


def test_chatter_of_a_button_held_down_makes_no_press(box: Box, time: ManualClock) -> None:
    box.down(1)
    time.advance(0.2)
    box.storm(1, 20, within=0.005, start_pressed=False)  # jostled: opens, bounces, ends closed
    time.advance(0.2)
    box.storm(1, 10, within=0.003, start_pressed=False)
    time.advance(HOLD_TIME)
    assert box.presses == [press(1), press(1, held=True)]


def test_a_bounce_storm_on_an_idle_line_never_makes_a_second_press(box: Box, time: ManualClock,
                                                                    finding: Finding) -> None:
    bursts = 50
    for _ in range(bursts):  # 500 edges, never quiet for the debounce time
        box.storm(9, 10, within=0.009, start_pressed=True)
        time.advance(DEBOUNCE / 2)
    time.advance(1.0)
    presses = [p for p in box.presses if not p.held]
    finding(f"{bursts * 10} edges on one button, never quiet for the {DEBOUNCE * 1000:g} ms debounce: "
            f"{len(presses)} press(es) reported", edges=bursts * 10, presses=len(presses))
    assert presses == [press(9)]


def test_presses_closer_than_the_debounce_are_one_press(box: Box, time: ManualClock) -> None:
    box.down(0)
    time.advance(0.05)
    box.up(0)
    time.advance(DEBOUNCE * 0.9)
    box.down(0)
    time.advance(0.05)
    box.up(0)
    time.advance(DEBOUNCE)
    box.down(0)
    assert box.presses == [press(0), press(0)]


# A busy machine runs the clock's timers late (ManualClock.stall moves the time without
# running them). What counts is when the edges came, not when a timer got to run: this is
# the press the 32x8 latency bench lost once (docs/performance.md).


def test_a_press_after_a_release_whose_timer_is_late_is_a_new_press(box: Box, time: ManualClock,
                                                                    finding: Finding) -> None:
    box.tap(11)
    box.down(11)
    time.advance(0.005)
    box.up(11)
    time.stall(0.040)  # released for twice the debounce, but the release's timer has not run
    box.down(11)
    finding(f"release timer stalled 40 ms past its due time, then the button pressed again: "
            f"{len(box.presses)} of 3 presses reported", presses=len(box.presses), expected=3, stall_ms=40)
    assert box.presses == [press(11), press(11), press(11)]
    time.advance(0.001)  # the late timer runs now and changes nothing
    assert box.presses == [press(11), press(11), press(11)]
    assert box.box.pressed == {11}
    box.up(11)
    time.advance(1.0)
    assert box.presses == [press(11), press(11), press(11)]
    assert box.box.pressed == frozenset()


def test_a_late_release_timer_does_not_end_a_later_press_early(box: Box, time: ManualClock) -> None:
    box.down(0)
    box.up(0)
    time.stall(DEBOUNCE * 1.5)
    box.down(0)  # a new press: the first release was due
    box.up(0)
    time.advance(DEBOUNCE / 2)  # runs the first release's late timer: the second is not due yet
    assert box.box.pressed == {0}
    box.down(0)  # a bounce of the second press
    assert box.presses == [press(0), press(0)]


def test_a_hold_whose_timer_is_late_is_still_a_hold(box: Box, time: ManualClock) -> None:
    box.down(8)
    time.stall(HOLD_TIME + 0.1)  # down through the hold time; its timer has not run
    box.up(8)
    time.advance(1.0)
    assert box.presses == [press(8), press(8, held=True)]


def test_a_late_hold_timer_of_an_earlier_press_is_not_a_hold(box: Box, time: ManualClock) -> None:
    box.down(8)
    box.up(8)
    time.advance(DEBOUNCE * 2)
    box.down(8)
    time.advance(HOLD_TIME / 2)
    assert box.presses == [press(8), press(8)]


def test_buttons_pressed_together_are_each_reported(box: Box) -> None:
    box.down(8)
    box.down(10)
    assert box.presses == [press(8), press(10)]
    assert box.box.pressed == {8, 10}


# -- holds ---------------------------------------------------------------------------------------


def test_a_held_button_is_reported_again_once_at_the_hold_time(box: Box, time: ManualClock) -> None:
    box.down(8)
    time.advance(HOLD_TIME - 0.001)
    assert box.presses == [press(8)]
    time.advance(0.001)
    assert box.presses == [press(8), press(8, held=True)]
    time.advance(5.0)
    box.up(8)
    time.advance(1.0)
    assert box.presses == [press(8), press(8, held=True)]


def test_a_release_just_before_the_hold_time_is_not_a_hold(box: Box, time: ManualClock) -> None:
    box.down(8)
    time.advance(HOLD_TIME - DEBOUNCE / 2)
    box.up(8)  # its debounce runs past the hold time
    time.advance(1.0)
    assert box.presses == [press(8)]


def test_a_bounce_across_the_hold_time_is_still_a_hold(box: Box, time: ManualClock) -> None:
    box.down(8)
    time.advance(HOLD_TIME - 0.005)
    box.up(8)
    time.advance(0.010)  # the hold falls due while the contact is open
    assert box.presses == [press(8)]
    box.down(8)  # back before the release counted: it was a bounce
    assert box.presses == [press(8), press(8, held=True)]


def test_hold_time_and_debounce_are_options(factory: MockFactory, time: ManualClock) -> None:
    b = Box(factory, time, pins=[5], hold_time=0.3, debounce=0.05)
    b.down(0)
    time.advance(0.3)
    assert b.presses == [press(0), press(0, held=True)]
    b.up(0)
    time.advance(0.04)
    b.down(0)  # within the 50 ms debounce: the same press
    assert len(b.presses) == 2
    b.box.close()


# -- start, stop, several boxes -----------------------------------------------------------------


class HeldDownPin(MockPin):
    """A pin whose button is down: the closed contact holds the line low against the pull-up."""

    def _set_pull(self, value: str) -> None:
        self._pull = value


def test_a_button_down_at_start_is_not_a_press(factory: MockFactory, time: ManualClock) -> None:
    factory.pin(6, pin_class=HeldDownPin).drive_low()  # stuck, or held through a restart
    b = Box(factory, time, pins=[5, 6])
    time.advance(2.0)
    assert b.presses == []
    assert b.box.pressed == {1}
    b.up(1)
    time.advance(0.1)
    b.down(1)
    assert b.presses == [press(1)]
    b.box.close()


def test_two_boxes_on_one_table(factory: MockFactory, time: ManualClock) -> None:
    reported: list[ButtonPress] = []
    configs = parse_boxes([{"pins": [5, 6, 13]}, {"pins": [19, 26, 12]}])
    boxes = open_boxes(configs, reported.append, clock=time, pin_factory=factory)
    factory.pin(26).drive_low()
    factory.pin(6).drive_low()
    assert reported == [press(1, box=1), press(1, box=0)]
    for b in boxes:
        b.close()


def test_close_releases_the_pins_and_leaves_no_timer(factory: MockFactory, time: ManualClock) -> None:
    b = Box(factory, time, pins=[5, 6])
    b.down(0)
    b.up(0)
    assert time.pending == 2  # the hold and the release
    b.box.close()
    assert time.pending == 0
    b.down(1)
    time.advance(5.0)
    assert b.presses == [press(0)]
    again = Box(factory, time, pins=[5, 6])  # the pins are free again
    again.box.close()


def test_an_idle_box_schedules_nothing(box: Box, time: ManualClock) -> None:
    """Nothing polls: with no button down the box has no timer running."""
    assert time.pending == 0
    box.tap(3, length=2.0)
    assert time.pending == 0


def test_with_the_pin_factory_gpiozero_picks_from_the_environment(
        monkeypatch: pytest.MonkeyPatch, time: ManualClock) -> None:
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    saved = Device.pin_factory
    Device.pin_factory = None
    try:
        reported: list[ButtonPress] = []
        with RefereeBox([22, 23], reported.append, clock=time) as b:
            assert isinstance(Device.pin_factory, MockFactory)
            Device.pin_factory.pin(23).drive_low()
            assert reported == [press(1)]
            assert b.buttons == 2
    finally:
        if Device.pin_factory is not None:
            Device.pin_factory.close()
        Device.pin_factory = saved


# -- presses become events -----------------------------------------------------------------------


def test_presses_become_events(factory: MockFactory, time: ManualClock) -> None:
    """Mock pins -> RefereeBox -> keymap -> engine, as the daemon wires them."""
    keymap = load_keymap(KEYMAPS / "referee-box-12.toml")
    m = Match.from_json({"type": "match", "game": "snooker", "sides": ["Ann", "Bob"]})
    entry = Entry(keymap)
    outcomes: list[Any] = []

    def on_press(p: ButtonPress) -> None:
        outcome = entry.feed(p, m.state(), now=time.now())
        outcomes.append(outcome)
        if isinstance(outcome, Event):
            m.apply(outcome)

    b = RefereeBox(PINS, on_press, clock=time, pin_factory=factory)
    pin = {name: factory.pin(PINS[i]) for i, name in enumerate(a for row in keymap.layout for a in row)}

    def tap(name: str, hold: float = 0.1) -> None:
        pin[name].drive_low()
        time.advance(hold)
        pin[name].drive_high()
        time.advance(0.2)

    tap("RED")
    tap("BLUE")
    tap("FOUL", hold=1.0)  # held: foul and a miss
    tap("PINK")
    state = m.state().to_json()
    assert [s["score"] for s in state["sides"]] == [6, 6]
    assert state["misses"] == 1
    assert [type(o).__name__ for o in outcomes] == ["Pot", "Pot", "Pending", "Pending", "Foul"]
    b.close()


# -- the debounce as a property ----------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.floats(min_value=1e-5, max_value=DEBOUNCE * 0.95), max_size=15),
                min_size=1, max_size=8))
def test_every_burst_of_bounces_is_one_press(bursts: list[list[float]]) -> None:
    """Bursts of edges, each edge within the debounce time of the one before, the bursts
    apart by more than the debounce with the contact open: one press a burst."""
    f, t = MockFactory(), ManualClock()
    reported: list[ButtonPress] = []
    b = RefereeBox([5], reported.append, clock=t, pin_factory=f)
    pin = f.pin(5)
    for gaps in bursts:
        pin.drive_low()
        closed = True
        for gap in gaps:
            t.advance(gap)
            (pin.drive_high if closed else pin.drive_low)()
            closed = not closed
        if closed:
            t.advance(0.1)
            pin.drive_high()
        t.advance(DEBOUNCE + 0.001)
    assert [p for p in reported if not p.held] == [press(0)] * len(bursts)
    b.close()


# -- configuration -----------------------------------------------------------------------------


@pytest.mark.parametrize(("table", "message"), [
    ({"pins": [5], "pullup": True}, r"^referee_box\[0\]\.pullup: unknown key \(a referee box takes: pins"),
    ({}, r"^referee_box\[0\]\.pins: required"),
    ({"pins": []}, r"\.pins: lists no pin"),
    ({"pins": "5,6"}, r"\.pins: must be a list"),
    ({"pins": [5, 5]}, r"\.pins\[1\]: pin 5 is listed twice"),
    ({"pins": [5, -1]}, r"\.pins\[1\]: must be a GPIO number"),
    ({"pins": [5, True]}, r"\.pins\[1\]: must be a GPIO number"),
    ({"pins": [5], "pull_up": "yes"}, r"\.pull_up: must be true or false"),
    ({"pins": [5], "debounce": 0}, r"\.debounce: must be a number of seconds above 0"),
    ({"pins": [5], "debounce": 0.5, "hold_time": 0.4}, r"\.hold_time: must be longer than debounce"),
])
def test_a_bad_box_configuration_names_the_key(table: dict[str, Any], message: str) -> None:
    with pytest.raises(BoxConfigError, match=message):
        parse_boxes([table])


def test_box_configuration() -> None:
    (one,) = parse_boxes({"pins": [5, "GPIO6"], "hold_time": 1})
    assert one == BoxConfig(pins=(5, "GPIO6"), hold_time=1)
    with pytest.raises(BoxConfigError, match=r"^referee_box\[1\]\.pins\[0\]: pin 6 is also a pin of referee_box\[0\]"):
        parse_boxes([{"pins": [5, 6]}, {"pins": [6]}])
    with pytest.raises(BoxConfigError, match="list one or two referee boxes"):
        parse_boxes([])
    assert issubclass(BoxConfigError, ValueError)


def test_a_box_checks_its_options(factory: MockFactory, time: ManualClock) -> None:
    with pytest.raises(BoxConfigError, match=r"^referee_box\[0\]\.debounce: "):
        RefereeBox([5], print, clock=time, pin_factory=factory, debounce=-1)
    with pytest.raises(ValueError, match="must be longer than debounce"):
        ButtonContact(time, print, lambda: False, debounce=0.1, hold_time=0.1)


# -- the clocks -------------------------------------------------------------------------------


def test_manual_clock_runs_callbacks_in_time_order_and_never_goes_back() -> None:
    t = ManualClock()
    seen: list[tuple[str, float]] = []
    t.call_at(2.0, lambda: seen.append(("b", t.now())))
    t.call_at(1.0, lambda: seen.append(("a", t.now())))
    cancelled = t.call_at(1.5, lambda: seen.append(("x", t.now())))
    cancelled.cancel()
    t.advance(3.0)
    assert seen == [("a", 1.0), ("b", 2.0)]
    with pytest.raises(ValueError):
        t.advance(-1)


def test_monotonic_clock_runs_callbacks_on_its_thread() -> None:
    real = MonotonicClock()
    done = threading.Event()
    order: list[str] = []
    try:
        skipped = real.call_at(real.now() + 0.01, lambda: order.append("cancelled"))
        skipped.cancel()
        real.call_at(real.now() + 0.02, lambda: order.append("second"))
        real.call_at(real.now() + 0.02, done.set)
        real.call_at(real.now(), lambda: order.append("first"))
        assert done.wait(30), "the clock thread did not run the callbacks"
        assert order == ["first", "second"]
    finally:
        real.close()
    with pytest.raises(RuntimeError):
        real.call_at(0, print)


def test_a_failing_callback_does_not_stop_the_clock() -> None:
    real = MonotonicClock()
    done = threading.Event()

    def fail() -> None:
        raise RuntimeError("boom")

    try:
        real.call_at(real.now(), fail)
        real.call_at(real.now(), done.set)
        assert done.wait(30)
    finally:
        real.close()


@pytest.mark.parametrize("module", [buttons, clock, debounce, keys])
def test_docstring_examples(module: Any) -> None:
    assert doctest.testmod(module).failed == 0


def test_defaults() -> None:
    assert 0 < DEBOUNCE < HOLD_TIME
