"""The league's results archive under load (issue 30): tables over bridged brokers finishing
matches into the league's PostgreSQL archive.

The topology of ``bench/league.py`` on 127.0.0.1: one league broker (the general settings of
``examples/mosquitto/league.conf``), ``venues`` venue brokers bridged to it with
``examples/mosquitto/venue.conf``'s bridge, ``tables`` tables a venue (a real
:class:`cueboard.table.mqtt.feed.Feed` each, a venue's tables in one worker process). The league's
archive is ``cueboard archive run`` as a process of its own, subscribed on the league broker
to ``cueboard/+/+/record``, writing to a throwaway PostgreSQL cluster (``tests/helpers/postgres.py``;
``--db sqlite`` for a SQLite file on /var/tmp instead), with ``fsync`` on (a commit is on the
disk, as on a real server; the tests' clusters run without).

Each table plays ``matches`` best-of-3 snooker matches (records of real matches played by the
engine, ``cueboard.games.simulate.realistic_log``), and publishes the record as the daemon does: at
each frame's end, the last one at the match's end. The matches' ends are spread evenly over
``seconds``.

Measured:

- **stored per second**: records written (stored or replaced) over the time from the first
  publish to the last match seen in the archive; and, as the floor measured in the same run,
  the same kind of records written bare into a fresh database of the same kind by one process
  (the store's row writer, every record new, in the service's batches: no read, no
  comparison, no broker): the ratio says what the service and the brokers cost when the
  matches end in a burst (``--seconds 10`` with ``--full``); at the tables' pace it is the
  offered load's share of the floor; ``service_busy_s``: the service's writer's seconds
  reading the messages, in transactions, acknowledging (where its time goes);
- **lost**: matches whose final record was published and whose row never showed the match
  finished (every attempt counts: the bench waits ``drain`` seconds after the last publish);
- **doubled**: writes beyond the records published for a match (a row's ``revision`` higher
  than the frames the table published for it), and rows of no match published;
- **last event to standings**: from the moment the table published the record of the match's
  last event (``time.monotonic_ns()``, one clock for every process) to the moment a reader
  polling the archive every ``poll`` ms (as a standings page would query it) first sees the
  match finished: p50/p99/max (resolution: the poll).

Run: ``.venv/bin/python bench/archive.py`` (4 venues x 8 tables x 3 matches, some 40 s), or
``--full`` for 16 venues x 64 tables (1,024 tables). Prints one JSON object, with the command.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(ROOT))  # tests.helpers

from league import league_settings, table_name, venue_bridge, venue_name  # noqa: E402
from stats import percentile  # noqa: E402
from workers import Worker  # noqa: E402

from cueboard.contract.topics import TableTopics  # noqa: E402

HOST = "127.0.0.1"
WAIT = 120.0
POOL = 16  # distinct matches the tables' records are drawn from


def match_pool(seed: int = 30) -> list[list[dict[str, Any]]]:
    """``POOL`` best-of-3 matches, each as the records published at its frames' ends."""
    from cueboard.engine import Match
    from cueboard.engine.record import record_of
    from cueboard.games.simulate import realistic_log

    pool = []
    for k in range(POOL):
        setup = {"type": "match", "game": "snooker", "sides": [f"Home {k}", f"Away {k}"], "best_of": 3}
        log = realistic_log(setup, random.Random(seed + k))
        match = Match.from_json(setup)
        records, frames = [], 0
        for i, event in enumerate(log[1:], start=1):
            match.apply(match.parse({**event, "t": 1_795_000_000 + 20 * i}))
            won = sum(side.frames for side in match.state().sides)
            if won > frames:  # a frame ended: the daemon publishes the record
                frames = won
                records.append(record_of(match))
        pool.append(records)
    return pool


def schedule(venue_index: int, tables: int, venues: int, matches: int, seconds: float) -> list[tuple[float, int, int]]:
    """(seconds after the start, table, match) of each match's end at this venue: the league's
    ``venues * tables * matches`` ends spread evenly over ``seconds``."""
    total = venues * tables * matches
    out = []
    for m in range(matches):
        for k in range(tables):
            j = (m * tables + k) * venues + venue_index
            out.append((seconds * (j + 1) / total, k, m))
    return out


def record_for(pool: list[list[dict[str, Any]]], venue: str, table: int, m: int) -> list[dict[str, Any]]:
    """The records of match ``m`` on ``table``: a pool match given a start of its own (the
    match id is ``<venue>/<table>/<started>``)."""
    records = pool[(table * 7 + m * 3 + len(venue)) % POOL]
    started = f"2026-11-18T{m:02d}:00:00Z"
    return [{**r, "started": started} for r in records]


