"""A line from the network, read so that it always gets exactly one answer: :func:`read_line`
turns any bytes into a JSON object or an :class:`Unreadable` reason, never an exception;
:func:`echo` is the bounded copy a ``rejected`` message carries (docs/mqtt.md, "Commands").
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import NoReturn

from cueboard.contract.codes import Reason
from cueboard.engine.json_value import Json, JsonObject

__all__ = ["APPLIED_APART_S", "ECHO_BYTES", "LIGHT_KEYS", "LINE_BYTES", "TAP_AGE_S", "TAP_AHEAD_S", "USER_MAX",
           "Unreadable", "check_user", "echo", "light_refusal", "peek_id", "read_line", "timed"]

ECHO_BYTES = 1024
"""The most of an input a ``rejected`` message echoes (docs/mqtt.md)."""

LINE_BYTES = 16384
"""The longest command line a table reads (``commands.max_bytes``): a match line with four
players' names and a fixture is well under 2 KiB."""

USER_MAX = 64
"""The longest user name (the last level of ``<prefix>/command/<user>``) taken."""

TAP_AGE_S = 12 * 3600.0
"""The oldest ``t`` a line from the network may carry: a scorer's phone keeps a tap made offline
until the table answers it (screen/score/outbox.js), at most a club night; older is a phone's
clock gone wrong or a tap from another night, refused (``too_old``) rather than put into the past
of this match."""

TAP_AHEAD_S = 60.0
"""How far ahead of the table's clock a line's ``t`` may be: a phone's clock a little fast is
taken, clamped to the time the table applies it (a tap is never made after it is applied)."""

APPLIED_APART_S = 1.0
"""A line made this long or more before the table applied it (a tap kept offline) has its
``applied`` time journalled beside its ``t``; one made just now was applied when it was made."""


@dataclass(frozen=True)
class Unreadable:
    """Why a line is not a JSON object the table could look at (short form ``too_long`` or
    ``not_json``: :data:`cueboard.contract.codes.NETWORK_SHORTS`)."""

    reason: Reason


class _NotFinite(ValueError):
    pass


def _number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(f"{text[:40]} is a number JSON cannot carry (finite numbers only)")
    return value


def _constant(name: str) -> NoReturn:
    raise _NotFinite(f"{name} is not JSON (finite numbers only)")


def read_line(payload: bytes, max_bytes: int = LINE_BYTES) -> JsonObject | Unreadable:
    """The JSON object in ``payload``, or why it is not one.

    A command is bytes from anyone the broker let in: it may be huge, not UTF-8, nested
    100,000 deep, or hold numbers JSON cannot carry (``1e999`` reads as infinity, which no
    answer could then be encoded with).

    >>> read_line(b'{"type": "no_pot", "id": "d1"}', 16384)
    {'type': 'no_pot', 'id': 'd1'}
    >>> read_line(b'{"t": 1e999}', 16384).reason
    'not JSON: 1e999 is a number JSON cannot carry (finite numbers only)'
    """
    if len(payload) > max_bytes:
        return Unreadable(Reason(f"too long: {len(payload)} bytes; a command line is at most {max_bytes} bytes "
                                 "(commands.max_bytes)", "too_long"))
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Unreadable(Reason(f"not UTF-8: {exc.reason} at byte {exc.start}", "not_json"))
    try:
        obj = json.loads(text, parse_float=_number, parse_constant=_constant)
    except _NotFinite as exc:
        return Unreadable(Reason(f"not JSON: {exc}", "not_json"))
    except json.JSONDecodeError as exc:
        return Unreadable(Reason(f"not JSON: {exc}"[:200], "not_json"))
    except RecursionError:
        return Unreadable(Reason("not JSON this table reads: nested too deep", "not_json"))
    except ValueError as exc:  # an integer of more digits than Python converts
        return Unreadable(Reason(f"not JSON this table reads: {exc}"[:200], "not_json"))
    if not isinstance(obj, dict):
        return Unreadable(Reason("send one JSON object: an event or a match line", "not_json"))
    line: JsonObject = obj  # what json.loads gives: JSON (the one untyped value, read here)
    return line


