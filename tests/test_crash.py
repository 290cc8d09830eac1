"""A crash test: the daemon killed with SIGKILL at random points of a long scripted match,
restarted each time, with exactly the journalled state and no acknowledged event lost.

Each round starts ``cueboard run`` on the same journal, sends the script's next events
through the control socket (an event is acknowledged when the daemon answers ``ok``: by
then it is fsync'd and shown), and kills the daemon at a random moment: during start-up,
between events or while one is being applied. After the restart the daemon's state must be
the script replayed exactly to some point at or after the last acknowledged event (an
event journalled but not yet acknowledged may survive: it was saved). 100 kills in CI;
``--long`` runs 300 (the script is one realistic final).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from cueboard.daemon import ask_daemon
from cueboard.engine import Match
from cueboard.simulate import realistic_log

LONG = bool(os.environ.get("CUEBOARD_LONG"))
KILLS = 300 if LONG else 100
FRAMES = 151 if LONG else 35
SETUP = {"type": "match", "game": "snooker", "sides": ["Ann", "Bob"], "best_of": FRAMES}

CONFIG = """
[table]
venue = "crash"
name = "t1"
[match]
game = "snooker"
sides = ["Ann", "Bob"]
best_of = {frames}
[journal]
dir = "{dir}/journal"
[control]
socket = "{dir}/control.sock"
"""


def _start(config: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "cueboard.cli", "run", "--config", str(config)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _wait_ready(sock: Path, proc: subprocess.Popen[bytes], deadline: float) -> dict:
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the daemon exited with {proc.returncode}")
        try:
            return ask_daemon(sock, {"type": "state"}, timeout=2)["state"]
        except (OSError, ValueError):
            time.sleep(0.01)  # the daemon is starting: its socket is not there yet
    raise AssertionError("the daemon did not come up within 20 s")


def test_sigkill_at_random_points_loses_no_acknowledged_event(tmp_path: Path) -> None:
    # A long realistic match (a best-of-35 final; 151 frames with --long) outlasts the rounds.
    script = realistic_log(SETUP, random.Random(11))[1:]
    assert len(script) > 12 * KILLS
    replay = Match.from_json(SETUP)
    states = [replay.state()]
    for obj in script:
        replay.apply(replay.parse(obj))
        states.append(replay.state())
    config = tmp_path / "cueboard.toml"
    config.write_text(CONFIG.format(dir=tmp_path, frames=FRAMES))
    sock = tmp_path / "control.sock"
    rng = random.Random(2026)
    acknowledged = 0
    kills_during_startup = kills = 0
    for round_ in range(KILLS):
        proc = _start(config)
        try:
            if rng.random() < 0.1:
                # Kill during start-up, before the daemon has answered anything.
                time.sleep(rng.random() * 0.3)
                kills_during_startup += 1
            else:
                state = _wait_ready(sock, proc, time.monotonic() + 20)
                seq = state["seq"]
                assert seq >= acknowledged, f"round {round_}: acknowledged {acknowledged}, shown {seq}"
                assert state == {**states[seq]}, f"round {round_}: state after restart differs at {seq}"
                acknowledged = seq
                sends = rng.randint(0, 12)
                # A killer thread strikes at a random moment while the events go in, so some
                # kills land in the middle of an event being journalled or applied.
                killer = threading.Timer(rng.random() * 0.05 * sends, proc.send_signal, (signal.SIGKILL,))
                killer.start()
                try:
                    for obj in script[seq:seq + sends]:
                        answer = ask_daemon(sock, obj)
                        assert answer["ok"], answer
                        acknowledged += 1
                except (OSError, ValueError):
                    pass  # killed while this event was on its way: not acknowledged
                finally:
                    killer.cancel()
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            kills += 1
    proc = _start(config)
    try:
        final = _wait_ready(sock, proc, time.monotonic() + 20)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert final["seq"] >= acknowledged and final == states[final["seq"]]
    assert kills == KILLS
    print(f"{kills} kills ({kills_during_startup} during start-up), {acknowledged} events acknowledged, "
          "0 lost")


