"""The journal's write, alone: ``Journal.append`` against the plain way (used by bench/run.py).

Two ways of making one event durable, interleaved at random so the machine's noise falls
on both alike, each in its own file in ``directory``:

- ``journal``: ``cueboard.table.journal.Journal.append``: one ``pwritev(RWF_DSYNC)`` of the line
  over zeros written ahead (the file's size and blocks unchanged);
- ``append_fsync``: what the journal did before issue 20: ``pwrite`` at the end of the
  file (it grows) and ``fsync``.

Each is timed warm (events back to back) and cold (``gap`` seconds between events, as
between the presses of bench/latency.py: the CPU idles and the disk's queue empties in
between). Where the directory's file system has a journal of its own (ext4 on a Raspberry
Pi's SD card; ``/proc/fs/jbd2/<device>/info``), the file-system journal's commits during
each way's events are counted too: that is what the zeros written ahead save.

``.venv/bin/python bench/journal.py [--dir /var/tmp] [--events 300] [--gap 0.025]``
prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from stats import percentile

from cueboard.table.journal import Journal

EVENT = {"type": "pot", "balls": ["red"], "t": 1_700_000_000.125}
MATCH = {"type": "match", "game": "snooker", "sides": ["Ann", "Bob"], "best_of": 35}


def _device(path: Path) -> tuple[str, str]:
    """(file system type, block device name) of the mount holding ``path``."""
    best, found = "", ("?", "?")
    for line in Path("/proc/mounts").read_text().splitlines():
        source, mount, kind = line.split()[:3]
        if str(path.resolve()).startswith(mount) and len(mount) > len(best):
            best, found = mount, (kind, source.rsplit("/", 1)[-1])
    return found


def _commits(device: str) -> int | None:
    """The file-system journal's transactions so far (ext4's jbd2), or None without one."""
    for info in Path("/proc/fs/jbd2").glob(f"{device}-*/info"):
        return int(info.read_text().split()[0])
    return None


class Plain:
    """``pwrite`` at the end (the file grows), then ``fsync``: the journal before issue 20."""

    def __init__(self, path: Path) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        line = (json.dumps(MATCH, separators=(",", ":")) + "\n").encode()
        os.write(self.fd, line)
        os.fsync(self.fd)
        self.at = len(line)

    def append(self, event: dict[str, Any]) -> None:
        line = (json.dumps(event, separators=(",", ":")) + "\n").encode()
        os.pwrite(self.fd, line, self.at)
        os.fsync(self.fd)
        self.at += len(line)

    def close(self) -> None:
        os.close(self.fd)


def compare(directory: Path, events: int, gap: float) -> dict[str, Any]:
    kind, device = _device(directory)
    with tempfile.TemporaryDirectory(dir=directory) as tmp_name:
        tmp = Path(tmp_name)
        journal = Journal(tmp / "journal")
        journal.start(MATCH)
        plain = Plain(tmp / "plain.jsonl")
        ways = {"journal": journal.append, "append_fsync": plain.append}
        times: dict[str, dict[str, list[int]]] = {w: {"warm": [], "cold": []} for w in ways}
        commits: dict[str, int] = dict.fromkeys(ways, 0)
        rng = random.Random(20)
        try:
            for mode in ("warm", "cold"):
                for _ in range(events):
                    order = list(ways)
                    rng.shuffle(order)
                    for way in order:
                        if mode == "cold":
                            time.sleep(gap)
                        before = _commits(device)
                        t0 = time.perf_counter_ns()
                        ways[way](EVENT)
                        times[way][mode].append(time.perf_counter_ns() - t0)
                        after = _commits(device)
                        if before is not None and after is not None:
                            commits[way] += after - before
        finally:
            journal.close()
            plain.close()
    has_journal = _commits(device) is not None

    def ms(ns: list[int]) -> dict[str, float]:
        return {"p50_ms": round(percentile(ns, 50) / 1e6, 3), "p99_ms": round(percentile(ns, 99) / 1e6, 3),
                "max_ms": round(max(ns) / 1e6, 3)}

    return {
        "directory": str(directory), "file_system": f"{kind} on {device}",
        "file_system_journal": has_journal, "events_per_way_and_mode": events, "cold_gap_s": gap,
        "ways": {way: {"warm": ms(t["warm"]), "cold": ms(t["cold"]),
                       **({"fs_journal_commits_per_event": round(commits[way] / (2 * events), 3)}
                          if has_journal else {})}
                 for way, t in times.items()},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, default=Path("/var/tmp"), help="where the files go (on disk)")
    parser.add_argument("--events", type=int, default=300, help="events per way, warm and cold each")
    parser.add_argument("--gap", type=float, default=0.025, help="seconds between cold events")
    args = parser.parse_args()
    print(json.dumps(compare(args.dir, args.events, args.gap), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
