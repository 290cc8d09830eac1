"""What a sequence of keys says: the calls of the referee and the marker, key by key, as a
pure :class:`Grammar` a game. The keys: docs/keymaps.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import ClassVar, Literal, TypeAlias

from cueboard.engine import Event
from cueboard.engine.blackball import Blackball
from cueboard.engine.blackball.events import ClockHold, ClockResume, Loss, Touching
from cueboard.engine.blackball.events import Foul as BlackballFoul
from cueboard.engine.blackball.events import NoPot as BlackballNoPot
from cueboard.engine.blackball.events import Rerack as BlackballRerack
from cueboard.engine.events import Award, Concede, NextFrame, Pot
from cueboard.engine.json_value import JsonObject
from cueboard.engine.registry import GameType
from cueboard.engine.snooker import Snooker
from cueboard.engine.snooker.events import Claim, Order, PlayAgain, Replace, RespottedBlack, StartedBy
from cueboard.engine.snooker.events import Foul as SnookerFoul
from cueboard.engine.snooker.events import NoPot as SnookerNoPot
from cueboard.engine.snooker.events import Rerack as SnookerRerack
from cueboard.engine.state import SnookerState, State

# Actions every keymap may use, handled by the keymap itself whatever the game.
UNDO, REDO, CLEAR, SHIFT = "UNDO", "REDO", "CLEAR", "SHIFT"
# Commands for the daemon rather than events for the engine: NEW_MATCH (confirmed with OK
# or NEW_MATCH again, so a stray press never ends a match) starts a match in the table's
# default format; CLOCK starts the shot clock for the next shot, CLOCK_HOLD stops it where
# it is (a referee's stoppage) and CLOCK_RESUME runs it on from there.
NEW_MATCH, CLOCK, CLOCK_HOLD, CLOCK_RESUME = "NEW_MATCH", "CLOCK", "CLOCK_HOLD", "CLOCK_RESUME"


@dataclass(frozen=True, slots=True)
class NewMatch:
    """NEW MATCH, confirmed: the daemon starts a match in the table's default format (or the
    fixture handed to the table). Not an event of the log: a match line starts a new one."""

    def to_json(self) -> JsonObject:
        """The same command as a line from the network (docs/mqtt.md)."""
        return {"type": "new_match"}


@dataclass(frozen=True, slots=True)
class ClockCommand:
    """A shot clock key, for the daemon: ``start`` the clock for the next shot, ``hold`` it
    where it is, ``resume`` it from there. In no log (where a game's rules put the referee's
    holds in the log, the key makes that game's event instead: :meth:`Grammar.clock_event`)."""

    action: Literal["start", "hold", "resume"]

    def to_json(self) -> JsonObject:
        """The same command as a line from the network (docs/mqtt.md)."""
        return {"type": "clock", "action": self.action}


TableCommand: TypeAlias = NewMatch | ClockCommand
"""A finished call that is the daemon's to carry out, not an event for the engine."""

CLOCK_COMMANDS: Mapping[str, ClockCommand] = {
    CLOCK: ClockCommand("start"),
    CLOCK_HOLD: ClockCommand("hold"),
    CLOCK_RESUME: ClockCommand("resume"),
}
"""The daemon command each clock key makes, at once and only with nothing pending."""
COMMON_ACTIONS = frozenset({UNDO, REDO, CLEAR, SHIFT, NEW_MATCH, *CLOCK_COMMANDS})

PLUS, OK = "PLUS", "OK"

LEGENDS: dict[str, str] = {
    "PLUS": "+", "FREE_BALL": "FREE BALL", "NO_POT": "NO POT", "PLAY_AGAIN": "PLAY AGAIN",
    "NEXT_FRAME": "NEXT FRAME", "RESPOTTED_BLACK": "RE-SPOT BLACK", "ILLEGAL_BREAK": "ILLEGAL BREAK",
    "NINE_BALL": "NINE BALL", "NEW_MATCH": "NEW MATCH", "BEFORE_STROKE": "BEFORE STROKE",
    "CLOCK_HOLD": "HOLD CLOCK", "CLOCK_RESUME": "RESUME CLOCK",
    "RERACK": "RE-RACK", "STARTED_BY": "STARTED BY",
}


def legend(action: str) -> str:
    """What the key is called on the box and the display: ``PLUS`` -> ``+``."""
    return LEGENDS.get(action, action.replace("_", " "))


# -- keys in messages ---------------------------------------------------------------------
# The grammar's refusals and prompts name keys as tokens, ``<FOUL>``, and may put what only
# some devices have in brackets, ``then <FOUL> again[ or <OK>]``. The keymap of the device
# words them (``Keymap.words``): ``+ (SHIFT RED)`` on a referee box whose + is a shifted
# key, ``1 (RED)`` where the balls are the numbers, and a bracketed part only where the
# device has its keys. So a referee reads the keys of his own box.

_KEY = re.compile(r"<([A-Z0-9_]+)>")
_OPTIONAL = re.compile(r"\[([^\[\]]*)\]")


def key(action: str) -> str:
    """An action as a message names it, for the device's keymap to word: ``<FOUL>``."""
    return f"<{action}>"


def words(text: str, name: Callable[[str], str | None] = legend) -> str:
    """``text`` with each ``<ACTION>`` named by ``name`` (None: the device has no such key)
    and each ``[...]`` part kept, without its brackets, only if the device has all its keys.

    >>> words("then <FOUL> again[ or <OK>]")
    'then FOUL again or OK'
    >>> words("then <FOUL> again[ or <OK>]", lambda a: None if a == "OK" else legend(a))
    'then FOUL again'
    """
    def optional(m: re.Match[str]) -> str:
        part = m.group(1)
        return part if all(name(a) is not None for a in _KEY.findall(part)) else ""

    return _KEY.sub(lambda m: name(m.group(1)) or legend(m.group(1)), _OPTIONAL.sub(optional, text))


@dataclass(frozen=True, slots=True)
class Refusal:
    """A key that makes no event where it was pressed, and why (for the display, with a beep).
    ``short``: the same in a few words for the boards (a code of
    :data:`cueboard.engine.errors.SHORTS`, the board word ``refusal.<short>``): most often a key
    the call does not take there, the bar then showing again what the call waits for."""

    reason: str
    short: str = field(default="wrong_key", compare=False)


@dataclass(frozen=True, slots=True)
class Draft:
    """A call being keyed in: what the keys so far have said.

    ``call``: the event it is becoming (``pot``, ``foul``, ``award`` ...; ``match`` for
    the MATCH key that must be followed by CONCEDE or AWARD). ``group``: a ``+`` group
    is open (balls potted together; in a snooker foul, the reds that went off).
    """

    call: str
    balls: tuple[str, ...] = ()
    group: bool = False
    miss: bool = False
    free_ball: bool = False
    reds_off: int = 0
    match: bool = False
    numbers: tuple[int, ...] = ()
    nine_ball: bool = False
    before_stroke: bool = False


Step = Draft | Event | TableCommand | Refusal
"""What one more key makes of a call: the call so far, the finished call, or a refusal."""


class Grammar:
    """The key sequences of one game. ``actions``: the actions its keymaps may give a key
    (besides :data:`COMMON_ACTIONS`); ``holdable``: those that never finish an event
    when pressed, so a hold can take the press back and mean something else.

    Pure: no I/O, no clock. Each game has a :class:`Grammar` that takes the call keyed in
    so far (a :class:`Draft`, or None), one more key's action and the match's state (the
    engine's typed :data:`~cueboard.engine.state.State`), and returns the call with that key
    added (still a :class:`Draft`), the finished call, or a :class:`Refusal` saying why that key
    makes no event here. A finished call is an engine event (``cueboard.engine.events`` and the
    game's own, frozen dataclasses: the daemon applies it as it is), or a :data:`TableCommand`
    for what is the daemon's rather than the engine's (a new match, the shot clock). The grammar
    only builds events; whether an event is allowed now is the engine's to say (it names the
    rule). The keys are in docs/keymaps.md.

    >>> from cueboard.engine import Match, to_json
    >>> state = Match.from_json({"type": "match", "game": "snooker", "sides": ["A", "B"]}).state()
    >>> g = SnookerKeys()
    >>> d = g.step(None, "FOUL", state)
    >>> foul = g.step(d, "BLUE", state)
    >>> type(foul).__name__, foul.points, to_json(foul)
    ('Foul', 5, {'type': 'foul', 'points': 5})
    >>> g.step(d, "NO_POT", state).reason
    'a foul ends with the ball that sets its penalty: its value, at least 4 (Section 3 Rule 10)'
    """

    game: ClassVar[str]
    actions: ClassVar[frozenset[str]]
    holdable: ClassVar[frozenset[str]]

    def step(self, draft: Draft | None, action: str, state: State) -> Step:
        if draft is None:
            return self.start(action, state)
        handler = getattr(self, f"_{draft.call}")
        result: Step = handler(draft, action, state)
        return result

    def start(self, action: str, state: State) -> Step:
        raise NotImplementedError

    def needs(self, draft: Draft, state: State) -> str:
        """What the display asks for next."""
        raise NotImplementedError

    def number(self, action: str) -> int | None:
        """The number a key stands for where a side or a player is asked for."""
        return int(action) if action.isdigit() else None

    def clock_event(self, action: str) -> Event | None:
        """The event of the log a clock key makes in this game, where the rules give the
        referee's holds a place in the log (blackball rule 8a); None: the daemon command of
        :data:`CLOCK_COMMANDS`."""
        return None

    # -- calls both games share ------------------------------------------------------------

    def ball(self, action: str) -> str | None:
        """The ball a key names, or None."""
        raise NotImplementedError

    def pot_ball(self, action: str) -> str | None:
        """The ball a key adds to a ``+`` group of balls potted together."""
        return self.ball(action)

    def _pot(self, d: Draft, a: str, state: State) -> Step:
        ball = self.pot_ball(a)
        if ball is not None:
            return replace(d, balls=(*d.balls, ball))
        if a in (PLUS, OK):
            if not d.balls:
                return Refusal("press the balls potted in the stroke between the two <PLUS>")
            return _pot(d.balls)
        return Refusal("between the two <PLUS> go only the balls potted in the stroke")

    def _match(self, d: Draft, a: str, state: State) -> Step:
        if a == "MATCH":
            return d
        if a == "CONCEDE":
            return Concede(match=True)
        if a == "AWARD":
            return Draft("award", match=True)
        return Refusal("<MATCH> goes before <CONCEDE>[, or before <AWARD> and the side]")

    def _award(self, d: Draft, a: str, state: State) -> Step:
        if a == "MATCH":
            return replace(d, match=True)
        n = self.number(a)
        if n is None:
            return Refusal("<AWARD> is followed by the side it goes to: <1> or <2>")
        if n not in (1, 2):
            return Refusal(f"the frame is awarded to side <1> or <2>, not {n}")
        return Award(side=n - 1, match=d.match)

    def _new_match(self, d: Draft, a: str, state: State) -> Step:
        if a in (OK, NEW_MATCH):
            return NewMatch()
        return Refusal("<NEW_MATCH> is confirmed with <NEW_MATCH> again[ or <OK>]; <UNDO>[ or <CLEAR>] "
                       "keeps this match")

    def _need_side(self, d: Draft) -> str:
        return "the side: <1> or <2>"


def _time_foul(game: GameType) -> Event:
    """The event the game enters for a shot not played in time."""
    foul = game.time_foul()
    assert foul is not None, game.name
    return foul


def _pot(balls: tuple[str, ...]) -> Pot:
    return Pot(balls=balls)


# -- snooker --------------------------------------------------------------------------------

SNOOKER_BALLS = Snooker.balls
"""By value, 1 to 7 (Section 3 Rule 1(a)): the digit keys of a keypad are these balls."""


class SnookerKeys(Grammar):
    game = "snooker"
    _SIMPLE: ClassVar[dict[str, Event]] = {
        "NO_POT": SnookerNoPot(), "PLAY_AGAIN": PlayAgain(), "REPLACE": Replace(), "CLAIM": Claim(),
        "RERACK": SnookerRerack(), "NEXT_FRAME": NextFrame(), "CONCEDE": Concede(),
    }
    actions = frozenset({
        *(b.upper() for b in SNOOKER_BALLS), *(str(n) for n in range(1, 8)),
        "FREE_BALL", "FOUL", "MISS", PLUS, OK, *_SIMPLE, "MATCH", "AWARD", "RESPOTTED_BLACK", "ORDER",
        "BEFORE_STROKE", "STARTED_BY",
    })
    holdable = frozenset({"FOUL", "MISS", "MATCH", "AWARD", "RESPOTTED_BLACK", "ORDER", "BEFORE_STROKE",
                          "STARTED_BY"})

    @staticmethod
    def ball(action: str) -> str | None:
        """The ball a key pots: RED..BLACK, or the digit of its value."""
        if action.lower() in SNOOKER_BALLS:
            return action.lower()
        if action.isdigit() and 1 <= int(action) <= 7:
            return SNOOKER_BALLS[int(action) - 1]
        return None

    def number(self, action: str) -> int | None:
        ball = self.ball(action)
        return None if ball is None else SNOOKER_BALLS.index(ball) + 1

    def start(self, a: str, state: State) -> Step:
        ball = self.ball(a)
        if ball is not None:
            return _pot((ball,))
        if a == "FREE_BALL":
            # The one key whose meaning hangs on the state: with a free ball to take it is
            # potted (Section 3 Rule 12(b)); otherwise the referee is calling one on a foul.
            free_ball = isinstance(state, SnookerState) and state.free_ball
            return _pot(("free",)) if free_ball else Draft("foul", free_ball=True)
        if a == "FOUL":
            return Draft("foul")
        if a == "MISS":
            return Draft("foul", miss=True)
        if a == "BEFORE_STROKE":
            # Section 3 Rule 14(d): a foul while preparing to play from a replaced position.
            return Draft("foul", before_stroke=True)
        if a == PLUS:
            return Draft("pot", group=True)
        if a in self._SIMPLE:
            return self._SIMPLE[a]
        if a in ("MATCH", "AWARD", "RESPOTTED_BLACK", "ORDER", "STARTED_BY"):
            return Draft(a.lower())
        if a == OK:
            return Refusal("nothing to finish", short="nothing_to_finish")
        return Refusal(f"{key(a)} is not a snooker key")

    def _started_by(self, d: Draft, a: str, state: State) -> Step:
        # Section 3 Rule 3(d)(ii): the side that really started the frame.
        n = self.number(a)
        if n not in (1, 2):
            return Refusal("<STARTED_BY> is followed by the side that started the frame: <1> or <2> "
                           "(Section 3 Rule 3(d))")
        return StartedBy(side=n - 1)

    def pot_ball(self, action: str) -> str | None:
        # Section 3 Rule 12: the free ball can go down with reds in one stroke.
        return "free" if action == "FREE_BALL" else self.ball(action)

    def _foul(self, d: Draft, a: str, state: State) -> Step:
        ball = self.ball(a)
        if d.group:
            if ball == "red":
                return replace(d, reds_off=d.reds_off + 1)
            if not d.reds_off:
                return Refusal("after <FOUL>, <PLUS> counts the reds that left the table: press <RED> for each")
            if a in (PLUS, OK):
                return replace(d, group=False)
            if ball is not None:
                return self._foul_event(d, ball)
            # Section 3 Rule 3(h): only reds stay off after a foul; colours are re-spotted.
            return Refusal("between the two <PLUS> go only the reds that left the table")
        if a == "FOUL":
            return d
        if a == "MISS":
            return replace(d, miss=True)
        if a == "BEFORE_STROKE":
            return replace(d, before_stroke=True)
        if a == "FREE_BALL":
            return replace(d, free_ball=True)
        if a == PLUS:
            return replace(d, group=True)
        if ball is not None:
            return self._foul_event(d, ball)
        return Refusal("a foul ends with the ball that sets its penalty: its value, at least 4 "
                       "(Section 3 Rule 10)")

    @staticmethod
    def _foul_event(d: Draft, ball: str) -> Event:
        # Section 3 Rule 10: the penalty is the value of the ball concerned, at least 4.
        points = Snooker.foul_points(ball)
        assert points is not None, ball
        return SnookerFoul(points=points, reds_off=d.reds_off, miss=d.miss, free_ball=d.free_ball,
                           before_stroke=d.before_stroke)

    @staticmethod
    def _players(state: State) -> list[tuple[int, str]]:
        """(side, name) of every player, numbered from 1 in this order: side 1's, then side 2's."""
        return [(i, name) for i in (0, 1) for name in state.sides[i].players]

    def _respotted_black(self, d: Draft, a: str, state: State) -> Step:
        n = self.number(a)
        players = self._players(state)
        if len(players) > 2:
            # Four-handed (Section 3 Rule 17(d)): the player who plays the black, 1-4.
            if n is None or not 1 <= n <= len(players):
                return Refusal(f"<RESPOTTED_BLACK> is followed by the player who plays it: <1> to "
                               f"<{len(players)}>")
            side, name = players[n - 1]
            return RespottedBlack(striker=side, player=name)
        if n is None or n not in (1, 2):
            return Refusal("<RESPOTTED_BLACK> is followed by the side the lot chose: <1> or <2> "
                           "(Section 3 Rule 4(b))")
        return RespottedBlack(striker=n - 1)

    def _order(self, d: Draft, a: str, state: State) -> Step:
        players = self._players(state)
        n = self.number(a)
        if n is None or not 1 <= n <= len(players):
            return Refusal(f"<ORDER> is followed by every player's number in the order of play: "
                           f"<1> to <{len(players)}>")
        if n in d.numbers:
            return Refusal(f"player {n} ({players[n - 1][1]}) is in the order already")
        numbers = (*d.numbers, n)
        if len(numbers) < len(players):
            return replace(d, numbers=numbers)
        return Order(players=tuple(players[k - 1][1] for k in numbers))

    def needs(self, d: Draft, state: State) -> str:
        if d.call == "pot":
            return "the balls potted together, then <PLUS>"
        if d.call == "foul":
            if d.group:
                return "<RED> for each red off, then <PLUS> (or the penalty ball)"
            return "the ball that sets the penalty (4 to 7)"
        if d.call == "match":
            return "<CONCEDE>[, or <AWARD> and the side]"
        if d.call in ("award", "started_by"):
            return self._need_side(d)
        players = self._players(state)
        if d.call == "respotted_black":
            return "who plays the black: " + (f"player <1> to <{len(players)}>" if len(players) > 2
                                               else "side <1> or <2>")
        return f"player {len(d.numbers) + 1} of {len(players)} in the order of play"


# -- blackball ------------------------------------------------------------------------------

BLACKBALL_BALLS = Blackball.balls


class BlackballKeys(Grammar):
    game = "blackball"
    _SIMPLE: ClassVar[dict[str, Event]] = {
        "NO_POT": BlackballNoPot(),
        # Rule 4b: a break that was not valid is entered as a no_pot with legal false.
        "ILLEGAL_BREAK": BlackballNoPot(legal=False),
        # Rule 8a: the shot clock ran out.
        "TIME": _time_foul(Blackball),
        "LOSS": Loss(),
        "CONCEDE": Concede(),
        "NEXT_FRAME": NextFrame(),
    }
    actions = frozenset({
        "RED", "YELLOW", "BLACK", "1", "2", PLUS, OK, "FOUL", *_SIMPLE, "MATCH", "AWARD",
        "RERACK", "NINE_BALL", "TOUCHING",
    })
    holdable = frozenset({"MATCH", "AWARD", "NINE_BALL", "TOUCHING"})

    def clock_event(self, action: str) -> Event | None:
        # Rule 8a: the referee's suspension of the time is a ruling of the log (its reason,
        # when the referee gives one, is keyed on the desk: the keys only hold and resume).
        return {CLOCK_HOLD: ClockHold(), CLOCK_RESUME: ClockResume()}.get(action)

    @staticmethod
    def ball(action: str) -> str | None:
        return action.lower() if action.lower() in BLACKBALL_BALLS else None

    def start(self, a: str, state: State) -> Step:
        ball = self.ball(a)
        if ball is not None:
            return _pot((ball,))
        if a in self._SIMPLE:
            return self._SIMPLE[a]
        if a == PLUS:
            return Draft("pot", group=True)
        if a == "FOUL":
            return Draft("foul")
        if a in ("MATCH", "AWARD", "RERACK", "TOUCHING"):
            return Draft(a.lower())
        if a == "NINE_BALL":
            return Draft("rerack", nine_ball=True)
        if self.number(a) is not None:
            return Refusal(f"{a} is a side: it follows <AWARD> or <RERACK>")
        if a == OK:
            return Refusal("nothing to finish", short="nothing_to_finish")
        return Refusal(f"{key(a)} is not a blackball key")

    def _foul(self, d: Draft, a: str, state: State) -> Step:
        ball = self.ball(a)
        if ball is not None:
            # Rule 4f: what went down in the foul stays down; the engine needs to know.
            return replace(d, balls=(*d.balls, ball))
        if a in ("FOUL", OK):
            return BlackballFoul(balls=d.balls)
        if a == "TIME":
            foul = _time_foul(Blackball)
            assert isinstance(foul, BlackballFoul), foul
            return replace(foul, balls=d.balls)
        return Refusal("after <FOUL> press the balls that went down, if any, then <FOUL> again[ or <OK>]")

    def _touching(self, d: Draft, a: str, state: State) -> Step:
        ball = self.ball(a)
        if ball is None:
            return Refusal("<TOUCHING> is followed by the ball the cue ball touches: <RED>, <YELLOW> or <BLACK> "
                           "(rule 4i)")
        return Touching(ball=ball)

    def _rerack(self, d: Draft, a: str, state: State) -> Step:
        if a == "NINE_BALL":
            return replace(d, nine_ball=True)
        if a in ("RERACK", OK):
            return BlackballRerack(nine_ball=d.nine_ball)
        n = self.number(a)
        if n is not None and n in (1, 2):
            return BlackballRerack(breaker=n - 1, nine_ball=d.nine_ball)
        return Refusal("<RERACK> is followed by the side that breaks (<1> or <2>), or by <RERACK> again"
                       "[ or <OK>] for the same breaker")

    def needs(self, d: Draft, state: State) -> str:
        if d.call == "pot":
            return "the balls potted together, then <PLUS>"
        if d.call == "foul":
            return "the balls that went down, then <FOUL>[ or <OK>]"
        if d.call == "match":
            return "<CONCEDE>[, or <AWARD> and the side]"
        if d.call == "award":
            return self._need_side(d)
        if d.call == "touching":
            return "the ball the cue ball touches: <RED>, <YELLOW> or <BLACK>"
        return "the side that breaks (<1> or <2>), or <RERACK> again for the same breaker"
