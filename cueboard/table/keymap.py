"""Keymaps: which key of a referee box or the keypad, or which sequence of keys, makes which
event. :class:`Keymap` is the checked TOML file; :class:`Entry` one device's key sequence in
progress (pure: no I/O, no clock). The file and what a display gets: docs/keymaps.md.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cueboard.common.errors import KeymapError
from cueboard.common.settings import Required, Section, refusal
from cueboard.engine import Event
from cueboard.engine.events import Redo, Undo
from cueboard.engine.state import State
from cueboard.games.key_sequences import (
    CLEAR,
    CLOCK_COMMANDS,
    COMMON_ACTIONS,
    NEW_MATCH,
    REDO,
    SHIFT,
    UNDO,
    Draft,
    Grammar,
    Refusal,
    TableCommand,
    legend,
    words,
)
from cueboard.games.kits import KITS
from cueboard.table.inputs import Press

__all__ = ["DEFAULT_GRACE", "Entry", "Keymap", "KeymapError", "Lapse", "Outcome", "Pending", "Refusal",
           "TableCommand", "load_keymap"]

DEFAULT_GRACE = 3.0
"""Seconds after a call lapsed during which a key is refused rather than read as a new call
(the keymap's ``grace``): the referee who pressed it had not seen the lapse."""


@dataclass(frozen=True, slots=True)
class Pending:
    """Nothing to send yet. ``keys``: the legends keyed in so far (empty: no sequence is
    pending); ``needs``: what the display asks for next."""

    keys: tuple[str, ...] = ()
    needs: str = ""


@dataclass(frozen=True, slots=True)
class Lapse(Refusal):
    """A call left unfinished for the keymap's ``timeout``, and cleared (:meth:`Entry.expire`).
    ``reason`` says so; ``keys`` and ``needs`` are the call as it was; ``at``: when it was
    found lapsed, and ``until``: the end of the grace during which a key is refused (both
    on the clock given to :meth:`Entry.press`)."""

    keys: tuple[str, ...] = ()
    needs: str = ""
    at: float = 0.0
    until: float = 0.0


Outcome = Event | TableCommand | Pending | Refusal
"""What a press gives: an event for the engine, a command for the daemon, a pending sequence,
or a refusal."""


@dataclass(frozen=True)
class Keymap:
    """A checked keymap: the action of each key (``layout``, row by row), of a held key
    (``hold``, by the key's action) and of a key after SHIFT (``shift``). Build it with
    :meth:`from_toml` or :func:`load_keymap`, which check it."""

    game: str
    layout: tuple[tuple[str, ...], ...]
    hold: Mapping[str, str] = field(default_factory=dict)
    shift: Mapping[str, str] = field(default_factory=dict)
    timeout: float | None = None
    grace: float = DEFAULT_GRACE
    description: str = ""

    @property
    def columns(self) -> int:
        return len(self.layout[0])

    @property
    def size(self) -> int:
        """How many keys: ``index`` runs from 0 to ``size - 1``."""
        return len(self.layout) * self.columns

    @property
    def grammar(self) -> Grammar:
        return KITS[self.game].keys

    def action(self, index: int) -> str:
        """The action of key ``index`` ("" for a key that has none)."""
        row, column = divmod(index, self.columns)
        return self.layout[row][column]

    def name(self, action: str) -> str | None:
        """How this device keys ``action``, in its keys' words; None if it cannot.

        A key of the layout is its legend (``NEXT FRAME``); a shifted or held action says
        how (``NEXT FRAME (SHIFT FREE BALL)``, ``MISS (hold FOUL)``); a ball or a number
        the device keys with another key says which (``1 (RED)`` where the balls are the
        numbers, ``RED (1)`` where the digits are the balls)."""
        keys = [a for row in self.layout for a in row if a]
        if action in keys:
            return legend(action)
        for base, shifted in self.shift.items():
            if shifted == action:
                return f"{legend(action)} ({legend(SHIFT)} {legend(base)})"
        for base, held in self.hold.items():
            if held == action:
                return f"{legend(action)} (hold {legend(base)})"
        ball = self.grammar.ball(action)
        if ball is not None:
            for base in keys:
                if self.grammar.ball(base) == ball:
                    return f"{legend(action)} ({legend(base)})"
        return None

    def words(self, text: str) -> str:
        """A message of the key grammar (keys as ``<ACTION>``, parts only some devices have in
        brackets) in this device's words (:func:`cueboard.games.key_sequences.words`, :meth:`name`)."""
        return words(text, self.name)

    def explain(self, reason: str) -> str:
        """A refusal of the engine or the daemon for a key of this device: where it says to
        ``enter`` an event (``the frame is over: enter next_frame to start frame 3``), say
        which keys make it (``press NEXT FRAME (SHIFT FREE BALL) to start frame 3``). An event
        this device cannot key is left as the engine named it."""
        known = self.grammar.actions | COMMON_ACTIONS

        def press(m: re.Match[str]) -> str:
            action = m.group(1).upper()
            name = self.name(action) if action in known else None
            return m.group(0) if name is None else f"press {name}"

        return _ENTER.sub(press, reason)

    @classmethod
    def from_toml(cls, text: str, source: str = "keymap") -> Keymap:
        """Parse and check a keymap; KeymapError naming ``source`` and the key if it is wrong."""
        try:
            table = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise KeymapError(refusal("", f"not TOML: {exc}", source)) from None
        return cls.from_table(table, source)

    @classmethod
    def from_table(cls, table: Mapping[str, Any], source: str = "keymap") -> Keymap:
        """A keymap from its decoded TOML table (e.g. a table of the daemon's configuration)."""
        return _parse(table, source)


def load_keymap(path: str | Path) -> Keymap:
    """Read and check a keymap file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise KeymapError(refusal("", f"cannot read: {exc.strerror or exc}", str(p))) from None
    except UnicodeDecodeError as exc:
        raise KeymapError(refusal("", f"cannot read: not UTF-8 ({exc.reason} at byte {exc.start})", str(p))) from None
    return Keymap.from_toml(text, str(p))


# -- checking a keymap ----------------------------------------------------------------------


def _parse(table: Mapping[str, Any], source: str) -> Keymap:
    s = Section(table, error=KeymapError, kind="a keymap", source=source)
    game = s.getchoice("game", tuple(sorted(KITS)))
    grammar = KITS[game].keys
    known = grammar.actions | COMMON_ACTIONS

    def check_action(section: Section, key: str, action: Any) -> str:
        if not isinstance(action, str) or action not in known:
            raise section.fail(key, f"unknown action {action!r} for {game} (actions: {', '.join(sorted(known))})")
        return action

    layout = s.getlist("layout", Required("the rows of keys, top row first"), of="rows of keys")
    if not layout or not all(isinstance(r, list) and r for r in layout):
        raise s.fail("layout", "must list the rows of keys, top row first, each a list of actions")
    columns = len(layout[0])
    for r, row in enumerate(layout):
        if len(row) != columns:
            raise s.fail(f"layout[{r}]", f"has {len(row)} keys and layout[0] has {columns}: every row has "
                         "as many, so that key n = row * columns + column")
        for c, cell in enumerate(row):
            if cell != "":
                check_action(s, f"layout[{r}][{c}]", cell)
    on_keys = {cell for row in layout for cell in row}
    if UNDO not in on_keys:
        raise s.fail("layout", "has no UNDO key: undo is one press on every device")

    def check_table(name: str) -> dict[str, str]:
        section = s.getsection(name, {})
        out: dict[str, str] = {}
        for key, action in section.items():
            if key not in on_keys:
                raise section.fail(key, f"no key of 'layout' is {key}")
            if key == SHIFT or action == SHIFT:
                raise section.fail(key, f"SHIFT is a key of its own, not an action to {name}")
            out[key] = check_action(section, key, action)
        return out

    hold = check_table("hold")
    for key in hold:
        if key not in grammar.holdable:
            holdable = ", ".join(sorted(grammar.holdable))
            raise s.fail(f"hold.{key}", f"{key} can finish an event with its own press, which is sent on the "
                         f"key's first edge, so it cannot also mean something held (hold goes on: {holdable})")
    shift = check_table("shift")
    if shift and SHIFT not in on_keys:
        raise s.fail("shift", "gives actions after SHIFT, but 'layout' has no SHIFT key")

    timeout = s.getfloat("timeout", None, above=0, unit="seconds")
    grace = s.getfloat("grace", DEFAULT_GRACE, minval=0, maxval=60, unit="seconds")
    description = s.getstr("description", "", empty=True)
    s.check_unused()
    return Keymap(game=game, layout=tuple(tuple(row) for row in layout), hold=hold, shift=shift,
                  timeout=timeout, grace=grace, description=description)


_ENTER = re.compile(r"\benter ([a-z]+(?:_[a-z]+)*)\b")


# -- a sequence being keyed in -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Step:
    """One accepted key of the sequence: the call after it, how it was pressed, and what
    the display asks for next."""

    draft: Draft
    legend: str
    index: int
    shifted: bool
    needs: str


class Entry:
    """The key sequence being entered on one device (a referee box or the keypad).

    Give each device its own Entry, so that a sequence begun on one is not finished by
    a press on another. Presses follow ``cueboard.hw.keys``: each is reported on its
    first edge, and once more with ``held=True`` if it is held; the second report only
    matters for a key with a hold action, which then replaces what its press began.

    UNDO is one press: with nothing pending it undoes the last event; with a sequence
    pending it clears the sequence (so an UNDO never takes back a stroke by surprise).

    A call left unfinished for the keymap's ``timeout`` lapses (:meth:`expire`, or the
    next press after its time). For the keymap's ``grace`` after that, a key is refused
    saying the call lapsed: the referee pressing it may not have seen the lapse, and
    meant it as the next key of the call, not the first of a new one. What a display
    needs: :attr:`pending` (the keys and what comes next), :attr:`expires_at` (when the
    call lapses) and :attr:`lapsed` (the call that lapsed).

    Feed it each press with the match's typed state (``Match.state()``); it answers with the
    engine event to apply (a frozen dataclass of ``cueboard.engine.events`` or the game's own),
    a :data:`~cueboard.games.key_sequences.TableCommand` for the daemon (a new match, the shot
    clock), a :class:`Pending` (the sequence goes on) or a :class:`Refusal` (that key makes no
    event there: the sequence is left as it was). Pure: no I/O and no clock; time comes in as
    an argument. Its messages are in the words of the device's own keys
    (:meth:`Keymap.words`, :meth:`Keymap.explain`): on a referee box whose + is a shifted key a
    prompt reads "the balls potted together, then + (SHIFT RED)".

    >>> from cueboard.engine import Match, to_json
    >>> keymap = Keymap.from_toml('game = "snooker"\\nlayout = [["RED", "BLUE", "FOUL", "UNDO"]]')
    >>> entry = Entry(keymap)
    >>> state = Match.from_json({"type": "match", "game": "snooker", "sides": ["A", "B"]}).state()
    >>> entry.press(2, state)
    Pending(keys=('FOUL',), needs='the ball that sets the penalty (4 to 7)')
    >>> to_json(entry.press(1, state))
    {'type': 'foul', 'points': 5}
    >>> entry.press(3, state)
    Undo(t=None)
    """

    def __init__(self, keymap: Keymap) -> None:
        self.keymap = keymap
        self._grammar = keymap.grammar
        self._steps: list[_Step] = []
        self._shift = False
        self._last: float | None = None
        self._lapse: Lapse | None = None
        # The last press: its key, whether it was read shifted, and whether it was refused;
        # a hold report acts only on the press it follows.
        self._last_press: tuple[int, bool, bool] | None = None

    @property
    def pending(self) -> Pending:
        """The sequence keyed in so far (``Pending()`` when there is none)."""
        keys = tuple(s.legend for s in self._steps)
        if self._shift:
            return Pending((*keys, legend(SHIFT)), "a shifted key")
        return Pending(keys, self._steps[-1].needs if self._steps else "")

    @property
    def expires_at(self) -> float | None:
        """When the call in progress lapses (on the clock of the ``now`` given to :meth:`press`);
        None with nothing pending, without a keymap ``timeout`` or without a time."""
        timeout = self.keymap.timeout
        if timeout is None or self._last is None or not (self._steps or self._shift):
            return None
        return self._last + timeout

    @property
    def lapsed(self) -> Lapse | None:
        """The call that lapsed last (its keys, when, the end of its grace), until the next
        key after it or :meth:`clear`."""
        return self._lapse

    def clear(self) -> None:
        """Forget the sequence in progress, and a lapsed one (a new match, say)."""
        self._reset()
        self._lapse = None

    def _reset(self) -> None:
        self._steps.clear()
        self._shift = False

    def expire(self, now: float) -> Lapse | None:
        """Clear a sequence left unfinished for the keymap's ``timeout`` since its last key
        (``now`` on the clock given to :meth:`press`), saying so; None if there is nothing to
        clear. The :class:`Lapse` is a Refusal (its ``reason``) with the call's keys."""
        expires_at = self.expires_at
        if expires_at is None or now < expires_at:
            return None
        pending = self.pending
        timeout = self.keymap.timeout
        assert timeout is not None
        self._reset()
        self._lapse = Lapse(f"{' '.join(pending.keys)}: not finished within {timeout:g} s (keymap 'timeout'), "
                            "cleared", keys=pending.keys, needs=pending.needs, at=now, until=now + self.keymap.grace)
        return self._lapse

    def feed(self, press: Press, state: State, now: float | None = None) -> Outcome:
        """:meth:`press` for a KeyPress or ButtonPress."""
        return self.press(press.index, state, held=press.held, now=now)

    def press(self, index: int, state: State, *, held: bool = False,
              now: float | None = None) -> Outcome:
        """Key ``index`` was pressed (or, with ``held``, is held); ``state`` is the match's
        state now. Returns the event, a Pending, or a Refusal that changed nothing.
        ``now``: the time of the press, for the ``timeout`` and the ``grace``."""
        keymap = self.keymap
        if not 0 <= index < keymap.size:
            return Refusal(f"key {index} is not on this keymap ({keymap.size} keys in 'layout')")
        if state.game != keymap.game:
            return Refusal(f"this keymap is for {keymap.game} and the match is {state.game} "
                           "(keymap 'game')", short="wrong_keymap")
        action = keymap.action(index)
        if not action:
            return Refusal(f"key {index} has no action (keymap 'layout')")
        if now is not None:
            self.expire(now)  # a call past its time lapses now, even if expire() was not called
            self._last = now
        if held:
            return self._held(index, action, state)
        lapse, self._lapse = self._lapse, None
        if lapse is not None and now is not None and now < lapse.until:
            self._last_press = None  # and its hold report is nothing either
            return self._lapsed(lapse, action)
        shifted = self._shift and action != SHIFT
        if shifted:
            if action in keymap.shift:
                action = keymap.shift[action]
            elif action in (CLEAR, UNDO):
                self._reset()
                return self._remember(index, shifted, Pending())
            else:
                return self._remember(index, shifted, Refusal(
                    f"{legend(SHIFT)} {legend(action)}: this key has nothing shifted (keymap 'shift')"))
        return self._remember(index, shifted, self._act(action, index, state, shifted=shifted))

    # -- inside ------------------------------------------------------------------------------

    def _lapsed(self, lapse: Lapse, action: str) -> Refusal:
        """A key within the grace after a lapse: refused, saying what happened and what to do."""
        timeout = self.keymap.timeout
        said = f"{' '.join(lapse.keys)} lapsed after {timeout:g} s (keymap 'timeout')"
        if action == UNDO:
            return Refusal(f"{said} and is cleared already: press {legend(UNDO)} again to undo the last event",
                           short="lapsed")
        if action == CLEAR:
            return Refusal(f"{said} and is cleared already", short="lapsed")
        return Refusal(f"{said}: press again to start a new call", short="lapsed")

    def _remember(self, index: int, shifted: bool, outcome: Outcome) -> Outcome:
        self._last_press = (index, shifted, isinstance(outcome, Refusal))
        return outcome

    def _held(self, index: int, action: str, state: State) -> Outcome:
        hold = self.keymap.hold.get(action)
        last = self._last_press
        if hold is None or last is None or last[0] != index or last[1]:
            # The press was reported already; a hold adds nothing to a key without a
            # hold action, nor to a press that was read as its shifted action.
            return self.pending
        self._last_press = None
        if last[2]:
            # Its press was refused (and changed nothing): the hold is the first word.
            return self._act(hold, index, state, shifted=False)
        if not self._steps or self._steps[-1].index != index:
            return self.pending
        # The hold replaces the press it follows: a holdable action never finishes an
        # event, so that press only began or extended the sequence.
        taken = self._steps.pop()
        outcome = self._act(hold, index, state, shifted=False)
        if isinstance(outcome, Refusal):
            self._steps.append(taken)
        return outcome

    def _act(self, action: str, index: int, state: State, *, shifted: bool) -> Outcome:
        keys = [s.legend for s in self._steps]
        words = self.keymap.words
        if action == SHIFT:
            self._shift = not self._shift
            return self.pending
        if action == CLEAR or (action == UNDO and (self._steps or self._shift)):
            self._reset()
            return Pending()
        if action == UNDO:
            return Undo()
        if action in CLOCK_COMMANDS and not self._steps:
            self._shift = False
            logged = self._grammar.clock_event(action)
            return CLOCK_COMMANDS[action] if logged is None else logged
        if action == NEW_MATCH and not self._steps:
            self._shift = False
            self._steps.append(_Step(Draft("new_match"), legend(action), index, shifted,
                                     words("<NEW_MATCH> again[ or <OK>] to start a new match")))
            return self.pending
        if action == REDO:
            if self._steps:
                return Refusal(f"{' '.join(keys)} {legend(REDO)}: finish the call first, or clear it with "
                               + words("<UNDO>[ or <CLEAR>]"))
            self._shift = False
            return Redo()
        draft = self._steps[-1].draft if self._steps else None
        result = self._grammar.step(draft, action, state)
        if isinstance(result, Refusal):
            return Refusal(f"{' '.join([*keys, legend(action)])}: {words(result.reason)}", short=result.short)
        self._shift = False
        if isinstance(result, Draft):
            self._steps.append(_Step(result, legend(action), index, shifted,
                                     words(self._grammar.needs(result, state))))
            return self.pending
        self._reset()
        return result
