"""bench/flood.py's short version, as CI runs it: each network lane (command, score, presence,
message, next) flooded by a login of its own on the venue's broker (TLS, the ACL of ``cueboard
venue init``) for 2 s, after 2 s of the same steps without it. What is asserted is what a loaded
machine cannot change: every step answered (the desk's too during another desk login's command
flood: each desk login's commands come on a session of their own, cueboard.table.mqtt.desk_links),
no flood line applied, every command or score line
the table read answered once, nothing left unacknowledged, memory within its bound. The p99
ratios (3 at most) are the 60 s run's target (docs/performance.md); here they are only recorded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.findings import Finding
from tests.helpers.mosquitto import require_mosquitto

pytestmark = pytest.mark.system

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("lane", ["command", "score", "presence", "message", "next"])
def test_a_flood_of_any_lane_leaves_the_table_answering(lane: str, finding: Finding) -> None:
    require_mosquitto()
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "flood.py"), "--lane", lane, "--seconds", "2",
                             "--quiet-seconds", "2"], capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    run = json.loads(result.stdout)[lane]
    rss = run["rss_kib"]
    finding(f"{lane}: {run['flood_lines_sent']} flood lines in {run['flood_seconds']} s; "
            f"{run['failures']} steps unanswered; p99 during/without {run['p99_during_to_without_ratio']}; "
            f"RSS {rss['before']} -> {rss['during_max']} -> {rss['after']} KiB",
            failures=run["failures"], ratio=run["p99_during_to_without_ratio"], rss=rss)
    assert run["flood_lines_sent"] > 0
    failed = [f"{phase}: {step}" for phase in ("without_flood", "during_flood", "after_flood")
              for step in run[phase]["failed"]]
    assert failed == [], failed
    if lane == "command":  # the desk's commands, on their own link, every one answered
        assert run["desk_commands_unanswered_in_time"] == 0 and run["desk_commands_never_answered"] == 0
    assert run["flood_events_in_the_journal"] == 0
    assert run["flood_lines_read_without_their_answer"] == 0 and run["flood_lines_read_or_answered_twice"] == 0
    assert run["answers_all_out_seconds_after_the_flood"] is not None  # the feed drained: nothing held for a PUBACK
    assert max(rss["during_max"], rss["after"]) < rss["after_quiet_steps"] + 65536
