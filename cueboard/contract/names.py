"""Names as people read them: the PRECIS nickname rules (RFC 8266, through ``precis-i18n``) for
every name and message that comes from a person (docs/security.md, "Names").

A name is *enforced* with the NicknameCasePreserved profile: widths folded (``Ａnn`` is
``Ann``), runs of spaces made one, NFKC, and refused when it holds what RFC 8264's FreeformClass
disallows: controls, default-ignorable characters (U+FE0F, U+034F, U+17B4, U+200B ...), a
zero-width joiner or non-joiner outside the scripts' own contexts. Two names are the *same
player* when NicknameCaseMapped gives the same text (case folded as well): "Ann" and "ANN"
cannot play each other, nor both be on one list.

Where it applies (every place a name enters from a person; the engine's own check of a log's
names, ``engine/match_setup.py``, stays as it was so that every old log replays the same):
a new match's sides (:func:`check_setup`, through the table's ``Config.match_setup``: the
network's and the keypad's match lines, the desk's hand-off), tonight's draw
(``cueboard/venue/competition.py``), the standings' player list (``desk_routes``), a league's
match-day file (``cueboard/league/match_day.py``) and the desk's messages (:func:`message_text`).

>>> nickname("  Ding   Junhui ", "side 0")
'Ding Junhui'
>>> nickname("Ann\ufe0f", "side 1")
Traceback (most recent call last):
...
cueboard.common.errors.NameRefused: RFC 8266 nickname: side 1's name has an invisible \
(default-ignorable) character (U+FE0F) at 4 (VARIATION SELECTOR-16; precis_ignorable_properties)
>>> same_player("Ann", "ＡＮＮ")
True
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import replace

import precis_i18n

from cueboard.common.errors import NameRefused
from cueboard.engine.errors import IllegalEvent
from cueboard.engine.match_setup import BIDI_CONTROLS, MatchSetup, check_name

__all__ = ["RULE", "SHORT", "NameRefused", "check_setup", "comparable", "distinct", "message_text", "nickname",
           "same_player"]

RULE = "RFC 8266 nickname"
"""How every refusal here begins: the rule, named."""

SHORT = "nickname"
"""The machine code of a name refused here where no channel has one of its own (the desk's
routes answer it as ``short``); a match line's is ``match_setup``, a message's ``bad_message``."""

INPUT_MAX = 1000
"""Characters looked at, at most: a name is 40 and a message 120 once enforced; a megabyte of
text is refused before any work is done on it."""

_PRESERVED = precis_i18n.get_profile("NicknameCasePreserved")
_COMPARED = precis_i18n.get_profile("NicknameCaseMapped")  # RFC 8266 2.3: toLowerCase, then compared

_WHY = {
    "precis_ignorable_properties": "an invisible (default-ignorable) character",
    "zero_width_joiner": "a zero-width joiner outside the scripts that join with it",
    "zero_width_nonjoiner": "a zero-width non-joiner outside the scripts that join with it",
    "controls": "a control character",
    "has_compat": "a character with no stable form",
    "unassigned": "a character Unicode has not assigned",
    "other": "a character no name may hold",
    "bidi_rule": "a mix of writing directions",
    "empty": "nothing",
}




def _enforce(value: str, profile: precis_i18n.profile.Profile, what: str) -> str:
    """``value`` under ``profile``, or :class:`NameRefused` naming ``what``, the character and the rule."""
    if len(value) > INPUT_MAX:
        raise NameRefused(f"{RULE}: {what} is {len(value):,} characters; at most {INPUT_MAX} are read")
    try:
        return str(profile.enforce(value))
    except UnicodeEncodeError as exc:
        kind = exc.reason.removeprefix("DISALLOWED/")
        why = _WHY.get(kind, "a character the rule disallows")
        if kind == "empty":
            raise NameRefused(f"{RULE}: {what} is empty (nothing but spaces)") from None
        text = exc.object
        at, named = "", ""
        if 0 <= exc.start < len(text):
            ch = text[exc.start]
            at, named = f" (U+{ord(ch):04X}) at {exc.start + 1}", unicodedata.name(ch, "")
            named = f"{named}; " if named else ""
            if ch in BIDI_CONTROLS:  # "\u202eevil" shows reversed: said as what it does
                why = "a bidirectional control character"
            elif unicodedata.category(ch) in ("Cc", "Zl", "Zp"):
                why = "a control character"
        raise NameRefused(f"{RULE}: {what} has {why}{at} ({named}{kind})") from None


def nickname(value: str, where: str) -> str:
    """The name ``value`` as it is kept and shown (RFC 8266 NicknameCasePreserved), or
    :class:`NameRefused` naming ``where``, the character and the rule."""
    return _enforce(value, _PRESERVED, f"{where}'s name")


def comparable(name: str) -> str:
    """What two names are compared by (RFC 8266 NicknameCaseMapped): equal means the same player."""
    return str(_COMPARED.enforce(name))


def same_player(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` name the same player, as people read them."""
    return comparable(a) == comparable(b)


def distinct(names: Iterable[tuple[str, str]], what: str) -> None:
    """Refuse (:class:`NameRefused`) two of ``names`` (each ``(where, name)``, enforced already)
    that are one player: ``what`` says where they are together ("one match", "the draw")."""
    seen: dict[str, tuple[str, str]] = {}
    for where, name in names:
        key = comparable(name)
        if key in seen:
            first, other = seen[key]
            raise NameRefused(f"{RULE}: {where} ({name!r}) is entered twice: the same player as {first} "
                              f"({other!r}), compared as people read them (case and width folded); {what} cannot "
                              "have both")
        seen[key] = (where, name)


def check_setup(setup: MatchSetup) -> MatchSetup:
    """A new match's players as people's names: each enforced (:func:`nickname`), no two the
    same player; ``IllegalEvent`` (short ``match_setup``) naming the side and the rule. The
    engine checked the line already (its limits hold on the enforced names as well)."""
    sides: list[tuple[str, ...]] = []
    where: list[tuple[str, str]] = []
    try:
        for index, side in enumerate(setup.players):
            names = []
            for k, name in enumerate(side):
                label = f"side {index}" if len(side) == 1 else f"side {index} player {k + 1}"
                # The engine's limits (40 characters ...) on the name as it will be kept.
                names.append(check_name(nickname(name, label), label))
                where.append((label, names[-1]))
            sides.append(tuple(names))
        distinct(where, "one match")
    except NameRefused as exc:
        raise IllegalEvent(f"match: {exc}", short="match_setup") from None
    players = (sides[0], sides[1])
    return setup if players == setup.players else replace(setup, players=players)


def message_text(text: str) -> str:
    """A desk's message as the boards show it (the nickname rules: nothing invisible, spaces
    made one), or :class:`NameRefused` naming the character and the rule."""
    return _enforce(text, _PRESERVED, "the message's 'text'")
