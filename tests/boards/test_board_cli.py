"""``cueboard render``: a state, a log or standard input to a PNG of the board."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from cueboard.boards import render
from cueboard.cli import main
from cueboard.tools.render import RenderError, read_state
from tests.helpers.boards import golden_state, shown

ROOT = Path(__file__).parents[2]
BREAK = golden_state("snooker", "break")


def test_a_state_file_to_a_picture_of_leds(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text(json.dumps(BREAK))
    out = tmp_path / "board.png"
    assert main(["render", str(state), "--layout", "64x16", "--out", str(out)]) == 0
    with Image.open(out) as image:
        assert image.size == (64 * 8, 16 * 8)


def test_pixels_one_an_led_are_what_the_board_shows(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text(json.dumps(BREAK))
    out = tmp_path / "board.png"
    assert main(["render", str(state), "--layout", "32x8", "--mode", "1", "--pixels", "--scale", "1",
                 "--out", str(out)]) == 0
    with Image.open(out) as image:
        lit = image.convert("1").tobytes()
    assert lit == render(shown(BREAK), 32, 8, mode="1").tobytes()


def test_an_event_log_is_replayed_and_its_last_state_drawn() -> None:
    log = (ROOT / "examples" / "blackball-match.jsonl").read_bytes()
    state = read_state(log, "log").state
    assert state.game == "blackball" and state.match_over


def test_a_running_tables_journal_is_drawn_as_it_stands(tmp_path: Path) -> None:
    """A live journal file has its space preallocated with zeros after the lines (cueboard.table.journal):
    ``cueboard render`` of it draws the match so far; a last line torn into the zeros is refused."""
    from cueboard.table.journal import Journal

    journal = Journal(tmp_path)
    journal.start({"type": "match", "game": "snooker", "sides": ["Ann", "Bob"]})
    for balls in (["red"], ["pink"]):
        journal.append({"type": "pot", "balls": balls})
    path = next(tmp_path.glob("match-*.jsonl"))
    data = path.read_bytes()
    assert data.endswith(b"\0"), "the journal preallocates (else this test tests nothing)"
    state = read_state(data, str(path)).state
    assert state.sides[0].score == 7 and state.seq == 2
    torn = data[:data.index(b"\0")] + b'{"type":"po' + b"\0" * 8
    with pytest.raises(RenderError, match="last line is torn"):
        read_state(torn, str(path))


def test_the_last_of_json_lines_is_the_state() -> None:
    lines = json.dumps({**BREAK, "seq": 1}) + "\n" + json.dumps({**BREAK, "seq": 2}) + "\n"
    assert read_state(lines.encode()).state.seq == 2


def test_a_state_that_does_not_fit_is_refused_naming_the_file_and_the_field(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state, out = tmp_path / "state.json", tmp_path / "out.png"
    state.write_text(json.dumps({**BREAK, "sides": [BREAK["sides"][0], {**BREAK["sides"][1], "score": -4}]}))
    assert main(["render", str(state), "--out", str(out)]) == 1
    assert capsys.readouterr().err == (f"cueboard render: {state}: state: sides[1].score must be a whole number "
                                       "of 0 or more, not -4\n")
    assert not out.exists()  # nothing drawn
    older = {k: v for k, v in BREAK.items() if k != "missed_by"}  # a state from before missed_by: drawn
    state.write_text(json.dumps(older))
    assert main(["render", str(state), "--out", str(out)]) == 0 and out.exists()


@pytest.mark.parametrize("data", [b"", b"[1, 2]", b"not json", b"\xff\xfe"])
def test_what_is_not_a_state_is_refused(data: bytes) -> None:
    with pytest.raises(RenderError):
        read_state(data)


def test_a_bad_layout_or_file_is_an_error_message_not_a_traceback(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", str(tmp_path / "missing.json"), "--out", str(tmp_path / "x.png")]) == 1
    state = tmp_path / "state.json"
    state.write_text(json.dumps(BREAK))
    assert main(["render", str(state), "--layout", "big", "--out", str(tmp_path / "x.png")]) == 1
    err = capsys.readouterr().err
    assert "cannot read" in err and "WIDTHxHEIGHT" in err


@pytest.mark.system  # a cueboard subprocess
def test_standard_input_and_a_size_without_a_layout_of_its_own(tmp_path: Path) -> None:
    out = tmp_path / "board.png"
    result = subprocess.run([sys.executable, "-m", "cueboard.cli", "render", "-", "--layout", "48x8",
                             "--game", "snooker", "--out", str(out)], input=json.dumps(BREAK).encode(),
                            capture_output=True, check=False)
    assert result.returncode == 0, result.stderr
    with Image.open(out) as image:
        assert image.size == (48 * 8, 8 * 8)
