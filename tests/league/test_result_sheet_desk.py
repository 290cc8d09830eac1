"""The desk's result sheet (screen/shared/sheet.js, the desk's "Sheet" printed from the browser)
a league accepts (issue 38), drawn by Chromium from a record: the competition and its round
(from tonight's competition), the fixture, the venue and the table, the date in the venue's
language, day before month (never the US order), and every correction written out, not a count.
``CUEBOARD_SHEET_SHOTS=docs/img`` redraws the docs' picture."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from cueboard.engine.record import record_of
from cueboard.venue.pages import make_server, serve_in_thread
from tests.league.test_report import played
from tests.league.test_result_sheet import cup_log
from tests.screen.node_e2e import run_e2e
from tests.screen.test_screen import CHROMIUM, _require_browser

E2E = Path(__file__).parents[1] / "screen" / "sheet_e2e.mjs"
SHOTS = os.environ.get("CUEBOARD_SHEET_SHOTS")

# The day the cup's log was played (2026-11-22, a Sunday), in each language as a league writes it.
DATES = {"en": "Sunday 22 November 2026", "fr": "dimanche 22 novembre 2026", "nl": "zondag 22 november 2026",
         "sv": "söndag 22 november 2026", "de": "Sonntag, 22. November 2026"}


@pytest.mark.system
def test_the_desks_sheet_names_the_round_and_writes_out_the_corrections(tmp_path: Path) -> None:
    _require_browser()
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    record = {**record_of(played(cup_log())), "venue": "riley-hall", "table": "t3"}
    [correction] = record["corrections"]
    competition = {"schema": 1, "id": "club-cup", "name": "Club Cup 2026", "kind": "knockout", "format": {},
                   "rounds": 3, "matches": [{"fixture": "club-cup-R2-1", "label": "R2-1", "round": 2,
                                              "sides": ["Ann Smith", "Bob Jones"], "handicap": [0, 0],
                                              "bye": [False, False], "winner": None, "next": None}]}
    texts: dict[str, str] = {}

    def report(line: str) -> None:
        key, _, value = line.removeprefix("report ").partition(" ")
        if line.startswith("report "):
            texts[key] = json.loads(value)

    server = make_server("127.0.0.1", 0)
    serve_in_thread(server)
    shots = Path(SHOTS).resolve() if SHOTS else tmp_path / "shots"
    try:
        plan: dict[str, Any] = {"chromium": CHROMIUM, "base": f"http://127.0.0.1:{server.server_address[1]}",
                                "langs": list(DATES), "record": record, "competition": competition,
                                "picture": "en", "shots": str(shots), "pdf": str(tmp_path / "desk-sheet.pdf")}
        run_e2e(E2E, plan, tmp_path / "plan.json", timeout=300, on_line=report)
    finally:
        server.shutdown()
        server.server_close()
    at = correction["at"]
    assert at is not None
    for lang, date in DATES.items():
        text = texts[lang]
        assert "Club Cup 2026" in text and "riley-hall" in text and "t3" in text and "club-cup-R2-1" in text, lang
        assert date in text, (lang, text)
        assert "November 22" not in text and "11/22" not in text, lang  # never the US order
    english = texts["en"]
    assert "Semi-finals" in english  # round 2 of a 3-round knockout
    assert f"Frame 1, stroke {correction['seq']}: pot black corrected to pot pink (by desk at " in english, english
    assert "correction(s)" not in english
    assert "Manche 1, coup" in texts["fr"] and "corrigé en empoche rose" in texts["fr"]
    assert (shots / "desk-sheet-en.png").stat().st_size > 1000
    assert (tmp_path / "desk-sheet.pdf").read_bytes()[:5] == b"%PDF-"  # the desk's Print: the sheet on A4
