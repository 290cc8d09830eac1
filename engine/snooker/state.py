"""A snooker match's state as the boards show it (``docs/state.md``): values never changed once built."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from ..errors import IllegalEvent
from ..json_value import Fields, JsonObject
from ..value import value

BALLS_ON = ("red", "colour", "yellow", "green", "brown", "blue", "pink", "black")
"""What ``ball_on`` may be (``colour``: any colour, after a red)."""
COLOURS = BALLS_ON[2:]


@value()
class SnookersRequired:
    """``side`` needs ``count`` snookers of ``each`` points to draw level (``count`` None:
    with only the black left no snooker can help)."""

    side: int
    count: int | None
    each: int | None

    def to_json(self) -> JsonObject:
        return {"side": self.side, "count": self.count, "each": self.each}

    @classmethod
    def from_json(cls, f: Fields) -> SnookersRequired:
        count = f.positive_or_none("count")
        each = f.count("each", 7)
        if each < 4:
            raise f.wrong("each", "a penalty from 4 to 7", each)
        return cls(f.side("side"), count, each)


@value()
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

    @classmethod
    def from_json(cls, f: Fields) -> SnookerSide:
        return cls(f.text("name"), f.texts("players", least=1), f.count("score"), f.count("frames"),
                   f.count("high_break"), f.count("total"))


@value(kw_only=True)
class SnookerState:
    """The fields of ``state.md`` for snooker; ``brk`` is its ``break``. Declared once: a
    slotted dataclass that mypy holds frozen (:func:`~..value.value`, why not
    ``frozen=True``)."""

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

    @classmethod
    def from_json(cls, obj: object) -> SnookerState:
        """The state of a JSON object of ``state.md``, checked field by field:
        :class:`~..errors.IllegalEvent` naming the first field that does not fit. Fields it does
        not know are left alone (the contract may add some). A state without ``missed_by``
        (older than it) has the striker's misses, as such a state was drawn."""
        f = Fields(obj)
        if f.get("schema") != cls.schema or f.get("game") != cls.game:
            raise IllegalEvent(f"state: a snooker state of schema {cls.schema}, not game {f.get('game')!r} "
                               f"schema {f.get('schema')!r}", short="invalid")
        side0, side1 = f.pair("sides")
        striker, misses = f.side_or_none("striker"), f.count("misses")
        required = f.object_or_none("snookers_required")
        return cls(
            seq=f.count("seq"), sides=(SnookerSide.from_json(side0), SnookerSide.from_json(side1)),
            frame=f.positive("frame"), best_of=f.positive("best_of"), race_to=f.positive_or_none("race_to"),
            aggregate=f.flag("aggregate"), breaker=f.side("breaker"), striker=striker,
            player=f.text_or_none("player"), brk=f.count("break"), reds=f.count("reds", 15),
            colours=f.words("colours", COLOURS), ball_on=f.word_or_none("ball_on", BALLS_ON),
            free_ball=f.flag("free_ball"), misses=misses,
            missed_by=f.side_or_none("missed_by") if f.has("missed_by") else striker if misses else None,
            remaining=f.count("remaining"),
            snookers_required=None if required is None else SnookersRequired.from_json(required),
            respotted_black=f.flag("respotted_black"), frame_over=f.flag("frame_over"),
            frame_winner=f.side_or_none("frame_winner"), match_over=f.flag("match_over"),
            match_winner=f.side_or_none("match_winner"), order=f.texts("order"),
            shot_clock=f.seconds_or_none("shot_clock"),
        )


def new_state(seq: int, sides: tuple[SnookerSide, SnookerSide], frame: int, best_of: int, race_to: int | None,
              aggregate: bool, breaker: int, striker: int | None, player: str | None, brk: int, reds: int,
              colours: tuple[str, ...], ball_on: str | None, free_ball: bool, misses: int,
              missed_by: int | None, remaining: int, snookers_required: SnookersRequired | None,
              respotted_black: bool, frame_over: bool, frame_winner: int | None, match_over: bool,
              match_winner: int | None, order: tuple[str, ...], shot_clock: float | None) -> SnookerState:
    """A new state, its fields in their order, built as ``SnookerState(...)`` would build it: the
    rules build one after every event. Positional, and each field one slot store: the dataclass's
    keyword-only ``__init__`` matches 25 keywords by name on every call, some 13,700 instructions
    an event on CPython 3.11 (``bench/engine_instructions.py``; docs/performance.md, issue 36).
    ``Any``: mypy holds the fields frozen, and this is where they are set, once.
    ``tests/engine/test_engine_speed_positions.py`` checks it takes every field, in order."""
    s: Any = object.__new__(SnookerState)
    s.seq = seq
    s.sides = sides
    s.frame = frame
    s.best_of = best_of
    s.race_to = race_to
    s.aggregate = aggregate
    s.breaker = breaker
    s.striker = striker
    s.player = player
    s.brk = brk
    s.reds = reds
    s.colours = colours
    s.ball_on = ball_on
    s.free_ball = free_ball
    s.misses = misses
    s.missed_by = missed_by
    s.remaining = remaining
    s.snookers_required = snookers_required
    s.respotted_black = respotted_black
    s.frame_over = frame_over
    s.frame_winner = frame_winner
    s.match_over = match_over
    s.match_winner = match_winner
    s.order = order
    s.shot_clock = shot_clock
    state: SnookerState = s
    return state
