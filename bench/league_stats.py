"""Statistics and ratings for a large league (issue 42): ``players`` players and about
``frames`` frames of simulated snooker (``cueboard.games.simulate_strength``, random pairings,
best of 5), stored in the archive (SQLite, or a throwaway PostgreSQL cluster:
``tests/helpers/postgres.py``), then timed as ``cueboard archive stats`` does it: the records
read back, every player's figures, the ratings worked out again from every frame. The target:
under 10 s for 1,024 players and 100,000 frames. ``--pages``: then the archive's pages
(``cueboard archive serve``, cueboard/league/http.py) over HTTP on loopback: the first page after
a change (it works every player's figures out again), then a player's page (statistics, rating
chart, breaks chart) and a competition's statistics table as a reader gets them (the figures
kept until the archive changes): the target, under 200 ms each.

    python bench/league_stats.py                      # 1,024 players, 100,000 frames, SQLite
    python bench/league_stats.py --db postgresql
    python bench/league_stats.py --players 64 --frames 5000   # a quick look
    python bench/league_stats.py --pages               # and the archive's pages

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


def pages(url: str, names: list[str], rounds: int = 20) -> dict[str, Any]:
    """The archive's pages timed over HTTP: the first (every figure worked out), then each of
    ``rounds`` players' pages (a player not yet drawn: its charts drawn) and the statistics
    table (drawn once, then kept)."""
    import statistics
    import threading
    import urllib.request
    from urllib.parse import quote

    from cueboard.league.http import make_server, warm

    t0 = time.perf_counter()
    server = make_server(url, port=0)  # it works the figures out at once, in a thread of its own
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]
    base = f"http://{host}:{port}"

    def get(path: str) -> tuple[float, int]:
        t0 = time.perf_counter()
        with urllib.request.urlopen(base + path, timeout=600) as answer:
            size = len(answer.read())
        return time.perf_counter() - t0, size

    try:
        warm(server.app)  # waits for the server's own working out (a page asked sooner would wait too)
        first = time.perf_counter() - t0
        player = [get("/players/" + quote(n)) for n in names[:rounds]]
        table = [get("/statistics?competition=Bench") for _ in range(rounds)]
    finally:
        server.shutdown()
        server.server_close()
    ms = [round(t * 1000, 1) for t, _ in player]
    return {"figures_at_start_s": round(first, 2), "player_page_ms": {"median": statistics.median(ms), "max": max(ms)},
            "player_page_bytes": player[0][1],
            "statistics_page_ms": {"first": round(table[0][0] * 1000, 1),
                                   "median": round(statistics.median(t for t, _ in table) * 1000, 1)},
            "statistics_page_bytes": table[0][1]}


def run(players: int, frames: int, db: str, with_pages: bool = False) -> dict[str, Any]:
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
        served = pages(url, [row["player"] for row in table]) if with_pages else None
    # Seconds of the clock and of this process's CPU (a loaded machine stretches the first;
    # PostgreSQL's own work is in the first only).
    return {"db": db, "players": len(figures), "matches": len(stored), "frames": len(ratings.results),
            "read_s": round(t1 - t0, 2), "figures_s": round(t2 - t1, 2), "ratings_s": round(t3 - t2, 2),
            "total_s": round(t3 - t0, 2), "total_cpu_s": round(c3 - c0, 2),
            "cpu_s": {"read": round(c1 - c0, 2), "figures": round(c2 - c1, 2), "ratings": round(c3 - c2, 2)},
            "rated": len(table), "load_average": os.getloadavg()[0],  # as `uptime` shows it
            **({"pages": served} if served is not None else {})}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, default=1024)
    p.add_argument("--frames", type=int, default=100_000, help="frames to play, about (default 100,000)")
    p.add_argument("--db", choices=("sqlite", "postgresql"), default="sqlite")
    p.add_argument("--pages", action="store_true", help="time the archive's pages too")
    args = p.parse_args(argv)
    print(json.dumps(run(args.players, args.frames, args.db, args.pages)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