def tables_worker(venue_index: int, venues: int, port: int, tables: int, matches: int, seconds: float,
                  out: Path, pool_file: Path) -> None:
    """A venue's tables: "ready" once connected; a line with the start (monotonic ns); then
    each match's records published on schedule (the frames' records 200 ms apart before the
    last); "done" once the broker has them all; writes when each final record went."""
    from cueboard.table.mqtt.feed import Feed, MqttConfig

    venue = venue_name(venue_index)
    names = [table_name(k) for k in range(tables)]
    feeds = [Feed(MqttConfig(prefix=TableTopics.of(venue, name).prefix, host=HOST, port=port,
                             client_id=f"cueboard-{venue}-{name}"), table=name) for name in names]
    for feed in feeds:
        feed.start()
    pool = json.loads(pool_file.read_text())
    deadline = time.monotonic() + WAIT
    while not all(feed.connected for feed in feeds) and time.monotonic() < deadline:
        time.sleep(0.05)
    print("ready" if all(feed.connected for feed in feeds) else "not ready", flush=True)
    start_ns = int(sys.stdin.readline())
    sends: list[tuple[int, int, int, bool]] = []  # (when ns, table, match, final)
    for at, k, m in schedule(venue_index, tables, venues, matches, seconds):
        records = record_for(pool, venue, k, m)
        for i in range(len(records)):
            sends.append((start_ns + int((at - 0.2 * (len(records) - 1 - i)) * 1e9), k, m, i == len(records) - 1))
    sends.sort()
    finals: list[list[Any]] = []
    published = {}
    for when, k, m, final in sends:
        delay = when - time.monotonic_ns()
        if delay > 0:
            time.sleep(delay / 1e9)
        records = record_for(pool, venue, k, m)
        n = published.get((k, m), 0)
        t0 = time.monotonic_ns()
        feeds[k].publish_record(records[n])
        published[(k, m)] = n + 1
        if final:
            finals.append([f"{venue}/{names[k]}/{records[n]['started']}", t0, len(records)])
    flushed = all(feed.flush(60) for feed in feeds)
    print("done", flush=True)
    sys.stdin.readline()
    for feed in feeds:
        feed.stop(timeout=2)
    out.write_text(json.dumps({"finals": finals, "flushed": flushed, "dropped": sum(f.dropped for f in feeds)}))


def _earlier(stamp: str, seconds: float) -> str:
    """An archive's ``stored_at`` (ISO 8601 UTC) ``seconds`` earlier, in the same form."""
    from datetime import datetime, timedelta

    at = datetime.fromisoformat(stamp.replace("Z", "+00:00")) - timedelta(seconds=seconds)
    return at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def floor_rate(url: str, pool: list[list[dict[str, Any]]], count: int) -> float:
    """Records a second one process writes bare into a fresh database of the same kind: the
    same rows the archive writes (a match's row, its players, frames, breaks), each record a
    match of its own, in the service's batches, one transaction each, with no read, no
    comparison and no broker (records checked before the clock starts)."""
    from cueboard.league.archive_service import BATCH
    from cueboard.league.records import checked
    from cueboard.league.store import Archive

    with Archive.open(url) as archive:
        items = []
        for n in range(count):
            for f, rec in enumerate(pool[n % POOL]):
                items.append(checked({**rec, "started": f"2026-11-18T{f:02d}:00:{n % 60:02d}Z"}, venue="floor",
                                     table=f"t{n // 60}"))
        t0 = time.perf_counter()
        for at in range(0, len(items), BATCH):  # in the service's batches
            with archive.db.transaction():
                # The store's own row writer, given every record as new: the writes alone.
                archive._write({r.match_id: (r, "floor", 1) for r in items[at:at + BATCH]}, existed=set())
        return len(items) / (time.perf_counter() - t0)


