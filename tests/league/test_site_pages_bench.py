"""bench/league_stats.py --pages's short version: a small league, then the archive's player and
statistics pages fetched over HTTP from ``cueboard archive serve``'s server (the full size and
its figures: docs/league.md, "Player pages and their charts"). No time is asserted: a shared
machine's load decides those; the bench's run is what is checked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.system

ROOT = Path(__file__).resolve().parents[2]


def test_the_pages_bench_fetches_every_page() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "league_stats.py"), "--players", "16",
                             "--frames", "400", "--pages"], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    pages = json.loads(result.stdout)["pages"]
    assert pages["player_page_bytes"] > 10_000 and pages["statistics_page_bytes"] > 2_000
    assert pages["player_page_ms"]["median"] > 0 and pages["statistics_page_ms"]["median"] > 0
