"""The scorer's tap to the table's answer drawn on the phone (issue 29), with 64 tables live.

    .venv/bin/python bench/scorer.py                     # 200 taps, 64 tables at 2 events/s
    .venv/bin/python bench/scorer.py --taps 40           # what bench/run.py --quick runs

The venue is real (bench/live_venue.py): ``cueboard venue init``'s broker, certificates, logins
and ACL, and ``/score`` served over HTTPS with the venue's certificate. Table t1 is a real
table's daemon (``cueboard.table.service.open_table``: the engine, its journal fsync'd on disk under
/var/tmp, the feed over MQTT/TLS with t1's login, commands on); t2 ... t64 are simulated tables
publishing 2 events a second each as daemons do, on the same broker, for the whole run.

bench/scorer_driver.mjs runs the page in Debian's headless Chromium as a phone (touch,
390x844), signed in as t1's scorer as the table's card signs it in, and taps "pot red" and
"undo" in turn, one at a time. Figures:

- **tap to answer drawn**: from the touch on the key (``pointerdown``) until the page has drawn
  the table's answer to that tap (its id and verdict on the page, after the frame was painted):
  the page's outbox, the broker, the table's engine and journal, the broker again, the page;
  a tap with no answer drawn within ``--timeout`` s, or one refused, is a **failure**;
- **the bare MQTT round trip**, in the same page and run, one after each tap: a plain mqtt.js
  client signed in as the scorer of t64 publishes a ping on its scorer topic; an echo on t64's
  own session (this process, beside the daemon) publishes it back on t64's ``event``; from
  publish to receipt;
- where a tap's time goes (``tap_stages``; mqtt.js's client and the Web Locks wrapped by the
  driver as the page loads them): the finger down to up, up to the click, the click until the
  line is handed to the socket (the page, its outbox and its Web Lock: the tap's own turn of the
  lock apart), from there until the table's state and its answer arrive (the broker, the table's
  engine and journal, the broker), and from the answer until it is drawn;
- the ratio of the taps' p50 and p99 to the floor's, and issue 41's target, judged by the run
  itself (``meets_target``): the taps' p99 at most 2x the floor's, every tap answered; the
  machine's load average before and after.

Taps go at a fast marker's pace (``--gap``, 250 ms from tap to tap at least), under the table's
``commands.rate``: a "later" from the table is its pacing, not the tap's path (counted all the same).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import paho.mqtt.client as mqtt  # noqa: E402
from live_venue import CHROMIUM, QOS, VENUE, BenchVenue, SimulatedTables  # noqa: E402
from stats import load_average, over_floor, report, summary  # noqa: E402

from cueboard.contract.topics import TableTopics  # noqa: E402
from cueboard.table.config import parse_config  # noqa: E402
from cueboard.table.service import open_table  # noqa: E402

DRIVER = HERE / "scorer_driver.mjs"
TABLES = 64
TAP_OVER_FLOOR_P99 = 2.0
"""Issue 41's target: tap -> answer drawn p99 at most this many times the bare round trip's p99."""
GAP_MS = 250
"""Milliseconds from one tap to the next at least: a fast marker's pace, under the table's
``commands.rate`` (5 a second after a burst of 10), whose "later" is the table's pacing, not the
tap's path."""
FLOOR_TABLE = f"t{TABLES}"


def scorer_topic(venue: BenchVenue, table: str) -> str:
    """The topic the venue's ACL lets ``scorer-<table>`` write: the contract's
    (:mod:`cueboard.contract.topics`), checked against the ACL ``cueboard venue`` writes."""
    topic = TableTopics.of(VENUE, table).score(f"scorer-{table}")
    if f"topic write {topic}" not in venue.acl():
        lines = [line for line in venue.acl().splitlines() if f"/{table}/" in line and "write" in line]
        raise RuntimeError(f"bench/scorer.py: the contract's scorer topic is {topic}, but the ACL of cueboard "
                           f"venue gives scorer-{table} {lines}: cueboard.contract.topics and the ACL differ")
    return topic


