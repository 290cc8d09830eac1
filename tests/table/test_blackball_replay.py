"""``cueboard replay`` on blackball logs: the example match, ``--each``, a refused line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.system

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "blackball-match.jsonl"
MATCH = '{"type": "match", "game": "blackball", "sides": ["Ann", "Bob"]}\n'


def replay(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cueboard.cli", "replay", *args], input=stdin,
                          capture_output=True, text=True, encoding="utf-8", check=False)


def test_example_match() -> None:
    """Ann wins 2-1: Bob takes frame 1 on the black; Ann frame 2 with her last two yellows and
    the black together (rule 4j(b)); Bob pots the black too early in frame 3 (rule 7b)."""
    result = replay(str(EXAMPLE))
    assert result.returncode == 0, result.stderr
    state = json.loads(result.stdout)
    assert [side["frames"] for side in state["sides"]] == [2, 1]
    assert (state["frame"], state["frame_winner"]) == (3, 0)
    assert (state["match_over"], state["match_winner"]) == (True, 0)


def test_example_match_each() -> None:
    lines = EXAMPLE.read_text().splitlines()
    result = replay("--each", str(EXAMPLE))
    assert result.returncode == 0, result.stderr
    states = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(states) == len(lines) - 1
    # Line 6: Bob's foul gives Ann a free shot followed by a visit (rule 6a) ...
    assert (states[4]["player"], states[4]["visits"], states[4]["free_shot"]) == ("Ann", 2, True)
    # ... line 7: her free shot pots one of Bob's reds, no foul (rule 6b(a)); her second visit.
    assert (states[5]["player"], states[5]["visits"], states[5]["free_shot"]) == ("Ann", 1, False)
    # Line 19: after Bob's invalid break Ann has the balls re-racked and breaks (rule 4b(b)).
    assert (states[16]["breaker"], states[16]["player"], states[16]["break_shot"]) == (1, "Ann", False)
    assert (states[17]["breaker"], states[17]["player"], states[17]["break_shot"]) == (0, "Ann", True)


def test_refused_line_names_the_rule() -> None:
    log = MATCH + "".join(line + "\n" for line in (
        '{"type": "no_pot"}', '{"type": "pot", "balls": ["yellow"]}', '{"type": "pot", "balls": ["red"]}'))
    result = replay(stdin=log)
    assert result.returncode == 2
    assert result.stderr == "line 4: red is not your group: enter a foul (rule 5c)\n"
    assert result.stdout == ""
