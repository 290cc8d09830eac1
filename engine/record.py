"""The match record of ``docs/record.md``: the result sheet, worked out from the event log.
A :class:`Recorder` follows the match event by event (a snapshot after each, so undo and redo
cost the same); :func:`record_of` is the record of a log's events in effect. The rules it
follows: docs/record.md, "Decisions".

>>> from .match import Match
>>> m = Match.from_json({"type": "match", "game": "snooker", "sides": ["Ann", "Bob"], "reds": 6})
>>> recorder = Recorder(m.setup, m.state())
>>> for line in ({"type": "pot", "balls": ["red"], "t": 1_700_000_000}, {"type": "pot", "balls": ["black"]},
...              {"type": "no_pot"}, {"type": "concede", "t": 1_700_000_300}):
...     event = m.parse(line)
...     m.apply(event)
...     changed = recorder.apply(event, m.state())
>>> changed
True
>>> frame = recorder.record()["frames"][0]
>>> frame["scores"], frame["winner"], frame["how"], frame["high_break"], frame["ended"]
([8, 0], 0, 'conceded', [8, 0], '2023-11-14T22:18:20Z')
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, ClassVar, NamedTuple

from .blackball.events import Foul as BlackballFoul
from .blackball.events import Loss
from .blackball.events import NoPot as BlackballNoPot
from .blackball.events import Rerack as BlackballRerack
from .errors import IllegalEvent
from .events import Amend, Award, Concede, Event, Pot, Redo, Undo, to_json
from .json_value import Json, JsonObject
from .match_setup import MatchSetup
from .snooker.events import Claim, Rerack
from .snooker.events import Foul as SnookerFoul
from .snooker.events import NoPot as SnookerNoPot
from .state import BlackballState, SnookerState, State

if TYPE_CHECKING:
    from .match import Correction, Match

BREAKS_FROM = 50
"""Breaks of this many points or more are listed frame by frame, as league sheets ask."""

SCHEMA = 1

SPARES = 4
"""Tails of steps a record keeps for the undo and redo of amends (each up to a match long)."""

STROKES = ("pot", "no_pot", "foul")
"""The events that are strokes played (``frames[i].strokes``)."""

__all__ = ["BREAKS_FROM", "Break", "Count", "FrameRecord", "Recorder", "iso", "match_id", "record_of"]


def iso(t: float | None) -> str | None:
    """A time of the log (Unix seconds) as the record gives it: ISO 8601 UTC, to the second.

    >>> iso(1_700_000_000.9), iso(None)
    ('2023-11-14T22:13:20Z', None)
    """
    if t is None:
        return None
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def match_id(venue: str, table: str, started: float) -> str:
    """The match's id (record.md): ``<venue>/<table>/<its first event's time>``, to the second
    when that time is a whole second, else to the millisecond: two matches begun within one
    second on one table (a walkover, then the next match handed at once) are two matches.

    >>> match_id("club", "t3", 1_700_000_000), match_id("club", "t3", 1_700_000_000.5346)
    ('club/t3/2023-11-14T22:13:20Z', 'club/t3/2023-11-14T22:13:20.535Z')
    """
    ms = round(started * 1000)
    when = datetime.fromtimestamp(ms // 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{venue}/{table}/{when}Z" if ms % 1000 == 0 else f"{venue}/{table}/{when}.{ms % 1000:03d}Z"


class Break(NamedTuple):
    """Points scored by one player in one turn (Section 2 Rule 8)."""

    side: int
    player: str
    points: int
    frame: int


class Count(NamedTuple):
    """One player's strokes in one frame (the frame's ``counts``, docs/record.md, "Counts")."""

    strokes: int = 0
    pots: int = 0
    safeties: int = 0
    fouls: int = 0
    misses: int = 0
    seconds: float = 0.0
    """His strokes' times added up: each the time from the event before it to the stroke."""
    timed: int = 0
    """His strokes with a time (both it and the event before it have a ``t``)."""


class Stroke(NamedTuple):
    """What one stroke counts, as the game's sheet reads it: pots, safeties, fouls, misses."""

    pots: int = 0
    safeties: int = 0
    fouls: int = 0
    misses: int = 0


