"""Which role may send which line to a table, written down once (docs/security.md, "Roles").

Two doors decide, and both read this module's words: the broker's ACL (``cueboard venue``
writes it) decides which *topic* a login may write (:data:`WRITES`: a screen writes nothing, a
scorer only its own ``score/<login>`` and its presence); the table decides which *line* a
login may send on the topic it could write (:func:`refusal`, used by
``cueboard/table/scorers.py``). ``tests/table/test_roles.py`` tries every line of
:data:`LINES` from every role of :data:`ROLES` on a real table behind a real mosquitto with the
venue tool's ACL, and checks each is taken or refused as written here; docs/security.md's
table is :func:`markdown` (``tests/contract/test_roles.py`` compares them).

A line's *kind* (:func:`kind_of`) is its ``type``, told apart where one type carries two
rights: ``concede`` (the frame: the striker's, keyed by a marker) from ``concede_match`` (the
match: Section 4 Rule 2, the desk's: docs/desk.md, docs/scorer.md), ``clock_stop`` from the
clock's start, hold and resume, ``amend_preview`` from ``amend``.

>>> print(refusal("scorer", {"type": "concede", "match": True}, "scorer-t1"))
'concede' with "match": true is refused from scorer-t1: a scorer login scores strokes; the desk concedes a match
>>> refusal("scorer", {"type": "concede"}, "scorer-t1") is None
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, TypeAlias

from cueboard.engine.json_value import Json

__all__ = ["ALSO_WRITES", "CHANNELS", "LINES", "ROLES", "WRITES", "Channel", "Role", "kind_of", "markdown", "may_send",
           "refusal"]

Role: TypeAlias = Literal["table", "desk", "scorer", "screen", "league", "archive"]
ROLES: tuple[Role, ...] = ("table", "desk", "scorer", "screen", "league", "archive")
"""``table``: a table's daemon (its login); ``desk``: a desk login; ``scorer``: a scorer's
login for one table; ``screen``: an anonymous venue screen; ``league``: the league's broker
and its readers, over the bridge; ``archive``: the results archive's login at a venue (it reads
the records, state, events and status, and writes only its acknowledgements, :data:`ALSO_WRITES`)."""

Channel: TypeAlias = Literal["command", "score", "presence", "next", "message"]
CHANNELS: Mapping[Channel, str] = {
    "command": "`<prefix>/command/<login>`",
    "score": "`<prefix>/score/<login>`",
    "presence": "`<prefix>/score/<login>/presence`",
    "next": "`<prefix>/next`",
    "message": "`<prefix>/message`",
}
"""Every topic a table reads from the network (docs/mqtt.md)."""

WRITES: Mapping[Role, frozenset[Channel]] = {
    "table": frozenset({"next"}),  # its own, cleared once the match it hands on began
    "desk": frozenset({"command", "next", "message"}),
    "scorer": frozenset({"score", "presence"}),  # its own table's, under its own login
    "screen": frozenset(),  # anonymous: reads only
    "league": frozenset(),  # the bridge carries the venue's topics out, nothing in
    "archive": frozenset(),  # reads; its acknowledgements (ALSO_WRITES) change no score
}
"""Which of a table's :data:`CHANNELS` each role may write: the broker's ACL decides."""

ALSO_WRITES: Mapping[Role, str] = {
    "archive": "`<prefix>/archived/<login>` (that it stored a match's record: docs/league.md)",
}
"""What a role may write besides the channels a line comes on: nothing that changes a score."""

LINE_CHANNEL: Mapping[Role, Channel] = {"desk": "command", "scorer": "score"}
"""Where a role sends its lines (its events and commands)."""

_MARKER: frozenset[Role] = frozenset({"desk", "scorer"})
_DESK: frozenset[Role] = frozenset({"desk"})

LINES: Mapping[str, tuple[frozenset[Role], str]] = {
    # kind: (who may send it, what it is). What a marker keys at the table, the desk may too.
    "pot": (_MARKER, "a pot"),
    "no_pot": (_MARKER, "no pot, a safety"),
    "foul": (_MARKER, "a foul (free ball and miss are its fields)"),
    "replace": (_MARKER, "balls replaced after a miss"),
    "play_again": (_MARKER, "the offender plays again"),
    "respotted_black": (_MARKER, "the re-spotted black's lot"),
    "concede": (_MARKER, "the striker concedes the frame"),
    "claim": (_MARKER, "a claim of the frame"),
    "next_frame": (_MARKER, "the next frame"),
    "rerack": (_MARKER, "a re-rack"),
    "loss": (_MARKER, "loss of frame (blackball)"),
    "touching": (_MARKER, "a touching ball"),
    "clock": (_MARKER, "the shot clock started, held or resumed"),
    "clock_hold": (_MARKER, "the shot clock held"),
    "clock_resume": (_MARKER, "the shot clock resumed"),
    "undo": (_MARKER, "the last event taken back"),
    "redo": (_MARKER, "an undone event put back"),
    "call": (frozenset({"scorer"}), "a call being keyed on the phone, shown on the boards"),
    "concede_match": (_DESK, "the match conceded (Section 4 Rule 2)"),
    "award": (_DESK, "a frame or the match awarded"),
    "amend": (_DESK, "a correction of the log"),
    "amend_preview": (_DESK, "what a correction would give, never applied"),
    "order": (_DESK, "four-handed snooker's order of play"),
    "started_by": (_DESK, "the frame started by the wrong side"),
    "clock_stop": (_DESK, "the shot clock stopped"),
    "match": (_DESK, "a match set up"),
    "new_match": (_DESK, "the configured match, or the one handed on"),
    "start_next": (_DESK, "the match handed on, begun"),
    "state": (_DESK, "the table's state, asked"),
    "light": (_DESK, "the table's light switched on or off (issue 43: docs/hardware.md)"),
}
"""Every line a table takes on its command and score topics, by :func:`kind_of`."""

_WHOSE = {
    "concede_match": "the desk concedes a match", "award": "the desk or the referee awards a frame",
    "amend": "the desk or the referee corrects the log", "amend_preview": "the desk or the referee corrects the log",
    "match": "the desk starts matches", "new_match": "the desk starts matches", "start_next": "the desk starts matches",
    "clock_stop": "the desk or the referee stops the shot clock",
    "light": "the desk switches the table's light",
}


def kind_of(line: Mapping[str, Json]) -> str:
    """The line's kind: its ``type``, or ``concede_match``, ``clock_stop``, ``amend_preview``."""
    kind = line.get("type")
    if not isinstance(kind, str):
        return ""
    if kind == "concede" and line.get("match") is True:
        return "concede_match"
    if kind == "clock" and line.get("action", "start") not in ("start", "hold", "resume"):
        return "clock_stop" if line.get("action") == "stop" else "clock_other"
    if kind == "amend" and line.get("preview") is True:
        return "amend_preview"
    return kind


