"""Blackball as ``shared/rules/blackball-fr.txt`` defines it, cited by that text's numbers
(rule 4b, 4e, 6a ...). ``docs/blackball.md`` lists what is implemented and where the
engine departs from the text.

>>> from ..match import Match
>>> m = Match.from_json({"type": "match", "game": "blackball", "sides": ["Ann", "Bob"]})
>>> for line in ({"type": "no_pot"}, {"type": "pot", "balls": ["yellow"]}):
...     m.apply(m.parse(line))
>>> s = m.state()
>>> s.player, s.sides[1].group, s.sides[1].balls_left, s.open_table
('Bob', 'yellow', 6, False)
>>> m.apply(m.parse({"type": "pot", "balls": ["red"]}))
Traceback (most recent call last):
...
cueboard.engine.errors.IllegalEvent: red is not your group: enter a foul (rule 5c)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from ..errors import IllegalEvent
from ..events import Award, Concede, Event, NextFrame, Pot
from ..game import Game
from ..match_setup import MatchSetup, OptionCheck
from ..order import next_of_side
from ..shot_clock import STANDARD, ShotClockRules, ShotTime
from . import groups
from .balls import BALLS, FULL_RACK, GROUPS, NINE_BALL_RACK, tally
from .events import BLACKBALL_EVENTS, HOLD_REASONS, TIME, ClockHold, ClockResume, Foul, Loss, NoPot, Rerack, Touching
from .order_of_play import breaker_at, order_of_play
from .position import Position
from .state import BlackballBalls, BlackballSide, BlackballState, new_state
from .visits import NextStroke, end_of_visit, penalty, play_on

CONDUCT = "conduct"
"""``award``'s reason: unsporting conduct (rule 8b) or coaching (8c) gives the opponent the frame."""


def _seconds(value: float | None) -> float | int | None:
    """Seconds as the boards show them: 60, not 60.0."""
    return int(value) if value is not None and value.is_integer() else value


