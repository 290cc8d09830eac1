"""A tap keeps the time it was made (issue 38): a line's ``t`` is the event's, bounded by the
table's clock (cueboard.contract.lines.timed), the journal keeps ``applied`` beside it, and a
journal written so replays as it was. The table's wall clock is injected: nothing here depends
on the time of day."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from cueboard.contract.lines import APPLIED_APART_S, TAP_AGE_S, TAP_AHEAD_S
from cueboard.table.daemon import Table
from cueboard.table.journal import read_lines
from tests.helpers.daemon import table_config
from tests.table.test_daemon import Recorder, Running

NOW = 1_800_000_000.0


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Running]:
    t = Table(table_config(tmp_path), wall=lambda: NOW)
    t.boards.append(Recorder(t.journal))
    with Running(t) as running:
        yield running


def _state(table: Running) -> dict[str, object]:
    latest = table.table.latest_state
    assert latest is not None
    return {k: v for k, v in latest.to_json().items() if k != "ts"}


def _journal(table: Running) -> list[dict[str, object]]:
    path = table.table.journal.path
    assert path is not None
    return [json.loads(line) for line in read_lines(path)[1:]]  # after the match line


def test_a_tap_made_offline_keeps_its_time_and_says_when_it_was_applied(table: Running) -> None:
    made = NOW - 95.25  # tapped 95 s before the connection came back
    answer = table.send({"type": "pot", "balls": ["red"], "t": made, "id": "s-1", "user": "scorer-t1"}, "scorer")
    assert answer["ok"], answer
    [record] = _journal(table)
    assert record["t"] == made and record["applied"] == NOW and record["id"] == "s-1"


def test_a_line_without_a_time_is_stamped_when_applied_as_before(table: Running) -> None:
    assert table.send({"type": "no_pot"})["ok"]
    [record] = _journal(table)
    assert record["t"] == NOW and "applied" not in record


def test_a_sender_cannot_say_when_the_table_applied_its_line(table: Running) -> None:
    assert table.send({"type": "no_pot", "applied": 5.0})["ok"]
    [record] = _journal(table)
    assert "applied" not in record and record["t"] == NOW


def test_a_phone_clock_a_little_fast_is_clamped_to_the_time_applied(table: Running) -> None:
    assert table.send({"type": "no_pot", "t": NOW + TAP_AHEAD_S / 2})["ok"]
    [record] = _journal(table)
    assert record["t"] == NOW and "applied" not in record  # applied when it was made, to the second


def test_a_line_made_just_now_has_no_applied_beside_its_time(table: Running) -> None:
    """``applied`` only for a line made a second or more before it was applied (APPLIED_APART_S)."""
    assert table.send({"type": "no_pot", "t": NOW - APPLIED_APART_S / 2})["ok"]
    [record] = _journal(table)
    assert record["t"] == NOW - APPLIED_APART_S / 2 and "applied" not in record


@pytest.mark.parametrize(("t", "short", "words"), [
    (NOW + TAP_AHEAD_S + 30, "too_new", "ahead of the table's clock"),
    (NOW - TAP_AGE_S - 60, "too_old", "h old (TAP_AGE_S)"),
])
def test_a_time_out_of_bounds_is_refused_naming_the_limit_and_changes_nothing(
        table: Running, t: float, short: str, words: str) -> None:
    answer = table.send({"type": "pot", "balls": ["red"], "t": t, "id": "s-9"}, "scorer")
    assert not answer["ok"] and answer["short"] == short and answer["code"] == "refused", answer
    assert words in answer["reason"], answer
    assert _journal(table) == []
    assert table.table.boards[0].shown[-1][0]["seq"] == 0


def test_a_journal_with_tap_times_replays_the_same(tmp_path: Path) -> None:
    config = table_config(tmp_path)
    first = Table(config, wall=lambda: NOW)
    with Running(first) as running:
        for i, line in enumerate([{"type": "pot", "balls": ["red"]}, {"type": "pot", "balls": ["black"]},
                                  {"type": "no_pot"}]):
            assert running.send({**line, "t": NOW - 60 + i, "id": f"s-{i}"}, "scorer")["ok"]
        before = _state(running)
    again = Table(config, wall=lambda: NOW + 3600)
    with Running(again) as running:
        after = _state(running)
    assert after == before and after["seq"] == 3
