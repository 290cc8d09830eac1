"""Events of the log (docs/events.md) as values never changed once built (``value.py``), parsed
strictly: an unlisted field or a wrong type is an error, nothing is guessed. The events every
game shares live here, those whose fields differ by game with that game; each game names those
it speaks (``Game.events``). docs/engine.md.

>>> parse_event({"type": "undo"}, COMMON_EVENTS)
Undo(t=None)
>>> to_json(Pot(balls=("red", "red")))
{'type': 'pot', 'balls': ['red', 'red']}
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Union

from .errors import IllegalEvent
from .json_value import JsonObject
from .value import value


@value(kw_only=True)
class Event:
    """Base of every event. ``t``: when it happened (Unix seconds), optional;
    the rules never read it."""

    TYPE: ClassVar[str] = ""
    t: float | None = None


@value(kw_only=True)
class Pot(Event):
    """A fair stroke that potted these balls; the striker stays at the table."""

    TYPE: ClassVar[str] = "pot"
    balls: tuple[str, ...]


@value(kw_only=True)
class Concede(Event):
    """The striker concedes the frame, or with ``match`` the match."""

    TYPE: ClassVar[str] = "concede"
    match: bool = False


@value(kw_only=True)
class Award(Event):
    """The referee awards the frame (or with ``match`` the match) to ``side``. ``reason``: why,
    as each game defines it (snooker: ``"miss"``, Section 3 Rule 14(c)(ii), or ``"conduct"``,
    Section 4 Rule 2); None in logs written before it existed, which keep the old meaning."""

    TYPE: ClassVar[str] = "award"
    side: int
    match: bool = False
    reason: str | None = None


@value(kw_only=True)
class NextFrame(Event):
    """Start the next frame once the current one is over."""

    TYPE: ClassVar[str] = "next_frame"


@value(kw_only=True)
class Undo(Event):
    """Take back the last event in effect."""

    TYPE: ClassVar[str] = "undo"


@value(kw_only=True)
class Redo(Event):
    """Put back the last event taken back."""

    TYPE: ClassVar[str] = "redo"


@value(kw_only=True)
class Amend(Event):
    """A correction (docs/events.md, Corrections): read the log as if the ``seq``-th event in
    effect had been ``event`` (``delete``: had never been keyed), or as if ``insert`` had
    been keyed just before it. ``user``: who sent it, when the line says (the record lists
    every correction with it). The match applies it (:meth:`~.match.Match.amend`); the game
    never sees one."""

    TYPE: ClassVar[str] = "amend"
    seq: int
    event: Event | None = None
    insert: Event | None = None
    delete: bool = False
    user: str | None = None

    @property
    def now(self) -> Event | None:
        """The event the correction puts in (None for a deletion)."""
        return self.insert if self.insert is not None else self.event


@value(kw_only=True)
class Light(Event):
    """Bookkeeping, not play: the table's light switched (docs/hardware.md, "The table's light").
    ``cause``: ``"match"`` (a match began), ``"match_over"`` (``off_after`` seconds after it
    ended), ``"desk"``, ``"switch"`` (the wall switch);
    ``user``: who, when a person did. The match keeps it beside its events (:attr:`Match.lights`):
    it moves no position, takes no number, and undo, redo and amend pass over it, so a log with
    light lines gives the same score as without them."""

    TYPE: ClassVar[str] = "light"
    on: bool
    cause: str
    user: str | None = None


COMMON_EVENTS: Mapping[str, type[Event]] = {
    cls.TYPE: cls for cls in (Concede, Award, NextFrame, Undo, Redo, Light)
}


def event_types(*classes: type[Event]) -> dict[str, type[Event]]:
    """A game's ``type`` -> class table: the common events plus its own."""
    table = dict(COMMON_EVENTS)
    for cls in classes:
        table[cls.TYPE] = cls
    return table


USER_MAX = 64
"""Any line may carry ``"user"``: who sent it (a login of the command topic, the desk). The
daemon keeps it with the event in its journal; the rules never read it, but an ``amend``
keeps it, so the record says who made each correction."""

ID_MAX = 64
"""Any line may carry ``"id"``, a string of up to 64 characters chosen by a remote sender so
that a retry is never applied twice (docs/events.md). The daemon keeps it with the event in its
journal; the rules never read it, and an event parsed from a line does not carry it."""

WRONG: Any = object()
"""What a converter gives for a JSON value not of its field's type (a field may be null, so
not None)."""

Converter = Callable[[Any], Any]
"""A function from a JSON value to the field's value, or :data:`WRONG`."""
Spec = tuple[frozenset[str], dict[str, Converter], tuple[str, ...], tuple[tuple[str, Any, bool, Converter], ...]]
_SPECS: dict[type[Event], Spec] = {}


