"""bench/engine_instructions.py's own parts, without valgrind (a count takes minutes under it, so
CI does not run one): the child it runs under callgrind replays every event of the log it is
given, and without valgrind the bench says what it needs and fails instead of printing figures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cueboard.games.simulate import blackball_log, final_log

pytestmark = pytest.mark.system

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench" / "engine_instructions.py"


@pytest.mark.parametrize(("what", "times"), [("replay", 2), ("encoded", 2), ("push", 1)])
@pytest.mark.parametrize("game", ["snooker", "blackball"])
def test_the_child_replays_every_event(tmp_path: Path, game: str, what: str, times: int) -> None:
    log = final_log(3, seed=5) if game == "snooker" else blackball_log(2, seed=5)
    log_file = tmp_path / "log.json"
    log_file.write_text(json.dumps(log))
    done = subprocess.run([sys.executable, str(BENCH), "--child", str(log_file), what, str(times)],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    assert int(done.stdout.split()[-1]) == times * (len(log) - 1)


def test_without_valgrind_it_says_so_and_fails(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(BENCH), "--game", "snooker"], capture_output=True, text=True,
                          timeout=600, cwd=ROOT, env={**os.environ, "PATH": str(tmp_path)})
    assert done.returncode == 1 and done.stdout == ""
    assert "needs valgrind" in done.stderr
