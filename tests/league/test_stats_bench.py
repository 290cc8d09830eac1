"""bench/league_stats.py's short version: a small league stored, read back, every player's
figures and rating, on SQLite and PostgreSQL (the full size and its figures: docs/league.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.postgres import require_postgres

pytestmark = pytest.mark.system

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("db", ["sqlite", "postgresql"])
def test_the_stats_bench_rates_every_player(db: str) -> None:
    if db == "postgresql":
        require_postgres()
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "league_stats.py"), "--players", "16",
                             "--frames", "400", "--db", db], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    figures = json.loads(result.stdout)
    assert figures["players"] == figures["rated"] == 16 and figures["frames"] >= 400
