"""Instructions per event of the engine's replay, counted by valgrind's callgrind (not a test):
prints one JSON object. Unlike ``bench/engine.py``'s seconds, the count does not depend on what
else runs on the machine, so a change to the engine can be judged on a busy one.

    .venv/bin/python bench/engine_instructions.py                  # both games; needs valgrind
    .venv/bin/python bench/engine_instructions.py --game snooker   # one (some 50 s)

For each game (the logs of ``bench/engine.py``: ``final_log(35)``, ``blackball_log(25)``), a
child process under ``valgrind --tool=callgrind`` replays the log as ``bench/engine.py`` does
(``parse``, ``apply``, ``state()`` after every event) once and then ``REPLAYS + 1`` times; the
difference of the two totals, over ``REPLAYS`` replays' events, is what one event costs, free of
the start-up (the interpreter, the imports, reading the log). The floor, counted the same way in
the same run: ``push`` alone, the events parsed beforehand, no state; ``ratio_to_floor`` is the
replay's instructions over the floor's. Beside them, ``encoded``: the replay with
``state().to_json()`` after every event, as the daemon encodes every field of the state on every
event (``to_json_instructions_per_event``: what ``to_json()`` adds to the replay).
``PYTHONHASHSEED=0`` keeps the hashes of strings the same; the count still moves by some 0.3 %
from run to run (addresses differ).
Every child must finish and report its events; one that does not is a failure (exit 1).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPLAYS = 2
SEED = 2025


def child(log_file: str, what: str, times: int) -> int:
    """Replay the log ``times`` times (``what``: ``replay``, ``encoded`` or ``push``); the events
    replayed."""
    from cueboard.engine import Match

    log: list[dict[str, Any]] = json.loads(Path(log_file).read_text())
    probe = Match.from_json(log[0])
    parsed = [probe.parse(obj) for obj in log[1:]]
    done = 0
    for _ in range(times):
        match = Match.from_json(log[0])
        if what == "replay":
            parse, apply, state = match.parse, match.apply, match.state
            for obj in log[1:]:
                apply(parse(obj))
                state()
        elif what == "encoded":
            parse, apply, state = match.parse, match.apply, match.state
            for obj in log[1:]:
                apply(parse(obj))
                state().to_json()
        else:
            push = match.push
            for ev in parsed:
                push(ev)
        done += match.seq
    return done


def instructions(log_file: str, what: str, times: int, out_dir: str) -> tuple[int, int]:
    """(instructions in all, events replayed) of one child under callgrind."""
    out = os.path.join(out_dir, f"callgrind.{what}.{times}")
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__,
         "--child", log_file, what, str(times)],
        capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"}, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"callgrind child failed ({proc.returncode}): {proc.stderr[-2000:]}")
    events = int(proc.stdout.strip().splitlines()[-1])
    for line in Path(out).read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1]), events
    raise SystemExit(f"no totals in {out}")


def figures(log: list[dict[str, Any]], out_dir: str) -> dict[str, Any]:
    log_file = os.path.join(out_dir, "log.json")
    Path(log_file).write_text(json.dumps(log))
    result: dict[str, Any] = {"events": len(log) - 1}
    for what in ("replay", "encoded", "push"):
        base, n1 = instructions(log_file, what, 1, out_dir)
        more, n2 = instructions(log_file, what, REPLAYS + 1, out_dir)
        if n1 != len(log) - 1 or n2 != (REPLAYS + 1) * n1:
            raise SystemExit(f"{what}: the child replayed {n1} and {n2} events, not {len(log) - 1} "
                             f"and {(REPLAYS + 1) * (len(log) - 1)}")
        result[f"{what}_instructions_per_event"] = round((more - base) / (REPLAYS * n1))
    result["to_json_instructions_per_event"] = (result["encoded_instructions_per_event"]
                                                - result["replay_instructions_per_event"])
    result["ratio_to_floor"] = round(result["replay_instructions_per_event"]
                                     / result["push_instructions_per_event"], 3)
    return result


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        print(child(sys.argv[2], sys.argv[3], int(sys.argv[4])))
        return 0
    if shutil.which("valgrind") is None:
        print("bench/engine_instructions.py needs valgrind (apt-get install valgrind)", file=sys.stderr)
        return 1
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=("snooker", "blackball"), action="append",
                        help="only this game (may be repeated; default both)")
    args = parser.parse_args()
    from cueboard.games.simulate import blackball_log, final_log

    logs = {"snooker": (f"cueboard.games.simulate.final_log(35, seed={SEED})", lambda: final_log(35, seed=SEED)),
            "blackball": (f"cueboard.games.simulate.blackball_log(25, seed={SEED})",
                          lambda: blackball_log(25, seed=SEED))}
    result: dict[str, Any] = {
        "tool": "valgrind --tool=callgrind, PYTHONHASHSEED=0",
        "python": sys.version.split()[0],
        "replays": f"({REPLAYS + 1} replays - 1 replay) / {REPLAYS}",
    }
    with tempfile.TemporaryDirectory() as out_dir:
        for game in args.game or logs:
            name, make = logs[game]
            result[game] = {"log": name, **figures(make(), out_dir)}
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
