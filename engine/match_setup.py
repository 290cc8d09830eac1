"""The match line: the first line of every log, setting the match up.

>>> s = parse_setup({"type": "match", "game": "snooker", "sides": ["Ronnie", "Judd"], "best_of": 7}, {})
>>> s.frames_to_win, s.names
(4, ('Ronnie', 'Judd'))
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import TypeAlias

from .errors import IllegalEvent
from .json_value import JsonObject
from .shot_clock import ShotClockRules

OptionValue: TypeAlias = int | bool | tuple[int, int]
"""A game's own field of the match line as its check keeps it (snooker: ``reds`` an int,
``aggregate`` a bool, ``handicap`` a pair of ints). A game whose field is of another shape
adds that shape here, so that every value a :class:`MatchSetup` holds has a type."""

OptionCheck: TypeAlias = Callable[[object], OptionValue]
"""A game's check of one of its own fields (``Game.setup_fields``): the decoded JSON value, not
trusted, to the value kept, or IllegalEvent naming the field and what it takes."""

# Fields every game's match line may carry; a game adds its own (Game.setup_fields).
COMMON_SETUP_FIELDS = ("type", "game", "sides", "best_of", "race_to", "first", "shot_clock", "t", "id", "user",
                       "fixture", "competition")


@dataclass(frozen=True, slots=True)
class MatchSetup:
    game: str
    players: tuple[tuple[str, ...], tuple[str, ...]]
    """Each side's players: one name, or two for doubles (four-handed snooker)."""
    best_of: int | None = None
    race_to: int | None = None
    first: int = 0
    shot_clock: float | None = None
    shot_clock_given: bool = False
    """False when the line leaves ``shot_clock`` out: the game's default applies."""
    options: tuple[tuple[str, OptionValue], ...] = ()
    """Game-specific fields as the game's checks kept them (snooker: reds, handicap, aggregate);
    read them with :meth:`option_int`, :meth:`option_bool`, :meth:`option_pair`."""
    t: float | None = None
    shot_clock_rules: ShotClockRules | None = None
    """The clock in full when the line gives ``shot_clock`` as an object (``engine/shot_clock.py``);
    None for a number (then ``shot_clock`` says it all) or null."""
    fixture: str | None = None
    """The fixture the desk handed the table (``<prefix>/next``): its id, unique in the night."""
    competition: str | None = None
    """The competition the fixture belongs to (a league, a knockout), as the desk names it."""

    @property
    def clock(self) -> ShotClockRules | None:
        """The shot clock the line sets, or None (none, or left to the game's default)."""
        if self.shot_clock_rules is not None:
            return self.shot_clock_rules
        return None if self.shot_clock is None else ShotClockRules.of_seconds(self.shot_clock)

    @property
    def names(self) -> tuple[str, str]:
        """Display name of each side: the player, or ``"A1 & A2"`` for a pair."""
        return (" & ".join(self.players[0]), " & ".join(self.players[1]))

    @property
    def doubles(self) -> bool:
        return len(self.players[0]) > 1

    @property
    def frames_to_win(self) -> int | None:
        """Frames a side needs to win the match; None when decided on aggregate."""
        if self.race_to is not None:
            return self.race_to
        if self.option_bool("aggregate", False):
            return None
        assert self.best_of is not None
        return self.best_of // 2 + 1

    @property
    def frames_in_match(self) -> int:
        """Most frames the match can last."""
        if self.race_to is not None:
            return 2 * self.race_to - 1
        assert self.best_of is not None
        return self.best_of

    def option(self, name: str) -> OptionValue | None:
        """The game's own field ``name`` as its check kept it, or None when the line leaves it out."""
        for key, value in self.options:
            if key == name:
                return value
        return None

    def option_int(self, name: str, default: int) -> int:
        """The whole-number field ``name`` (snooker's ``reds``), or ``default`` when left out."""
        value = self.option(name)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"match option {name!r} is {value!r}, not a whole number")
        return value

    def option_bool(self, name: str, default: bool) -> bool:
        """The true-or-false field ``name`` (snooker's ``aggregate``), or ``default`` when left out."""
        value = self.option(name)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise TypeError(f"match option {name!r} is {value!r}, not true or false")
        return value

    def option_pair(self, name: str, default: tuple[int, int]) -> tuple[int, int]:
        """The pair field ``name`` (snooker's ``handicap``), or ``default`` when left out."""
        value = self.option(name)
        if value is None:
            return default
        if not isinstance(value, tuple):
            raise TypeError(f"match option {name!r} is {value!r}, not a pair of whole numbers")
        return value

    def breaker(self, frame: int) -> int:
        """Side that breaks frame ``frame`` (1-based): Section 3 Rule 3(b), alternating."""
        return (self.first + frame - 1) % 2

    def to_json(self) -> JsonObject:
        out: JsonObject = {"type": "match", "game": self.game,
                               "sides": [p[0] if len(p) == 1 else list(p) for p in self.players]}
        if self.race_to is not None:
            out["race_to"] = self.race_to
        else:
            out["best_of"] = self.best_of
        if self.first:
            out["first"] = self.first
        if self.shot_clock_given:
            out["shot_clock"] = (self.shot_clock if self.shot_clock_rules is None
                                 else self.shot_clock_rules.to_json())
        for key, value in self.options:
            out[key] = list(value) if isinstance(value, tuple) else value
        if self.fixture is not None:
            out["fixture"] = self.fixture
        if self.competition is not None:
            out["competition"] = self.competition
        if self.t is not None:
            out["t"] = self.t
        return out


