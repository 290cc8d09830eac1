"""The state of ``state.md`` as the boards read it: every field checked, nothing trusted.

A board must draw whatever it is given: a state from a newer engine, a half-written one,
a hand-made one for ``cueboard render``. :func:`board_view` never raises: a field that is
missing or of the wrong type reads as "not shown" (``None``, ``False``, ``""``), so a
layout only ever deals with the types below.

>>> v = board_view({"game": "snooker", "sides": [{"name": "Ronnie", "score": 64}], "striker": 0})
>>> v.sides[0].name, v.sides[0].score, v.sides[1].name, v.striker
('Ronnie', 64, '', 0)
>>> board_view({"striker": True, "break": "24", "sides": "nonsense"}).striker is None
True
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["BoardView", "ShotClock", "SideView", "Snookers", "board_view", "shot_clock"]


@dataclass(frozen=True)
class SideView:
    name: str = ""
    players: tuple[str, ...] = ()
    score: int | None = None
    frames: int | None = None
    high_break: int | None = None
    group: str | None = None
    balls_left: int | None = None


@dataclass(frozen=True)
class Snookers:
    """``snookers_required``: ``side`` needs ``count`` snookers (``None``: none can help)."""

    side: int
    count: int | None
    each: int | None


@dataclass(frozen=True)
class BoardView:
    game: str
    sides: tuple[SideView, SideView]
    striker: int | None = None
    player: str | None = None
    frame: int | None = None
    best_of: int | None = None
    race_to: int | None = None
    frame_over: bool = False
    frame_winner: int | None = None
    match_over: bool = False
    match_winner: int | None = None
    # snooker
    break_: int | None = None
    ball_on: str | None = None
    free_ball: bool = False
    misses: int = 0
    missed_by: int | None = None
    """The side whose misses ``misses`` counts (the offender); the striker for a state without it."""
    remaining: int | None = None
    snookers: Snookers | None = None
    respotted_black: bool = False
    # blackball
    open_table: bool = False
    visits: int | None = None
    free_shot: bool = False
    black_on: bool = False
    break_shot: bool = False
    shot_clock: float | None = None
    shot_clock_call: float | None = None
    clock_held: bool = False
    """The referee holds the shot clock (rule 8a): the daemon's ``clock`` object says ``paused``."""

    @property
    def doubles(self) -> bool:
        return any(len(s.players) > 1 for s in self.sides)

    @property
    def has_scores(self) -> bool:
        """Points in the frame (snooker) rather than frames alone (blackball)."""
        return any(s.score is not None for s in self.sides)


@dataclass(frozen=True)
class ShotClock:
    """The shot clock as a board shows it: whole seconds left, whether the call is made, and
    whether the referee holds it (drawn plainly unlike a running clock)."""

    seconds: int
    called: bool
    held: bool = False


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return int(value)
    return None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _side_index(value: Any) -> int | None:
    n = _int(value)
    return n if n in (0, 1) else None


def _text(value: Any) -> str:
    text = value if isinstance(value, str) else "" if value is None else str(value)
    if text.isprintable():
        return text
    # Control and format characters never reach the text layout (raqm refuses some: a board
    # must never crash on a state, whatever it holds); the table's names rules refuse them first.
    return "".join(c for c in text if unicodedata.category(c)[0] != "C")


def _word(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _side(value: Any) -> SideView:
    if not isinstance(value, Mapping):
        return SideView(name=_text(value) if isinstance(value, str) else "")
    players = value.get("players")
    names = tuple(_text(p) for p in players) if isinstance(players, list | tuple) else ()
    name = _text(value.get("name"))
    if not name and names:
        name = " & ".join(names)
    return SideView(name=name, players=names, score=_int(value.get("score")),
                    frames=_int(value.get("frames")), high_break=_int(value.get("high_break")),
                    group=_word(value.get("group")), balls_left=_int(value.get("balls_left")))


def _snookers(value: Any) -> Snookers | None:
    if not isinstance(value, Mapping):
        return None
    side = _side_index(value.get("side"))
    if side is None:
        return None
    return Snookers(side, _int(value.get("count")), _int(value.get("each")))


def board_view(state: Any) -> BoardView:
    """The board's view of a state object; any input gives a view, never an exception."""
    if not isinstance(state, Mapping):
        state = {}
    raw_sides = state.get("sides")
    sides = [_side(s) for s in raw_sides[:2]] if isinstance(raw_sides, list | tuple) else []
    while len(sides) < 2:
        sides.append(SideView())
    game = state.get("game")
    return BoardView(
        game=game if isinstance(game, str) else "",
        sides=(sides[0], sides[1]),
        striker=_side_index(state.get("striker")),
        player=_word(state.get("player")),
        frame=_int(state.get("frame")),
        best_of=_int(state.get("best_of")),
        race_to=_int(state.get("race_to")),
        frame_over=state.get("frame_over") is True,
        frame_winner=_side_index(state.get("frame_winner")),
        match_over=state.get("match_over") is True,
        match_winner=_side_index(state.get("match_winner")),
        break_=_int(state.get("break")),
        ball_on=_word(state.get("ball_on")),
        free_ball=state.get("free_ball") is True,
        misses=max(0, _int(state.get("misses")) or 0),
        missed_by=_side_index(state.get("missed_by")) if "missed_by" in state else _side_index(state.get("striker")),
        remaining=_int(state.get("remaining")),
        snookers=_snookers(state.get("snookers_required")),
        respotted_black=state.get("respotted_black") is True,
        open_table=state.get("open_table") is True,
        visits=_int(state.get("visits")),
        free_shot=state.get("free_shot") is True,
        black_on=state.get("black_on") is True,
        break_shot=state.get("break_shot") is True,
        shot_clock=_number(state.get("shot_clock")),
        shot_clock_call=_number(state.get("shot_clock_call")),
        clock_held=isinstance(clock := state.get("clock"), Mapping) and clock.get("paused") is True,
    )


def shot_clock(view: BoardView, seconds_left: float | None) -> ShotClock | None:
    """What the board shows for ``seconds_left`` of the shot (``None``: no clock running).

    Whole seconds, rounded up, so the last second shows 1 and 0 only once time is up; the
    call (rule 8a: 30 s into a 60 s shot) is made once ``shot_clock_call`` seconds of a
    ``shot_clock``-second shot have gone.
    """
    left = _number(seconds_left)
    if left is None:
        return None
    left = max(0.0, left)
    whole = min(math.ceil(left), 999)
    length, call = view.shot_clock, view.shot_clock_call
    called = length is not None and call is not None and length - left >= call
    return ShotClock(whole, called, view.clock_held)
