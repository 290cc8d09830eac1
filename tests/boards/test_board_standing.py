"""The bar while nothing else is said: the desk's message while it stands, and the match handed
on (``next``) while the table is idle, in the board's words (docs/mqtt.md: ``next``,
``message``). Golden pictures, looked at; redraw after a deliberate change with
``CUEBOARD_UPDATE_GOLDEN=1``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops

from cueboard.boards.render import render
from cueboard.engine import Match
from tests.helpers.boards import shown

GOLDEN = Path(__file__).parents[1] / "golden" / "standing"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "snooker-match.jsonl"
NEXT = {"fixture": "KO-1", "competition": "Spring Cup", "names": ["Ann Smith", "Bob Jones"]}
MESSAGE = {"text": "Table 3: your match starts in 5 minutes", "until": None}
SIZES = [(128, 64, "RGB"), (128, 32, "RGB"), (64, 16, "RGB"), (32, 8, "1")]


def states() -> tuple[dict[str, Any], dict[str, Any]]:
    """The example match before its first stroke (idle) and after its tenth (live)."""
    lines = EXAMPLE.read_text().splitlines()
    match = Match.from_json(json.loads(lines[0]))
    idle = match.state().to_json()  # as JSON, to add next or message as a state file has them
    for line in lines[1:11]:
        match.apply(match.parse_line(line))
    return idle, match.state().to_json()


def same(a: Image.Image, b: Image.Image) -> bool:
    return ImageChops.difference(a.convert("RGB"), b.convert("RGB")).getbbox() is None


@pytest.mark.parametrize(("kind", "extra"), [("next", {"next": NEXT}), ("message", {"message": MESSAGE})])
@pytest.mark.parametrize(("width", "height", "mode"), SIZES)
def test_the_bar_says_the_next_match_and_the_desks_message(kind: str, extra: dict[str, Any], width: int,
                                                          height: int, mode: str) -> None:
    idle, _ = states()
    drawn = render(shown(idle, **extra), width, height, mode=mode)
    assert not same(drawn, render(shown(idle), width, height, mode=mode)), "the bar is drawn"
    golden = GOLDEN / f"{kind}-{width}x{height}-{'mono' if mode == '1' else 'rgb'}.png"
    if os.environ.get("CUEBOARD_UPDATE_GOLDEN"):
        drawn.convert("RGB").save(golden)
    assert same(drawn, Image.open(golden)), f"{golden.name} differs: look at it, then redraw"


def test_the_next_match_waits_for_the_live_one_but_a_message_does_not() -> None:
    _, live = states()
    plain = render(shown(live), 128, 32)
    assert same(render(shown(live, next=NEXT), 128, 32), plain)  # a match on: the hand-off is not shown
    assert not same(render(shown(live, message=MESSAGE), 128, 32), plain)
    over = {**live, "match_over": True}
    assert not same(render(shown(over, next=NEXT), 128, 32), render(shown(over), 128, 32))