def _whole(obj: Mapping[str, object], key: str) -> int | None:
    value = obj.get(key)
    if value is None and key not in obj:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise IllegalEvent(f"match: {key!r} must be a whole number, not {value!r}", short="match_setup")
    return value


NAME_MAX = 40
"""Characters in a side's or a player's name, once trimmed and NFC-normalised (events.md)."""

BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""The bidirectional marks, embeddings, overrides and isolates: "\u202eevil" shows reversed."""


MARKS_MAX = 3
"""Combining marks on one letter, once NFC-normalised: Thai's vowel and tone mark, Hebrew's
points, Vietnamese's two accents fit; a stack of 38 is a garbled name on every screen."""

JOINERS = frozenset("\u200c\u200d")
"""Zero-width (non-)joiners: part of how Persian, Arabic and Indic names are written, taken
between two letters only."""

INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters that show nothing (the Hangul fillers, the blank Braille pattern): a look-alike name."""


def _invisible(name: str, i: int, ch: str, kind: str) -> str | None:
    """What makes ``ch`` (at ``i`` in ``name``) a character nobody sees, or None."""
    if ch in JOINERS:
        between = 0 < i < len(name) - 1 and unicodedata.category(name[i - 1])[0] in "LM" \
            and unicodedata.category(name[i + 1])[0] in "LM"
        return None if between else "a zero-width joiner outside a word"
    if kind == "Cf" or ch in INVISIBLE_LETTERS:
        return "an invisible character"
    if kind in ("Co", "Cn", "Cs"):
        return "a character no board or screen can show (unassigned or private)"
    return None


def check_name(value: object, where: str) -> str:
    """A side's or a player's name as the boards and screens will show it: trimmed, NFC-
    normalised, every space a plain one and never two in a row, 1 to 40 characters, with no
    control, line-break, bidirectional-control or invisible character (U+200B, U+FEFF, U+2060
    ...: a look-alike "Ronnie") and at most :data:`MARKS_MAX` combining marks on a letter (they
    would garble a board or a screen); IllegalEvent naming ``where`` and the rule else.

    >>> check_name("  Ding  Junhui ", "side 0")
    'Ding Junhui'
    >>> check_name("\u202eevil", "side 1")
    Traceback (most recent call last):
    ...
    cueboard.engine.errors.IllegalEvent: match: side 1's name has a bidirectional control character (U+202E), ...
    >>> check_name("Ron\u200bnie", "side 0")
    Traceback (most recent call last):
    ...
    cueboard.engine.errors.IllegalEvent: match: side 0's name has an invisible character (U+200B), ...
    """
    if not isinstance(value, str):
        raise IllegalEvent(f"match: {where}'s name must be text, not {value!r}"[:200], short="match_setup")
    if len(value) > 4 * NAME_MAX + 100:  # said before any work on it: a 2 MB name costs nothing
        raise IllegalEvent(f"match: {where}'s name is {len(value)} characters; a name is 1 to {NAME_MAX} "
                           f"(it must fit a board)", short="match_setup")
    name = unicodedata.normalize("NFC", value.strip())
    # Every space a plain one, one at a time: names read (and compare) the same everywhere.
    name = " ".join("".join(" " if unicodedata.category(c) == "Zs" else c for c in name).split(" "))
    name = " ".join(part for part in name.split(" ") if part)
    if not name:
        raise IllegalEvent(f"match: {where} has an empty name", short="match_setup")
    if len(name) > NAME_MAX:
        raise IllegalEvent(f"match: {where}'s name is {len(name)} characters; a name is 1 to {NAME_MAX} "
                           f"(it must fit a board)", short="match_setup")
    marks = 0
    for i, ch in enumerate(name):
        kind = unicodedata.category(ch)
        marks = marks + 1 if kind in ("Mn", "Me") else 0
        if ch in BIDI_CONTROLS:
            what = "a bidirectional control character"
        elif kind in ("Zl", "Zp") or ch in "\n\r\x0b\x0c\x85":
            what = "a line break"
        elif kind == "Cc":
            what = "a control character"
        elif marks and (i == marks - 1 or name[i - marks] == " "):
            what = "a combining mark on no letter"
        elif marks > MARKS_MAX:
            stack = marks + next((n for n, c in enumerate(name[i + 1:]) if unicodedata.category(c) not in
                                  ("Mn", "Me")), len(name) - i - 1)
            raise IllegalEvent(f"match: {where}'s name has {stack} combining marks on one letter (at character "
                               f"{i + 1 - marks}); at most {MARKS_MAX}, which would garble a board or a screen",
                               short="match_setup")
        else:
            found = _invisible(name, i, ch, kind)
            if found is None:
                continue
            what = found
        raise IllegalEvent(f"match: {where}'s name has {what} (U+{ord(ch):04X}), which would garble a board "
                           "or a screen", short="match_setup")
    return name


def _label(obj: Mapping[str, object], key: str) -> str | None:
    """``fixture`` or ``competition`` (the desk's hand-off, ``<prefix>/next``): absent or null,
    or text checked as a name is (:func:`check_name`: 1 to 40 characters, nothing invisible),
    since boards and sheets show both."""
    value = obj.get(key)
    return None if value is None else check_name(value, f"the {key}")


def _side(entry: object, index: int) -> tuple[str, ...]:
    names = [entry] if isinstance(entry, str) else entry
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise IllegalEvent(f"match: side {index} must be a name, or a list of player names for doubles",
                           short="match_setup")
    if len(names) > 2:
        raise IllegalEvent(f"match: side {index} has {len(names)} players; a side is one player or a pair",
                           short="match_setup")
    if len(names) == 1:
        return (check_name(names[0], f"side {index}"),)
    return tuple(check_name(n, f"side {index} player {k + 1}") for k, n in enumerate(names))


def parse_setup(obj: object, game_fields: Mapping[str, OptionCheck],
                elsewhere: Mapping[str, Collection[str]] | None = None) -> MatchSetup:
    """Parse and check the match line of a game whose own fields are ``game_fields`` (each
    mapped to a checker that returns the value to keep or raises IllegalEvent).
    ``elsewhere``: the games that take a field this game does not, for the message. The
    registry's :func:`~.registry.parse_match` finds the game and passes both."""
    if not isinstance(obj, dict) or obj.get("type") != "match":
        raise IllegalEvent('the first line sets the match up: {"type": "match", ...}', short="match_setup")
    game = obj.get("game")
    for key in obj:
        if key not in COMMON_SETUP_FIELDS and key not in game_fields:
            owners = sorted((elsewhere or {}).get(key, ()))
            if owners:
                raise IllegalEvent(f"match: {key!r} is for {' and '.join(owners)} only, not {game}",
                                   short="match_setup")
            raise IllegalEvent(f"match: unknown field {key!r}", short="match_setup")
    user = obj.get("user")
    if user is not None and (not isinstance(user, str) or not 1 <= len(user) <= 64 or not user.isprintable()):
        raise IllegalEvent(f"match: 'user' is who sent the line, a string of 1 to 64 printable characters, "
                           f"not {user!r}"[:200], short="match_setup")
    sides = obj.get("sides")
    if not isinstance(sides, list) or len(sides) != 2:
        raise IllegalEvent("match: 'sides' must list two sides", short="match_setup")
    players = (_side(sides[0], 0), _side(sides[1], 1))
    if len(players[0]) != len(players[1]):
        raise IllegalEvent("match: both sides need the same number of players", short="match_setup")
    everyone = players[0] + players[1]
    if len(set(everyone)) != len(everyone):
        raise IllegalEvent("match: every player needs a different name (the order of play names them)",
                           short="match_setup")
    best_of, race_to = _whole(obj, "best_of"), _whole(obj, "race_to")
    if best_of is not None and race_to is not None:
        raise IllegalEvent("match: give 'best_of' or 'race_to', not both", short="match_setup")
    if race_to is not None and race_to < 1:
        raise IllegalEvent("match: 'race_to' must be at least 1", short="match_setup")
    if race_to is None:
        best_of = 1 if best_of is None else best_of
        if best_of < 1:
            raise IllegalEvent("match: 'best_of' must be at least 1", short="match_setup")
    first = _whole(obj, "first")
    if first is None:
        first = 0
    if first not in (0, 1):
        raise IllegalEvent("match: 'first' is the side that breaks in frame 1: 0 or 1", short="match_setup")
    clock: float | None = None
    clock_rules: ShotClockRules | None = None
    if "shot_clock" in obj:
        value = obj["shot_clock"]
        rules = ShotClockRules.parse(value)
        clock = None if rules is None else rules.seconds
        if isinstance(value, dict):
            clock_rules = rules  # the object form: a first-shot time, another call
    t = obj.get("t")
    if t is not None and (not isinstance(t, int | float) or isinstance(t, bool) or not math.isfinite(t)):
        raise IllegalEvent(f"match: 't' must be a time in Unix seconds, not {t!r}", short="match_setup")
    options = tuple((key, check(obj[key])) for key, check in game_fields.items() if key in obj)
    fixture = _label(obj, "fixture")
    competition = _label(obj, "competition")
    return MatchSetup(game=str(game), players=players, best_of=best_of if race_to is None else None,
                      race_to=race_to, first=first, shot_clock=clock, shot_clock_given="shot_clock" in obj,
                      options=options, t=None if t is None else float(t), shot_clock_rules=clock_rules,
                      fixture=fixture, competition=competition)
