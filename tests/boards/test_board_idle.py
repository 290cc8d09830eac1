"""The idle board (issue 38): a venue's table (``[table] start = "idle"``, as ``cueboard join``
writes it) waiting for its match shows the venue's name, the time and the match handed to it,
never a placeholder 0-0; a table on its own (the demo) shows its ``[match]`` default as before.

Golden pictures at 32x8, 64x16 and 128x32 (a strip a case: each page in turn), looked at; redraw
after a deliberate change with ``CUEBOARD_UPDATE_GOLDEN=1``."""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops

from cueboard.boards.board import Board
from cueboard.boards.idle import PAGE_SECONDS
from cueboard.boards.render import render
from cueboard.boards.scene import Pages, Text
from cueboard.boards.shown import Handed, Shown, Waiting
from cueboard.engine import Match
from cueboard.hw.clock import ManualClock
from cueboard.hw.display_config import parse_display
from cueboard.table.daemon import Table
from tests.helpers.daemon import StillOutput, table_config
from tests.table.test_daemon import Running

GOLDEN = Path(__file__).parents[1] / "golden" / "idle"
SIZES = [(32, 8, "1"), (64, 16, "1"), (64, 16, "RGB"), (128, 32, "RGB")]
PLACEHOLDER = Match.from_json({"type": "match", "game": "snooker", "sides": ["Player 1", "Player 2"]}).state()
CASES = {"waiting": Shown(PLACEHOLDER, waiting=Waiting("riley-hall")),
         "next": Shown(PLACEHOLDER, handed=Handed(("Ann Smith", "Bob Jones"), "Spring Cup"),
                       waiting=Waiting("riley-hall"))}


def strip(shown: Shown, width: int, height: int, mode: str) -> Image.Image:
    """Each page of the idle board in turn, side by side (one picture where nothing turns)."""
    times = [0.0, PAGE_SECONDS + 0.1, 2 * PAGE_SECONDS + 0.2] if height < 32 else [0.0]
    frames = [render(shown, width, height, mode=mode, at=t, time_of_day="20:15").convert("RGB") for t in times]
    out = Image.new("RGB", (len(frames) * (width + 1) - 1, height), (40, 40, 40))
    for i, frame in enumerate(frames):
        out.paste(frame, (i * (width + 1), 0))
    return out


