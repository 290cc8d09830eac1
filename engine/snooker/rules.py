"""Snooker as the WPBSA rules define it (``shared/rules/snooker-wpbsa-en.txt``).

Section 3 Rules 10-12 are printed out of order in that text (headed "12.
Penalties", "11. Fouls", "10. Snookered After a Foul"). This module cites them as
the table of contents and the text's own cross-references number them: Rule 10
Penalties, Rule 11 Fouls, Rule 12 Snookered After a Foul (free ball).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from ..errors import IllegalEvent
from ..events import Award, Concede, Event, NextFrame, Pot
from ..game import Game
from ..match_setup import MatchSetup, OptionCheck
from ..order import next_of_side, order_names
from ..shot_clock import ShotTime
from .ball_on import ball_on_at_turn_start, least_penalty
from .balls import BALL_NAMES, BY_VALUE, COLOURS, FREE, REDS_ALLOWED, VALUE
from .events import (
    SNOOKER_EVENTS,
    Claim,
    Foul,
    NoPot,
    Order,
    PlayAgain,
    Replace,
    Rerack,
    RespottedBlack,
    StartedBy,
)
from .order_of_play import default_rotation, rotation_from_order
from .position import Position
from .remaining import remaining, snookers_required, table_value
from .state import SnookerSide, SnookerState, new_state

MISS = "miss"
"""``award``'s reason for a third failure after the warning: Section 3 Rule 14(c)(ii)."""
CONDUCT = "conduct"
"""``award``'s reason for a frame forfeited under Section 4 (Rule 1, penalty Rule 2)."""
AWARD_REASONS = (None, MISS, CONDUCT)

FORFEITED_FRAME = 147
"""Section 4 Rule 2(b)(iii): each unplayed frame of a forfeited aggregate game."""


def _reds(value: object) -> int:
    if type(value) is not int or value not in REDS_ALLOWED:
        raise IllegalEvent(f"match: 'reds' must be 15, 10 or 6, not {value!r}", short="match_setup")
    return int(value)


def _handicap(value: object) -> tuple[int, int]:
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)):
        raise IllegalEvent(f"match: 'handicap' is the points each side starts a frame with, "
                           f"as [a, b] with whole numbers from 0, not {value!r}", short="match_setup")
    return (value[0], value[1])


def _aggregate(value: object) -> bool:
    if not isinstance(value, bool):
        raise IllegalEvent(f"match: 'aggregate' must be true or false, not {value!r}", short="match_setup")
    return value


def _missed_by(p: Position) -> int | None:
    """The side whose FOUL AND A MISS calls ``misses`` counts (Section 3 Rule 14): the offender,
    while the next player decides (``offender``) and while it plays again from the replaced
    position (the striker then); None with no miss to count."""
    if not p.misses:
        return None
    if p.offender is not None:
        return p.rotation[p.offender][0]
    if p.turn is not None:
        return p.rotation[p.turn][0]
    return None


def _ordinal(n: int) -> str:
    return f"{n} red" if n == 1 else f"{n} reds"


