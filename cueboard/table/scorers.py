"""Scorers: the phones that score a table (``<prefix>/score/<user>``, docs/mqtt.md).

The broker's ACL (``cueboard venue``) lets a scorer's login write only its own table's
``score/<user>`` and ``score/<user>/presence``; the table takes from ``score/<user>`` only what
a marker keys (:data:`MARKER_LINES`). Setting a match up, handing one on, correcting the log,
awarding and conceding the match are the desk's or the referee's, refused with the role named
(:func:`scorer_refusal`): the roles are written down once, in :mod:`cueboard.contract.roles`; the
page never decides who may.

A scorer's phone publishes its presence, retained: ``{"schema": 1, "online": true, "ts": ...}``
on connect, and ``{"schema": 1, "online": false}`` as its MQTT last will; the table reports each
scorer on ``devices`` as ``scorer:<user>``: ``ok`` or ``lost``, with when it was last seen
(:class:`Scorers`). A scorer may show a call it is keying on the boards, as a keypad's is
(``{"type": "call", "keys": ["FOUL"], "needs": "the value"}``; ``"keys": []`` ends it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from cueboard.common.errors import PresenceRefused
from cueboard.contract.lines import Unreadable, read_line
from cueboard.contract.roles import LINES, refusal
from cueboard.contract.times import timestamp
from cueboard.engine.json_value import Json

__all__ = ["MARKER_LINES", "PresenceRefused", "Scorers", "call_of", "scorer_refusal"]

MARKER_LINES = frozenset(kind for kind, (roles, _) in LINES.items() if "scorer" in roles)
"""The lines a scorer's login may send: what a marker keys at the table (:data:`~cueboard.contract.roles.LINES`)."""

CALL_KEYS = 8
"""Keys of a call a scorer shows on the boards, at most (a call is a few keys)."""


def scorer_refusal(line: Mapping[str, Json], user: str) -> str | None:
    """Why the scorer ``user`` may not send ``line`` (None: it may): the scorer's role as
    :mod:`cueboard.contract.roles` writes it down.

    >>> scorer_refusal({"type": "pot", "balls": ["red"]}, "scorer-t1") is None
    True
    >>> scorer_refusal({"type": "start_next", "fixture": "F1"}, "scorer-t1")
    "'start_next' is refused from scorer-t1: a scorer login scores strokes; the desk starts matches"
    """
    return refusal("scorer", line, user)


def call_of(line: Mapping[str, Json]) -> tuple[tuple[str, ...], str] | str:
    """A ``call`` line's keys and what it waits for, or why it is not one."""
    keys, needs = line.get("keys"), line.get("needs", "")
    if not isinstance(keys, list) or len(keys) > CALL_KEYS or not all(
            isinstance(k, str) and 1 <= len(k) <= 20 and k.isprintable() for k in keys):
        return f"call: 'keys' lists at most {CALL_KEYS} keys, each 1 to 20 printable characters"
    if not isinstance(needs, str) or len(needs) > 120 or not needs.isprintable():
        return "call: 'needs' says what the call waits for, at most 120 printable characters"
    return tuple(str(k) for k in keys), needs


@dataclass
class _Seen:
    online: bool
    last_seen: float | None


class Scorers:
    """Each scorer's presence, as ``devices`` reports it."""

    def __init__(self) -> None:
        self._seen: dict[str, _Seen] = {}

    def presence(self, user: str, payload: bytes, now: float) -> None:
        """``score/<user>/presence``: online, offline (its will), or empty (the retained
        presence cleared: the scorer is gone from ``devices``)."""
        if not payload:
            self._seen.pop(user, None)
            return
        obj = read_line(payload, 1024)
        if isinstance(obj, Unreadable):
            raise PresenceRefused(f"presence: {obj.reason}")
        online = obj.get("online")
        if obj.get("schema") != 1 or not isinstance(online, bool):
            raise PresenceRefused('presence: {"schema": 1, "online": true | false, "ts": ...} is a presence')
        before = self._seen.get(user)
        # The will carries no time: the table's own clock says when the scorer was lost.
        self._seen[user] = _Seen(online, now if online or before is None else before.last_seen)

    def heard(self, user: str, now: float) -> None:
        """A line from ``user``: seen now (a phone whose presence was not read yet is online)."""
        self._seen[user] = _Seen(True, now)

    def health(self) -> dict[str, str]:
        """``{"scorer:<user>": "ok" | "lost"}``."""
        return {f"scorer:{user}": "ok" if seen.online else "lost" for user, seen in sorted(self._seen.items())}

    def last_seen(self) -> dict[str, str]:
        """``{"scorer:<user>": ts}``: when each scorer was last heard from."""
        return {f"scorer:{user}": timestamp(seen.last_seen) for user, seen in sorted(self._seen.items())
                if seen.last_seen is not None}