def run(venues: int, tables: int, matches: int, seconds: float, db: str, poll_ms: float,
        drain: float) -> dict[str, Any]:
    from cueboard.league.store import Archive
    from tests.helpers.mosquitto import Mosquitto
    from tests.helpers.postgres import Postgres

    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="cueboard-archive-bench-", dir="/var/tmp")))
        if db == "postgresql":
            pg_dir = Path(tempfile.mkdtemp(prefix="cueboard-pg-", dir="/var/tmp"))
            stack.callback(shutil.rmtree, pg_dir, True)
            server = Postgres(pg_dir, fsync=True)  # commits on the disk, as a league's server
            stack.callback(server.stop)
            url, floor_url = server.database(), server.database()
        else:
            url, floor_url = f"sqlite:///{tmp}/league.db", f"sqlite:///{tmp}/floor.db"
        league = stack.enter_context(Mosquitto(tmp / "league", extra=league_settings()))
        brokers = [stack.enter_context(Mosquitto(tmp / venue_name(v), extra=venue_bridge(venue_name(v), league.port)))
                   for v in range(venues)]
        for v in range(venues):
            league.wait_for_log(lambda line, v=v: f"venue-{venue_name(v)}" in line and "connected" in line.lower())
        Archive.open(url).close()  # migrated before the service starts
        # Its log to a file: a pipe nobody reads while it runs would fill and stop it.
        service_log = stack.enter_context(open(tmp / "archive.log", "w+"))
        service = subprocess.Popen([sys.executable, "-m", "cueboard.cli", "archive", "run", "--db", url,
                                    "--port", str(league.port), "--client-id", "cueboard-archive-bench"],
                                   stdout=subprocess.DEVNULL, stderr=service_log, text=True, cwd=ROOT)
        stack.callback(lambda: service.poll() is None and (service.terminate(), service.wait(WAIT)))
        league.wait_for_log(lambda line: "cueboard-archive-bench" in line and "SUBSCRIBE" in line.upper())
        pool = match_pool()
        (tmp / "pool.json").write_text(json.dumps(pool))
        workers = [Worker(Path(__file__), ["tables", str(v), str(venues), str(brokers[v].port), str(tables),
                                           str(matches), str(seconds), str(tmp / f"{venue_name(v)}.json"),
                                           str(tmp / "pool.json")], venue_name(v), wait=WAIT)
                   for v in range(venues)]
        stack.callback(lambda: [w.kill() for w in workers])
        for w in workers:
            w.expect("ready")

        seen: dict[str, int] = {}
        stop = threading.Event()

        def watch() -> None:
            # Only the rows written in the last 10 s (stored_at is taken inside the writing
            # transaction, before its commit): reading the whole table every poll would take
            # the CPU the archive is measured on.
            since = ""
            with Archive.open(url) as reader:
                while not stop.is_set():
                    t = time.monotonic_ns()
                    for match_id, at in reader.db.query("SELECT match_id, stored_at FROM matches "
                                                        "WHERE finished = 1 AND stored_at >= ?", (since,)):
                        seen.setdefault(match_id, t)
                        since = max(since, _earlier(at, 10))
                    stop.wait(poll_ms / 1000)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        start_ns = time.monotonic_ns() + int(1.5e9)
        for w in workers:
            w.send(str(start_ns))
        for w in workers:
            w.expect("done", seconds + WAIT)
        expected = venues * tables * matches
        deadline = time.monotonic() + drain
        while len(seen) < expected and time.monotonic() < deadline:
            time.sleep(0.1)
        stop.set()
        watcher.join(WAIT)
        for w in workers:
            w.send("stop")
            w.process.wait(WAIT)
        service.terminate()
        service.wait(WAIT)
        finals = [f for v in range(venues) for f in json.loads((tmp / f"{venue_name(v)}.json").read_text())["finals"]]
        with Archive.open(url) as archive:
            revisions = archive.revisions()
            counts = archive.counts()
            stored_at = archive.db.query("SELECT MIN(stored_at), MAX(stored_at) FROM matches")
        published_versions = {f[0]: f[2] for f in finals}
        lost = [m for m in published_versions if m not in seen]
        doubled = sum(max(0, revisions.get(m, 0) - n) for m, n in published_versions.items()) + sum(
            1 for m in revisions if m not in published_versions)
        latencies = [seen[m] - t0 for m, t0, _ in finals if m in seen]
        writes = sum(revisions.values())
        span = (max(seen.values()) - start_ns) / 1e9 if seen else float("nan")
        floor = floor_rate(floor_url, pool, 300)
        service_log_text = (tmp / "archive.log").read_text()
        service_err = service_log_text[-1500:]
        # Where the service's time went: its writer's seconds in each stage (archive_service.py).
        busy = [json.loads(line.split("busy seconds: ", 1)[1]) for line in service_log_text.splitlines()
                if "busy seconds: " in line]
        # mosquitto says so when its queue for a client is full and it drops messages for it.
        dropping = [line for line in league.log if "dropped" in line and "cueboard-archive-bench" in line]
        return {
            "command": " ".join(["python", "bench/archive.py", *sys.argv[1:]]),
            "load_average": os.getloadavg(),
            "league_broker_dropped_for_the_archive": bool(dropping),
            "topology": f"{venues} venue brokers x {tables} tables bridged to one league broker; "
                        f"cueboard archive run on the league broker into {db}",
            "tables": venues * tables, "matches": expected, "records_published": sum(published_versions.values()),
            "matches_finished_in_archive": len(seen), "rows": counts["matches"], "writes": writes,
            "lost": len(lost), "doubled": doubled,
            # The offered load when the archive keeps up (the tables' schedule); a short
            # --seconds makes it a burst, and then this is what the service can take.
            "stored_per_s": round(writes / span, 1) if seen else None,
            "offered_per_s": round(sum(published_versions.values()) / seconds, 1),
            "floor_bare_writes_per_s": round(floor, 1),
            "service_busy_s": busy[-1] if busy else None,
            "ratio_to_floor": round(writes / span / floor, 3) if seen else None,
            "last_event_to_standings_ms": {
                "p50": round(percentile(latencies, 50) / 1e6, 1), "p99": round(percentile(latencies, 99) / 1e6, 1),
                "max": round(max(latencies) / 1e6, 1), "poll_ms": poll_ms} if latencies else None,
            "stored_at_span": stored_at[0],
            "service_log_tail": service_err if lost or doubled else "",
        }


