"""bench/archive.py's short version, as CI runs it: tables over bridged brokers finishing matches
into the league's PostgreSQL archive, every match there once (lost 0, doubled 0)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.findings import Finding
from tests.helpers.mosquitto import require_mosquitto
from tests.helpers.postgres import require_postgres

pytestmark = pytest.mark.system

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("db", ["postgresql", "sqlite"])
def test_the_archive_bench_loses_and_doubles_nothing(db: str, finding: Finding) -> None:
    require_mosquitto()
    require_postgres()
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "archive.py"), "--venues", "2", "--tables", "3",
                             "--matches", "2", "--seconds", "3", "--db", db], capture_output=True, text=True,
                            timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    figures = json.loads(result.stdout)
    finding(f"{db}: {figures['matches']} matches from {figures['tables']} tables over 2 bridged venue brokers: "
            f"lost {figures['lost']}, doubled {figures['doubled']}, last event to standings "
            f"p50 {figures['last_event_to_standings_ms']['p50']} ms", lost=figures["lost"],
            doubled=figures["doubled"])
    assert figures["matches"] == figures["matches_finished_in_archive"] == figures["rows"] == 12
    assert figures["lost"] == 0 and figures["doubled"] == 0
    assert figures["writes"] <= figures["records_published"]