class FrameRecord(NamedTuple):
    """A frame that has ended, as the record lists it."""

    frame: int
    breaker: int
    scores: tuple[int, int] | None
    winner: int | None
    how: str
    rule: str | None
    reason: str | None
    breaks: tuple[Break, ...]
    """Every break of the frame, in the order made (the record lists those from ``breaks_from``)."""
    started: float | None
    ended: float | None
    strokes: int
    reracks: int
    balls_left: tuple[int | None, int | None] | None
    counts: tuple[Count, ...] = ()
    """Each player's strokes, the match's players in order (side 0's, then side 1's)."""
    safety_keyed: bool = False
    """A ``no_pot`` of the frame said ``safety`` (true or false): its safeties are known."""


class _Progress(NamedTuple):
    """The record after one event: what has ended, the frame in play, and what the builder
    needs of the state before the next event. Immutable, so each event's is kept for undo."""

    frames: tuple[FrameRecord, ...]
    frames_won: tuple[int, int]
    totals: tuple[int, int] | None
    winner: int | None
    how: str | None
    """How the match ended: ``played``, ``conceded``, ``awarded``; None while it goes on."""
    started: float | None
    ended: float | None
    last_t: float | None
    # The frame in play (since its start or its last re-rack).
    frame_started: float | None
    frame_last_t: float | None
    strokes: int
    reracks: int
    breaks: tuple[Break, ...]
    visit: Break | None
    """The break being made now: the striker's points in this turn so far."""
    # Of the state after this event, what the next event's record reads.
    striker: int | None
    player: str | None
    scores: tuple[int, int] | None
    respotted_black: bool
    break_shot: bool
    frame_over: bool
    # The frame in play's counts, and the time this event carried (the next stroke's is from it).
    counts: tuple[Count, ...]
    safety_keyed: bool
    event_t: float | None


class _Ending(NamedTuple):
    how: str
    rule: str | None
    reason: str | None = None


# -- each game's part --------------------------------------------------------------------


class Sheet:
    """What the record needs to know of one game; one subclass a game, listed in :data:`SHEETS`."""

    game: ClassVar[str]
    points: ClassVar[bool]
    """The game scores points: frames have scores and breaks, the match totals."""

    def scores(self, state: State) -> tuple[int, int] | None:
        return None

    def totals(self, state: State) -> tuple[int, int] | None:
        return None

    def ending(self, event: Event, before: _Progress, state: State) -> _Ending:
        """How the frame that ``event`` has just ended was decided."""
        raise NotImplementedError

    def restarts(self, event: Event, before: _Progress, state: State) -> bool:
        """``event`` re-racked the frame: its scores, breaks and strokes so far are void."""
        raise NotImplementedError

    keys_misses: ClassVar[bool] = False
    """The game has a miss (and a keyed safety) to count: snooker's; else ``counts`` says null."""

    def head(self, setup: MatchSetup) -> JsonObject:
        """The game's own fields at the top of the record."""
        return {}

    def stroke(self, event: Event) -> Stroke:
        """What a stroke (:data:`STROKES`) counts for the player who played it."""
        raise NotImplementedError

    def offender(self, event: Event) -> str | None:
        """The player a foul is charged to when not the striker (his name), else None."""
        return None

    def frame_extra(self, frame: FrameRecord) -> JsonObject:
        return {}


