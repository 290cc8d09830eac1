"""Helpers for the daemon's tests: a configuration in a temporary directory, and a scripted
match log to feed it."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from cueboard.engine import Match, to_json
from cueboard.table.config import Config, parse_config

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def table_config(tmp: Path, **sections: Any) -> Config:
    """A table's configuration with its journal and control socket under ``tmp``."""
    raw: dict[str, Any] = {
        "table": {"venue": "test-venue", "name": "t1"},
        "match": {"game": "snooker", "sides": ["Ann", "Bob"], "best_of": 3},
        "journal": {"dir": str(tmp / "journal")},
        "control": {"socket": str(tmp / "control.sock")},
    }
    raw.update(sections)
    return parse_config(raw, tmp / "cueboard.toml")


def scripted_events(count: int, seed: int = 7, setup: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """``count`` legal snooker events (no undo/redo) from the table's default match,
    chosen by the engine itself: the script a referee might have keyed in."""
    from cueboard.games.simulate import choose

    line = setup or {"type": "match", "game": "snooker", "sides": ["Ann", "Bob"], "best_of": 3}
    match = Match.from_json(line)
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    while len(out) < count and not match.state().to_json()["match_over"]:
        event = choose(match, rng, undo=False)
        assert event is not None
        match.apply(event)
        out.append(to_json(event))
    return out


class StillOutput:
    """The parts of a board (``cueboard.table.seams.Output``) that a recording stand-in has no use
    for: nothing moves by itself, nothing to close."""

    health = "ok"

    def tick(self, now: float | None = None) -> bool:
        return False

    def next_deadline(self, now: float | None = None) -> float | None:
        return None

    def close(self) -> None:
        pass

    def prompt(self, prompt: object, now: float | None = None) -> None:
        pass

    def notice(self, notice: object, now: float | None = None) -> None:
        pass
