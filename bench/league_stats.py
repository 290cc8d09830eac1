"""Statistics and ratings for a large league (issue 42): ``players`` players and about
``frames`` frames of simulated snooker (``cueboard.games.simulate_strength``, random pairings,
best of 5), stored in the archive (SQLite, or a throwaway PostgreSQL cluster:
``tests/helpers/postgres.py``), then timed as ``cueboard archive stats`` does it: the records
read back, every player's figures, the ratings worked out again from every frame. The target:
under 10 s for 1,024 players and 100,000 frames.

    python bench/league_stats.py                      # 1,024 players, 100,000 frames, SQLite
    python bench/league_stats.py --db postgresql
    python bench/league_stats.py --players 64 --frames 5000   # a quick look

Prints one JSON line: the sizes, and each step's seconds (the storing is not timed: it is
the archive's, benched in bench/archive.py).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def run(players: int, frames: int, db: str) -> dict[str, Any]:
    from cueboard.games.simulate_strength import season, strengths_of
    from cueboard.league.ratings import Ratings, frame_results
    from cueboard.league.records import checked
    from cueboard.league.stats_figures import player_stats
    from cueboard.league.store import Archive

    names = [f"Player {i:04d}" for i in range(players)]
    played = season(random.Random(1), strengths_of(names, 0.5, 0.9), frames_a_player=2 * frames // players,
                    competition="Bench")
    records, total = [], 0
    for record in played:  # the season's rounds run past ``frames``: cut at it
        if total >= frames:
            break
        records.append(record)
        total += len(record["frames"])
    with ExitStack() as stack:
        if db == "postgresql":
            from tests.helpers.postgres import Postgres

            pg_dir = Path(tempfile.mkdtemp(prefix="cueboard-pg-", dir="/var/tmp"))
            stack.callback(shutil.rmtree, pg_dir, True)
            server = Postgres(pg_dir)
            stack.callback(server.stop)
            url = server.database()
        else:
            tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="cueboard-stats-bench-"))
            url = f"sqlite:///{tmp}/league.db"
        with Archive.open(url) as archive:
            for k in range(0, len(records), 1000):
                archive.put_many([(checked(r), "bench") for r in records[k:k + 1000]])
            t0, c0 = time.perf_counter(), time.process_time()
            stored = archive.records()
        t1, c1 = time.perf_counter(), time.process_time()
        figures = player_stats(stored)
        t2, c2 = time.perf_counter(), time.process_time()
        ratings = Ratings(frame_results(stored))
        table = ratings.table()
        t3, c3 = time.perf_counter(), time.process_time()
    # Seconds of the clock and of this process's CPU (a loaded machine stretches the first;
    # PostgreSQL's own work is in the first only).
    return {"db": db, "players": len(figures), "matches": len(stored), "frames": len(ratings.results),
            "read_s": round(t1 - t0, 2), "figures_s": round(t2 - t1, 2), "ratings_s": round(t3 - t2, 2),
            "total_s": round(t3 - t0, 2), "total_cpu_s": round(c3 - c0, 2),
            "cpu_s": {"read": round(c1 - c0, 2), "figures": round(c2 - c1, 2), "ratings": round(c3 - c2, 2)},
            "rated": len(table), "load_average": os.getloadavg()[0]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, default=1024)
    p.add_argument("--frames", type=int, default=100_000, help="frames to play, about (default 100,000)")
    p.add_argument("--db", choices=("sqlite", "postgresql"), default="sqlite")
    args = p.parse_args(argv)
    print(json.dumps(run(args.players, args.frames, args.db)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
