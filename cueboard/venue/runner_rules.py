"""Tonight's competition kept up to date, pure: the rules the desk's ``screen/desk/competition.js``
had, in Python, so the venue service (:mod:`cueboard.venue.runner`) runs the night with no desk
open. A competition and its matches are the retained ``cueboard/<venue>/competition`` as JSON
(docs/mqtt.md; :mod:`cueboard.venue.competition` makes them); a table is what the service read of
its retained ``state``, ``status``, ``next`` and ``record``. Nothing here reads a clock.

>>> c = {"created": None, "matches": [
...     {"fixture": "f1", "label": "Final", "round": 1, "sides": ["Ann", "Bob"], "winner": None,
...      "next": None, "table": None, "bye": [False, False], "reserved": "t1"}]}
>>> tables = [Seen("t3", status="online"), Seen("t1", status="online")]
>>> [m["fixture"] for m in ready_matches(c)], free_tables(c, tables)
(['f1'], ['t3', 't1'])
>>> plan_hand(c, tables)
[('f1', 't1')]
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

__all__ = ["Seen", "free_tables", "hand", "observe", "plan_hand", "ready_matches", "side_name", "status", "won"]

Match = dict[str, Any]
Competition = dict[str, Any]

OLD_RECORD = timedelta(minutes=5)
"""A record begun this long before the competition was made is last week's (its fixture ids are the
same): the desk's rule, allowing for a Pi's clock behind the server's."""


@dataclass
class Seen:
    """What the service has read of a table (its retained topics; None: none retained)."""

    name: str
    status: str | None = None
    state: dict[str, Any] | None = None
    next: dict[str, Any] | None = None
    next_seen: bool = False
    record: dict[str, Any] | None = None


def side_name(side: Any) -> str:
    """A side's name as the table shows it ("Cat Lee & Dan Ross" for a pair)."""
    if side is None:
        return ""
    return " & ".join(side) if isinstance(side, list) else str(side)


def status(m: Match) -> str:
    """waiting, ready, handed, playing, done or bye (screen/shared/competition.js ``status``)."""
    if m.get("winner") is not None:
        bye = m.get("bye") or [False, False]
        return "bye" if bye[0] or bye[1] else "done"
    if m.get("table") and m.get("started"):
        return "playing"
    if m.get("table"):
        return "handed"
    sides = m.get("sides") or [None, None]
    return "ready" if sides[0] is not None and sides[1] is not None else "waiting"


def _players(m: Match) -> list[str]:
    out: list[str] = []
    for s in m.get("sides") or []:
        if isinstance(s, list):
            out += [str(x) for x in s]
        elif s:
            out.append(str(s))
    return out


def _busy(c: Competition, except_: str | None = None) -> dict[str, Match]:
    """Who is at a table tonight or has a match handed: a player plays one match at a time."""
    return {p: m for m in c["matches"] if m["fixture"] != except_ and status(m) in ("handed", "playing")
            for p in _players(m)}


def won(c: Competition, fixture: str, side: int, frames: list[int] | None) -> tuple[Competition, bool]:
    """``c`` with ``side`` the winner of ``fixture`` and moved on to its next match; the same result
    again changes nothing; a different winner only while the next match has not begun."""
    m = next((x for x in c["matches"] if x["fixture"] == fixture), None)
    if m is None:
        return c, False
    if m.get("winner") == side and json.dumps(m.get("frames")) == json.dumps(frames):
        return c, False
    nxt = m.get("next")
    if m.get("winner") is not None and m.get("winner") != side and nxt:
        n = next((x for x in c["matches"] if x["fixture"] == nxt["fixture"]), None)
        if n is not None and (n.get("started") or n.get("winner") is not None):
            return c, False
    out = copy.deepcopy(c)
    mm = next(x for x in out["matches"] if x["fixture"] == fixture)
    mm["winner"] = side
    mm["frames"] = frames
    if nxt:
        n = next((x for x in out["matches"] if x["fixture"] == nxt["fixture"]), None)
        if n is not None:
            n["sides"][nxt["side"]] = mm["sides"][side]
            h = out.get("handicaps") or {}
            a, b = h.get(side_name(n["sides"][0]), 0), h.get(side_name(n["sides"][1]), 0)
            n["handicap"] = [max(0, a - b), max(0, b - a)]
    return out, True


