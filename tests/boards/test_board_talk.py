"""The conversation bar on a board: a call being keyed in, a lapsed call, a refused key's reason.

Boards run on luma's ``dummy`` device (it keeps the last image) and time is a
:class:`ManualClock` (the board schedules its own ticks on it), or is passed in as the
daemon's loop passes it; nothing here depends on the speed of the machine. What each
picture should be is what :func:`render` draws (the golden sheets pin those down).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops

from cueboard.boards import SIZES, Board, Renderer, render
from cueboard.boards.bar import READ_SECONDS, READ_SPEED, REASON_MAX, Talk
from cueboard.boards.fonts import NORMAL
from cueboard.cli import main
from cueboard.contract.notices import Prompt
from cueboard.hw.clock import ManualClock
from cueboard.hw.display_config import parse_display
from cueboard.table.devices import open_board
from tests.helpers.boards import GOLDEN_STATES, golden_state, shown, simple_state

STATES = GOLDEN_STATES
BREAK_JSON = golden_state("snooker", "break")
BREAK = shown(BREAK_JSON)
SIMPLE = shown(simple_state())
"""Nothing moves on it: one digit a score, short names, no pages."""
PANEL = 64 - NORMAL.width("1") - 3
"""The bar's width on a 64x16 board showing SIMPLE: all but the scores and the rule before them."""
CALL = Prompt("keypad", ("FOUL",), "4 to 7")
"""Fits the bar: nothing moves."""
LONG_CALL = Prompt("referee_box:0", ("FOUL", "MISS"), "the ball that sets the penalty (4 to 7)")
SHORT = "not now"
LONG = "red is on: potting the pink is a foul, enter a foul (Section 3 Rule 10(b)(iii))"
STEP = 1 / READ_SPEED


def dummy_board(clock: ManualClock | None = None, **table: Any) -> Board:
    config = parse_display({"device": "dummy", "width": 64, "height": 16, "mode": "1", **table})
    return open_board(config, time_source=clock)


def picture(board: Board) -> bytes:
    return bytes(board.device.image.tobytes())


def drawn(state: Any = SIMPLE, **kwargs: Any) -> bytes:
    return bytes(render(state, 64, 16, mode="1", **kwargs).tobytes())


# -- a call being keyed in -----------------------------------------------------------------


def test_a_call_is_drawn_while_it_is_pending_and_none_takes_it_away() -> None:
    clock = ManualClock()
    board = dummy_board(clock)
    board.show(SIMPLE)
    board.prompt(CALL)
    assert picture(board) == drawn(prompt=CALL) != drawn()
    assert board.next_deadline() is None and clock.pending == 0  # a still call: no wake-ups
    clock.advance(60)
    assert picture(board) == drawn(prompt=CALL)  # the board never drops a call: the keymap does
    board.prompt(None)
    assert picture(board) == drawn()
    assert board.next_deadline() is None


def test_a_call_that_does_not_fit_scrolls_and_says_when_it_moves() -> None:
    clock = ManualClock()
    board = dummy_board(clock)
    board.show(SIMPLE)
    board.prompt(LONG_CALL)
    # Still for a second, then a pixel every 1/READ_SPEED s.
    assert board.next_deadline() == pytest.approx(1 + STEP)
    clock.advance_to(1.3)
    assert picture(board) == drawn(prompt=LONG_CALL, at=1.3) != drawn(prompt=LONG_CALL)
    assert board.next_deadline() == pytest.approx(1 + 7 * STEP)
    board.prompt(LONG_CALL)  # the same call again: it goes on where it was
    assert picture(board) == drawn(prompt=LONG_CALL, at=1.3)
    board.prompt(None)
    assert picture(board) == drawn() and board.next_deadline() is None and clock.pending == 0


def test_a_call_of_no_keys_is_no_call() -> None:
    clock = ManualClock()
    board = dummy_board(clock)
    board.show(SIMPLE)
    board.prompt(Prompt("keypad", ()))
    assert picture(board) == drawn()


# -- a refused key's reason ----------------------------------------------------------------


