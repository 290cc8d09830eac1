"""The printed result sheet a league accepts (issue 38): the competition, its round and the
fixture, the venue and the table (the record's, or for a journal the table's configuration
through ``cueboard report --config``), every correction written out (which stroke, what it was
and became, who and when), and the date in the venue's language. The picture is printed by
Chromium to PDF and PNG (``CUEBOARD_SHEET_SHOTS=docs/img`` redraws the docs' one)."""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from result_sheet import CHROMIUM, pdf_text, print_pdf, to_png

from cueboard.cli import main
from cueboard.engine.record import record_of
from cueboard.games.simulate import realistic_log
from cueboard.league.result_sheet import DATE_WORDS, long_date, result_sheets
from tests.league.test_report import EXAMPLES, played, with_times, write_log

SHOTS = os.environ.get("CUEBOARD_SHEET_SHOTS")


def cup_log() -> list[dict[str, Any]]:
    """A knockout's match handed by the desk (its fixture and competition on the match line), a
    black in frame 1 corrected to a pink by the desk after the match."""
    setup = {"type": "match", "game": "snooker", "sides": ["Ann Smith", "Bob Jones"], "best_of": 3,
             "fixture": "club-cup-R2-1", "competition": "Club Cup 2026"}
    log = with_times(realistic_log(setup, random.Random(5)))
    seq = next(i for i, e in enumerate(log) if e["type"] == "pot" and e.get("balls") == ["black"])
    return [*log, {"type": "amend", "seq": seq, "event": {"type": "pot", "balls": ["pink"]}, "user": "desk",
                   "t": log[-1]["t"] + 60}]


def test_every_correction_is_written_out_with_who_and_when() -> None:
    record = record_of(played(cup_log()))
    [c] = record["corrections"]
    page = result_sheets([record], tz=UTC)
    assert (f"Frame 1, stroke {c['seq']}: pot black corrected to pot pink (by desk at {c['at'][11:16]})"
            in page), page
    assert "correction(s)" not in page


def test_the_competition_round_fixture_venue_and_table_are_on_the_sheet() -> None:
    record = {**record_of(played(cup_log())), "venue": "riley-hall", "table": "t3"}
    from cueboard.league.result_sheet import result_sheet
    page = result_sheet(record, tz=UTC, round_name="Semi-final")
    for label, value in (("Competition", "Club Cup 2026"), ("Round", "Semi-final"), ("Fixture", "club-cup-R2-1"),
                         ("Venue", "riley-hall"), ("Table", "t3")):
        assert f"<dt>{label}</dt><dd>{value}</dd>" in page, label
    # A friendly (no fixture, no round) has no empty lines for them; Venue and Table are always there.
    friendly = result_sheet(record_of(played(with_times(realistic_log(
        {"type": "match", "game": "snooker", "sides": ["Ann", "Bob"], "best_of": 1}, random.Random(2))))))
    assert "<dt>Round</dt>" not in friendly and "<dt>Fixture</dt>" not in friendly
    assert "<dt>Venue</dt><dd></dd>" in friendly and "<dt>Table</dt><dd></dd>" in friendly


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "Saturday 28 November 2026"), ("fr", "samedi 28 novembre 2026"), ("nl", "zaterdag 28 november 2026"),
    ("sv", "lördag 28 november 2026"), ("de", "Samstag, 28. November 2026")])
def test_the_date_is_in_the_venues_language_day_before_month(lang: str, text: str) -> None:
    assert long_date(datetime(2026, 11, 28, 20, 15), lang) == text


def test_every_language_of_the_boards_has_its_dates() -> None:
    from cueboard.common.languages import LANGUAGES
    assert set(DATE_WORDS) == set(LANGUAGES)


def test_the_cli_sheet_fills_venue_and_table_from_the_tables_configuration(tmp_path: Path) -> None:
    log = write_log(tmp_path / "match-000001.jsonl", cup_log())
    sheet = tmp_path / "sheet.html"
    assert main(["report", str(log), "--html", str(sheet), "--config", str(EXAMPLES / "snooker-table.toml"),
                 "--lang", "fr", "--tz", "UTC"]) == 0
    page = sheet.read_text(encoding="utf-8")
    assert "<dt>Venue</dt><dd>riley-hall</dd>" in page and "<dt>Table</dt><dd>table-1</dd>" in page
    assert "dimanche 22 novembre 2026" in page and '<html lang="fr">' in page
    assert main(["report", str(log), "--html", str(sheet), "--venue", "club", "--table", "t2"]) == 0
    page = sheet.read_text(encoding="utf-8")
    assert "<dt>Venue</dt><dd>club</dd>" in page and "<dt>Table</dt><dd>t2</dd>" in page


def test_bad_options_are_refused_naming_the_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = write_log(tmp_path / "m.jsonl", cup_log())
    sheet = tmp_path / "sheet.html"
    assert main(["report", str(log), "--html", str(sheet), "--lang", "xx"]) == 2
    assert "--lang: 'xx' is not one of en, nl, sv, de, fr" in capsys.readouterr().err
    assert main(["report", str(log), "--html", str(sheet), "--config", str(tmp_path / "none.toml")]) == 2
    assert f"--config {tmp_path / 'none.toml'}" in capsys.readouterr().err
    assert not sheet.exists()


@pytest.mark.system
def test_the_league_sheet_printed(tmp_path: Path) -> None:
    if CHROMIUM is None or not all(shutil.which(t) for t in ("pdftotext", "pdftoppm")):
        if os.environ.get("CUEBOARD_REQUIRE_SCREEN", "") not in ("", "0"):
            pytest.fail("chromium or poppler-utils is not installed")
        pytest.skip("chromium or poppler-utils is not installed")
    record = {**record_of(played(cup_log())), "venue": "riley-hall", "table": "t3"}
    from cueboard.league.result_sheet import CSS, result_sheet
    html = tmp_path / "sheet.html"
    html.write_text(f'<!DOCTYPE html><html lang="fr"><head><meta charset="utf-8"><style>{CSS}</style></head>'
                    f"<body>{result_sheet(record, tz=UTC, lang='fr', round_name='Semi-final')}</body></html>",
                    encoding="utf-8")
    pdf = tmp_path / "sheet.pdf"
    print_pdf(html, pdf)
    text = pdf_text(pdf)
    for words in ("Club Cup 2026", "Semi-final", "riley-hall", "t3", "dimanche 22 novembre 2026",
                  "corrected to pot pink (by desk at"):
        assert words in text, words
    out = Path(SHOTS).resolve() if SHOTS else tmp_path
    picture = to_png(pdf, out / "result-sheet-league.png", dpi=60)
    assert picture.stat().st_size > 1000
    print(json.dumps({"picture": str(picture)}), file=sys.stderr)
