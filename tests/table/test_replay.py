"""``cueboard replay`` as state.md specifies it: final state as one JSON line, ``--each``,
``line N: reason`` on standard error and exit status 2 on a rejected line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.system

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MATCH = '{"type": "match", "game": "snooker", "sides": ["Ronnie", "Judd"]}\n'


def replay(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cueboard.cli", "replay", *args], input=stdin,
                          capture_output=True, text=True, encoding="utf-8", check=False)


def test_final_state_is_one_json_line() -> None:
    result = replay(str(EXAMPLES / "snooker-frame.jsonl"))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    state = json.loads(lines[0])
    # The example frame ends on a re-spotted black that Ronnie pots (Section 3 Rule 4(b)).
    assert state["sides"][0]["score"] == 50 and state["sides"][1]["score"] == 43
    assert state["respotted_black"] and state["frame_winner"] == 0 and state["match_winner"] == 0


def test_each_prints_a_state_after_every_event() -> None:
    log = (EXAMPLES / "snooker-frame.jsonl").read_text().splitlines()
    result = replay("--each", str(EXAMPLES / "snooker-frame.jsonl"))
    assert result.returncode == 0
    states = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(states) == len(log) - 1
    assert [s["seq"] for s in states] == list(range(1, len(log)))


def test_standard_input_and_undo_lines() -> None:
    log = MATCH + '{"type": "pot", "balls": ["red"]}\n{"type": "undo"}\n{"type": "no_pot"}\n'
    result = replay(stdin=log)
    assert result.returncode == 0
    state = json.loads(result.stdout)
    assert state["seq"] == 1 and state["striker"] == 1 and state["sides"][0]["score"] == 0


@pytest.mark.parametrize(("log", "line", "reason"), [
    (MATCH + '{"type": "pot", "balls": ["pink"]}\n', 2, "red is on"),
    (MATCH + '{"type": "no_pot"}\n{"type": "foul", "points": 9}\n', 3, "4 to 7"),
    (MATCH + '{"type": "no_pot", "hard": true}\n', 2, "unknown field 'hard'"),
    (MATCH + "\n\n{not json\n", 4, "not JSON"),
    ('{"type": "match", "game": "pool", "sides": ["A", "B"]}\n', 1, "'game' must be one of"),
    ("", 1, "the log is empty"),
])
def test_rejected_line_names_line_and_reason(log: str, line: int, reason: str) -> None:
    result = replay(stdin=log)
    assert result.returncode == 2
    assert result.stderr.startswith(f"line {line}: ")
    assert reason in result.stderr
    assert result.stdout == ""


def test_each_prints_states_up_to_the_rejected_line() -> None:
    log = MATCH + '{"type": "pot", "balls": ["red"]}\n{"type": "pot", "balls": ["red"]}\n'
    result = replay("--each", stdin=log)
    assert result.returncode == 2
    assert len(result.stdout.splitlines()) == 1
    assert "line 3: a colour is on after a red" in result.stderr


def test_bytes_that_are_not_utf8_are_refused() -> None:
    result = subprocess.run([sys.executable, "-m", "cueboard.cli", "replay"],
                            input=MATCH.encode() + b"\xff\n", capture_output=True, check=False)
    assert result.returncode == 2
    assert result.stderr.startswith(b"line 2: not UTF-8")


def test_names_stay_utf8() -> None:
    log = '{"type": "match", "game": "snooker", "sides": ["Zhào Xīntóng", "Ding Junhui"]}\n'
    result = replay(stdin=log)
    assert json.loads(result.stdout)["sides"][0]["name"] == "Zhào Xīntóng"


def test_missing_file() -> None:
    result = replay("/nonexistent/log.jsonl")
    assert result.returncode == 1 and "cannot read" in result.stderr
