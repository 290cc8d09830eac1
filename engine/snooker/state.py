"""A snooker match's state as the boards show it (``docs/state.md``): frozen values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from ..json_value import JsonObject


@dataclass(frozen=True, slots=True)
class SnookersRequired:
    """``side`` needs ``count`` snookers of ``each`` points to draw level (``count`` None:
    with only the black left no snooker can help)."""

    side: int
    count: int | None
    each: int | None

    def to_json(self) -> JsonObject:
        return {"side": self.side, "count": self.count, "each": self.each}


@dataclass(frozen=True, slots=True)
class SnookerSide:
    name: str
    players: tuple[str, ...]
    score: int
    frames: int
    high_break: int
    total: int
    """Points over the match: the frames finished and this one (aggregate play)."""

    def to_json(self) -> JsonObject:
        return {"name": self.name, "players": list(self.players), "score": self.score,
                "frames": self.frames, "high_break": self.high_break, "total": self.total}


@dataclass(frozen=True, slots=True, kw_only=True)
class SnookerState:
    """The fields of ``state.md`` for snooker; ``brk`` is its ``break``."""

    game: ClassVar[Literal["snooker"]] = "snooker"
    schema: ClassVar[int] = 1
    """The version of the shape of ``state.md``."""
    seq: int
    sides: tuple[SnookerSide, SnookerSide]
    frame: int
    best_of: int
    race_to: int | None
    aggregate: bool
    breaker: int
    striker: int | None
    player: str | None
    brk: int
    reds: int
    colours: tuple[str, ...]
    ball_on: str | None
    free_ball: bool
    misses: int
    missed_by: int | None
    remaining: int
    snookers_required: SnookersRequired | None
    respotted_black: bool
    frame_over: bool
    frame_winner: int | None
    match_over: bool
    match_winner: int | None
    order: tuple[str, ...]
    shot_clock: float | None

    def to_json(self) -> JsonObject:
        """The JSON object of ``state.md``, its keys in that order."""
        sides = self.sides
        required = self.snookers_required
        return {
            "schema": self.schema, "game": self.game, "seq": self.seq,
            "sides": [sides[0].to_json(), sides[1].to_json()],
            "frame": self.frame, "best_of": self.best_of, "race_to": self.race_to,
            "aggregate": self.aggregate, "breaker": self.breaker, "striker": self.striker,
            "player": self.player, "break": self.brk, "reds": self.reds, "colours": list(self.colours),
            "ball_on": self.ball_on, "free_ball": self.free_ball, "misses": self.misses,
            "missed_by": self.missed_by, "remaining": self.remaining,
            "snookers_required": None if required is None else required.to_json(),
            "respotted_black": self.respotted_black, "frame_over": self.frame_over,
            "frame_winner": self.frame_winner, "match_over": self.match_over,
            "match_winner": self.match_winner, "order": list(self.order), "shot_clock": self.shot_clock,
        }
