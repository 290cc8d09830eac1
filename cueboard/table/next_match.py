"""The match the desk hands a table (``<prefix>/next``, docs/mqtt.md): checked, kept, started once.

The desk publishes the table's next fixture, retained::

    {"schema": 1, "fixture": "KO-R1-3", "competition": "Spring Cup", "sides": ["Ann", "Bob"],
     "format": {"game": "snooker", "best_of": 3}, "handed_by": "desk"}

The table checks it as it checks a match line (the same match-setup rules, so a bad hand-off is
refused naming the field), keeps it in its journal folder (``next.json``: a restart keeps it),
shows "Next: Ann v Bob" while idle, and starts it on the referee's NEW MATCH or the desk's
``start_next``. A fixture is played once on a table: the fixtures started are kept in the same
file, and a hand-off or a ``start_next`` of one of them is refused saying so (the desk's
retained message may come again after a reconnect, before the table's clearing reaches the
broker).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from cueboard.common.errors import HandoffRefused
from cueboard.contract.lines import Unreadable, check_user, read_line
from cueboard.engine import IllegalEvent
from cueboard.engine.json_value import Json, JsonObject
from cueboard.engine.match_setup import MatchSetup

log = logging.getLogger(__name__)

__all__ = ["FILE", "Handoff", "HandoffRefused", "NextStore", "parse_handoff"]

FILE = "next.json"
"""The hand-off and the fixtures started, in the table's journal folder."""

STARTED_KEPT = 512
"""Fixtures started on this table remembered (a season of club nights on one table fits)."""

PAYLOAD_BYTES = 16384
"""The longest ``next`` payload read, as a command line (``commands.max_bytes``'s default)."""

FIELDS = frozenset({"schema", "fixture", "competition", "sides", "format", "handed_by"})


_FIELD_WORDS = (("fixture", ("fixture",)), ("competition", ("competition",)),
                ("sides", ("'sides'", "side ", "player", "both sides")))
"""Which field of the hand-off a match line's refusal is about, by the words it says."""


@dataclass(frozen=True)
class Handoff:
    """A fixture handed to the table: what the match line it starts will say."""

    fixture: str
    competition: str | None
    line: Mapping[str, Json]
    """The match line's fields (``sides``, the format, ``fixture``, ``competition``), checked."""
    names: tuple[str, str]
    handed_by: str | None = None

    def to_json(self) -> JsonObject:
        """What ``next.json`` keeps: the hand-off as the desk sent it."""
        fields = {k: v for k, v in self.line.items() if k not in ("sides", "fixture", "competition")}
        return {"schema": 1, "fixture": self.fixture, "competition": self.competition,
                "sides": self.line["sides"], "format": fields, "handed_by": self.handed_by}

    def state(self) -> JsonObject:
        """The state's ``next`` (docs/state.md)."""
        return {"fixture": self.fixture, "competition": self.competition, "names": list(self.names)}


