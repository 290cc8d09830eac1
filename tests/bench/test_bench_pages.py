"""bench/desk.py and bench/scorer.py run tiny, as CI runs them, so that they cannot rot: the venue
broker, the HTTPS pages, real Chromium, every event drawn on the desk and every tap answered
and drawn on the phone; and the desk bench's counting, which must call an event never drawn a
failure."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.mosquitto import require_mosquitto
from tests.screen.test_screen import _require_browser

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from desk import drawn_lags, floor_lags  # noqa: E402

pytestmark = pytest.mark.system


def bench(*argv: str) -> dict[str, object]:
    require_mosquitto()
    _require_browser()
    done = subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-3000:]
    figures: dict[str, object] = json.loads(done.stdout)
    return figures


def test_the_desk_bench_draws_every_event() -> None:
    figures = bench("bench/desk.py", "--tables", "8", "--seconds", "2")
    assert figures["events_sent"] == figures["events_drawn"] == 32
    assert figures["events_never_drawn"] == 0 and figures["floor_events_not_heard"] == 0
    assert figures["rows_disagreeing_with_the_store"] == [] and figures["ok"] is True
    assert isinstance(figures["first_complete_page_ms"], int)


def test_the_scorer_bench_answers_every_tap() -> None:
    figures = bench("bench/scorer.py", "--taps", "4")
    assert figures["taps"] == figures["taps_answered_and_drawn"] == 4
    assert figures["floor_pings_unanswered"] == 0 and figures["ok"] is True
    # Where each tap's time went, stage by stage, and the target judged by the run itself
    # (met or not on a loaded CI machine: only that it is said).
    stages = figures["tap_stages"]
    assert isinstance(stages, dict)
    for name in ("up_to_click", "click_to_line_sent", "sent_to_state_received", "sent_to_answer_received",
                 "answer_received_to_drawn"):
        assert stages[name]["n"] == 4, name
    assert isinstance(figures["meets_target"], bool) and "2x" in str(figures["target"])


def test_an_event_never_drawn_is_counted() -> None:
    sent = [("t1", 1000), ("t1", 1500), ("t2", 1000), ("t2", 1500)]
    # t1's first state overtaken and drawn with its second; t2's second never drawn.
    credits = [["t1", 1500, 1530], ["t2", 1000, 1020]]
    lags, missing = drawn_lags(sent, credits)
    assert sorted(lags) == [20.0, 30.0, 530.0]
    assert missing == ["t2@1500"]
    heard = [["t1", 1000, 1004], ["t2", 1500, 1506]]
    assert floor_lags(sent, heard) == ([4.0, 6.0], 2)


@pytest.mark.parametrize("name", ["desk", "scorer"])
def test_the_benches_are_in_the_readme(name: str) -> None:
    readme = (ROOT / "bench" / "README.md").read_text()
    assert f"bench/{name}.py" in readme
