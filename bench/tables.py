"""Many tables on one broker (used by bench/run.py).

``tables`` real ``Table`` objects in this one process (``cueboard.table.service.open_table``: the
journal, fsync'd, in a temporary directory on disk, and the ``Feed`` to one loopback
mosquitto; no boards, no buttons, no control socket), each with its own engine thread.
A driver thread submits ``{"type": "no_pot"}`` to each table twice a second (the tables
staggered evenly within each half second) for ``seconds``; each event raises the state's
``seq`` by one. One paho subscriber on ``cueboard/<venue>/+/state`` records when each
``(table, seq)`` first arrives.

- end to end: from ``Table.submit`` to the subscriber's receipt of that ``seq``;
- lost: ``(table, seq)`` submitted and never received within 10 s after the last
  submit. The state topic is a latest value: a state overtaken by a newer one before the
  feed sent it would be counted lost here too (the screen would still show the newest).
"""

from __future__ import annotations

import json
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from latency import Listener, summary_ms

from cueboard.contract.topics import ANY, VenueTopics
from cueboard.table.config import parse_config
from cueboard.table.inputs import Command
from cueboard.table.service import open_table

VENUE = "bench64"


def many_tables(host: str, port: int, tables: int, seconds: float, rate: float,
                journal_root: Path) -> dict[str, Any]:
    names = [f"t{k:02d}" for k in range(1, tables + 1)]
    received: dict[tuple[str, int], int] = {}
    duplicates = 0
    listener = Listener(host, port, [VenueTopics(VENUE).table(ANY).state])
    collecting = threading.Event()
    collecting.set()

    def collect() -> None:
        nonlocal duplicates
        while collecting.is_set() or not listener.messages.empty():
            try:
                t, topic, payload = listener.messages.get(timeout=0.2)
            except Exception:
                continue
            state = json.loads(payload)
            key = (topic.split("/")[2], int(state["seq"]))
            if key in received:
                duplicates += 1
            else:
                received[key] = t

    collector = threading.Thread(target=collect, name="collector", daemon=True)
    collector.start()
    submitted: dict[tuple[str, int], int] = {}
    with tempfile.TemporaryDirectory(dir=journal_root) as tmp_name, ExitStack() as stack:
        tmp = Path(tmp_name)
        running = []
        for name in names:
            raw = {
                "table": {"venue": VENUE, "name": name},
                "match": {"game": "snooker", "sides": ["Ann", "Bob"], "best_of": 3},
                "journal": {"dir": str(tmp / name)},
                "mqtt": {"host": host, "port": port},
            }
            table = stack.enter_context(open_table(parse_config(raw, tmp / "cueboard.toml"), boards=[],
                                                   control=False))
            thread = threading.Thread(target=table.run, name=f"engine-{name}", daemon=True)
            thread.start()
            running.append((name, table, thread))
        connected_by = time.monotonic() + 10
        while time.monotonic() < connected_by and not all(t.feed.connected for _, t, _ in running):
            time.sleep(0.05)
        time.sleep(1.0)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        period = 1.0 / rate
        slots = int(seconds * rate)
        start = time.perf_counter() + 0.1
        late = 0.0
        for slot in range(slots):
            for k, (name, table, _) in enumerate(running):
                target = start + slot * period + k * period / len(running)
                delay = target - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                else:
                    late = max(late, -delay)
                submitted[(name, slot + 1)] = time.perf_counter_ns()
                table.submit(Command("bench", {"type": "no_pot"}))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not all(k in received for k in submitted):
            time.sleep(0.1)
        cpu1, wall1 = time.process_time(), time.perf_counter()
        dropped = sum(t.feed.dropped for _, t, _ in running)
        accepted = sum(t.accepted for _, t, _ in running)
        for _, table, _thread in running:
            table.stop()
        for _, _, thread in running:
            thread.join(5)
    collecting.clear()
    collector.join(5)
    listener.close()
    lat = [received[k] - t for k, t in submitted.items() if k in received]
    lost = [k for k in submitted if k not in received]
    return {
        "tables": tables, "seconds": seconds, "events_per_second_per_table": rate,
        "submitted": len(submitted), "accepted": accepted, "received": len(lat), "lost": len(lost),
        "lost_examples": [f"{t}:{s}" for t, s in lost[:10]],
        "duplicate_messages": duplicates, "feed_dropped": dropped,
        "end_to_end": summary_ms(lat) if lat else None,
        "driver_late_max_ms": round(late * 1e3, 3),
        "process_cpu_percent_of_one_core": round((cpu1 - cpu0) / (wall1 - wall0) * 100, 1),
        "target": "no message lost",
        "meets_target": not lost,
    }