class Snooker(Game[Position, SnookerState]):
    name: ClassVar[str] = "snooker"
    events = SNOOKER_EVENTS
    setup_fields: ClassVar[dict[str, OptionCheck]] = {
        "reds": _reds, "handicap": _handicap, "aggregate": _aggregate,
    }
    balls: ClassVar[tuple[str, ...]] = BY_VALUE
    position_type = Position

    def __init__(self, setup: MatchSetup) -> None:
        super().__init__(setup)
        self.reds_start = setup.option_int("reds", 15)
        self.handicap = setup.option_pair("handicap", (0, 0))
        self.aggregate = setup.option_bool("aggregate", False)
        if self.aggregate and setup.race_to is not None:
            raise IllegalEvent("match: an aggregate match is played over 'best_of' frames, not 'race_to'",
                               short="match_setup")
        if not self.aggregate and setup.best_of is not None and setup.best_of % 2 == 0:
            raise IllegalEvent(f"match: 'best_of' must be odd (best of {setup.best_of} can end level), "
                               "unless the match is decided on 'aggregate' points", short="match_setup")
        self._best_of = setup.frames_in_match
        self._race_to = setup.frames_to_win
        self._rotation: tuple[tuple[int, str], ...] = ()
        self._order_now: tuple[str, ...] = ()
        names, players = setup.names, setup.players
        self._sides_now = (SnookerSide(names[0], players[0], 0, 0, 0, 0),
                           SnookerSide(names[1], players[1], 0, 0, 0, 0))
        """The sides of the last state: kept while their figures stay the same (``_sides``)."""
        self._handlers: dict[type[Event], Callable[[Any, Any], Position]] = {
            Pot: self._pot, NoPot: self._no_pot, Foul: self._foul, PlayAgain: self._play_again,
            Replace: self._replace_balls, Concede: self._concede, Claim: self._claim, Award: self._award,
            RespottedBlack: self._respotted_black, Rerack: self._rerack, Order: self._order,
            NextFrame: self._next_frame, StartedBy: self._started_by,
        }

    # -- positions ---------------------------------------------------------------

    def _frame_start(self, frame: int, frames: tuple[int, int], totals: tuple[int, int],
                     high_breaks: tuple[int, int]) -> Position:
        """Section 3 Rule 2: all balls set; Rule 3(b): the breaking side alternates."""
        breaker = self.setup.breaker(frame)
        return Position(
            frame=frame, breaker=breaker, rotation=default_rotation(self.setup, breaker), turn=0,
            scores=self.handicap, frames=frames, totals=totals, high_breaks=high_breaks, brk=0,
            reds=self.reds_start, colours=COLOURS, ball_on="red",
        )

    def initial(self) -> Position:
        return self._frame_start(1, (0, 0), (0, 0), (0, 0))

    def play(self, position: Position, event: Event) -> Position:
        handler = self._handlers.get(type(event))
        if handler is None:
            raise IllegalEvent(f"{event.TYPE} is not a snooker event", short="invalid")
        if position.match_over:
            raise IllegalEvent("the match is over", short="match_over")
        return handler(position, event)

    # -- hooks -------------------------------------------------------------------------

    def shot_time(self, position: Position) -> ShotTime | None:
        # The WPBSA rules have no shot clock; a match line may set one (a shoot-out format).
        if self.clock is None or position.frame_over or position.turn is None:
            return None
        return self.clock.shot()

    def shot_follows(self, event: Event) -> bool:
        # Section 3 Rule 16, and a new frame: the balls are racked before the next stroke.
        return not isinstance(event, Rerack | NextFrame)

    @classmethod
    def foul_points(cls, ball: str) -> int | None:
        # Section 3 Rule 10: the value of the ball concerned, at least 4.
        return max(4, VALUE[ball]) if ball in VALUE else None

    # -- checks shared by the strokes --------------------------------------------

    @staticmethod
    def _at_table(p: Position, what: str) -> int:
        """The side at the table, or why nobody can play ``what`` now."""
        if p.frame_over:
            # Said in terms of the event to enter: a keymap words "enter next_frame" as the
            # device's keys (cueboard.table.keymap.Keymap.explain).
            raise IllegalEvent(f"the frame is over: enter next_frame to start frame {p.frame + 1}", short="frame_over")
        if p.turn is None:
            raise IllegalEvent("the black is re-spotted: first enter who plays it (respotted_black), "
                               "drawn by lot (Section 3 Rule 4(b))", short="respot_first")
        return p.rotation[p.turn][0]

    @staticmethod
    def _stroke(p: Position, *, turn: int | None, scores: tuple[int, int], high_breaks: tuple[int, int],
                brk: int, reds: int, colours: tuple[str, ...], ball_on: str | None, free_ball: bool = False,
                misses: int = 0, offender: int | None = None, before_miss: Position | None = None) -> Position:
        """The position after a stroke. Every stroke resets the free ball (Rule 12), the
        misses unless this one is a miss (Rule 14(c)), the replaced position (Rule 14(a)) and
        the offender (Rule 11(h)); the frame, the match and the order of play stay as they are."""
        return p._replace(turn=turn, scores=scores, high_breaks=high_breaks, brk=brk, reds=reds,
                          colours=colours, ball_on=ball_on, free_ball=free_ball, misses=misses,
                          from_replaced=False, strokes=p.strokes + 1, offender=offender,
                          before_miss=before_miss)

    # -- the strokes -------------------------------------------------------------

    def _pot(self, p: Position, e: Pot) -> Position:
        side = self._at_table(p, "pot")
        balls = e.balls
        if not balls:
            raise IllegalEvent("pot: list the balls potted (a stroke that pots nothing is no_pot)", short="invalid")
        for b in balls:
            if b not in BALL_NAMES:
                raise IllegalEvent(f"pot: {b!r} is not a ball (red, yellow, green, brown, blue, pink, "
                                   "black, or free for the nominated free ball)", short="invalid")
        frees = balls.count(FREE)
        if frees and not p.free_ball:
            raise IllegalEvent("no free ball was called: the referee calls FREE BALL after a foul "
                               "that leaves the striker snookered (Section 3 Rule 12)", short="no_free_ball")
        if frees > 1:
            raise IllegalEvent("only one ball can be the free ball (Section 3 Rule 12(a))", short="one_free_ball")
        on = p.ball_on
        reds = p.reds
        colours = p.colours
        if on == "red":
            # Rule 3(f): each red, and a free ball nominated as a red, potted in one stroke scores 1.
            for b in balls:
                if b != "red" and b != FREE:
                    raise IllegalEvent(f"red is on: potting the {b} is a foul, enter a foul "
                                       "(Section 3 Rule 10(b)(iii))", short="not_on", ball="red")
            potted_reds = balls.count("red")
            if potted_reds > p.reds:
                raise IllegalEvent(f"only {_ordinal(p.reds)} on the table", short="not_on_table", ball="red")
            points = potted_reds + frees
            reds -= potted_reds
            next_on: str | None = "colour"  # Rule 3(g)(i)
        elif on == "colour":
            if len(balls) != 1 or balls[0] not in COLOURS:
                raise IllegalEvent("a colour is on after a red: one colour only; potting a red or two "
                                   "colours is a foul (Section 3 Rule 3(g)(i), Rule 10(b)(iii))", short="one_colour")
            points = VALUE[balls[0]]
            # The colour is re-spotted (Rule 7); red again, or the colours once the last red's
            # colour has been played (Rule 3(g)(ii)).
            next_on = ball_on_at_turn_start(reds, colours)
        else:
            assert on is not None
            for b in balls:
                if b != on and b != FREE:
                    raise IllegalEvent(f"{on} is on: potting the {b} is a foul, enter a foul "
                                       "(Section 3 Rule 10(b)(iii))", short="not_on", ball=on)
            if balls.count(on) > 1:
                raise IllegalEvent(f"{on} is on: potting the {on} is a foul, enter a foul "
                                   "(Section 3 Rule 10(b)(iii))", short="not_on", ball=on)
            # Rule 12(c), 12(e): a free ball alone scores the ball on's value and is re-spotted;
            # with the ball on only the ball on scores and it stays off.
            points = VALUE[on]
            if on in balls:
                colours = colours[1:]
            next_on = colours[0] if colours else None
        scores = self._add(p.scores, side, points)
        brk = p.brk + points
        high = self._high(p.high_breaks, side, brk)
        if p.only_black:
            # Section 3 Rule 4(a): with only the black left the first score ends the frame.
            return self._black_decided(p, scores, high, brk, colours)
        return self._stroke(p, turn=p.turn, scores=scores, high_breaks=high, brk=brk, reds=reds,
                            colours=colours, ball_on=next_on)

    def _no_pot(self, p: Position, e: NoPot) -> Position:
        self._at_table(p, "stroke")
        assert p.turn is not None
        # Section 2 Rule 5(a): the turn ends when a stroke fails to score.
        turn = (p.turn + 1) % len(p.rotation)
        if p.loses_turn is not None:
            return self._skipping(p, turn, scores=p.scores)
        return self._stroke(p, turn=turn, scores=p.scores, high_breaks=p.high_breaks, brk=0, reds=p.reds,
                            colours=p.colours, ball_on=ball_on_at_turn_start(p.reds, p.colours))

    def _skipping(self, p: Position, turn: int, scores: tuple[int, int]) -> Position:
        """A no_pot when a player is to lose a turn (Section 3 Rule 17(c)): the turn passes him by
        when it comes to him."""
        lost = p.loses_turn
        if turn == lost:
            turn = (turn + 1) % len(p.rotation)
            lost = None
        after = self._stroke(p, turn=turn, scores=scores, high_breaks=p.high_breaks, brk=0, reds=p.reds,
                             colours=p.colours, ball_on=ball_on_at_turn_start(p.reds, p.colours))
        return after._replace(loses_turn=lost)

    @staticmethod
    def _check_penalty(p: Position, e: Foul) -> None:
        """Section 3 Rule 10: a foul is 4 to 7 points and at least the value of the ball on (7 on
        a re-spotted black), whoever committed it."""
        least = 7 if p.respotted_black else least_penalty(p.ball_on)
        if not 4 <= e.points <= 7:
            raise IllegalEvent(f"a foul is 4 to 7 points, not {e.points} (Section 3 Rule 10)", short="foul_points")
        if e.points < least:
            raise IllegalEvent(f"{p.ball_on} is on: a foul is at least {least} (Section 3 Rule 10)",
                               short="foul_at_least", ball=p.ball_on, n=least)

    def _foul(self, p: Position, e: Foul) -> Position:
        if e.non_striker is not None or e.out_of_turn is not None:
            return self._foul_by_another(p, e)
        side = self._at_table(p, "foul")
        self._check_penalty(p, e)
        if e.reds_off < 0:
            raise IllegalEvent("foul: 'reds_off' counts reds that left the table, from 0", short="invalid")
        if e.reds_off > p.reds:
            raise IllegalEvent(f"foul: only {_ordinal(p.reds)} on the table, so {e.reds_off} cannot "
                               "have gone off", short="not_on_table", ball="red")
        scores = self._add(p.scores, 1 - side, e.points)
        if p.only_black:
            if e.miss:
                raise IllegalEvent("no miss is called when only the black remains (Section 3 Rule 14)", short="no_miss")
            if e.free_ball:
                raise IllegalEvent("only the black is left: no ball can snooker it, so no free ball "
                                   "(Section 2 Rule 17)", short="no_free_ball")
            # Section 3 Rule 4(a): the first score or foul ends the frame.
            return self._black_decided(p, scores, p.high_breaks, 0, p.colours)
        # Section 3 Rule 3(h): reds that leave the table in a foul stay off; colours are re-spotted.
        reds = p.reds - e.reds_off
        assert p.turn is not None
        if e.before_stroke:
            return self._foul_before_stroke(p, e, scores, reds)
        misses = (p.misses if p.from_replaced else 0) + 1 if e.miss else 0
        turn = (p.turn + 1) % len(p.rotation)
        lost = p.loses_turn
        if lost is not None and turn == lost:
            # Section 3 Rule 17(c): the partner of one who played out of turn loses a turn.
            turn, lost = (turn + 1) % len(p.rotation), None
        after = self._stroke(
            p, turn=turn, scores=scores, high_breaks=p.high_breaks, brk=0,
            reds=reds, colours=p.colours, ball_on=ball_on_at_turn_start(reds, p.colours),
            free_ball=e.free_ball, misses=misses, offender=p.turn, before_miss=p if e.miss else None,
        )
        return after if lost is p.loses_turn else after._replace(loses_turn=lost)

    def _player_index(self, p: Position, name: str, field: str) -> int:
        for i, (_, player) in enumerate(p.rotation):
            if player == name:
                return i
        everyone = ", ".join(player for _, player in p.rotation)
        raise IllegalEvent(f"foul: {field!r} names a player of the match ({everyone}), not {name!r}",
                           short="wrong_player")

    def _foul_by_another(self, p: Position, e: Foul) -> Position:
        """A foul by a player who is not the striker; the penalty goes to his opponents.

        ``non_striker``: Section 3 Rule 2(b)(ii) (a ball marker), 14(h) (a ball, during the
        consultation on a replacement): "he shall be penalised as if he were the striker, without
        affecting the order of play": the striker stays at the table, his break and the ball on
        as they were. ``out_of_turn``: Section 2 Rule 5, "If a non-striker comes to the table,
        out of turn, he shall be considered as the striker for any foul he may commit", and
        Section 3 Rule 10(a)(iv): the player whose turn it was is the next player (he may ask
        the offender to play again, Rule 11, 17(c)); in four-handed snooker "the offender's
        partner will lose a turn, whether or not the offender is asked to play again" (17(c)).

        While a re-spotted black waits for the lot nobody is the striker, and Section 3 Rule
        4(b)(iv) says "the next score or foul ends the frame": a player who touches a ball or
        plays before the lot is drawn is penalised as the striker would be, and that ends it."""
        if p.frame_over or not (p.turn is None and p.respotted_black):
            self._at_table(p, "foul")
        if e.non_striker is not None and e.out_of_turn is not None:
            raise IllegalEvent("foul: 'non_striker' (a ball touched, Section 3 Rule 14(h)) or 'out_of_turn' "
                               "(a stroke played, Rule 10(a)(iv)), not both", short="invalid")
        name = e.non_striker if e.non_striker is not None else e.out_of_turn
        assert name is not None
        field = "non_striker" if e.non_striker is not None else "out_of_turn"
        who = self._player_index(p, name, field)
        if who == p.turn:
            raise IllegalEvent(f"foul: {name} is the striker: a striker's foul is entered without {field!r}",
                               short="is_striker")
        offender_side = p.rotation[who][0]
        self._check_penalty(p, e)
        if e.miss or e.before_stroke:
            raise IllegalEvent(f"foul: {field!r} is not a miss nor a foul before a stroke from a replaced "
                               "position (Section 3 Rule 14)", short="no_miss")
        scores = self._add(p.scores, 1 - offender_side, e.points)
        if p.turn is None:
            if e.reds_off or e.free_ball:
                raise IllegalEvent("foul: only the black is left: no reds off, no free ball (Section 3 Rule 4(b))",
                                   short="invalid")
            # Section 3 Rule 4(b)(iv): the next score or foul ends the frame.
            return self._black_decided(p, scores, p.high_breaks, 0, p.colours)
        if e.non_striker is not None:
            if e.reds_off or e.free_ball:
                raise IllegalEvent("foul: a ball touched by a non-striker is replaced by the referee (Section 3 "
                                   "Rule 14(h)): no reds off, no free ball", short="invalid")
            if p.only_black:
                # Section 3 Rule 4(a): the first score or foul ends the frame.
                return self._black_decided(p, scores, p.high_breaks, 0, p.colours)
            return p._replace(scores=scores)
        if e.reds_off > p.reds:
            raise IllegalEvent(f"foul: only {_ordinal(p.reds)} on the table, so {e.reds_off} cannot have gone off",
                               short="not_on_table", ball="red")
        if p.only_black:
            return self._black_decided(p, scores, p.high_breaks, 0, p.colours)
        reds = p.reds - e.reds_off
        assert p.turn is not None
        turn, lost = p.turn, p.loses_turn
        if self.setup.doubles:
            # Rule 17(c): the offender's partner loses his next turn: at once, when the stroke was
            # his to play (the offender played his partner's stroke).
            lost = next(i for i, (side, _) in enumerate(p.rotation) if side == offender_side and i != who)
            if turn == lost:
                turn, lost = (turn + 1) % len(p.rotation), None
        after = self._stroke(p, turn=turn, scores=scores, high_breaks=p.high_breaks, brk=0, reds=reds,
                             colours=p.colours, ball_on=ball_on_at_turn_start(reds, p.colours),
                             free_ball=e.free_ball, offender=who)
        return after._replace(loses_turn=lost)

    def _foul_before_stroke(self, p: Position, e: Foul, scores: tuple[int, int], reds: int) -> Position:
        """Section 3 Rule 14(d): the striker fouled while preparing to play from a replaced
        position, before any stroke from it. No miss is called and the penalty stands; the ball
        on stays what it was before the last stroke (14(d)(i)-(iii)); the next player may play,
        ask the offender to play again (14(d)(iv)) or have the balls replaced again (14(d)(v));
        a warning of a sequence of misses stays in force (14(d)(vi))."""
        if not p.from_replaced:
            raise IllegalEvent("a foul before a stroke follows a replace: the offender fouled while preparing "
                               "to play from the replaced position (Section 3 Rule 14(d))", short="after_replace_only")
        if e.miss:
            raise IllegalEvent("no miss is called for a foul before a stroke: no stroke was played "
                               "(Section 3 Rule 14(d))", short="no_miss")
        assert p.turn is not None
        ball_on = p.ball_on if reds or p.ball_on != "red" else ball_on_at_turn_start(reds, p.colours)
        return p._replace(turn=(p.turn + 1) % len(p.rotation), scores=scores, brk=0, reds=reds, ball_on=ball_on,
                          free_ball=e.free_ball, misses=p.misses, from_replaced=False, offender=p.turn,
                          before_miss=p)

    # -- what the next player may ask after a foul ---------------------------------

    def _play_again(self, p: Position, e: PlayAgain) -> Position:
        if p.offender is None or p.frame_over:
            raise IllegalEvent("play_again follows a foul: the next player may ask the offender to "
                               "play again (Section 3 Rule 11(h))", short="after_foul_only")
        # Rule 12(f): the free ball call is void; Rule 17(c): the order of play is unchanged.
        if p.fouled_before_stroke:
            # Rule 14(d)(iv), (vi): after a foul while preparing to play from the replaced position,
            # the offender plays again from the position left, still before any stroke from the
            # replaced one, and "any warning concerning the possible awarding of the frame to his
            # opponent shall remain in effect": the count of misses goes on. This specific rule wins
            # over 14(c)(iii).
            return p._replace(turn=p.offender, free_ball=False, offender=None, before_miss=None,
                              from_replaced=True, brk=0)
        # Rule 14(c)(iii): asked to play again from a different position, the Foul and a Miss
        # situation starts again.
        return p._replace(turn=p.offender, free_ball=False, misses=0, offender=None, before_miss=None,
                       from_replaced=False, brk=0)

    def _replace_balls(self, p: Position, e: Replace) -> Position:
        before = p.before_miss
        if before is None:
            raise IllegalEvent("replace follows a FOUL AND A MISS: only then can the balls be put back "
                               "(Section 3 Rule 14(a))", short="after_miss_only")
        # Rule 14(a): the original position, the ball on as before that stroke; the penalty stands.
        # Rule 12(f): the offender plays again, so no free ball.
        return before._replace(scores=p.scores, high_breaks=p.high_breaks, misses=p.misses,
                       strokes=p.strokes, brk=0, free_ball=False, from_replaced=True, offender=None,
                       before_miss=None)

    # -- the end of a frame --------------------------------------------------------

    def _last_frame(self, p: Position) -> bool:
        return p.frame >= self.setup.frames_in_match

    def _black_decided(self, p: Position, scores: tuple[int, int], high: tuple[int, int],
                       brk: int, colours: tuple[str, ...]) -> Position:
        """Section 3 Rule 4: the first score or foul with only the black left ends the frame,
        unless the scores are then equal and aggregate scores are not relevant (4(a)), or an
        aggregate match is level at the end of its last frame (4(c)): then the black is
        re-spotted and the players draw lots (4(b))."""
        if self.aggregate:
            level = self._last_frame(p) and (p.totals[0] + scores[0] == p.totals[1] + scores[1])
        else:
            level = scores[0] == scores[1]
        if level:
            respotted = self._stroke(p, turn=None, scores=scores, high_breaks=high, brk=0, reds=0,
                                     colours=("black",), ball_on="black")
            return respotted._replace(respotted_black=True, last_turn=p.turn)
        winner = None if scores[0] == scores[1] else (0 if scores[0] > scores[1] else 1)
        played = self._stroke(p, turn=p.turn, scores=p.scores, high_breaks=high, brk=brk, reds=p.reds,
                              colours=colours, ball_on=p.ball_on)
        return self._close_frame(played, scores, winner)

    def _end_frame(self, p: Position, scores: tuple[int, int], winner: int | None) -> Position:
        """A frame ended other than on the black (conceded, awarded): closed, unless Section 3
        Rule 4(c) says otherwise: "When aggregate scores determine the winner of a game or match,
        and the aggregate scores are equal at the end of the last frame, the players in that frame
        shall follow the procedure for a re-spotted Black set out in (b) above", however the frame
        ended. The table is cleared to the black, spotted; the players draw lots (4(b)(ii)) and
        the next score or foul ends the frame (4(b)(iv))."""
        if (self.aggregate and self._last_frame(p)
                and p.totals[0] + scores[0] == p.totals[1] + scores[1]):
            return p._replace(scores=scores, turn=None, brk=0, reds=0, colours=("black",), ball_on="black",
                              free_ball=False, misses=0, offender=None, before_miss=None, from_replaced=False,
                              respotted_black=True, last_turn=p.turn)
        return self._close_frame(p, scores, winner)

    def _close_frame(self, p: Position, scores: tuple[int, int], winner: int | None) -> Position:
        frames = self._add(p.frames, winner, 1) if winner is not None else p.frames
        totals = (p.totals[0] + scores[0], p.totals[1] + scores[1])
        match_winner: int | None = None
        if self.aggregate:
            # Section 3 Rule 1(g)(ii): the greatest total over all the frames.
            if self._last_frame(p):
                level = totals[0] == totals[1]
                match_winner = winner if level else (0 if totals[0] > totals[1] else 1)
        else:
            to_win = self.setup.frames_to_win
            assert to_win is not None
            if winner is not None and frames[winner] >= to_win:
                match_winner = winner  # Section 3 Rule 1(g)(i)
        return p._replace(scores=scores, frames=frames, totals=totals, turn=None, ball_on=None,
                       free_ball=False, misses=0, offender=None, before_miss=None, from_replaced=False,
                       frame_over=True, frame_winner=winner, match_over=match_winner is not None,
                       match_winner=match_winner)

    def _forfeit_match(self, p: Position, winner: int) -> Position:
        """Section 4 Rule 2(b): the offender also loses the unplayed frames; in aggregate play
        each counts 147 points."""
        unplayed = self.setup.frames_in_match - p.frame
        if self.aggregate:
            totals = self._add(p.totals, winner, FORFEITED_FRAME * unplayed)
            frames = self._add(p.frames, winner, unplayed)
        else:
            to_win = self.setup.frames_to_win
            assert to_win is not None
            totals = p.totals
            frames = self._add(p.frames, winner, max(0, to_win - p.frames[winner]))
        return p._replace(frames=frames, totals=totals, match_over=True, match_winner=winner)

    def _concede(self, p: Position, e: Concede) -> Position:
        side = self._at_table(p, "concession")
        winner = 1 - side
        scores = p.scores
        if self.aggregate:
            # Section 4 Rule 5(b): the balls left are added to the other side, reds at eight.
            scores = self._add(scores, winner, table_value(p))
        if e.match:
            return self._forfeit_match(self._close_frame(p, scores, winner), winner)
        # Section 3 Rule 1(g)(ii): in aggregate play even the last frame conceded or awarded
        # leaves the match to the greater total; only the match itself is forfeited outright.
        return self._end_frame(p, scores, winner)

    def _claim(self, p: Position, e: Claim) -> Position:
        side = self._at_table(p, "claim")
        lead = p.scores[side] - p.scores[1 - side]
        if self.aggregate:
            raise IllegalEvent("no claim when aggregate scores decide the match (Section 2 Rule 1(b))",
                               short="no_claim")
        if not p.only_black:
            raise IllegalEvent("a frame is claimed only when the black is the last ball "
                               "(Section 2 Rule 1(b))", short="claim_black_only")
        if lead <= 7:
            raise IllegalEvent(f"a claim needs a lead of more than 7; the lead is {lead} "
                               "(Section 2 Rule 1(b))", short="claim_lead", n=lead)
        return self._close_frame(p, p.scores, side)

    def _award(self, p: Position, e: Award) -> Position:
        if e.side not in (0, 1):
            raise IllegalEvent(f"award: 'side' is 0 or 1, not {e.side}", short="invalid")
        if e.reason not in AWARD_REASONS:
            raise IllegalEvent(f"award: 'reason' is \"miss\" (Section 3 Rule 14(c)(ii)) or \"conduct\" "
                               f"(Section 4 Rule 2), not {e.reason!r}", short="invalid")
        if p.frame_over and not e.match:
            raise IllegalEvent("the frame is over: only the match can be awarded now", short="frame_over")
        winner = e.side
        if e.reason == MISS:
            self._check_third_miss(p, e)
        if p.frame_over:
            return self._forfeit_match(p, winner)
        scores = p.scores
        if e.reason == CONDUCT or (e.reason is None and self.aggregate):
            # Section 4 Rule 2(a)(ii): the offender forfeits all points scored and the other side
            # receives the value of the balls left, reds at eight. A log without a reason (written
            # before there was one) keeps the old meaning: forfeited in aggregate play only.
            # Rule 14(c)(ii) (a third miss) forfeits nothing: the scores stand.
            scores = self._add(self._set(scores, 1 - winner, self.handicap[1 - winner]), winner,
                               table_value(p))
        if e.match:
            return self._forfeit_match(self._close_frame(p, scores, winner), winner)
        # Section 3 Rule 1(g)(ii): in aggregate play even the last frame conceded or awarded
        # leaves the match to the greater total; only the match itself is forfeited outright.
        return self._end_frame(p, scores, winner)

    def _check_third_miss(self, p: Position, e: Award) -> None:
        """Section 3 Rule 14(c)(ii): "if asked to play again from the original position, the
        offender shall be warned by the referee that a third failure will result in the frame
        being awarded to his opponent". The warning comes with the replacement after the second
        miss; the frame goes on the third failure. So the award is taken right after a FOUL AND
        A MISS that made the count 3 or more (keyed while the warning stood: ``misses`` counts
        on only from the replaced position), to the side that did not miss; anything else is
        refused. The position right after such a foul still holds the position to replace
        (``before_miss``) and the offender; any later event (``replace``, ``play_again``, a
        stroke) clears one or the other."""
        if e.match:
            raise IllegalEvent("award: a third miss awards the frame, not the match (Section 3 Rule 14(c)(ii))",
                               short="miss_frame_only")
        if p.misses < 3 or p.offender is None or p.before_miss is None or p.fouled_before_stroke:
            raise IllegalEvent("award: 'reason': \"miss\" is taken right after the third failure: a FOUL AND A "
                               "MISS keyed after the warning, which comes when the offender is asked to play again "
                               "from the original position after his second miss (Section 3 Rule 14(c)(ii))",
                               short="no_miss_warning")
        if p.rotation[p.offender][0] == e.side:
            raise IllegalEvent(f"award: {self.setup.names[e.side]} made the misses; the frame goes to the "
                               "opponent (Section 3 Rule 14(c)(ii))", short="award_to_opponent")

    def _respotted_black(self, p: Position, e: RespottedBlack) -> Position:
        if not p.respotted_black or p.turn is not None or p.frame_over:
            raise IllegalEvent("respotted_black is entered when a tie has re-spotted the black "
                               "(Section 3 Rule 4(b))", short="respot_not_now")
        if e.striker not in (0, 1):
            raise IllegalEvent(f"respotted_black: 'striker' is side 0 or 1, not {e.striker}", short="invalid")
        if e.player is None:
            # Rule 17(d): the order of play continues as in the frame; by default the side's
            # next player in that order.
            last = p.last_turn if p.last_turn is not None else 0
            turn = next_of_side(p.rotation, last, e.striker)
        else:
            matches = [i for i, (s, name) in enumerate(p.rotation) if s == e.striker and name == e.player]
            if not matches:
                raise IllegalEvent(f"respotted_black: {e.player!r} does not play for "
                                   f"{self.setup.names[e.striker]}", short="wrong_player")
            turn = matches[0]
        return p._replace(turn=turn, brk=0)

    def _rerack(self, p: Position, e: Rerack) -> Position:
        if p.frame_over:
            raise IllegalEvent("the frame is over: nothing to re-rack", short="frame_over")
        # Section 3 Rule 16: scores nullified, balls re-set, the same player breaks and the
        # established order of play is kept, "subject to Section 3 Rule 3(d)(iii)": a frame
        # started by the wrong side is re-started by the correct one (and 3(d)(i): after one
        # stroke and no foul, the referee restarts it correctly: a rerack).
        start = self._frame_start(p.frame, p.frames, p.totals, p.high_breaks)
        if p.breaker != start.breaker:
            return start._replace(strokes=p.strokes)
        return start._replace(rotation=p.rotation, strokes=p.strokes)

    def _started_by(self, p: Position, e: StartedBy) -> Position:
        """Section 3 Rule 3(d)(ii): a frame started by the wrong side "shall continue in the
        normal way if another stroke has been played, or if a foul is committed after the
        completion of the first stroke, with the correct order of starting being resumed in the
        following frame such that one player or side will have started in three consecutive
        frames". The side that really broke is at the table from the start of the frame (keyed
        at once, or inserted there later with ``amend``, so the strokes are credited to it)."""
        if e.side not in (0, 1):
            raise IllegalEvent(f"started_by: 'side' is 0 or 1, not {e.side}", short="invalid")
        if p.frame_over or p.strokes or p.turn != 0:
            raise IllegalEvent("started_by goes before the frame's first stroke: enter it there with amend "
                               "(insert) if the frame is under way (Section 3 Rule 3(d))", short="started_by_first")
        if e.side == p.breaker:
            raise IllegalEvent(f"started_by: {self.setup.names[e.side]} break this frame already",
                               short="breaks_already")
        return p._replace(breaker=e.side, rotation=default_rotation(self.setup, e.side))

    def _order(self, p: Position, e: Order) -> Position:
        if not self.setup.doubles:
            raise IllegalEvent("order is for four-handed snooker only (Section 3 Rule 17)", short="doubles_only")
        if p.strokes or p.frame_over:
            raise IllegalEvent("the order of play is set before the first stroke of a frame and kept "
                               "throughout it (Section 3 Rule 17(a))", short="order_set")
        return p._replace(rotation=rotation_from_order(self.setup, p.breaker, e.players), turn=0)

    def _next_frame(self, p: Position, e: NextFrame) -> Position:
        if not p.frame_over:
            raise IllegalEvent("the frame is not over: next_frame follows its end "
                               "(Section 2 Rule 1, Section 3 Rule 4)", short="frame_not_over")
        return self._frame_start(p.frame + 1, p.frames, p.totals, p.high_breaks)

    # -- small helpers ---------------------------------------------------------------

    @staticmethod
    def _add(pair: tuple[int, int], side: int, points: int) -> tuple[int, int]:
        return (pair[0] + points, pair[1]) if side == 0 else (pair[0], pair[1] + points)

    @staticmethod
    def _set(pair: tuple[int, int], side: int, value: int) -> tuple[int, int]:
        return (value, pair[1]) if side == 0 else (pair[0], value)

    @staticmethod
    def _high(high: tuple[int, int], side: int, brk: int) -> tuple[int, int]:
        if brk <= high[side]:
            return high
        return (brk, high[1]) if side == 0 else (high[0], brk)

    # -- the state the boards show -----------------------------------------------------

    def view(self, p: Position, seq: int) -> SnookerState:
        points_left = remaining(p)
        # A finished frame's points are already in ``totals``.
        totals = p.totals if p.frame_over else (p.totals[0] + p.scores[0], p.totals[1] + p.scores[1])
        if not self.aggregate:
            required = snookers_required(p, points_left)
        elif self._last_frame(p):
            # state.md: in aggregate play only the match totals decide, so only in the last frame,
            # with the totals of the frames before counting (Section 3 Rule 1(g)(ii)).
            required = snookers_required(p, points_left, p.totals)
        else:
            required = None
        striker, player = (None, None) if p.turn is None else p.rotation[p.turn]
        return new_state(
            seq, self._sides(p.scores, p.frames, p.high_breaks, totals), p.frame, self._best_of, self._race_to,
            self.aggregate, p.breaker, striker, player, p.brk, p.reds, p.colours, p.ball_on, p.free_ball,
            p.misses, _missed_by(p), points_left, required, p.respotted_black, p.frame_over, p.frame_winner,
            p.match_over, p.match_winner, self._order_of_play(p.rotation), self.setup.shot_clock,
        )

    def _order_of_play(self, rotation: tuple[tuple[int, str], ...]) -> tuple[str, ...]:
        """The state's ``order``: the same until the order of play changes (a new frame, ``order``)."""
        if rotation is not self._rotation:
            self._rotation, self._order_now = rotation, order_names(rotation)
        return self._order_now

    def _sides(self, scores: tuple[int, int], frames: tuple[int, int], high: tuple[int, int],
               totals: tuple[int, int]) -> tuple[SnookerSide, SnookerSide]:
        """Both sides' state. A side is built again only when a figure of its own changed: a
        pot or a foul changes one side, a miss neither. Each side is a frozen value, and
        building frozen values is most of what the state after every event costs
        (``bench/engine.py``; docs/performance.md, issue 25)."""
        last = self._sides_now
        a = _side(last[0], scores[0], frames[0], high[0], totals[0])
        b = _side(last[1], scores[1], frames[1], high[1], totals[1])
        if a is not last[0] or b is not last[1]:
            self._sides_now = last = (a, b)
        return last


def _side(last: SnookerSide, score: int, frames: int, high: int, total: int) -> SnookerSide:
    """``last`` if its figures are these, else a new side with them."""
    if last.score == score and last.frames == frames and last.high_break == high and last.total == total:
        return last
    return SnookerSide(last.name, last.players, score, frames, high, total)