def test_the_reason_stays_three_seconds_after_the_blink_then_the_state_returns() -> None:
    clock = ManualClock()
    board = dummy_board(clock)
    board.show(SIMPLE)
    board.flash(reason=SHORT)
    reason = drawn(refusal=SHORT)
    inverted = ImageChops.invert(render(SIMPLE, 64, 16, mode="1", refusal=SHORT).convert("L")).convert("1")
    assert picture(board) == inverted.tobytes()  # the blink stays, over the reason
    clock.advance_to(0.5)
    assert picture(board) == reason != drawn()
    assert board.next_deadline() == READ_SECONDS  # the reason fits: nothing moves until it goes
    clock.advance_to(READ_SECONDS - 0.001)
    assert picture(board) == reason
    clock.advance_to(READ_SECONDS)
    assert picture(board) == drawn()
    assert board.next_deadline() is None and clock.pending == 0


def test_a_long_reason_stays_for_one_whole_pass_of_its_marquee() -> None:
    clock = ManualClock()
    board = dummy_board(clock)
    board.show(SIMPLE)
    board.flash(reason=LONG)
    # One second still, the scroll at READ_SPEED, one second still at the end.
    end = 2 + (NORMAL.width(LONG) - PANEL) * STEP
    assert end > READ_SECONDS
    assert board.renderer.message_until == pytest.approx(end)
    clock.advance_to(0.5)
    assert board.next_deadline() == pytest.approx(1 + STEP)
    clock.advance_to(end - 0.5)  # at the end of the text, holding it
    assert picture(board) == drawn(refusal=LONG, at=end - 0.5) != drawn(refusal=LONG)
    assert board.next_deadline() == pytest.approx(end)
    clock.advance_to(end)
    assert picture(board) == drawn() and clock.pending == 0


def test_a_new_refusal_starts_the_time_again() -> None:
    clock = ManualClock()
    board = dummy_board(clock)
    board.show(SIMPLE)
    board.flash(reason=SHORT)
    clock.advance_to(2.0)
    board.flash(reason=SHORT)
    clock.advance_to(2.0 + READ_SECONDS - 0.1)  # the first would have gone a second ago
    assert picture(board) == drawn(refusal=SHORT)
    clock.advance_to(2.0 + READ_SECONDS)
    assert picture(board) == drawn()


def test_a_new_refusal_scrolls_from_its_beginning() -> None:
    clock = ManualClock()
    board = dummy_board(clock)
    board.show(SIMPLE)
    board.flash(reason=LONG)
    clock.advance_to(5.0)
    board.flash(reason=LONG)
    clock.advance_to(5.5)
    assert picture(board) == drawn(refusal=LONG, at=0.5)


def test_a_flash_without_a_reason_only_blinks() -> None:
    clock = ManualClock()
    board = dummy_board(clock)
    board.show(SIMPLE)
    board.flash()
    clock.advance_to(0.5)
    assert picture(board) == drawn() and board.next_deadline() is None


def test_the_next_state_ends_the_reason() -> None:
    """The next key taken (a new state) ends a refusal still showing: it was about a table that
    is gone, and the score is what the referee looks for then (issue 24)."""
    clock = ManualClock()
    board = dummy_board(clock)
    board.show(SIMPLE)
    board.flash(reason=SHORT)
    clock.advance_to(1.0)
    board.show(SIMPLE)  # the same state again (the shot clock's ticks): the reason stays
    assert picture(board) == drawn(refusal=SHORT)
    scored = shown(simple_state(5, 2))
    board.show(scored)
    assert picture(board) == drawn(scored) and board.next_deadline() is None


def test_the_same_call_again_keeps_the_reason_and_a_call_begun_anew_ends_it() -> None:
    clock = ManualClock()
    board = dummy_board(clock)
    board.show(SIMPLE)
    board.prompt(CALL)
    clock.advance_to(1.0)
    board.flash(reason=SHORT)  # REDO with a call pending, say: the call stays as it was
    clock.advance_to(1.5)
    board.prompt(CALL)         # the daemon telling the board the call again changes nothing
    assert picture(board) == drawn(refusal=SHORT)
    board.prompt(None)
    assert picture(board) == drawn(refusal=SHORT)
    board.prompt(CALL)  # None then the call again: a call begun anew, the table moved on
    assert picture(board) == drawn(prompt=CALL)