def _time(text: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00")) if text else None
    except ValueError:
        return None


def observe(c: Competition, tables: Iterable[Seen]) -> tuple[Competition, bool]:
    """``c`` brought up to date with what the tables say: a match its table has begun is playing;
    a record of the fixture with a winner settles it (competition.js ``observe``)."""
    out, changed = c, False
    created = _time(c.get("created"))
    for tb in tables:
        began = _time((tb.record or {}).get("started"))
        old = created is not None and began is not None and began < created - OLD_RECORD
        r = None if old else tb.record
        if r and r.get("fixture") and r.get("winner") is not None:
            out, step = won(out, str(r["fixture"]), int(r["winner"]), r.get("frames_won"))
            changed = changed or step
        names = [s.get("name") for s in ((tb.state or {}).get("sides") or [])]
        for m in out["matches"]:
            if m.get("started") or m.get("winner") is not None:
                continue
            same = len(names) == 2 and names[0] == side_name(m["sides"][0]) and names[1] == side_name(m["sides"][1])
            by_fixture = (tb.state or {}).get("fixture") == m["fixture"] or bool(r and r.get("fixture") == m["fixture"])
            by_next = (m.get("table") == tb.name and tb.next_seen and not tb.next and same and tb.state is not None
                       and not tb.state.get("match_over"))
            if by_fixture or by_next:
                if out is c:
                    out = copy.deepcopy(c)
                mm = next(x for x in out["matches"] if x["fixture"] == m["fixture"])
                mm["started"], mm["table"] = True, tb.name
                changed = True
    return out, changed


def hand(c: Competition, fixture: str, table: str | None, user: str) -> tuple[Competition, str, str | None]:
    """``c`` with ``fixture`` handed to ``table`` (None: taken back), the refusal ("" when handed)
    and the table it was on before. A match reserved for a table goes to that table only."""
    m = next((x for x in c["matches"] if x["fixture"] == fixture), None)
    if m is None:
        return c, f"no match {fixture} tonight", None
    st = status(m)
    if st in ("playing", "done", "bye"):
        return c, f"{m['label']}: already " + (f"begun on {m['table']}" if st == "playing" else "played"), None
    if st == "waiting":
        return c, f"{m['label']}: a player is still to come from an earlier match", None
    reserved = m.get("reserved")
    if table and reserved and table != reserved:
        return c, f"{m['label']}: reserved for {reserved}", None
    busy = _busy(c, fixture)
    player = next((p for p in _players(m) if p in busy), None) if table else None
    if player is not None:
        other = busy[player]
        return c, f"{player} has {other['label']} {'on' if status(other) == 'playing' else 'handed to'} " \
                  f"{other['table']} already", None
    if table and any(x.get("table") == table and x["fixture"] != fixture and status(x) == "handed"
                     for x in c["matches"]):
        return c, f"{table} has a match handed already", None
    out = copy.deepcopy(c)
    mm = next(x for x in out["matches"] if x["fixture"] == fixture)
    before = mm.get("table") or None
    mm["table"] = table
    mm["handed_by"] = user if table else None
    return out, "", before


def _idle(tb: Seen) -> bool:
    """Idle as the state's schema says: no match, one not begun (seq 0), or one over."""
    s = tb.state
    return not s or not s.get("sides") or s.get("seq") == 0 or bool(s.get("match_over"))


def free_tables(c: Competition, tables: Sequence[Seen]) -> list[str]:
    """The tables free for a match, those that had fewest of tonight's matches first, then the
    venue's order; a table reserved for a match still to be played is kept for it."""
    busy = {m.get("table") for m in c["matches"] if status(m) in ("handed", "playing")}
    begun = {m["fixture"] for m in c["matches"] if m.get("started") or m.get("winner") is not None}
    played: dict[str, int] = {}
    for m in c["matches"]:
        if m.get("table") and (m.get("started") or m.get("winner") is not None):
            played[m["table"]] = played.get(m["table"], 0) + 1
    free = [tb.name for tb in tables if tb.status == "online" and tb.name not in busy and _idle(tb)
            and not (tb.next and tb.next.get("fixture", "") not in begun)]
    order = {name: i for i, name in enumerate(free)}
    return sorted(free, key=lambda name: (played.get(name, 0), order[name]))


def ready_matches(c: Competition) -> list[Match]:
    """The matches ready to be handed, in the draw's order, but those with a player busy."""
    busy = _busy(c)
    ready = [m for m in c["matches"] if status(m) == "ready" and not any(p in busy for p in _players(m))]
    return sorted(ready, key=lambda m: int(m.get("round", 1)))


def plan_hand(c: Competition, tables: Sequence[Seen]) -> list[tuple[str, str]]:
    """Which ready match goes to which free table now (fixture, table), in the draw's order. A
    match reserved for a table waits for that table; an unreserved one may play there until the
    reserved match is ready, and from then on never takes it."""
    kept = {m["reserved"] for m in c["matches"] if m.get("reserved") and status(m) == "ready"}
    free = free_tables(c, tables)
    plan: list[tuple[str, str]] = []
    taken: set[str] = set()
    busy: set[str] = set()
    for m in ready_matches(c):
        if any(p in busy for p in _players(m)):
            continue
        reserved = m.get("reserved")
        if reserved:
            table = reserved if reserved in free and reserved not in taken else None
        else:
            table = next((t for t in free if t not in taken and t not in kept), None)
        if table is None:
            continue
        plan.append((m["fixture"], table))
        taken.add(table)
        busy.update(_players(m))
    return plan
