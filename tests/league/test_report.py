"""``cueboard report``: the record of each log as JSON, ``--html`` the printable result sheet,
and bad input: a refused line stops it with ``FILE line N: reason`` and exit status 2,
nothing printed and nothing written.

The sheet is printed in headless Chromium (Debian's ``chromium``) to PDF, as a browser's
Print does, and read back with poppler (``pdfinfo``, ``pdftotext``): the page is A4, a
league match fits on one page, a 35-frame final takes two, and the names are there as
text. Without chromium or poppler-utils those tests skip (``CUEBOARD_REQUIRE_SCREEN=1``:
a failure); ``scripts/test`` installs both.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from result_sheet import CHROMIUM, COMMAND, command_line, pdf_info, pdf_text, print_pdf, to_png

from cueboard.cli import main
from cueboard.engine import Match
from cueboard.engine.record import record_of
from cueboard.games.simulate import blackball_log, final_log, realistic_log

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
HOSTILE = "<script>alert(1)</script>"


def report(*args: str, stdin: bytes = b"", tz: str = "UTC") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cueboard.cli", "report", *args], input=stdin.decode(),
                          capture_output=True, text=True, encoding="utf-8", check=False,
                          env={**os.environ, "TZ": tz})


def write_log(path: Path, log: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in log), encoding="utf-8")
    return path


def with_times(log: list[dict[str, Any]], start: float = 1_795_374_131.0, seed: int = 1) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    t, out = start, [log[0]]
    for event in log[1:]:
        t += rng.uniform(120, 300) if event["type"] == "next_frame" else rng.uniform(10, 40)
        out.append({**event, "t": round(t, 3)})
    return out


def played(log: list[dict[str, Any]]) -> Match:
    match = Match.from_json(log[0])
    for obj in log[1:]:
        match.apply(match.parse(obj))
    return match


# -- JSON ---------------------------------------------------------------------------------


@pytest.mark.system
def test_one_json_line_a_log() -> None:
    logs = [EXAMPLES / "snooker-match.jsonl", EXAMPLES / "blackball-match.jsonl"]
    result = report(*map(str, logs))
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["game"] for r in records] == ["snooker", "blackball"]
    for path, record in zip(logs, records, strict=True):
        assert record == record_of(played([json.loads(line) for line in path.read_text().splitlines()]))
    assert records[0]["frames_won"] == [4, 2] and records[0]["winner"] == 0


@pytest.mark.system
def test_standard_input_and_the_break_threshold() -> None:
    log = (EXAMPLES / "snooker-match.jsonl").read_bytes()
    result = report("-", "--breaks-from", "30", stdin=log)
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["breaks_from"] == 30
    assert all(b["points"] >= 30 for f in record["frames"] for b in f["breaks"])
    assert sum(len(f["breaks"]) for f in record["frames"]) > sum(
        len(f["breaks"]) for f in json.loads(report(str(EXAMPLES / "snooker-match.jsonl")).stdout)["frames"])


@pytest.mark.system
def test_a_log_without_times_gives_null_times() -> None:
    result = report(str(EXAMPLES / "snooker-frame.jsonl"))
    record = json.loads(result.stdout)
    assert result.returncode == 0
    assert record["started"] is None and record["ended"] is None
    assert {(f["started"], f["ended"]) for f in record["frames"]} == {(None, None)}


# -- bad input --------------------------------------------------------------------------


@pytest.mark.system
@pytest.mark.parametrize(("line", "reason"), [
    (b'{"type": "pot", "balls": ["pink"]}\n',
     "red is on: potting the pink is a foul, enter a foul (Section 3 Rule 10(b)(iii))"),
    (b'{"type": "award", "sied": 1}\n', "award: unknown field 'sied' (award takes: side, match, reason, t)"),
    (b"\xff\xfe\n", "not UTF-8 (invalid start byte at byte 0)"),
])
@pytest.mark.parametrize("html", [False, True])
def test_a_refused_line_stops_it_naming_the_file_and_line(tmp_path: Path, line: bytes, reason: str,
                                                         html: bool) -> None:
    good = EXAMPLES / "snooker-match.jsonl"
    bad = tmp_path / "journal" / "match-000007.jsonl"
    bad.parent.mkdir()
    lines = (EXAMPLES / "snooker-frame.jsonl").read_bytes().splitlines(keepends=True)
    bad.write_bytes(b"".join(lines[:3]) + b"\n" + line + b"".join(lines[3:]))  # a blank line 4, then line 5
    sheet = tmp_path / "sheet.html"
    result = report(str(good), str(bad), *(["--html", str(sheet)] if html else []))
    assert result.returncode == 2
    assert result.stderr == f"{bad} line 5: {reason}\n"
    assert result.stdout == ""
    assert not sheet.exists() and list(tmp_path.iterdir()) == [bad.parent]


@pytest.mark.system
def test_an_empty_log_and_a_missing_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"\n")
    result = report(str(empty))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith(f"{empty} line 1: the log is empty")
    result = report(str(EXAMPLES / "snooker-frame.jsonl"), str(tmp_path / "nope.jsonl"))
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == f"cueboard report: cannot read {tmp_path / 'nope.jsonl'}: No such file or directory\n"


@pytest.mark.system
def test_bad_options(tmp_path: Path) -> None:
    log = str(EXAMPLES / "snooker-frame.jsonl")
    result = report(log, "--breaks-from", "0")
    assert (result.returncode, result.stdout) == (2, "")
    assert "--breaks-from must be at least 1" in result.stderr
    result = report(log, "--html", str(tmp_path / "s.html"), "--tz", "Mars/Olympus_Mons")
    assert result.returncode == 2 and "unknown time zone 'Mars/Olympus_Mons'" in result.stderr
    assert not (tmp_path / "s.html").exists()
    result = report(log, "--html", str(tmp_path / "no" / "such" / "dir.html"))
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.startswith(f"cueboard report: cannot write {tmp_path / 'no' / 'such' / 'dir.html'}: ")


# -- the sheet as HTML ----------------------------------------------------------------------


def hostile_match() -> list[dict[str, Any]]:
    """A four-handed match whose names would break a careless page."""
    sides = [[HOSTILE, "Zoë O'Brien-Featherstonehaugh"], ['Bea & "Bob"', "Åsa Ångström-Lindqvist"]]
    setup = {"type": "match", "game": "snooker", "sides": sides, "best_of": 5, "reds": 10}
    return with_times(realistic_log(setup, random.Random(3)))


@pytest.mark.system
def test_the_sheet_is_self_contained_and_escapes_names(tmp_path: Path) -> None:
    log = write_log(tmp_path / "hostile.jsonl", hostile_match())
    sheet = tmp_path / "sheet.html"
    result = report(str(log), "--html", str(sheet), "--title", "League <night>")
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    page = sheet.read_text(encoding="utf-8")
    assert "<script" not in page.lower() and "alert(1)</" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; Zoë O&#x27;Brien-Featherstonehaugh" in page
    assert "Bea &amp; &quot;Bob&quot;" in page and "League &lt;night&gt;" in page
    # Nothing to fetch: no scripts, links, pictures, fonts or frames, whatever the network.
    for tag in ("<link", "<img", "<iframe", "<object", "@import", "url(", "src=", "href="):
        assert tag not in page.lower(), tag
    assert "@page { size: A4" in page
    # Every frame, both sides' signatures and the referee's.
    record = record_of(played(hostile_match()))
    assert page.count('<td class="frame">') == len(record["frames"]) >= 3
    assert page.count('<div class="signature">') == 3 and "Referee" in page
    assert "Signed for &lt;script&gt;" in page


@pytest.mark.system
def test_html_to_standard_output_one_sheet_a_log(tmp_path: Path) -> None:
    result = report(str(EXAMPLES / "snooker-match.jsonl"), str(EXAMPLES / "blackball-match.jsonl"),
                    "--html", "-")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("<!DOCTYPE html>") and result.stdout.count('<section class="sheet">') == 2
    assert "Ronnie won 4–2." in result.stdout and "Ann won 2–1." in result.stdout
    assert "Bob: black potted too early <span class=\"rule\">(rule 7b)</span>" in result.stdout


# -- the sheet printed in Chromium ------------------------------------------------------------


def _require(what: bool, why: str) -> None:
    if not what:
        if os.environ.get("CUEBOARD_REQUIRE_SCREEN", "") not in ("", "0"):
            pytest.fail(why)
        pytest.skip(why)


@pytest.fixture
def printed(tmp_path: Path) -> Callable[..., Path]:
    """``printed(*logs, tz="Europe/London")``: the sheets of the logs as a PDF, as Chromium prints them."""
    _require(CHROMIUM is not None, "chromium is not installed: apt-get install chromium")
    _require(all(shutil.which(tool) for tool in ("pdfinfo", "pdftotext", "pdftoppm")),
             "poppler-utils is not installed: apt-get install poppler-utils")

    def make(*logs: Path, tz: str = "Europe/London") -> Path:
        html, pdf = tmp_path / "sheet.html", tmp_path / "sheet.pdf"
        result = report(*map(str, logs), "--html", str(html), "--tz", tz)
        assert result.returncode == 0, result.stderr
        print_pdf(html, pdf)
        return pdf

    return make


@pytest.mark.system
def test_a_league_match_prints_on_one_a4_page(printed: Callable[..., Path], tmp_path: Path) -> None:
    pdf = printed(EXAMPLES / "snooker-match.jsonl")
    info = pdf_info(pdf)
    assert info.pages == 1 and info.a4, info
    text = pdf_text(pdf)
    record = json.loads(report(str(EXAMPLES / "snooker-match.jsonl")).stdout)
    assert "Ronnie won 4–2." in text
    for frame in record["frames"]:
        assert re.search(rf"^\s*{frame['frame']}\s+(Ronnie|Judd)\s+{frame['scores'][0]}\s+{frame['scores'][1]}\s",
                         text, re.M), frame
    assert "Sunday 22 November 2026" in text and "19:02" in text  # GMT in November: UTC
    assert "Signed for Ronnie" in text and "Signed for Judd" in text and "Referee" in text
    assert "High break 100: Judd (frame 4)" in text
    picture = to_png(pdf, tmp_path / "sheet.png", dpi=40)
    assert picture.stat().st_size > 1000


@pytest.mark.system
def test_many_sheets_long_names_and_a_final(printed: Callable[..., Path], tmp_path: Path) -> None:
    hostile = write_log(tmp_path / "hostile.jsonl", hostile_match())
    league = write_log(tmp_path / "blackball.jsonl", with_times(blackball_log(race_to=5, seed=7)))
    final = write_log(tmp_path / "final.jsonl", with_times(final_log()))
    pdf = printed(hostile, league, final, tz="UTC")
    info = pdf_info(pdf)
    frames = len(json.loads(report(str(final)).stdout)["frames"])
    # One page each for the four-handed match and the blackball race to 5; the final's 30
    # frames need a second page (the frames table's header repeated on it).
    assert frames == 30
    assert info.pages == 4 and info.a4, info
    pages = [subprocess.run(["pdftotext", "-layout", "-f", str(n), "-l", str(n), str(pdf), "-"], check=True,
                            capture_output=True, text=True).stdout for n in range(1, 5)]
    assert HOSTILE in pages[0] and "Zoë O'Brien-Featherstonehaugh" in pages[0] and 'Bea & "Bob"' in pages[0]
    assert "Blackball" in pages[1] and "Signed for Ann" in pages[1]
    assert "Ronnie" in pages[2] and "Signed for" not in pages[2]
    assert "FRAME" in pages[3] and "Signed for Ronnie" in pages[3] and "Referee" in pages[3]


@pytest.mark.system
def test_a_one_frame_match_says_one_frame(tmp_path: Path) -> None:
    """Not "best of 1 frames" (issue 24)."""
    setup = {"type": "match", "game": "snooker", "sides": ["Ann", "Bob"], "best_of": 1}
    log = write_log(tmp_path / "one.jsonl", with_times(realistic_log(setup, random.Random(5))))
    sheet = tmp_path / "sheet.html"
    result = report(str(log), "--html", str(sheet))
    assert result.returncode == 0, result.stderr
    page = sheet.read_text(encoding="utf-8")
    assert "Snooker · one frame" in page and "best of 1" not in page


def test_the_readme_gives_the_command_that_makes_its_result_sheet_picture(tmp_path: Path) -> None:
    """The README's picture is what the README's command makes (issue 24: the picture said "Club
    league" and GMT, the command "Match result" and UTC): ``tools/result_sheet.py`` runs the
    command the README shows, and the README shows it."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert command_line() in readme
    html = tmp_path / "sheet.html"
    args = [str(ROOT / a) if a.startswith("examples/") else str(html) if a == "sheet.html" else a for a in COMMAND]
    assert main(args) == 0
    text = html.read_text(encoding="utf-8")
    assert "Club league: match result" in text and "times in GMT" in text  # as the picture says