PACED = (16, 64, 3, 60.0)
"""venues, tables a venue, matches a table, seconds: the league's 3,072 match ends spread over a
minute (a hundred times a league night's pace): last event to standings is measured here."""
PACED_QUICK = (4, 16, 3, 20.0)
BURST = (16, 64, 3, 10.0)
"""The same 3,072 match ends in 10 s (7,488 records, some 750 a second): none may be lost or
stored twice, and the service's rate is measured here, where it has a backlog."""
RATE_TARGET = 0.5
"""The archive's rate in the burst at least half its floor's, or half the rate the tables offer
when that is less: the burst offers 7,488 records in 10 s, and no archive stores records faster
than they come (on a quiet machine the floor is several times the burst's rate)."""
STANDINGS_P99_MS = 1000.0  # last event to standings, at the tables' pace


def service_rate(result: dict[str, Any]) -> float | None:
    """Records the service wrote a second of its writer's work (reading the messages, the
    transactions, the acknowledgements; ``service_busy_s``): where its time goes. Not a
    capacity: a writer that keeps up commits small batches, a disk flush each."""
    busy = result.get("service_busy_s")
    total = sum(busy.get(stage, 0.0) for stage in ("read", "store", "acknowledge")) if busy else 0.0
    return result["writes"] / total if total > 0 else None


def archive_figures(quick: bool, db: str = "postgresql") -> dict[str, Any]:
    """bench/run.py's archive part (issue 41): the paced run, then the burst, and whether each
    target is met."""
    venues, tables, matches, seconds = PACED_QUICK if quick else PACED
    paced = run(venues, tables, matches, seconds, db, 20.0, 60.0)
    paced["command"] = (f"python bench/archive.py --venues {venues} --tables {tables} --matches {matches} "
                        f"--seconds {seconds:g} --db {db}")
    venues, tables, matches, seconds = BURST
    burst = run(venues, tables, matches, seconds, db, 20.0, 120.0)
    burst["command"] = f"python bench/archive.py --full --seconds {seconds:g} --drain 120 --db {db}"
    stored, floor = burst["stored_per_s"], burst["floor_bare_writes_per_s"]
    rate = service_rate(burst)
    # The target's ratio: stored end to end against what it could be, the floor or the offer.
    ratio = round(stored / min(floor, burst["offered_per_s"]), 3) if stored is not None else None
    p99 = (paced["last_event_to_standings_ms"] or {}).get("p99")
    return {
        "paced": paced, "burst": burst,
        "service_stored_per_busy_s": round(rate, 1) if rate is not None else None,
        "stored_to_floor": round(stored / floor, 3) if stored is not None else None,
        "stored_to_floor_or_offer": ratio,
        "meets": {
            "rate": ratio is not None and ratio >= RATE_TARGET,
            "standings": p99 is not None and p99 <= STANDINGS_P99_MS and paced["lost"] == 0,
            "burst": burst["lost"] == 0 and burst["doubled"] == 0
            and burst["matches_finished_in_archive"] == burst["matches"],
        },
    }


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "tables":
        v, venues, port, tables, matches = map(int, sys.argv[2:7])
        tables_worker(v, venues, port, tables, matches, float(sys.argv[7]), Path(sys.argv[8]), Path(sys.argv[9]))
        return 0
    # SIGTERM (a CI timeout) ends the run through its clean-up: brokers, PostgreSQL, workers.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--full", action="store_true", help="16 venues x 64 tables (1,024 tables), 60 s")
    p.add_argument("--venues", type=int, default=4)
    p.add_argument("--tables", type=int, default=8, help="tables a venue")
    p.add_argument("--matches", type=int, default=3, help="matches a table")
    p.add_argument("--seconds", type=float, default=None,
                   help="the matches' ends spread over this long (default 20 s; 60 s with --full)")
    p.add_argument("--db", choices=("postgresql", "sqlite"), default="postgresql")
    p.add_argument("--poll-ms", type=float, default=20.0, help="the standings reader's poll")
    p.add_argument("--drain", type=float, default=60.0, help="seconds to wait for the last matches")
    args = p.parse_args()
    if args.full:
        args.venues, args.tables = 16, 64
    if args.seconds is None:
        args.seconds = 60.0 if args.full else 20.0
    print(json.dumps(run(args.venues, args.tables, args.matches, args.seconds, args.db, args.poll_ms, args.drain),
                     indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