def _spec(cls: type[Event]) -> Spec:
    """What parsing an object as ``cls`` needs, worked out once per class (parsing is on the path
    of every press): the keys an object may have (its fields, ``type``, ``id``, ``user``), the
    converter of each field by name, the required fields, and (name, type, required, converter)
    of each field in the order a refusal checks them (``t`` last)."""
    known = _SPECS.get(cls)
    if known is None:
        hints = typing.get_type_hints(cls)
        fields = tuple(
            (f.name, hints[f.name], f.default is dataclasses.MISSING, _converter(hints[f.name]))
            for f in sorted(dataclasses.fields(cls), key=lambda f: f.name == "t")
        )
        known = _SPECS[cls] = (frozenset(["type", "id", "user", "applied", *(name for name, *_ in fields)]),
                               {name: convert for name, _, _, convert in fields},
                               tuple(name for name, _, required, _ in fields if required), fields)
    return known


def _describe(hint: Any) -> str:
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        return " or ".join(_describe(a) for a in typing.get_args(hint))
    if origin is tuple:
        return f"a list of {_describe(typing.get_args(hint)[0])}s"
    return {int: "a whole number", bool: "true or false", float: "a number", str: "a string",
            type(None): "null"}.get(hint, str(hint))


def _converter(hint: Any) -> Converter:
    """A function from a JSON value to the field's value (:data:`WRONG` if not of its type)."""
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        options = [_converter(arg) for arg in typing.get_args(hint)]

        def union(value: Any) -> Any:
            for option in options:
                converted = option(value)
                if converted is not WRONG:
                    return converted
            return WRONG
        return union
    if origin is tuple:
        (item,) = {a for a in typing.get_args(hint) if a is not Ellipsis}
        if item is str:
            # The lists of ball and player names: every event of a pot takes this path.
            def strings(value: Any) -> Any:
                if not isinstance(value, list):
                    return WRONG
                for v in value:
                    if not isinstance(v, str):
                        return WRONG
                return tuple(value)
            return strings
        each = _converter(item)

        def sequence(value: Any) -> Any:
            if not isinstance(value, list):
                return WRONG
            out = []
            for v in value:
                c = each(v)
                if c is WRONG:
                    return WRONG
                out.append(c)
            return tuple(out)
        return sequence
    if hint is type(None):
        return lambda value: None if value is None else WRONG
    if hint is bool:
        return lambda value: value if isinstance(value, bool) else WRONG
    if hint is int:
        # JSON true/false are not numbers, and 4.0 is not a whole number here.
        return lambda value: value if isinstance(value, int) and not isinstance(value, bool) else WRONG
    if hint is float:
        def number(value: Any) -> Any:
            ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
            return float(value) if ok else WRONG
        return number
    if hint is str:
        return lambda value: value if isinstance(value, str) else WRONG
    raise TypeError(f"unsupported field type {hint!r}")


def parse_event(obj: object, kinds: Mapping[str, type[Event]]) -> Event:
    """Parse one decoded JSON object into an event of ``kinds``, strictly.

    >>> parse_event({"type": "award", "side": 1, "sied": 0}, COMMON_EVENTS)
    Traceback (most recent call last):
    ...
    cueboard.engine.errors.IllegalEvent: award: unknown field 'sied' (award takes: side, match, reason, t)
    """
    if not isinstance(obj, dict):
        raise IllegalEvent("an event is a JSON object with a \"type\"", short="invalid")
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise IllegalEvent("an event needs a \"type\"", short="invalid")
    cls = kinds.get(kind)
    if cls is None:
        raise IllegalEvent(f"unknown event type {kind!r} (known: {', '.join(sorted(kinds))})", short="invalid")
    spec = _SPECS.get(cls) or _spec(cls)
    if "id" in obj:
        ident = obj["id"]
        if ident is not None and (not isinstance(ident, str) or not 1 <= len(ident) <= ID_MAX):
            raise IllegalEvent(f"{kind}: 'id' is a string of 1 to {ID_MAX} characters chosen by the sender, "
                               f"not {ident!r}"[:200], short="invalid")
    if "user" in obj:
        user = obj["user"]
        if user is not None and (not isinstance(user, str) or not 1 <= len(user) <= USER_MAX
                                 or not user.isprintable()):
            raise IllegalEvent(f"{kind}: 'user' is who sent the line, a string of 1 to {USER_MAX} printable "
                               f"characters, not {user!r}"[:200], short="invalid")
    if "applied" in obj:
        applied = obj["applied"]
        if isinstance(applied, bool) or not isinstance(applied, int | float):
            raise IllegalEvent(f"{kind}: 'applied' is when the table applied the line, Unix seconds, "
                               f"not {applied!r}"[:200], short="invalid")
    # The object's own keys, converted as they come: an event carries few of its class's fields
    # (a pot its balls, a no_pot none), and a dict of converters by name costs one look-up each.
    # Anything wrong and _refusal says what, checking in the order the fields are listed.
    keys, converters, required, _ = spec
    if len(obj) == 1 and not required:
        return cls()  # its type alone (a no_pot, a next_frame): nothing to convert
    values: dict[str, Any] = {}
    for key, raw in obj.items():
        convert = converters.get(key)
        if convert is None:
            if key not in keys:
                raise _refusal(obj, kind, spec)
            continue
        converted = convert(raw)
        if converted is WRONG:
            raise _refusal(obj, kind, spec)
        values[key] = converted
    for name in required:
        if name not in values:
            raise _refusal(obj, kind, spec)
    return cls(**values)