def test_a_refusal_over_a_call_then_the_call_again() -> None:
    clock = ManualClock()
    board = dummy_board(clock)
    board.show(SIMPLE)
    board.prompt(CALL)
    board.flash(reason=SHORT)
    board.prompt(CALL)
    clock.advance_to(0.5)
    assert picture(board) == drawn(prompt=CALL, refusal=SHORT) == drawn(refusal=SHORT)
    clock.advance_to(READ_SECONDS)
    assert picture(board) == drawn(prompt=CALL)


def test_a_new_call_ends_the_reason_and_none_does_not() -> None:
    clock = ManualClock()
    board = dummy_board(clock)
    board.show(SIMPLE)
    board.prompt(CALL)
    board.flash(reason=LONG)  # an engine refusal: the call was finished and refused ...
    board.prompt(None)        # ... so it is no longer pending: the reason stays
    clock.advance_to(1.0)
    assert picture(board) == drawn(refusal=LONG, at=1.0)
    board.prompt(LONG_CALL)   # the referee keys the next call
    assert picture(board) == drawn(prompt=LONG_CALL)
    assert board.renderer.message is None


# -- a lapsed call -------------------------------------------------------------------------


def test_a_lapsed_call_says_so_then_the_state_returns() -> None:
    clock = ManualClock()
    board = dummy_board(clock)
    board.show(SIMPLE)
    board.prompt(CALL)
    lapsed = Prompt("keypad", ("FOUL",), lapsed=True)
    clock.advance_to(15.0)
    board.prompt(lapsed)
    assert picture(board) == drawn(prompt=lapsed) not in (drawn(), drawn(prompt=CALL))
    board.prompt(None)  # the daemon saying no call is pending: the note runs its time
    assert board.next_deadline() == 15.0 + READ_SECONDS
    clock.advance_to(15.0 + READ_SECONDS)
    assert picture(board) == drawn() and board.next_deadline() is None and clock.pending == 0


def test_a_new_call_replaces_a_lapsed_one() -> None:
    clock = ManualClock()
    board = dummy_board(clock)
    board.show(SIMPLE)
    board.prompt(Prompt("keypad", ("FOUL",), lapsed=True))
    clock.advance_to(1.0)
    board.prompt(LONG_CALL)
    assert picture(board) == drawn(prompt=LONG_CALL)


# -- the daemon's loop: time passed in, no clock of the board's own --------------------------


def test_the_loop_ticks_at_the_deadlines_the_board_gives() -> None:
    board = dummy_board()
    board.show(SIMPLE, now=100.0)
    board.flash(now=100.0, reason=SHORT)
    deadlines = []
    now = 100.0
    while (due := board.next_deadline(now)) is not None:
        deadlines.append(round(due - 100.0, 6))
        now = due
        board.tick(now)
    assert deadlines == [0.15, 0.25, 0.4, READ_SECONDS]  # the blinks, then the reason's end
    assert picture(board) == drawn()


def test_a_deadline_passed_is_due_at_once() -> None:
    board = dummy_board()
    board.show(SIMPLE, now=0.0)
    board.flash(now=0.0, reason=SHORT)
    board.tick(0.5)
    assert board.next_deadline(10.0) == READ_SECONDS  # late: the daemon ticks at once
    board.tick(10.0)
    assert picture(board) == drawn() and board.next_deadline(10.0) is None


# -- robustness ------------------------------------------------------------------------------