class SnookerSheet(Sheet):
    game = "snooker"
    points = True

    def scores(self, state: State) -> tuple[int, int] | None:
        assert isinstance(state, SnookerState)
        sides = state.sides
        return (sides[0].score, sides[1].score)

    def totals(self, state: State) -> tuple[int, int] | None:
        # The frames finished (and frames forfeited, Section 4 Rule 2(b)); not the frame in play.
        assert isinstance(state, SnookerState)
        sides = state.sides
        if state.frame_over:
            return (sides[0].total, sides[1].total)
        return (sides[0].total - sides[0].score, sides[1].total - sides[1].score)

    def ending(self, event: Event, before: _Progress, state: State) -> _Ending:
        # Section 2 Rule 1: a frame ends by (a) concession, (b) claim, (c) the final pot or foul
        # with only the black left, (d) award; on a re-spotted black, Section 3 Rule 4(b).
        if isinstance(event, Concede):
            return _Ending("conceded", "Section 2 Rule 1(a)")
        if isinstance(event, Claim):
            return _Ending("claimed", "Section 2 Rule 1(b)")
        if isinstance(event, Award):
            # Why it was awarded, when the log says: a third miss (the scores stand) or conduct
            # (the offender's points forfeited).
            rule = {"miss": "Section 3 Rule 14(c)(ii)", "conduct": "Section 4 Rule 2(a)"}.get(
                event.reason or "", "Section 2 Rule 1(d)")
            return _Ending("awarded", rule, event.reason)
        if before.respotted_black:
            return _Ending("respotted_black", "Section 3 Rule 4(b)")
        return _Ending("potted", "Section 2 Rule 1(c)")

    def restarts(self, event: Event, before: _Progress, state: State) -> bool:
        return isinstance(event, Rerack)  # Section 3 Rule 16: the scores nullified

    keys_misses = True

    def stroke(self, event: Event) -> Stroke:
        if isinstance(event, Pot):
            return Stroke(pots=1)
        if isinstance(event, SnookerFoul):
            return Stroke(fouls=1, misses=int(event.miss))  # Section 3 Rule 14: a foul and a miss
        if isinstance(event, SnookerNoPot) and event.safety:
            return Stroke(safeties=1)
        return Stroke()  # a no_pot keyed as a missed pot, or not keyed

    def offender(self, event: Event) -> str | None:
        # Section 3 Rule 2(b)(ii), 14(h): the non-striker's foul; Rule 10(a)(iv): out of turn.
        if isinstance(event, SnookerFoul):
            return event.non_striker or event.out_of_turn
        return None

    def head(self, setup: MatchSetup) -> JsonObject:
        return {"aggregate": setup.option_bool("aggregate", False), "reds": setup.option_int("reds", 15),
                "handicap": list(setup.option_pair("handicap", (0, 0)))}


class BlackballSheet(Sheet):
    game = "blackball"
    points = False

    def ending(self, event: Event, before: _Progress, state: State) -> _Ending:
        if isinstance(event, Concede):
            return _Ending("conceded", None)
        if isinstance(event, Award):
            return _Ending("awarded", "rule 8b" if event.reason == "conduct" else None, event.reason)
        if isinstance(event, Loss):
            return _Ending("loss", "rule 7", event.reason)  # 7c-7f, 4q, 8i: the referee's ruling
        if isinstance(event, BlackballFoul):
            return _Ending("loss", "rule 7a", event.reason)  # a foul that pots the black
        if state.frame_winner == before.striker:
            return _Ending("black", "rule 3")  # the black potted with his group cleared
        return _Ending("loss", "rule 7b")  # the black potted with balls of his group left

    def restarts(self, event: Event, before: _Progress, state: State) -> bool:
        if isinstance(event, BlackballRerack):
            return True
        # Rule 4d: the black potted on the break re-racks, the same player breaking.
        balls: tuple[str, ...] = getattr(event, "balls", ())
        return before.break_shot and "black" in balls and not state.frame_over

    def stroke(self, event: Event) -> Stroke:
        if isinstance(event, Pot):
            return Stroke(pots=1)
        if isinstance(event, BlackballFoul):
            return Stroke(fouls=1)
        if isinstance(event, BlackballNoPot) and not event.legal:
            return Stroke(fouls=1)  # a break that was not valid is treated as a foul (4b(b), 5q)
        return Stroke()

    def frame_extra(self, frame: FrameRecord) -> JsonObject:
        left = frame.balls_left
        return {"reason": frame.reason, "balls_left": None if left is None else list(left)}


SHEETS: dict[str, Sheet] = {sheet.game: sheet for sheet in (SnookerSheet(), BlackballSheet())}


# -- the recorder ------------------------------------------------------------------------


