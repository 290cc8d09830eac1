"""A blackball match's state as the boards show it (``docs/state.md``): values never changed once built."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from ..errors import IllegalEvent
from ..json_value import Fields, JsonObject
from ..value import value

GROUPS = ("red", "yellow")


@value()
class BlackballSide:
    name: str
    players: tuple[str, ...]
    frames: int
    group: str | None
    """``red`` or ``yellow`` once the table is no longer open (rule 4e); None while it is."""
    balls_left: int | None
    """Balls of its group on the table; None while the table is open."""

    def to_json(self) -> JsonObject:
        return {"name": self.name, "players": list(self.players), "frames": self.frames,
                "group": self.group, "balls_left": self.balls_left}

    @classmethod
    def from_json(cls, f: Fields) -> BlackballSide:
        return cls(f.text("name"), f.texts("players", least=1), f.count("frames"), f.word_or_none("group", GROUPS),
                   f.count_or_none("balls_left", 7))


@value()
class BlackballBalls:
    """Balls of each colour on the table."""

    red: int
    yellow: int
    black: int

    def to_json(self) -> JsonObject:
        return {"red": self.red, "yellow": self.yellow, "black": self.black}

    @classmethod
    def from_json(cls, f: Fields) -> BlackballBalls:
        return cls(f.count("red", 7), f.count("yellow", 7), f.count("black", 1))


@value(kw_only=True)
class BlackballState:
    """The fields of ``state.md`` for blackball. Declared once: a slotted dataclass that mypy
    holds frozen (:func:`~..value.value`, why not ``frozen=True``)."""

    game: ClassVar[Literal["blackball"]] = "blackball"
    schema: ClassVar[int] = 1
    """The version of the shape of ``state.md``."""
    seq: int
    sides: tuple[BlackballSide, BlackballSide]
    frame: int
    best_of: int
    race_to: int
    breaker: int
    striker: int | None
    player: str | None
    open_table: bool
    balls: BlackballBalls
    visits: int
    free_shot: bool
    black_on: bool
    break_shot: bool
    order: tuple[str, ...]
    shot_clock: float | None
    """Seconds the next shot may take (a whole number of seconds stays an int on the wire)."""
    shot_clock_call: float | None
    frame_over: bool
    frame_winner: int | None
    match_over: bool
    match_winner: int | None

    def to_json(self) -> JsonObject:
        """The JSON object of ``state.md``, its keys in that order."""
        sides = self.sides
        return {
            "schema": self.schema, "game": self.game, "seq": self.seq,
            "sides": [sides[0].to_json(), sides[1].to_json()],
            "frame": self.frame, "best_of": self.best_of, "race_to": self.race_to,
            "breaker": self.breaker, "striker": self.striker, "player": self.player,
            "open_table": self.open_table, "balls": self.balls.to_json(), "visits": self.visits,
            "free_shot": self.free_shot, "black_on": self.black_on, "break_shot": self.break_shot,
            "order": list(self.order), "shot_clock": self.shot_clock, "shot_clock_call": self.shot_clock_call,
            "frame_over": self.frame_over, "frame_winner": self.frame_winner,
            "match_over": self.match_over, "match_winner": self.match_winner,
        }

    @classmethod
    def from_json(cls, obj: object) -> BlackballState:
        """The state of a JSON object of ``state.md``, checked field by field:
        :class:`~..errors.IllegalEvent` naming the first field that does not fit. Fields it does
        not know are left alone (the contract may add some)."""
        f = Fields(obj)
        if f.get("schema") != cls.schema or f.get("game") != cls.game:
            raise IllegalEvent(f"state: a blackball state of schema {cls.schema}, not game {f.get('game')!r} "
                               f"schema {f.get('schema')!r}", short="invalid")
        side0, side1 = f.pair("sides")
        return cls(
            seq=f.count("seq"), sides=(BlackballSide.from_json(side0), BlackballSide.from_json(side1)),
            frame=f.positive("frame"), best_of=f.positive("best_of"), race_to=f.positive("race_to"),
            breaker=f.side("breaker"), striker=f.side_or_none("striker"), player=f.text_or_none("player"),
            open_table=f.flag("open_table"), balls=BlackballBalls.from_json(f.object("balls")),
            visits=f.count("visits", 2), free_shot=f.flag("free_shot"), black_on=f.flag("black_on"),
            break_shot=f.flag("break_shot"), order=f.texts("order"), shot_clock=f.seconds_or_none("shot_clock"),
            shot_clock_call=f.seconds_or_none("shot_clock_call", zero=True), frame_over=f.flag("frame_over"),
            frame_winner=f.side_or_none("frame_winner"), match_over=f.flag("match_over"),
            match_winner=f.side_or_none("match_winner"),
        )


def new_state(seq: int, sides: tuple[BlackballSide, BlackballSide], frame: int, best_of: int, race_to: int,
              breaker: int, striker: int | None, player: str | None, open_table: bool, balls: BlackballBalls,
              visits: int, free_shot: bool, black_on: bool, break_shot: bool, order: tuple[str, ...],
              shot_clock: float | None, shot_clock_call: float | None, frame_over: bool,
              frame_winner: int | None, match_over: bool, match_winner: int | None) -> BlackballState:
    """A new state, its fields in their order, built as ``BlackballState(...)`` would build it:
    positional, each field one slot store (why: snooker's ``new_state``). ``Any``: mypy holds the
    fields frozen, and this is where they are set, once."""
    s: Any = object.__new__(BlackballState)
    s.seq = seq
    s.sides = sides
    s.frame = frame
    s.best_of = best_of
    s.race_to = race_to
    s.breaker = breaker
    s.striker = striker
    s.player = player
    s.open_table = open_table
    s.balls = balls
    s.visits = visits
    s.free_shot = free_shot
    s.black_on = black_on
    s.break_shot = break_shot
    s.order = order
    s.shot_clock = shot_clock
    s.shot_clock_call = shot_clock_call
    s.frame_over = frame_over
    s.frame_winner = frame_winner
    s.match_over = match_over
    s.match_winner = match_winner
    state: BlackballState = s
    return state
