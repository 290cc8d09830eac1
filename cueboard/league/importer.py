"""``cueboard archive import``: the records of event logs and journal files, as ``cueboard
report`` makes them (``cueboard.league.report.record_of_log``), ready to store.

A log has no venue, table or match id of its own (its match line is the table's set-up):
``--venue`` and ``--table`` give the first two, and the match id is then the one the table's
feed gives the same match, ``<venue>/<table>/<started>``, so a journal brought in on a stick
and the records that came over MQTT are one match. Without them the id is ``log:`` and a
digest of the log's first two lines (``records.log_id``): a journal imported again, further
played, replaces its earlier import.
"""

from __future__ import annotations

import json
import math

from cueboard.common.errors import LogError, RecordError, RejectedLine
from cueboard.engine.record import BREAKS_FROM, match_id
from cueboard.games.replay import lines_of
from cueboard.league.records import Record, checked, log_id
from cueboard.league.report import record_of_log


def read_log(path: str, *, venue: str | None = None, table: str | None = None, competition: str | None = None,
             breaks_from: int = BREAKS_FROM) -> Record:
    """The record of the log at ``path``, checked; :class:`LogError` naming the file."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as exc:
        raise LogError(f"cueboard archive: cannot read {path}: {exc.strerror or exc}", 1) from None
    lines = raw.splitlines(keepends=True)
    try:
        data = record_of_log(lines, breaks_from=breaks_from)
        first = [text for _, text in zip(range(2), lines_of(lines), strict=False)]
    except RejectedLine as exc:
        raise LogError(f"{path} {exc}", 2) from None
    if venue and table and len(first) == 2:
        # The id the table's feed gives the same match (its first event's time: engine.record.match_id).
        t = json.loads(first[1][1]).get("t")
        if isinstance(t, int | float) and not isinstance(t, bool) and math.isfinite(t):
            data["match_id"] = match_id(venue, table, t)
    if competition is not None and data.get("competition") is None:
        data["competition"] = competition
    try:
        return checked(data, venue=venue, table=table, fallback_id=log_id([t for _, t in first]))
    except RecordError as exc:
        raise LogError(f"{path}: {exc}", 2) from None