def may_send(role: Role, kind: str) -> bool:
    """Whether ``role`` may send a line of ``kind`` (on its :data:`LINE_CHANNEL`)."""
    roles, _ = LINES.get(kind, (frozenset(), ""))
    return role in roles


def refusal(role: Role, line: Mapping[str, Json], user: str) -> str | None:
    """Why ``user``, of ``role``, may not send ``line`` (None: it may; a kind no role sends is
    the desk's to try, and the engine's to refuse)."""
    kind = kind_of(line)
    if role == "desk" and kind not in LINES:
        return None  # the rules answer it ("unknown event type")
    if may_send(role, kind):
        return None
    if role == "scorer":
        what = f"{str(line.get('type'))[:40]!r}"
        if kind == "concede_match":
            what += ' with "match": true'
        elif kind.startswith("clock_") and line.get("type") == "clock":
            what = f"clock {line.get('action')!r}"[:60]
        whose = _WHOSE.get(kind, "that is the desk's or the referee's")
        return f"{what} is refused from {user}: a scorer login scores strokes; {whose}"
    return f"{str(line.get('type'))[:40]!r} is refused from {user}: a {role} login sends no such line"


def markdown() -> str:
    """docs/security.md's table of the roles' rights (compared with the page by a test)."""
    head = ["| role | may write (the broker's ACL) | may send (the table decides) |", "|---|---|---|"]
    rows = []
    for role in ROLES:
        writes = ", ".join([CHANNELS[c] for c in CHANNELS if c in WRITES[role]]
                           + ([ALSO_WRITES[role]] if role in ALSO_WRITES else [])) or "nothing"
        kinds = [kind for kind, (roles, _) in LINES.items() if role in roles]
        if role not in LINE_CHANNEL:
            sends = "no line"
        elif role == "desk":
            sends = "every line but " + ", ".join(f"`{k}`" for k in LINES if k not in kinds)
        else:
            sends = ", ".join(f"`{k}`" for k in kinds)
        rows.append(f"| {role} | {writes} | {sends} |")
    return "\n".join(head + rows) + "\n"