def timed(line: JsonObject, now: float) -> JsonObject | Reason:
    """``line`` with its ``t`` (when it was made: a scorer's tap keeps the time it was tapped,
    docs/events.md) bounded by the table's clock ``now``, and ``applied`` (``now``) beside it; a
    line with no ``t`` as it is (stamped when applied), ``applied`` left out for a line made less
    than :data:`APPLIED_APART_S` before it was applied, and an ``applied`` a sender wrote
    dropped (only the table says when it applied a line). A ``t`` up to :data:`TAP_AHEAD_S`
    ahead is clamped to ``now``; one further ahead or older than :data:`TAP_AGE_S` is refused.

    >>> timed({"type": "no_pot", "t": 990.0}, 1000.0)
    {'type': 'no_pot', 't': 990.0, 'applied': 1000.0}
    >>> timed({"type": "no_pot", "t": 1030.0}, 1000.0)
    {'type': 'no_pot', 't': 1000.0}
    >>> timed({"type": "no_pot", "t": 0}, 1e9).short
    'too_old'
    """
    clean = {k: v for k, v in line.items() if k != "applied"}
    t = clean.get("t")
    if "t" not in clean or isinstance(t, bool) or not isinstance(t, int | float):
        return clean  # none: stamped when applied; not a number: the rules' parsing names the field
    if t > now + TAP_AHEAD_S:
        return Reason(f"t: {t - now:.0f} s ahead of the table's clock; a line's t (when it was made) is at most "
                      f"{TAP_AHEAD_S:.0f} s ahead (TAP_AHEAD_S): set the phone's clock", "too_new")
    if t < now - TAP_AGE_S:
        return Reason(f"t: made {(now - t) / 3600:.1f} h ago; a line's t (when it was made) is at most "
                      f"{TAP_AGE_S / 3600:.0f} h old (TAP_AGE_S): not put into this match's past", "too_old")
    made = min(float(t), now)
    # ``applied`` only where it says something: a line made a second or more before the table
    # applied it (a tap kept offline); one made just now was applied when it was made.
    return {**clean, "t": made, "applied": now} if now - made >= APPLIED_APART_S else {**clean, "t": made}


def check_user(user: str) -> str | None:
    """Why ``user`` (a topic level) cannot name who sent a command, or None.

    >>> check_user("desk"), check_user("a/b") is not None
    (None, True)
    """
    if not 1 <= len(user) <= USER_MAX or not user.isprintable() or any(c in user for c in "/+#"):
        return (f"the user name (the topic's last level) is 1 to {USER_MAX} printable characters without "
                "'/', '+' or '#'")
    return None


def _short_str(value: Json, limit: int = 64) -> str | None:
    return value if isinstance(value, str) and len(value) <= limit else None


def echo(obj: JsonObject | None, payload: bytes | None) -> JsonObject:
    """What a ``rejected`` message says of the input: ``event`` (the object, when it encodes in at
    most :data:`ECHO_BYTES`), else ``input`` (its first :data:`ECHO_BYTES`, as text) and
    ``length`` (its bytes); ``id`` and ``type`` whenever it had short string ones.

    The ``id`` and ``type`` when it had them, its length, and at most :data:`ECHO_BYTES` of it,
    so that one hostile payload is never multiplied to every subscriber.

    >>> echo(None, b"x" * 5000)["length"], len(echo(None, b"x" * 5000)["input"])
    (5000, 1024)
    """
    out: JsonObject = {"event": None}
    if obj is not None:
        out["id"], out["type"] = _short_str(obj.get("id")), _short_str(obj.get("type"))
        try:
            encoded = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
        except (ValueError, TypeError, RecursionError):
            encoded = None
        if encoded is not None and len(encoded) <= ECHO_BYTES:
            out["event"] = obj
            return out
        if payload is None:
            payload = encoded if encoded is not None else repr(obj)[:ECHO_BYTES * 4].encode()
    if payload is not None:
        if obj is None:  # not an object the table could read: its id and type as far as they can be seen
            head = payload[:4 * ECHO_BYTES].decode("utf-8", errors="replace")
            for key in ("id", "type"):
                found = _KEY[key].search(head)
                out[key] = found.group(1) if found and "\ufffd" not in found.group(1) else None
        out["input"] = payload[:ECHO_BYTES].decode("utf-8", errors="replace")
        out["length"] = len(payload)
    return out


def peek_id(payload: bytes) -> str | None:
    """The ``id`` a line carries, read off its first bytes without parsing it (as :func:`echo`
    reads it for a ``rejected`` message): for a line refused before it is read.

    >>> peek_id(b'{"type": "foul", "points": 3, "id": "f17"}'), peek_id(b"not json")
    ('f17', None)
    """
    found = _KEY["id"].search(payload[:4 * ECHO_BYTES].decode("utf-8", errors="replace"))
    return found.group(1) if found and "\ufffd" not in found.group(1) else None


_KEY = {key: re.compile(rf'"{key}"\s*:\s*"([^"\\]{{1,64}})"') for key in ("id", "type")}


LIGHT_KEYS = frozenset({"type", "on", "id", "user", "t"})
"""What the desk's ``{"type": "light", "on": true}`` may carry (docs/mqtt.md, "The table's light")."""


def light_refusal(line: JsonObject) -> Reason | None:
    """Why a ``light`` line cannot be taken (``invalid``, naming the field), or None.

    >>> light_refusal({"type": "light", "on": True}) is None
    True
    >>> print(light_refusal({"type": "light", "on": 1}))
    light: 'on' is true or false, not 1
    """
    extra = sorted(set(line) - LIGHT_KEYS)
    if extra:
        return Reason(f"light: unknown field {extra[0][:40]!r} (light takes: on)", "invalid")
    on = line.get("on")
    if not isinstance(on, bool):
        return Reason(f"light: 'on' is true or false, not {on!r}"[:200], "invalid")
    return None