class Blackball(Game[Position, BlackballState]):
    name: ClassVar[str] = "blackball"
    events = BLACKBALL_EVENTS
    setup_fields: ClassVar[dict[str, OptionCheck]] = {}
    balls: ClassVar[tuple[str, ...]] = BALLS
    position_type = Position

    def __init__(self, setup: MatchSetup) -> None:
        super().__init__(setup)
        if setup.best_of is not None and setup.best_of % 2 == 0:
            raise IllegalEvent(f"match: 'best_of' must be odd (best of {setup.best_of} can end level)",
                               short="match_setup")
        self.order = order_of_play(setup)
        # Rule 8a: 60 seconds a shot unless the match line sets another clock, or none (null).
        self.clock: ShotClockRules | None = setup.clock if setup.shot_clock_given else STANDARD
        to_win = setup.frames_to_win
        assert to_win is not None
        self.to_win: int = to_win
        self._best_of = setup.frames_in_match
        """The state's ``best_of``: a property of the setup, read once (the state asks every event)."""
        self._names = setup.names
        self._players = setup.players
        # The state's order of play from each breaker, and its clock fields: fixed for the match.
        n = len(self.order)
        self._orders = tuple(tuple(self.order[(at + k) % n][1] for k in range(n)) for at in range(n))
        self._clocks = (self._clock_fields(False), self._clock_fields(True))
        self._sides_now = (BlackballSide(self._names[0], self._players[0], 0, None, None),
                           BlackballSide(self._names[1], self._players[1], 0, None, None))
        """The sides of the last state: kept while their figures stay the same (``_sides``)."""
        self._balls_now: BlackballBalls | None = None
        self._handlers: dict[type[Event], Callable[[Any, Any], Position]] = {
            Pot: self._pot, NoPot: self._no_pot, Foul: self._foul, Loss: self._loss,
            Concede: self._concede, Award: self._award, Rerack: self._rerack, NextFrame: self._next_frame,
            Touching: self._touching, ClockHold: self._clock_hold, ClockResume: self._clock_resume,
        }

    # -- positions ---------------------------------------------------------------

    def _rack(self, frame: int, frames: tuple[int, int], at: int,
              rack: tuple[int, int, int] = FULL_RACK, **extra: Any) -> Position:
        """Rule 4a: the balls racked, the player at ``at`` in the order of play to break (4b)."""
        red, yellow, black = rack
        return Position(frame=frame, order=self.order, breaker_at=at, turn=at, frames=frames,
                        red=red, yellow=yellow, black=black, **extra)

    def initial(self) -> Position:
        return self._rack(1, (0, 0), breaker_at(self.order, 1))

    def play(self, position: Position, event: Event) -> Position:
        handler = self._handlers.get(type(event))
        if handler is None:
            raise IllegalEvent(f"{event.TYPE} is not a blackball event", short="invalid")
        if position.match_over:
            raise IllegalEvent("the match is over", short="match_over")
        return handler(position, event)

    # -- hooks -------------------------------------------------------------------------

    def shot_time(self, position: Position) -> ShotTime | None:
        # Rule 8a: a clock for every shot, the break included; a clock that gives the first
        # shot of a visit more time knows which one that is.
        if self.clock is None or position.turn is None:
            return None
        return self.clock.shot(position.first_of_visit)

    def shot_follows(self, event: Event) -> bool:
        # Rules 4p, 4n(c), 8g, and a new frame: the balls are racked before the break.
        return not isinstance(event, Rerack | NextFrame)

    def new_shot(self, event: Event) -> bool:
        # A touching ball called and the clock held or resumed are rulings during a shot (rule
        # 4i, 8a): the shot goes on.
        return not isinstance(event, Touching | ClockHold | ClockResume)

    def clock_hold(self, event: Event) -> bool | None:
        # Rule 8a: "Une suspension de temps est demandée pour les raisons suivantes...".
        if isinstance(event, ClockHold):
            return True
        if isinstance(event, ClockResume):
            return False
        return None

    @classmethod
    def time_foul(cls) -> Event | None:
        # Rule 8a: a shot not played in time is a foul.
        return Foul(reason=TIME)

    # -- checks shared by the strokes --------------------------------------------

    @staticmethod
    def _at_table(p: Position, what: str) -> int:
        """The side at the table, or why nobody can play ``what`` now."""
        if p.turn is None:
            # Said in terms of the event to enter: a keymap words "enter next_frame" as the
            # device's keys (cueboard.table.keymap.Keymap.explain).
            raise IllegalEvent(f"the frame is over: enter next_frame to start frame {p.frame + 1}", short="frame_over")
        return p.order[p.turn][0]

    @staticmethod
    def _stroke(p: Position, then: NextStroke, *, red: int, yellow: int, black: int,
                groups: tuple[str, str] | None, after_bad_break: bool = False) -> Position:
        """The position after a stroke: the balls left, the groups, who plays next (``then``);
        the break is over (rule 4b) and the frame goes on."""
        # A touching ball's call and a hold of the clock end with the stroke (rules 4i, 8a).
        return p._replace(turn=then.turn, red=red, yellow=yellow, black=black, groups=groups,
                          visits=then.visits, free_shot=then.free_shot, break_shot=False,
                          first_of_visit=then.first_of_visit, after_bad_break=after_bad_break,
                          touching=(), held=None)

    # -- the strokes -------------------------------------------------------------

    def _pot(self, p: Position, e: Pot) -> Position:
        side = self._at_table(p, "pot")
        if not e.balls:
            raise IllegalEvent("pot: list the balls potted (a stroke that pots nothing is no_pot)", short="invalid")
        red, yellow, black = tally("pot", e.balls, (p.red, p.yellow, p.black))
        if black and p.break_shot:
            return self._black_on_the_break(p)
        table = p.groups
        if table is None and not p.free_shot and not p.break_shot:
            # Rule 4e: a fair pot of one group on an open table gives it to the striker; of both
            # groups the table stays open (4e(d)). Not on the break (4e(a)) nor the free shot (4e(c)).
            claimed = groups.claimed(red, yellow)
            if claimed is not None:
                table = groups.assign(side, claimed)
        own = None if table is None else table[side]
        if black:
            after = p._replace(red=p.red - red, yellow=p.yellow - yellow, black=p.black - black, groups=table)
            # Rule 3 and 4j(b), 4j(c): the black wins once the striker's group is cleared by the end
            # of the stroke. Rule 7b: with balls of his group left (or no group yet) it loses.
            won = own is not None and after.left(own) == 0
            return self._close_frame(after, side if won else 1 - side)
        if own is not None and not (red if own == GROUPS[0] else yellow):
            if not p.free_shot:
                raise IllegalEvent(f"{groups.other(own)} is not your group: enter a foul (rule 5c)",
                                   short="not_your_group", ball=groups.other(own))
            # Rule 6b(a): the free shot may pot an opponent's ball; no ball of his own, so the
            # visit ends (4g(a)).
            then = end_of_visit(p)
        else:
            # Rule 4g: a fair pot (4b(a) on the break; 4j(a) with an opponent's ball): play on.
            then = play_on(p)
        return self._stroke(p, then, red=p.red - red, yellow=p.yellow - yellow, black=p.black, groups=table)

    def _no_pot(self, p: Position, e: NoPot) -> Position:
        self._at_table(p, "stroke")
        if not e.legal:
            if not p.break_shot:
                raise IllegalEvent("'legal': false is for the break (rule 4b); any other stroke that is "
                                   "not legal is a foul: enter a foul (rule 5d)", short="enter_foul")
            # Rule 4b(b), 5q: a break that is not valid is treated as a foul.
            return self._stroke(p, penalty(p), red=p.red, yellow=p.yellow, black=p.black, groups=p.groups,
                                after_bad_break=True)
        # Rule 4g(a): nothing potted, the visit ends (on the break, a valid one: 4b(a)).
        return self._stroke(p, end_of_visit(p), red=p.red, yellow=p.yellow, black=p.black, groups=p.groups)

    def _foul(self, p: Position, e: Foul) -> Position:
        side = self._at_table(p, "foul")
        timed = e.reason == TIME
        if timed and self.clock is None:
            raise IllegalEvent("this match has no shot clock, so no foul for time (rule 8a)", short="no_clock")
        if timed and p.held is not None:
            # Rule 8a: a hold suspends the 60 seconds ("Une suspension de temps est demandée
            # ..."): the time cannot run out while it is held, and the hold stays.
            raise IllegalEvent("the shot clock is held: no foul for time until it is resumed (rule 8a)",
                               short="clock_held")
        if timed and e.balls:
            raise IllegalEvent("a foul for time is a shot not played: no balls go down (rule 8a)",
                               short="time_no_balls")
        red, yellow, black = tally("foul", e.balls, (p.red, p.yellow, p.black))
        if black and p.break_shot:
            return self._black_on_the_break(p)
        if black:
            # Rule 7a: a foul that pots the black.
            after = p._replace(red=p.red - red, yellow=p.yellow - yellow, black=p.black - black)
            return self._close_frame(after, 1 - side)
        # Rule 6a: the opponent has a free shot followed by a visit. Rule 4f: the balls potted
        # stay down and decide no group; the table stays open (4e(b)).
        then = penalty(p)
        if timed and p.break_shot:
            # Rule 8a counts the break too; no stroke was played, so the incoming player breaks.
            return p._replace(breaker_at=then.turn, turn=then.turn, visits=then.visits, free_shot=then.free_shot,
                              first_of_visit=then.first_of_visit, after_bad_break=True, touching=())
        # Rule 5q: a foul on the break is a break that is not valid (4b(b)).
        return self._stroke(p, then, red=p.red - red, yellow=p.yellow - yellow, black=p.black, groups=p.groups,
                            after_bad_break=p.break_shot)

    @staticmethod
    def _black_on_the_break(p: Position) -> Position:
        """Rule 4d: the black potted on the break (or a re-break) is re-racked and the same
        player breaks again, with no penalty even for a foul: the position before the break."""
        return p

    # -- rulings during a shot -----------------------------------------------------

    def _touching(self, p: Position, e: Touching) -> Position:
        """Rule 4i: "Une bille en contact ne doit pas bouger au départ du coup." The call changes
        what a legal stroke needs (the referee's to judge, entered as the stroke he rules) and,
        if the touching ball moves as the stroke starts, it is a foul (5p)."""
        self._at_table(p, "touching")
        if e.ball not in BALLS:
            raise IllegalEvent(f"touching: 'ball' is {', '.join(BALLS)}, not {e.ball!r} (rule 4i)", short="invalid")
        if not getattr(p, e.ball):
            raise IllegalEvent(f"touching: no {e.ball} ball is on the table (rule 4i)",
                               short="not_on_table", ball=e.ball)
        # Rule 4i: "Si deux billes ou plus sont touchantes": several may be called for one
        # stroke, each ball once, so a colour as many times as it has balls on the table.
        if p.touching.count(e.ball) >= getattr(p, e.ball):
            on = getattr(p, e.ball)
            which = f"the {e.ball} was" if on == 1 else f"all {on} {e.ball}s on the table were"
            raise IllegalEvent(f"touching: {which} called touching already for this stroke; each ball is "
                               "called once (rule 4i)", short="touching_called", ball=e.ball)
        return p._replace(touching=(*p.touching, e.ball))

    def _clock_hold(self, p: Position, e: ClockHold) -> Position:
        """Rule 8a: the time is suspended for a rest (a), an interference (b) or a ruling on
        touching balls (c); no other reason."""
        self._at_table(p, "clock_hold")
        if self.clock is None:
            raise IllegalEvent("this match has no shot clock: nothing to hold (rule 8a)", short="no_clock")
        if e.reason is not None and e.reason not in HOLD_REASONS:
            raise IllegalEvent(f"clock_hold: 'reason' is {', '.join(HOLD_REASONS)} (rule 8a (a)-(c)), "
                               f"not {e.reason!r}", short="invalid")
        if p.held is not None:
            why = f" ({p.held})" if p.held else ""
            raise IllegalEvent(f"the shot clock is held already{why}: enter clock_resume (rule 8a)", short="clock_held")
        return p._replace(held=e.reason if e.reason is not None else "")

    def _clock_resume(self, p: Position, e: ClockResume) -> Position:
        self._at_table(p, "clock_resume")
        if p.held is None:
            raise IllegalEvent("the shot clock is not held: nothing to resume (rule 8a)", short="clock_not_held")
        return p._replace(held=None)

    # -- the end of a frame --------------------------------------------------------

    def _close_frame(self, p: Position, winner: int) -> Position:
        """Rule 4q: the frame is over; rule 3: the match goes to the first to ``race_to`` frames."""
        frames = (p.frames[0] + 1, p.frames[1]) if winner == 0 else (p.frames[0], p.frames[1] + 1)
        match_over = frames[winner] >= self.to_win
        return p._replace(frames=frames, turn=None, visits=0, free_shot=False, break_shot=False,
                          first_of_visit=False, after_bad_break=False, frame_over=True, frame_winner=winner,
                          match_over=match_over, match_winner=winner if match_over else None)

    def _forfeit_match(self, p: Position, winner: int) -> Position:
        """A match conceded or awarded: the winner is given the frames he still needed."""
        frames = (max(p.frames[0], self.to_win), p.frames[1]) if winner == 0 else (
            p.frames[0], max(p.frames[1], self.to_win))
        return p._replace(frames=frames, match_over=True, match_winner=winner)

    def _loss(self, p: Position, e: Loss) -> Position:
        # Rule 7 (7c-7f), 4q, 8i: the referee rules the frame lost for what the engine cannot see.
        side = self._at_table(p, "loss")
        return self._close_frame(p, 1 - side)

    def _concede(self, p: Position, e: Concede) -> Position:
        side = self._at_table(p, "concession")
        done = self._close_frame(p, 1 - side)
        return self._forfeit_match(done, 1 - side) if e.match else done

    def _award(self, p: Position, e: Award) -> Position:
        # Rule 8b, 8c, 8i: the referee gives the frame or the match to the opponent.
        if e.side not in (0, 1):
            raise IllegalEvent(f"award: 'side' is 0 or 1, not {e.side}", short="invalid")
        if e.reason not in (None, CONDUCT):
            # Rule 8b (unsporting conduct), 8c (coaching): the text's awards are for conduct; it
            # has no three-miss rule.
            raise IllegalEvent(f"award: 'reason' is \"conduct\" in blackball (rules 8b, 8c), not {e.reason!r}",
                               short="invalid")
        if p.frame_over:
            if not e.match:
                raise IllegalEvent("the frame is over: only the match can be awarded now", short="frame_over")
            return self._forfeit_match(p, e.side)
        done = self._close_frame(p, e.side)
        return self._forfeit_match(done, e.side) if e.match else done

    # -- a new rack ----------------------------------------------------------------

    def _rerack(self, p: Position, e: Rerack) -> Position:
        if p.striker is None:
            raise IllegalEvent("the frame is over: nothing to re-rack", short="frame_over")
        if e.breaker is not None and e.breaker not in (0, 1):
            raise IllegalEvent(f"rerack: 'breaker' is side 0 or 1, not {e.breaker}", short="invalid")
        rack = NINE_BALL_RACK if e.nine_ball else FULL_RACK  # Rule 8g: the nine-ball rack.
        if p.after_bad_break and e.breaker in (None, p.striker):
            # Rule 4b(b): after a break that was not valid the incoming player may have the balls
            # re-racked; he breaks, his free shot and visit kept.
            assert p.turn is not None
            return self._rack(p.frame, p.frames, p.turn, rack, visits=2, free_shot=True,
                              after_bad_break=True)
        # Rule 4p, 4n(c): the frame is replayed without penalty, the same player breaking
        # (4p(a)), or the side that won the lag (4p(b), 8g).
        if e.breaker is None or e.breaker == p.breaker:
            at = p.breaker_at
        else:
            at = next_of_side(self.order, p.breaker_at, e.breaker)
        return self._rack(p.frame, p.frames, at, rack)

    def _next_frame(self, p: Position, e: NextFrame) -> Position:
        if not p.frame_over:
            raise IllegalEvent("the frame is not over: next_frame starts a frame once one has ended",
                               short="frame_not_over")
        # Rule 4: breaks alternate; in doubles each player breaks in turn.
        return self._rack(p.frame + 1, p.frames, breaker_at(self.order, p.frame + 1))

    # -- the state the boards show -----------------------------------------------------

    def _clock_fields(self, first_of_visit: bool) -> tuple[float | int | None, float | int | None]:
        """``shot_clock`` and ``shot_clock_call`` of the state: the seconds the next shot may
        take and when the referee calls the time (rule 8a), or None without a clock."""
        if self.clock is None:
            return None, None
        length = self.clock.length(first_of_visit)
        return _seconds(length), _seconds(self.clock.call_at(length))

    def view(self, p: Position, seq: int) -> BlackballState:
        # Read from the order of play, not through the position's properties (striker, player,
        # breaker): a property costs some 1,300 instructions a read on CPython 3.11.
        order, turn, breaker_at = p.order, p.turn, p.breaker_at
        striker, player = (None, None) if turn is None else order[turn]
        table = p.groups
        if table is None:
            group: tuple[str | None, str | None] = (None, None)
            left: tuple[int | None, int | None] = (None, None)
            black_on = False
        else:
            group = table
            left = (p.left(table[0]), p.left(table[1]))
            # Rule 3: once the striker's group is cleared, the black is his ball on.
            black_on = striker is not None and left[striker] == 0
        seconds, call = self._clocks[p.first_of_visit or p.frame_over]
        return new_state(
            seq, self._sides(p.frames, group, left), p.frame, self._best_of, self.to_win, order[breaker_at][0],
            striker, player, table is None, self._balls(p.red, p.yellow, p.black), p.visits, p.free_shot,
            black_on, p.break_shot, self._orders[breaker_at], seconds, call, p.frame_over, p.frame_winner,
            p.match_over, p.match_winner,
        )

    def _sides(self, frames: tuple[int, int], group: tuple[str | None, str | None],
               left: tuple[int | None, int | None]) -> tuple[BlackballSide, BlackballSide]:
        """Both sides' state. A side is built again only when a figure of its own changed: a
        pot changes one side's balls left, a miss or a foul neither. Each side is a frozen
        value, and building frozen values is most of what the state after every event costs
        (``bench/engine.py``; docs/performance.md, issue 25)."""
        last = self._sides_now
        a = _side(last[0], frames[0], group[0], left[0])
        b = _side(last[1], frames[1], group[1], left[1])
        if a is not last[0] or b is not last[1]:
            self._sides_now = last = (a, b)
        return last

    def _balls(self, red: int, yellow: int, black: int) -> BlackballBalls:
        balls = self._balls_now
        if balls is None or (balls.red, balls.yellow, balls.black) != (red, yellow, black):
            balls = self._balls_now = BlackballBalls(red, yellow, black)
        return balls


def _side(last: BlackballSide, frames: int, group: str | None, left: int | None) -> BlackballSide:
    """``last`` if its figures are these, else a new side with them."""
    if last.frames == frames and last.group == group and last.balls_left == left:
        return last
    return BlackballSide(last.name, last.players, frames, group, left)