def _refusal(obj: dict[str, Any], kind: str, spec: Spec) -> IllegalEvent:
    """Why ``obj`` is not an event of ``kind``: an unknown key, else the first field, in the order
    they are listed, missing or not of its type."""
    keys, _, _, fields = spec
    if not keys.issuperset(obj):
        unknown = next(key for key in obj if key not in keys)
        takes = ", ".join(name for name, *_ in fields) or "no fields"
        return IllegalEvent(f"{kind}: unknown field {unknown!r} ({kind} takes: {takes})", short="invalid")
    for name, hint, required, convert in fields:
        if name not in obj:
            if required:
                return IllegalEvent(f"{kind}: {name!r} is required", short="invalid")
        elif convert(obj[name]) is WRONG:
            return IllegalEvent(f"{kind}: {name!r} must be {_describe(hint)}, not {obj[name]!r}", short="invalid")
    raise AssertionError(f"{kind}: refused, but every field fits")


def parse_amend(obj: Mapping[str, object], parse: Callable[[object], Event]) -> Amend:
    """An ``amend`` line, its corrected event parsed by ``parse`` (the match's game), strictly.

    >>> parse_amend({"type": "amend", "seq": 3, "event": None}, lambda o: parse_event(o, COMMON_EVENTS))
    Amend(t=None, seq=3, event=None, insert=None, delete=True, user=None)
    """
    keys = {"type", "seq", "event", "insert", "t", "id", "user", "applied"}
    unknown = next((key for key in obj if key not in keys), None)
    if unknown is not None:
        raise IllegalEvent(f"amend: unknown field {unknown!r} (amend takes: seq, and event or insert, t)",
                           short="invalid")
    seq = obj.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        raise IllegalEvent(f"amend: 'seq' is the number of the event to correct, from 1, not {seq!r}"[:200],
                           short="invalid")
    if ("event" in obj) == ("insert" in obj):
        raise IllegalEvent("amend: give either 'event' (what the event becomes; null: delete it) or "
                           "'insert' (an event to put before it)", short="invalid")
    inner = obj["event"] if "event" in obj else obj["insert"]
    if inner is None and "insert" in obj:
        raise IllegalEvent("amend: 'insert' is an event, not null", short="invalid")
    now: Event | None = None
    if inner is not None:
        if not isinstance(inner, dict):
            raise IllegalEvent("amend: the corrected event is a JSON object with a \"type\"", short="invalid")
        if inner.get("type") in ("undo", "redo", "amend", "match"):
            raise IllegalEvent(f"amend: an amend corrects a game event, not {inner['type']}", short="invalid")
        if "id" in inner or "user" in inner:
            raise IllegalEvent("amend: 'id' and 'user' go on the amend line, not on the event it corrects",
                               short="invalid")
        try:
            now = parse(inner)
        except IllegalEvent as exc:
            raise IllegalEvent(f"amend: {exc}", short="invalid") from None
    # t, id and user checked as on any line (and said to be the amend's).
    try:
        common = parse_event({k: v for k, v in obj.items() if k in ("t", "id", "user")} | {"type": "undo"},
                             {"undo": Undo})
    except IllegalEvent as exc:
        raise IllegalEvent(f"amend{str(exc).removeprefix('undo')}", short="invalid") from None
    user = obj.get("user")
    user = user if isinstance(user, str) else None  # checked just above: a string or left out
    if "insert" in obj:
        return Amend(seq=seq, insert=now, user=user, t=common.t)
    return Amend(seq=seq, event=now, delete=now is None, user=user, t=common.t)


def to_json(event: Event) -> JsonObject:
    """The event as the JSON object of the log; fields left at their default are omitted,
    so ``parse_event(to_json(e)) == e``."""
    if isinstance(event, Amend):
        return _amend_json(event)
    out: JsonObject = {"type": event.TYPE}
    for f in dataclasses.fields(event):
        value = getattr(event, f.name)
        if f.default is not dataclasses.MISSING and value == f.default:
            continue
        out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


def _amend_json(a: Amend) -> JsonObject:
    out: JsonObject = {"type": a.TYPE, "seq": a.seq}
    if a.insert is not None:
        out["insert"] = to_json(a.insert)
    else:
        out["event"] = None if a.event is None else to_json(a.event)
    if a.user is not None:
        out["user"] = a.user
    if a.t is not None:
        out["t"] = a.t
    return out
