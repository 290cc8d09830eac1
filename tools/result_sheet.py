"""The result sheet in a real browser: printed to PDF by headless Chromium, then to PNG.

``python tools/result_sheet.py`` redraws ``docs/img/result-sheet.png`` (the README's picture)
from ``examples/snooker-match.jsonl``, a best-of-7 league match with times, by running the
very command the README gives (:data:`COMMAND`, ``cueboard report ... --html``), so that the
picture is what the README's command makes; ``--make-example`` writes that log again first
(a deterministic match of ``cueboard.games.simulate``). The tests (``tests/league/test_report.py``) print
sheets with the same functions, read the PDF back, and check that the README gives
:data:`COMMAND`.

Needs Debian's ``chromium`` and ``poppler-utils`` (``pdfinfo``, ``pdftotext``, ``pdftoppm``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cueboard.cli import main as cli_main
from cueboard.games.simulate import realistic_log

__all__ = ["CHROMIUM", "COMMAND", "EXAMPLE", "PdfInfo", "command_line", "example_log", "pdf_info", "pdf_text",
           "print_pdf", "to_png"]

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "snooker-match.jsonl"
PICTURE = ROOT / "docs" / "img" / "result-sheet.png"
CHROMIUM = next((p for p in (shutil.which("chromium"), "/usr/bin/chromium") if p and os.access(p, os.X_OK)), None)
A4_POINTS = (595.0, 842.0)
"""An A4 page, 210 x 297 mm, in PostScript points (what pdfinfo reports, to a point)."""

COMMAND: tuple[str, ...] = ("report", "examples/snooker-match.jsonl", "--title", "Club league: match result",
                            "--tz", "Europe/London", "--html", "sheet.html")
"""The README's command for its result-sheet picture (``cueboard`` and these arguments)."""


def command_line(args: tuple[str, ...] = COMMAND) -> str:
    """``COMMAND`` as typed in a shell, as the README gives it."""
    return "cueboard " + " ".join(shlex.quote(a) for a in args)


START = 1_795_374_131.0  # 2026-11-22T19:02:11Z: the contract's example
SEED = 8  # a 4-2 with a century, frames potted out and conceded


def example_log(seed: int = SEED, start: float = START) -> list[dict[str, Any]]:
    """A best-of-7 snooker match between two strong players, with the times a marker's
    keypad would give: 15 to 45 s a stroke, a few minutes between frames."""
    setup = {"type": "match", "game": "snooker", "sides": ["Ronnie", "Judd"], "best_of": 7}
    log = realistic_log(setup, random.Random(seed))
    rng = random.Random(seed + 1)
    t = start
    timed = [log[0]]
    for event in log[1:]:
        t += rng.uniform(150, 300) if event["type"] == "next_frame" else rng.uniform(15, 45)
        timed.append({**event, "t": round(t, 3)})
    return timed


def print_pdf(html: Path, pdf: Path, timeout: float = 120) -> None:
    """Print ``html`` to ``pdf`` in headless Chromium, as a browser's Print would (its @page
    rules, no header or footer of the browser's own)."""
    if CHROMIUM is None:
        raise FileNotFoundError("chromium is not installed: apt-get install chromium")
    with tempfile.TemporaryDirectory(prefix="cueboard-chromium-") as profile:
        subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                        f"--user-data-dir={profile}", "--no-pdf-header-footer", f"--print-to-pdf={pdf}",
                        html.resolve().as_uri()],
                       check=True, capture_output=True, timeout=timeout)
    if not pdf.is_file() or pdf.stat().st_size == 0:
        raise RuntimeError(f"chromium printed no PDF to {pdf}")


@dataclass(frozen=True)
class PdfInfo:
    pages: int
    size: tuple[float, float]
    """The first page's width and height in points."""

    @property
    def a4(self) -> bool:
        return all(abs(a - b) < 1.5 for a, b in zip(self.size, A4_POINTS, strict=True))


def pdf_info(pdf: Path) -> PdfInfo:
    """Pages and page size of ``pdf``, from poppler's ``pdfinfo``."""
    text = subprocess.run(["pdfinfo", str(pdf)], check=True, capture_output=True, text=True).stdout
    pages = re.search(r"^Pages:\s+(\d+)", text, re.M)
    size = re.search(r"^Page size:\s+([\d.]+) x ([\d.]+) pts", text, re.M)
    if pages is None or size is None:
        raise RuntimeError(f"pdfinfo said nothing of pages and size:\n{text}")
    return PdfInfo(int(pages.group(1)), (float(size.group(1)), float(size.group(2))))


def pdf_text(pdf: Path) -> str:
    """The text of ``pdf`` (poppler's ``pdftotext``, in reading order)."""
    return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], check=True, capture_output=True,
                          text=True).stdout


def to_png(pdf: Path, png: Path, dpi: int = 110, page: int = 1) -> Path:
    """One page of ``pdf`` as a PNG (poppler's ``pdftoppm``)."""
    stem = png.with_suffix("")
    subprocess.run(["pdftoppm", "-png", "-r", str(dpi), "-f", str(page), "-l", str(page), "-singlefile",
                    str(pdf), str(stem)], check=True, capture_output=True)
    return png


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--make-example", action="store_true", help=f"write {EXAMPLE.relative_to(ROOT)} again first")
    p.add_argument("--out", type=Path, default=PICTURE, help="the PNG (default docs/img/result-sheet.png)")
    args = p.parse_args(argv)
    if args.make_example or not EXAMPLE.exists():
        EXAMPLE.write_text("".join(json.dumps(e) + "\n" for e in example_log()), encoding="utf-8")
        print(f"wrote {EXAMPLE.relative_to(ROOT)}")
    with tempfile.TemporaryDirectory() as tmp:
        html, pdf = Path(tmp) / "sheet.html", Path(tmp) / "sheet.pdf"
        # The README's command itself, run in the checkout (its paths are the checkout's).
        command = [str(ROOT / a) if a == "examples/snooker-match.jsonl" else str(html) if a == "sheet.html" else a
                   for a in COMMAND]
        if cli_main(command) != 0:
            raise RuntimeError(f"{command_line()} failed")
        print_pdf(html, pdf)
        info = pdf_info(pdf)
        to_png(pdf, args.out)
    print(f"wrote {args.out}: page 1 of {info.pages}, {info.size[0]:.0f} x {info.size[1]:.0f} pt"
          f"{' (A4)' if info.a4 else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