def same(a: Image.Image, b: Image.Image) -> bool:
    return a.size == b.size and ImageChops.difference(a.convert("RGB"), b.convert("RGB")).getbbox() is None


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize(("width", "height", "mode"), SIZES)
def test_the_idle_board_draws_its_golden_image(case: str, width: int, height: int, mode: str) -> None:
    drawn = strip(CASES[case], width, height, mode)
    placeholder = render(Shown(PLACEHOLDER), width, height, mode=mode)
    assert not same(drawn.crop((0, 0, width, height)), placeholder), "the idle board, not 0-0"
    golden = GOLDEN / f"{case}-{width}x{height}-{'mono' if mode == '1' else 'rgb'}.png"
    if os.environ.get("CUEBOARD_UPDATE_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        drawn.save(golden)
    assert same(drawn, Image.open(golden)), f"{golden.name} differs: look at it, then redraw"


def texts(items: Any) -> list[str]:
    out: list[str] = []
    for item in items:
        if isinstance(item, Pages):
            for page in item.pages:
                out += texts(page)
        elif isinstance(item, Text):
            out.append(item.text)
    return out


@pytest.mark.parametrize(("width", "height"), [(32, 8), (64, 16), (128, 32)])
def test_every_size_says_the_venue_the_time_and_the_next_match(width: int, height: int) -> None:
    from cueboard.boards.render import Renderer

    renderer = Renderer(width, height)
    renderer.time_of_day("20:15", 0.0)
    renderer.update(CASES["next"], None, 0.0)
    assert texts(renderer.scene) == ["20:15", "RILEY HALL", "NEXT: ANN SMITH V BOB JONES"] if height < 16 else (
        set(texts(renderer.scene)) == {"RILEY HALL", "20:15", "NEXT: ANN SMITH V BOB JONES"})
    # A desk's message goes over it in the bar, as on any board.
    renderer.update(Shown(PLACEHOLDER, message="Bar closes at 11", waiting=Waiting("riley-hall")), None, 1.0)
    assert "BAR CLOSES AT 11" in repr(renderer.scene)


class FakeDevice:
    """A luma-like device that keeps nothing: the board's renderer is what is looked at."""

    mode = "1"
    size = (64, 16)
    width, height = size

    def display(self, image: Image.Image) -> None:
        pass

    def cleanup(self) -> None:
        pass


def test_the_board_keeps_the_time_by_the_minute() -> None:
    clock = ManualClock()
    start = datetime(2026, 11, 28, 20, 14, 58)

    def wall() -> datetime:
        return start + timedelta(seconds=clock.now())

    config = parse_display({"device": "max7219", "width": 64, "height": 16})
    board = Board(config, time_source=clock, device_factory=lambda c: FakeDevice(), wall=wall)
    board.show(CASES["waiting"])
    assert "20:14" in texts(board.renderer.scene)
    deadline = board.next_deadline()
    assert deadline is not None and 2.0 <= deadline <= 2.01  # the minute's turn, not before
    clock.advance_to(deadline)  # the board's own timer
    assert "20:15" in texts(board.renderer.scene)
    # A match on: no idle board, no time kept.
    board.show(Shown(PLACEHOLDER))
    assert "20:15" not in texts(board.renderer.scene) and not board.renderer.waiting
    board.close()


class Recording(StillOutput):
    def __init__(self) -> None:
        self.shown: list[Shown] = []

    def show(self, shown: Shown, clock: float | None = None, now: float | None = None) -> bool:
        self.shown.append(shown)
        return True

    def flash(self, now: float | None = None, reason: str | None = None) -> None:
        pass


def test_a_venues_table_starts_idle_and_one_on_its_own_does_not(tmp_path: Path) -> None:
    board = Recording()
    config = table_config(tmp_path / "venue", table={"venue": "riley-hall", "name": "t1", "start": "idle"},
                          match={"game": "snooker"})
    table = Table(config, boards=[board])
    with Running(table) as running:
        assert board.shown[-1].waiting == Waiting("riley-hall")
        assert board.shown[-1].state.seq == 0  # idle by the contract: the desk sees it free
        # The published state says so too (docs/state.md `waiting`): the desk's row reads "free".
        assert table.topics.dress(board.shown[-1].state.to_json()).get("waiting") is True
        # A match begun with the desk's names: the board shows it, 0-0 and all.
        assert running.send({"type": "match", "game": "snooker", "sides": ["Ann", "Bob"]})["ok"]
        assert board.shown[-1].waiting is None and board.shown[-1].state.sides[0].name == "Ann"
        assert "waiting" not in table.topics.dress(board.shown[-1].state.to_json())
    # The same table after a restart with its default again: idle again; a stroke played on it: not.
    config2 = table_config(tmp_path / "again", table={"venue": "riley-hall", "name": "t1", "start": "idle"},
                           match={"game": "snooker"})
    board = Recording()
    with Running(Table(config2, boards=[board])) as running:
        assert board.shown[-1].waiting is not None
        assert running.send({"type": "pot", "balls": ["red"]})["ok"]
        assert board.shown[-1].waiting is None
    # A table on its own keeps its [match] default on show.
    board = Recording()
    with Running(Table(table_config(tmp_path / "own"), boards=[board])):
        assert board.shown[-1].waiting is None and board.shown[-1].state.sides[0].name == "Ann"


@pytest.mark.system  # node runs the desk's own module
def test_the_desk_counts_a_venues_table_free_as_it_starts(tmp_path: Path) -> None:
    """Issue 38, row 1: the state a venue's table publishes as it starts, given to the desk's
    ``freeTables`` (screen/desk/competition.js) as the table list holds it: free."""
    import json
    import shutil
    import subprocess

    node = shutil.which("node")
    assert node is not None, "node is needed (apt-get install nodejs)"
    board = Recording()
    config = table_config(tmp_path, table={"venue": "riley-hall", "name": "t1", "start": "idle"},
                          match={"game": "snooker"})
    with Running(Table(config, boards=[board])):
        state = board.shown[-1].state.to_json()
    module = Path(__file__).resolve().parents[2] / "screen" / "desk" / "competition.js"
    script = (f"import {{ freeTables }} from {json.dumps(module.as_uri())};\n"
              "const night = { schema: 1, id: 'n', name: 'n', kind: 'knockout', format: null, rounds: 1,\n"
              "  matches: [] };\n"
              f"const state = {json.dumps(state)};\n"
              "const tables = [{ name: 't1', status: 'online', next: null, state }];\n"
              "console.log(JSON.stringify(freeTables(night, tables)));\n")
    done = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == ["t1"]