class Recorder:
    """The record of one match, kept up to date event by event (see the module).

    ``setup``: the match line; ``state``: the match's state before its first event (a new
    :class:`~.match.Match`'s ``state()``); ``breaks_from``: the least break a frame lists.
    """

    def __init__(self, setup: MatchSetup, state: State, *, breaks_from: int = BREAKS_FROM) -> None:
        if setup.game not in SHEETS:
            raise IllegalEvent(f"no match record for the game {setup.game!r}", short="invalid")
        self.setup = setup
        self.sheet = SHEETS[setup.game]
        self.breaks_from = breaks_from
        head: JsonObject = {
            "schema": SCHEMA, "game": setup.game,
            "sides": [{"name": side.name, "players": list(side.players)} for side in state.sides],
            "best_of": state.best_of, "race_to": state.race_to,
        }
        head.update(self.sheet.head(setup))
        if setup.fixture is not None:  # handed by the desk (<prefix>/next): the league's archive keys on it
            head["fixture"], head["competition"] = setup.fixture, setup.competition
        if self.sheet.points:
            head["breaks_from"] = breaks_from
        self._head = head
        self._sides = tuple((side.name, side.players) for side in state.sides)
        """Each side's name and players: the head's ``sides``, as a new list for each record."""
        self._players = tuple((n, player) for n, (_, players) in enumerate(self._sides) for player in players)
        """Every player as (side, name), in the order of the frames' ``counts``."""
        self._no_counts = tuple(Count() for _ in self._players)
        first = _Progress(
            frames=(), frames_won=(state.sides[0].frames, state.sides[1].frames),
            totals=self.sheet.totals(state), winner=state.match_winner, how=None, started=None, ended=None,
            last_t=None, frame_started=None, frame_last_t=None, strokes=0, reracks=0, breaks=(), visit=None,
            striker=state.striker, player=state.player, scores=self.sheet.scores(state),
            respotted_black=_respotted_black(state), break_shot=_break_shot(state),
            frame_over=state.frame_over, counts=self._no_counts, safety_keyed=False, event_t=None,
        )
        self._steps: list[tuple[Event | None, _Progress]] = [(None, first)]
        self._redo: list[tuple[Event | None, _Progress]] = []
        self._spares: list[tuple[tuple[Event | None, _Progress], list[tuple[Event | None, _Progress]]]] = []
        """Steps :meth:`follow` dropped, with the step they followed: an amend's undo or redo
        takes them back without working them out again."""
        self.corrections: tuple[Correction, ...] = ()
        """The match's amends in effect (``Match.corrections``), as of the last one followed."""

    @classmethod
    def of_match(cls, match: Match, *, breaks_from: int = BREAKS_FROM) -> Recorder:
        """The record of ``match``'s events in effect, built by playing them again on a new
        match (for a daemon that resumes from its journal, and for :func:`record_of`)."""
        from .match import Match

        fresh = Match(match.setup)
        recorder = cls(match.setup, fresh.state(), breaks_from=breaks_from)
        for event in match.events:
            fresh.push(event)
            recorder.push(event, fresh.state())
        recorder.corrections = match.corrections
        return recorder

    @property
    def seq(self) -> int:
        """Events in effect in the record: the match's ``seq`` when the two are in step."""
        return len(self._steps) - 1

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    # -- changing ---------------------------------------------------------------------

    def apply(self, event: Event, state: State, match: Match | None = None) -> bool:
        """Follow the match through one line of its log, once the match has applied it:
        ``undo`` takes the record back, ``redo`` puts back what it took, any other event is
        pushed with ``state``, the match's state after it. True when the record changed in
        what it publishes: a frame or the match ended, or an undo or redo crossed such an end.

        ``match``: only needed for a ``redo`` of an undo this recorder did not see (it was
        built with :meth:`of_match` after the undo): the redone event is read from it; and for
        an ``amend``, or the undo or redo of one: the events it changed are read from it."""
        if isinstance(event, Amend) or (isinstance(event, Undo | Redo) and match is not None
                                        and match.last_correction is not None):
            if match is None or match.last_correction is None:
                raise IllegalEvent("amend: the record follows a correction from the match; pass the match",
                                   short="invalid")
            return self.follow(match, match.last_correction)
        if isinstance(event, Undo):
            return self.pop()
        if isinstance(event, Redo):
            if self._redo:
                return self.redo()
            if match is None or match.seq != self.seq + 1:
                raise IllegalEvent("redo: the record did not see that event undone; pass the match", short="invalid")
            return self.push(match.events[-1], state, keep_redo=True)
        return self.push(event, state)

    def push(self, event: Event, state: State, *, keep_redo: bool = False) -> bool:
        """Record a game event the match has applied; ``state``: the match's state after it."""
        before = self._steps[-1][1]
        after = self._next(before, event, state)
        self._steps.append((event, after))
        if not keep_redo:
            self._redo.clear()
        return _changed(before, after)

    def follow(self, match: Match, start: int) -> bool:
        """The match's events in effect changed from index ``start`` on (an amend, or the undo or
        redo of one): the record worked out again from there, with the state the match gives
        after each event, and the corrections in effect taken over. True: it changed."""
        anchor = self._steps[start]
        dropped = self._steps[start + 1:]
        events = match.events
        tail = events[start:]
        del self._steps[start + 1:]
        self._redo.clear()
        for n, (kept_anchor, steps) in enumerate(self._spares):
            # The undo or redo of an amend puts back events this record followed before, from
            # the same step: its steps then are what working them out again would give.
            if kept_anchor is anchor and len(steps) == len(tail) and all(
                    step[0] is event for step, event in zip(steps, tail, strict=True)):
                del self._spares[n]
                self._steps += steps
                break
        else:
            for i in range(start, len(events)):
                self.push(events[i], match.state_at(i + 1), keep_redo=True)
        self._spares = [(anchor, dropped), *self._spares][:SPARES]
        self.corrections = match.corrections
        return True

    def pop(self) -> bool:
        """Take back the last event (the match's ``undo``)."""
        if len(self._steps) < 2:
            raise IllegalEvent("nothing to undo", short="nothing_to_undo")
        step = self._steps.pop()
        self._redo.append(step)
        return _changed(step[1], self._steps[-1][1])

    def redo(self) -> bool:
        """Put back the last event taken back (the match's ``redo``)."""
        if not self._redo:
            raise IllegalEvent("nothing to redo", short="nothing_to_redo")
        step = self._redo.pop()
        before = self._steps[-1][1]
        self._steps.append(step)
        return _changed(before, step[1])

    def _next(self, p: _Progress, event: Event, state: State) -> _Progress:
        sheet = self.sheet
        t = event.t
        last_t = p.last_t if t is None else t
        frames_won = (state.sides[0].frames, state.sides[1].frames)
        scores = sheet.scores(state)
        totals = sheet.totals(state)
        # The pairs of the last event again when unchanged: a snapshot is kept per event.
        frames_won = p.frames_won if frames_won == p.frames_won else frames_won
        totals = p.totals if totals == p.totals else totals
        scores = p.scores if scores == p.scores else scores
        how, ended = p.how, p.ended
        if state.match_over and how is None:
            how = "played"
            if isinstance(event, Concede | Award) and event.match:
                how = "conceded" if isinstance(event, Concede) else "awarded"  # Section 4 Rule 2(b)
            ended = last_t
        elif not state.match_over:
            how, ended = None, None
        # The frame in play: what the event leaves of it (each branch below), then one _Progress
        # with every field named.
        frames, frame_started, frame_last_t = p.frames, p.frame_started, p.frame_last_t
        strokes, reracks, breaks, visit = p.strokes, p.reracks, p.breaks, p.visit
        counts, keyed = p.counts, p.safety_keyed
        if p.frame_over:
            # Between frames (next_frame, or the match awarded once the frame is over): the
            # interval belongs to neither frame.
            pass
        elif sheet.restarts(event, p, state):
            frame_started, frame_last_t, strokes, reracks, breaks, visit = None, None, 0, reracks + 1, (), None
            counts, keyed = self._no_counts, False
        else:
            frame_started = frame_started if frame_started is not None else t
            frame_last_t = frame_last_t if t is None else t
            if event.TYPE in STROKES:
                strokes += 1
                counts = self._counted(counts, event, p)
                keyed = keyed or getattr(event, "safety", None) is not None
            if isinstance(event, Pot) and sheet.points and p.striker is not None and p.player is not None:
                assert scores is not None and p.scores is not None
                points = scores[p.striker] - p.scores[p.striker]
                if visit is None:
                    visit = Break(p.striker, p.player, points, state.frame)
                else:
                    visit = visit._replace(points=visit.points + points)
                if state.frame_over or state.player != p.player:
                    breaks, visit = _close(breaks, visit), None  # the frame ended, or a re-spotted black
            elif visit is not None:
                breaks, visit = _close(breaks, visit), None  # any other event ends the turn
            if state.frame_over:
                frames = (*frames, self._frame_record(event, p, state, scores, breaks, frame_started,
                                                      frame_last_t, strokes)._replace(counts=counts,
                                                                                      safety_keyed=keyed))
                frame_started, frame_last_t, strokes, reracks, breaks, visit = None, None, 0, 0, (), None
                counts, keyed = self._no_counts, False
        return _Progress(
            frames=frames, frames_won=frames_won, totals=totals, winner=state.match_winner, how=how,
            started=p.started if p.started is not None else t, ended=ended, last_t=last_t,
            frame_started=frame_started, frame_last_t=frame_last_t, strokes=strokes, reracks=reracks,
            breaks=breaks, visit=visit, striker=state.striker, player=state.player, scores=scores,
            respotted_black=_respotted_black(state), break_shot=_break_shot(state), frame_over=state.frame_over,
            counts=counts, safety_keyed=keyed, event_t=t,
        )

    def _counted(self, counts: tuple[Count, ...], event: Event, p: _Progress) -> tuple[Count, ...]:
        """``counts`` with the stroke ``event`` added to the player who played it: the player at
        the table (``p``, the state before it), or the one the game charges a foul to. Its time:
        from the event before it (``p.event_t``) to its own, when both have one."""
        who = self._index(self.sheet.offender(event), p)
        if who is None:
            return counts  # no player at the table: not a stroke the rules allow, so not counted
        add = self.sheet.stroke(event)
        c = counts[who]
        took = None if event.t is None or p.event_t is None else event.t - p.event_t
        timed = took is not None and took >= 0  # a clock set back between two events: no time
        c = Count(strokes=c.strokes + 1, pots=c.pots + add.pots, safeties=c.safeties + add.safeties,
                  fouls=c.fouls + add.fouls, misses=c.misses + add.misses,
                  seconds=c.seconds + took if timed and took is not None else c.seconds,
                  timed=c.timed + timed)
        return (*counts[:who], c, *counts[who + 1:])

    def _index(self, name: str | None, p: _Progress) -> int | None:
        """Which of :attr:`_players` played the stroke: ``name`` if he is one, else the player at
        the table (his side's first player when the state names none)."""
        players = self._players
        for n, (_, player) in enumerate(players):
            if player == name:
                return n
        if p.striker is None:
            return None
        for n, (side, player) in enumerate(players):
            if side == p.striker and (p.player is None or player == p.player):
                return n
        return next((n for n, (side, _) in enumerate(players) if side == p.striker), None)

    def _frame_record(self, event: Event, p: _Progress, state: State, scores: tuple[int, int] | None,
                      breaks: tuple[Break, ...], started: float | None, ended: float | None,
                      strokes: int) -> FrameRecord:
        """The frame ``event`` has just ended, as the record lists it."""
        ending = self.sheet.ending(event, p, state)
        reason = event.reason if isinstance(event, Award) else None
        aggregate = isinstance(state, SnookerState) and state.aggregate
        if ending.how == "awarded" and (reason == "conduct" or (reason is None and aggregate)):
            # Section 4 Rule 2(a)(ii): the offender forfeits all points scored in the frame.
            assert state.frame_winner is not None
            offender = 1 - state.frame_winner
            breaks = tuple(b for b in breaks if b.side != offender)
        left: tuple[int | None, int | None] | None = None
        if isinstance(state, BlackballState):
            left = (state.sides[0].balls_left, state.sides[1].balls_left)
        return FrameRecord(
            frame=state.frame, breaker=state.breaker, scores=scores, winner=state.frame_winner,
            how=ending.how, rule=ending.rule, reason=ending.reason, breaks=breaks, started=started,
            ended=ended, strokes=strokes, reracks=p.reracks, balls_left=left)

    # -- reading ------------------------------------------------------------------------

    @property
    def started_at(self) -> float | None:
        """The time of the match's first event (Unix seconds), None before it."""
        return self._steps[-1][1].started

    def record(self) -> JsonObject:
        """The record of ``docs/record.md``: a new JSON-ready dict each call."""
        p = self._steps[-1][1]
        out = dict(self._head)
        out["sides"] = [{"name": name, "players": list(players)} for name, players in self._sides]
        out["started"] = iso(p.started)
        out["ended"] = iso(p.ended)
        out["frames"] = [self._frame(f) for f in p.frames]
        out["frames_won"] = list(p.frames_won)
        out["totals"] = None if p.totals is None else list(p.totals)
        best = max((b.points for f in p.frames for b in f.breaks), default=0)
        out["high_break"] = [_break(b, frame=True) for f in p.frames for b in f.breaks if b.points == best > 0]
        out["winner"] = p.winner
        out["how"] = p.how
        out["corrections"] = [_correction(c) for c in self.corrections]
        return out

    def _frame(self, f: FrameRecord) -> JsonObject:
        points = self.sheet.points
        high: list[Json] = [max((b.points for b in f.breaks if b.side == side), default=0) for side in (0, 1)]
        out: JsonObject = {
            "frame": f.frame, "breaker": f.breaker, "scores": None if f.scores is None else list(f.scores),
            "winner": f.winner, "how": f.how, "rule": f.rule,
            "breaks": [_break(b) for b in f.breaks if b.points >= self.breaks_from] if points else [],
            "high_break": high if points else None,
            "started": iso(f.started), "ended": iso(f.ended), "strokes": f.strokes, "reracks": f.reracks,
            "counts": [self._count(side, player, c, f.safety_keyed)
                       for (side, player), c in zip(self._players, f.counts, strict=True)],
        }
        out.update(self.sheet.frame_extra(f))
        return out


    def _count(self, side: int, player: str, c: Count, keyed: bool) -> JsonObject:
        misses = self.sheet.keys_misses
        return {"side": side, "player": player, "strokes": c.strokes, "pots": c.pots,
                "safeties": c.safeties if misses and keyed else None, "fouls": c.fouls,
                "misses": c.misses if misses else None, "seconds": round(c.seconds, 3), "timed": c.timed}