def stage(taps: list[dict[str, Any]], start: str, end: str) -> dict[str, Any]:
    """The summary of ``end - start`` over the taps that have both (ms)."""
    return summary([float(t[end] - t[start]) for t in taps if t.get(start) is not None and t.get(end) is not None])


def run(taps: int = 200, rate: float = 2.0, timeout: float = 10.0, gap_ms: int = GAP_MS) -> dict[str, Any]:
    load_before = load_average()
    with BenchVenue(TABLES, scorers=("t1", FLOOR_TABLE)) as venue, \
            tempfile.TemporaryDirectory(dir="/var/tmp") as journal_dir, contextlib.ExitStack() as stack:
        floor_out = scorer_topic(venue, FLOOR_TABLE)
        raw = {"table": {"venue": VENUE, "name": "t1"},
               "match": {"game": "snooker", "sides": ["Ann", "Bob"], "best_of": 3},
               "journal": {"dir": journal_dir},
               "mqtt": {"host": "localhost", "port": venue.ports["tables"], "username": "t1",
                        "password": venue.password("t1"), "command": True, "tls": {"ca": str(venue.ca)}}}
        config = parse_config(raw, Path(journal_dir) / "cueboard.toml")
        with open_table(config, boards=[], control=False) as table, \
                SimulatedTables(venue, venue.names[1:]) as sim:
            engine = threading.Thread(target=table.run, name="engine-t1", daemon=True)
            engine.start()
            echo = sim.clients[sim.names.index(FLOOR_TABLE)]
            back = sim.topics(FLOOR_TABLE).event

            def on_ping(client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
                echo.publish(back, message.payload, qos=QOS, retain=False)

            # A table reads its scorers' lines on its second session, as <login>.scorers (the
            # daemon's cueboard.table.mqtt.paced_link; the venue's ACL gives that login alone the score topics):
            # the floor's ping is heard there, as the daemon hears a tap, and echoed on the table's own.
            hearing = venue.client(FLOOR_TABLE, client_id=f"cueboard-{VENUE}-{FLOOR_TABLE}-scorers")
            hearing.username_pw_set(f"{FLOOR_TABLE}.scorers", venue.password(FLOOR_TABLE))
            subscribed = threading.Event()
            hearing.on_connect = lambda client, *args: client.subscribe(floor_out, qos=QOS)
            hearing.on_subscribe = lambda *args: subscribed.set()
            hearing.message_callback_add(floor_out, on_ping)
            hearing.connect("localhost", venue.ports["tables"])
            hearing.loop_start()
            stack.callback(hearing.loop_stop)
            stack.callback(hearing.disconnect)
            if not subscribed.wait(30):
                raise RuntimeError(f"the floor's echo on {FLOOR_TABLE} could not subscribe to {floor_out}")
            stop = threading.Event()
            publisher = threading.Thread(target=sim.run, args=(3600.0, rate, stop), name="tables", daemon=True)
            publisher.start()
            try:
                plan = {"chromium": CHROMIUM, "spki": venue.spki, "url": venue.page, "broker": venue.broker_url,
                        "venue": VENUE, "table": "t1", "user": "scorer-t1", "password": venue.password("scorer-t1"),
                        "floor_user": f"scorer-{FLOOR_TABLE}",
                        "floor_password": venue.password(f"scorer-{FLOOR_TABLE}"),
                        "floor_out": floor_out, "floor_back": back, "taps": taps, "timeout": timeout, "gap_ms": gap_ms}
                plan_file = venue.directory / "scorer-plan.json"
                plan_file.write_text(json.dumps(plan))
                proc = subprocess.run(["node", str(DRIVER), str(plan_file)], capture_output=True, text=True,
                                      stdin=subprocess.DEVNULL, timeout=300 + taps * 2 * timeout)
            finally:
                stop.set()
                publisher.join(60)
                table.stop()
                engine.join(30)
    for line in proc.stdout.splitlines():
        if not line.startswith("result "):
            print(f"  scorer driver: {line}", file=sys.stderr)
    results = [line for line in proc.stdout.splitlines() if line.startswith("result ")]
    if proc.returncode != 0 or not results:
        raise RuntimeError(f"bench/scorer_driver.mjs failed: {proc.stderr[-2000:]}")
    out = json.loads(results[-1].split(" ", 1)[1])
    done = [t for t in out["taps"] if t["answered"] is not None and t["touched"] is not None]
    lags = [float(t["answered"] - t["touched"]) for t in done if t["status"] == "applied"]
    failed = [t for t in out["taps"] if t not in done or t["status"] != "applied"]
    base = [float(x) for x in out["floor"] if x is not None]
    tap, floor = summary(lags), summary(base)
    ratio = over_floor(tap, floor)
    failures = len(failed) + (len(out["floor"]) - len(base))
    # Where a tap's time goes, in the order it goes (the table publishes its state, then its answer).
    stages = {"finger_down_to_up": stage(done, "touched", "lifted"),
              "up_to_click": stage(done, "lifted", "clicked"),
              "click_to_line_sent": stage(done, "clicked", "sent"),
              "sent_to_state_received": stage(done, "sent", "state"),
              "sent_to_answer_received": stage(done, "sent", "received"),
              "answer_received_to_drawn": stage(done, "received", "answered")}
    # The page's part of "click to line sent": the book's Web Lock, asked to granted (every turn).
    turns = sorted(out.get("lockWaits", []))
    stages["book_lock_asked_to_granted"] = summary([float(wait) for _, wait in turns])
    # The tap's own turn: the first asked after its click (it keeps the tap and sends it).
    own = [(t["clicked"], *turn) for t in done if t.get("clicked") is not None
           for turn in [next((x for x in turns if x[0] >= t["clicked"] - 1), None)] if turn is not None]
    stages["click_to_lock_asked"] = summary([float(asked - clicked) for clicked, asked, _ in own])
    stages["tap_lock_asked_to_granted"] = summary([float(wait) for _, _, wait in own])
    later = [t["id"] for t in out["taps"] if "later" in t.get("codes", [])]
    met = bool(ratio["p99_ms"] is not None and ratio["p99_ms"] <= TAP_OVER_FLOOR_P99 and failures == 0)
    return {
        "tables_live": TABLES, "events_per_second_per_simulated_table": rate, "phone": "390x844, touch",
        "taps": len(out["taps"]), "taps_answered_and_drawn": len(lags), "taps_failed": len(failed),
        "failed_examples": failed[:5], "tap_to_answer_drawn": tap, "tap_stages": stages,
        "floor_mqtt_round_trip": floor,
        "floor_pings_unanswered": len(out["floor"]) - len(base), "tap_over_floor": ratio,
        "gap_between_taps_ms": gap_ms, "taps_answered_later_first": len(later),
        "target": f"tap -> answer drawn p99 <= {TAP_OVER_FLOOR_P99:g}x the bare round trip's p99, every tap answered",
        "meets_target": met,
        "table_events_published_meanwhile": len(sim.sent), "publisher_late_max_ms": round(sim.late_ms, 1),
        "page_errors": out["errors"], "failures": failures, "ok": failures == 0,
        "load_average_before": load_before,
        "load_average_after": load_average(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--taps", type=int, default=200, help="taps (default 200)")
    parser.add_argument("--rate", type=float, default=2.0, help="events a second each simulated table (default 2)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds a tap's answer may take (default 10)")
    parser.add_argument("--gap", type=int, default=GAP_MS, help=f"ms from tap to tap at least (default {GAP_MS})")
    args = parser.parse_args()
    return report("bench/scorer.py", run(args.taps, args.rate, args.timeout, args.gap))


if __name__ == "__main__":
    sys.exit(main())