def test_a_bar_that_cannot_be_drawn_still_blinks(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = ManualClock()
    board = dummy_board(clock)
    board.show(SIMPLE)

    def broken(*args: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(board.renderer, "refuse", broken)
    monkeypatch.setattr(board.renderer, "prompt", broken)
    board.flash(reason=SHORT)
    assert picture(board) != drawn()  # blinking
    board.prompt(CALL)
    clock.advance_to(1.0)
    assert picture(board) == drawn() and board.health == "ok"


def test_a_reason_before_any_match_is_drawn_on_a_blank_board() -> None:
    clock = ManualClock()
    board = dummy_board(clock)
    board.flash(reason=SHORT)
    clock.advance_to(0.5)
    assert picture(board) == drawn(None, refusal=SHORT) != drawn(None)
    clock.advance_to(READ_SECONDS)
    assert picture(board) == drawn(None)


def test_a_device_of_another_size_shows_the_call_and_the_reason() -> None:
    renderer = Renderer(64, 16, "1")
    renderer.update(SIMPLE, None, 0.0)
    renderer.prompt(CALL, 0.0)
    renderer.refuse(SHORT, 1.0)
    other = renderer.resized(128, 32, "RGB", 2.0)
    assert other.call == CALL and other.message == Talk("refused", ("REFUSED",), text=SHORT)
    assert other.message_until == renderer.message_until == 1.0 + READ_SECONDS
    assert other.expire(1.0 + READ_SECONDS) and other.call == CALL and other.message is None


def test_a_reason_is_one_line_and_an_endless_one_is_cut() -> None:
    assert Talk("refused", text="two\nlines  here").tail == "two lines here"
    tail = Talk("refused", text="x" * 1000).tail
    assert len(tail) == REASON_MAX and tail.endswith("...")
    assert Talk("lapsed").head == "CALL" and Talk("call", (" FOUL ", "MISS")).head == "FOUL MISS"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(keys=st.lists(st.text(max_size=20), max_size=6), needs=st.text(max_size=120), lapsed=st.booleans(),
       reason=st.none() | st.text(max_size=300), size=st.sampled_from([*SIZES, (8, 5), (16, 8), (24, 16), (256, 64)]),
       mode=st.sampled_from(["1", "RGB"]), game=st.sampled_from(["snooker", "blackball"]),
       at=st.floats(0, 1000))
def test_any_call_or_reason_draws_on_any_board(keys: list[str], needs: str, lapsed: bool, reason: str | None,
                                               size: tuple[int, int], mode: str, game: str, at: float) -> None:
    state = next(c for c in STATES[game] if c.get("clock") is not None)
    prompt = Prompt("keypad", tuple(keys), needs, lapsed)
    image = render(shown(state["state"]), *size, mode=mode, clock=state["clock"], at=at, prompt=prompt, refusal=reason)
    assert image.size == size
    renderer = Renderer(*size, mode)
    renderer.update(shown(state["state"]), state["clock"], 0.0)
    renderer.prompt(prompt, 0.0)
    if reason is not None:
        renderer.refuse(reason, 0.0)
    renderer.expire(at)
    when = renderer.next_change(at)
    assert when is None or when > at


# -- cueboard render ---------------------------------------------------------------------------


def test_render_draws_a_call_and_a_refusal(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text(json.dumps(BREAK_JSON))
    out = tmp_path / "board.png"
    assert main(["render", str(state), "--layout", "128x32", "--pixels", "--scale", "1", "--out", str(out),
                 "--prompt", "FOUL, MISS", "--needs", LONG_CALL.needs, "--at", "2"]) == 0
    with Image.open(out) as image:
        assert image.tobytes() == render(BREAK, 128, 32, prompt=LONG_CALL, at=2).tobytes()
    assert main(["render", str(state), "--layout", "32x8", "--mode", "1", "--pixels", "--scale", "1",
                 "--out", str(out), "--prompt", "FOUL", "--lapsed", "--refusal", LONG]) == 0
    with Image.open(out) as image:
        lit = image.convert("1").tobytes()
    assert lit == render(BREAK, 32, 8, mode="1", refusal=LONG).tobytes()


@pytest.mark.parametrize(("args", "says"), [
    (["--needs", "x"], "--needs and --lapsed go with --prompt"),
    (["--lapsed"], "--needs and --lapsed go with --prompt"),
    (["--prompt", "FOUL,,MISS"], "--prompt: the keys' legends, each named"),
    (["--refusal", " "], "--refusal: the reason the key was refused"),
])
def test_render_refuses_a_call_it_cannot_draw(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                                              says: str) -> None:
    state = tmp_path / "state.json"
    state.write_text(json.dumps(BREAK_JSON))
    out = tmp_path / "board.png"
    assert main(["render", str(state), "--out", str(out), *args]) == 1
    assert says in capsys.readouterr().err and not out.exists()