def parse_handoff(payload: bytes | Mapping[str, Json],
                  setup: Callable[[Mapping[str, Json]], MatchSetup]) -> Handoff | None:
    """The hand-off in ``payload`` (None: an empty payload, which clears it), checked by
    ``setup`` (the table's :meth:`~cueboard.table.config.Config.match_setup`, the check of a match
    line); :class:`HandoffRefused` naming the field otherwise.

    >>> from cueboard.engine.registry import parse_match
    >>> check = lambda f: parse_match({"type": "match", **f})
    >>> h = parse_handoff(b'{"schema": 1, "fixture": "F1", "competition": null, "sides": ["Ann", "Bob"], '
    ...                   b'"format": {"game": "snooker", "best_of": 3}}', check)
    >>> h.state()
    {'fixture': 'F1', 'competition': None, 'names': ['Ann', 'Bob']}
    >>> parse_handoff(b'{"schema": 1, "fixture": "F1", "sides": ["Ann", "Bob"], '
    ...               b'"format": {"game": "snooker", "best_of": 0}}', check)
    Traceback (most recent call last):
    ...
    cueboard.common.errors.HandoffRefused: next: format: match: 'best_of' must be at least 1
    """
    if isinstance(payload, bytes | bytearray):
        if not payload:
            return None
        obj = read_line(bytes(payload), PAYLOAD_BYTES)
        if isinstance(obj, Unreadable):
            raise HandoffRefused(f"next: {obj.reason}")
    else:
        obj = dict(payload)
    unknown = sorted(set(obj) - FIELDS)
    if unknown:
        raise HandoffRefused(f"next: unknown field {unknown[0]!r} (a hand-off has {', '.join(sorted(FIELDS))})")
    if obj.get("schema") != 1:
        raise HandoffRefused(f"next: 'schema' must be 1, not {obj.get('schema')!r}")
    fixture = obj.get("fixture")
    if not isinstance(fixture, str) or not fixture:
        raise HandoffRefused(f"next: 'fixture' is the fixture's id, unique in the night, not {fixture!r}"[:300])
    form = obj.get("format", {})
    if not isinstance(form, dict):
        raise HandoffRefused("next: 'format' is an object of match-line fields (game, best_of, ...)")
    for key in ("type", "sides", "fixture", "competition", "id", "user"):
        if key in form:
            raise HandoffRefused(f"next: format: {key!r} is not a format field (the hand-off's own, or the table's)")
    handed_by = obj.get("handed_by")
    if handed_by is not None and (not isinstance(handed_by, str) or check_user(handed_by) is not None):
        raise HandoffRefused("next: 'handed_by' is the desk's login, a string of 1 to 64 printable characters")
    line = {**form, "sides": obj.get("sides"), "fixture": fixture, "competition": obj.get("competition")}
    try:
        checked = setup(line)
    except IllegalEvent as exc:
        where = next((field for field, words in _FIELD_WORDS if any(w in str(exc) for w in words)), "format")
        raise HandoffRefused(f"next: {where}: {exc}") from None
    assert checked.fixture is not None
    return Handoff(checked.fixture, checked.competition, line, checked.names, handed_by)


class NextStore:
    """``next.json`` in the journal folder: the hand-off held and the fixtures started.
    Written whole (a new file renamed over the old, fsynced): a power cut leaves the old or
    the new. A file that cannot be read or written is logged and the table goes on (the
    journal's own health says when the folder fails)."""

    def __init__(self, directory: Path, setup: Callable[[Mapping[str, Json]], MatchSetup]) -> None:
        self.path = Path(directory) / FILE
        self._setup = setup
        self.handoff: Handoff | None = None
        self.started: list[str] = []

    def load(self) -> None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            log.error("%s: cannot be read (%s): no hand-off kept", self.path, exc)
            return
        started = data.get("started") if isinstance(data, dict) else None
        self.started = [f for f in started if isinstance(f, str)][-STARTED_KEPT:] if isinstance(started, list) else []
        held = data.get("next") if isinstance(data, dict) else None
        if isinstance(held, dict):
            try:
                self.handoff = parse_handoff(held, self._setup)
            except HandoffRefused as exc:
                log.error("%s: the hand-off kept is refused now (%s): dropped", self.path, exc)

    def hold(self, handoff: Handoff | None) -> None:
        self.handoff = handoff
        self._save()

    def mark_started(self, fixture: str) -> None:
        """``fixture`` began on this table: never again; the hand-off is cleared."""
        if fixture not in self.started:
            self.started = [*self.started, fixture][-STARTED_KEPT:]
        if self.handoff is not None and self.handoff.fixture == fixture:
            self.handoff = None
        self._save()

    def _save(self) -> None:
        data = {"next": None if self.handoff is None else self.handoff.to_json(), "started": self.started}
        tmp = self.path.with_name(FILE + ".tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(data, f, ensure_ascii=False)
                f.flush()
                os.fsync(f.fileno())
            tmp.replace(self.path)
        except OSError as exc:
            log.error("%s: cannot be written (%s): the hand-off is kept until a restart only", self.path, exc)
            with contextlib.suppress(OSError):
                tmp.unlink()