def record_of(match: Match, *, breaks_from: int = BREAKS_FROM) -> JsonObject:
    """The record of ``match``'s events in effect: a pure function of its log."""
    return Recorder.of_match(match, breaks_from=breaks_from).record()


# -- small helpers -------------------------------------------------------------------------


def _respotted_black(state: State) -> bool:
    return isinstance(state, SnookerState) and state.respotted_black


def _break_shot(state: State) -> bool:
    return isinstance(state, BlackballState) and state.break_shot


def _close(breaks: tuple[Break, ...], visit: Break) -> tuple[Break, ...]:
    return (*breaks, visit) if visit.points > 0 else breaks


def _changed(a: _Progress, b: _Progress) -> bool:
    """Whether the record differs between the two in what it publishes: the frames ended
    (the same tuple until one ends or is undone), the match's result."""
    return a.frames is not b.frames or (a.frames_won, a.totals, a.winner, a.how, a.ended) != (
        b.frames_won, b.totals, b.winner, b.how, b.ended)


def _break(b: Break, *, frame: bool = False) -> JsonObject:
    out: JsonObject = {"side": b.side, "player": b.player, "points": b.points}
    if frame:
        out["frame"] = b.frame
    return out


def _correction(c: Correction) -> JsonObject:
    """An amend in effect as the record lists it: when, by whom, which event, what it was and
    what it became (None: inserted, or deleted), and the frame it was played in."""
    return {"at": iso(c.t), "user": c.user, "seq": c.seq, "frame": c.frame,
            "was": None if c.was is None else _bare(c.was), "now": None if c.now is None else _bare(c.now)}


def _bare(event: Event) -> JsonObject:
    """The event as keyed, without its time (the correction has its own)."""
    out = to_json(event)
    out.pop("t", None)
    return out
