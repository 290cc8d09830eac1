"""The venue screen under load (issue 18): many tables at 2 events a second each, one page.

    .venv/bin/python bench/screen.py                      # 256 tables for 60 s, 512 and 1000 for 30 s,
                                                          # 256 with 64 cards drawn at once for 30 s
    .venv/bin/python bench/screen.py --tables 256 --seconds 60 --view list --per-page 64
    .venv/bin/python bench/screen.py --write              # and the figures into docs/performance.md

A loopback mosquitto (``tests/helpers/mosquitto.py``, a WebSockets listener, no per-message log) and
``cueboard.venue.pages``'s server; ``bench/screen_driver.mjs`` publishes and drives one page in
Debian's headless Chromium (playwright-core). Each table plays whole matches round and round
(snooker and blackball states from ``cueboard.games.simulate``, names of every length), each event
sent as a daemon sends it: the event, then the retained state (QoS 1), its ``ts`` the moment it
is sent; 32 tables share an MQTT connection. The broker is tests/helpers/mosquitto.py's with mosquitto's
defaults (a QoS 1 subscriber's queue holds 1000 messages; more are dropped). Before publishing
starts every table is online with its state retained, and the page has them all.

Per state, the page (``?stats=1``) records:

- **handled**: when its message was parsed, checked against the schema and taken into the
  table's record; lag = that moment - ``ts``. Every state of every table, on the page or not.
- **shown**: for a table on the page, when its card was drawn with it (or a newer state: a
  card is drawn once a frame with the newest); lag from the oldest state not yet drawn.

The floor: a plain mqtt.js subscriber in the driver's process, over the same WebSockets
listener, timing the states of 32 of the tables the same way (the broker and the machine
without a page).

Figures: p50 / p99 / max of each; p99 of handled lag per 10 s window (growth: the last
window's p99 against the first's); states sent and handled (when publishing stopped the page
is given ``--drain`` seconds to take the rest); the page's main thread busy time (Chrome's
``TaskDuration``) per second. The machine's load average is recorded with the figures: other
work on the machine slows the page down.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(ROOT))  # tests.helpers

from stats import load_average, summary  # noqa: E402

from cueboard.engine import Match  # noqa: E402
from cueboard.games.simulate import blackball_log, realistic_log  # noqa: E402
from cueboard.venue.pages import make_server, serve_in_thread  # noqa: E402
from tests.helpers.mosquitto import Mosquitto  # noqa: E402

DRIVER = HERE / "screen_driver.mjs"
CHROMIUM = "/usr/bin/chromium"
QUIET = "\n".join(f"log_type {t}" for t in ("none", "error", "warning", "notice", "information"))
"""mosquitto's log without a line per message (tests/helpers/mosquitto.py logs everything)."""
NAMES = [("Ronnie O'Sullivan", "Judd Trump"), ("赵心童", "Mark Selby"), ("Anne-Sophie Vandermeulen", "Bob"),
         ("Ding Junhui", "Kyren Wilson"), ("Åsa Sjöström", "Jürgen Müller"), ("Luca Brecel", "Neil Robertson")]
BEGIN, END = "<!-- screen:begin (written by bench/screen.py) -->", "<!-- screen:end -->"
TARGET = {"tables": 256, "p99_ms": 250.0}


def matches() -> list[list[dict[str, Any]]]:
    """Whole matches as state sequences: two of snooker (best of 3) and two of blackball."""
    out = []
    logs = [realistic_log({"type": "match", "game": "snooker", "sides": ["A", "B"], "best_of": 3}, random.Random(seed))
            for seed in (1, 2)] + [blackball_log(3, seed=seed) for seed in (1, 2)]
    for log in logs:
        match = Match.from_json(log[0])
        states = []
        for event in log[1:]:
            match.apply(match.parse(event))
            states.append(match.state().to_json())
        out.append(states)
    return out


def windows(records: list[list[float]], started: float, width_s: float = 10.0) -> list[dict[str, Any]]:
    by: dict[int, list[float]] = {}
    for at, lag in records:
        by.setdefault(int((at - started) / 1000 / width_s), []).append(lag)
    return [{"from_s": k * width_s, **summary(v)} for k, v in sorted(by.items()) if k >= 0]


def run_one(tables: int, seconds: float, rate: float, query: str, drain: float,
            size: tuple[int, int] = (1920, 1080)) -> dict[str, Any]:
    """One run: ``tables`` tables for ``seconds`` at ``rate`` events/s each, the page at ``query``."""
    load_before = load_average()
    with tempfile.TemporaryDirectory() as tmp, Mosquitto(Path(tmp), websockets=True, extra=QUIET) as broker:
        server = make_server("127.0.0.1", 0, broker_ws=f"ws://127.0.0.1:{broker.ws_port}")  # the page's only broker
        serve_in_thread(server)
        try:
            plan = {"url": f"http://127.0.0.1:{server.server_address[1]}/", "venue": "bench", "mqtt_port": broker.port,
                    "ws_port": broker.ws_port, "chromium": CHROMIUM, "tables": tables, "rate": rate, "seconds": seconds,
                    "drain": drain, "query": query, "width": size[0], "height": size[1], "matches": matches(),
                    "names": NAMES}
            plan_file = Path(tmp) / "plan.json"
            plan_file.write_text(json.dumps(plan))
            proc = subprocess.run(["node", str(DRIVER), str(plan_file)], capture_output=True, text=True,
                                  stdin=subprocess.DEVNULL, timeout=seconds + drain + 240)
        finally:
            server.shutdown()
            server.server_close()
    if proc.returncode != 0:
        raise RuntimeError(f"bench/screen_driver.mjs failed: {proc.stderr[-2000:]}")
    raw = json.loads(proc.stdout.strip().splitlines()[-1])
    page = raw["page"]
    handled = [lag for _, lag in page["handled"]]
    shown = [lag for _, lag in page["shown"]]
    per_window = windows(page["handled"], raw["started"])
    full = [w for w in per_window if w["from_s"] + 10 <= seconds]
    growth = round(full[-1]["p99_ms"] / full[0]["p99_ms"], 2) if len(full) >= 2 and full[0]["p99_ms"] else None
    wall = raw["wall_s"]
    return {
        "tables": tables, "events_per_second_per_table": rate, "seconds": seconds, "page_query": query,
        "viewport": f"{size[0]}x{size[1]}",
        "states_sent": raw["sent"], "states_handled": raw["handled_by_end"], "events_sent": raw["events"],
        "publisher_fell_behind": raw["publisher_late"],
        "caught_up_ms_after_publishing_stopped": raw["caught_up_ms"],
        "handled_lag": summary(handled), "shown_lag": summary(shown),
        "floor_lag": summary([lag for _, lag in raw["floor"]]), "handled_lag_p99_per_10s": per_window,
        "p99_last_over_first_window": growth,
        "page_main_thread_busy_percent": round(100 * raw["main_thread_busy_s"] / wall, 1),
        "page_script_percent": round(100 * raw["script_s"] / wall, 1),
        "page_style_layout_percent": round(100 * (raw["style_s"] + raw["layout_s"]) / wall, 1),
        "long_tasks": {"n": len(page["long"]), "total_ms": sum(d for _, d in page["long"]),
                       "longest_ms": max((d for _, d in page["long"]), default=0),
                       "at_s": [round((at - raw["started"]) / 1000, 1) for at, _ in page["long"]][:20]},
        "layouts": raw["layouts"], "style_recalcs": raw["style_recalcs"],
        "frames_drawn": page["flushes"], "cards_patched": page["patched"], "pages": page["pages"],
        "js_heap_mb": round(raw["js_heap_mb"], 1), "dom_nodes": raw["nodes"],
        "problems": raw["problems"], "errors": raw["errors"],
        "load_average_before": load_before,
        "load_average_after": load_average(),
    }


def figures(runs: list[tuple[int, float, str]], rate: float, drain: float) -> dict[str, Any]:
    result: dict[str, Any] = {
        "command": "bench/screen.py " + " ".join(sys.argv[1:]),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"), "cpus": os.cpu_count(),
        "chromium": subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True).stdout.strip(),
        "runs": [],
    }
    started = time.time()
    for tables, seconds, query in runs:
        print(f"screen: {tables} tables, {seconds:g} s, ?{query} ...", file=sys.stderr)
        result["runs"].append(run_one(tables, seconds, rate, query, drain))
    result["seconds"] = round(time.time() - started, 1)
    head = next((r for r in result["runs"] if r["tables"] == TARGET["tables"] and r["page_query"] != STRESS), None)
    result["meets_target"] = bool(head and head["handled_lag"].get("p99_ms", 1e9) < TARGET["p99_ms"]
                                  and head["shown_lag"].get("p99_ms", 1e9) < TARGET["p99_ms"]
                                  and head["states_handled"] >= head["states_sent"]
                                  and (head["p99_last_over_first_window"] or 99) < 2)
    return result


def markdown(r: dict[str, Any]) -> str:
    out = [BEGIN, "", f"Command: `.venv/bin/python {r['command']}`, {r['date']}, {r['cpus']} CPUs, {r['chromium']}; "
           f"the run took {r['seconds']} s. Target: {TARGET['tables']} tables, p99 under {TARGET['p99_ms']:g} ms and "
           f"no growth over 60 s: **{'met' if r['meets_target'] else 'missed'}**.", "",
           "| tables | page | s | states sent / handled | handled lag p50 / p99 / max | drawn lag p50 / p99 / max | "
           "floor p50 / p99 | handled p99, last / first 10 s | page's main thread busy | load average before / after |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for x in r["runs"]:
        h, s, f = x["handled_lag"], x["shown_lag"], x["floor_lag"]
        due = int(x["tables"] * x["events_per_second_per_table"] * x["seconds"])
        late = f" (of {due:,} due: the publisher fell behind)" if x["states_sent"] < due * 0.98 else ""
        out.append(f"| {x['tables']} | `?{x['page_query']}` | {x['seconds']:g} | {x['states_sent']:,}{late} / "
                   f"{x['states_handled']:,} | {h.get('p50_ms')} / {h.get('p99_ms')} / {h.get('max_ms')} ms | "
                   f"{s.get('p50_ms')} / {s.get('p99_ms')} / {s.get('max_ms')} ms | "
                   f"{f.get('p50_ms')} / {f.get('p99_ms')} ms | "
                   f"x{x['p99_last_over_first_window']} | {x['page_main_thread_busy_percent']} % | "
                   f"{x['load_average_before'][0]} / {x['load_average_after'][0]} |")
    out += ["", END]
    return "\n".join(out)


def write_docs(r: dict[str, Any]) -> None:
    md = ROOT / "docs" / "performance.md"
    text = md.read_text()
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + markdown(r) + rest.split(END, 1)[1]
    else:
        text += "\n" + markdown(r) + "\n"
    md.write_text(text)


STRESS = "view=list&per_page=64"
"""64 cards drawn at once (a list of 64 rows): the drawing's cost, not only the parsing's."""


def default_runs(quick: bool = False, query: str = "view=grid") -> list[tuple[int, float, str]]:
    """256 tables for 60 s (the target), 512 and 1000 for 30 s, then 256 with 64 cards drawn
    at once for 30 s; ``quick``: 15 s each."""
    runs = [(n, 60.0 if n == TARGET["tables"] else 30.0, query) for n in (256, 512, 1000)]
    if query == "view=grid":
        runs.append((TARGET["tables"], 30.0, STRESS))
    return [(n, 15.0, q) if quick else (n, s, q) for n, s, q in runs]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", help="table counts (default 256 512 1000)")
    parser.add_argument("--seconds", type=float, help="publishing time a run (default 60 s for 256, else 30 s)")
    parser.add_argument("--rate", type=float, default=2.0, help="events a second a table (default 2)")
    parser.add_argument("--view", default="grid", choices=["grid", "list"], help="the page's view (default grid)")
    parser.add_argument("--per-page", type=int, dest="per_page",
                        help="cards a page (default: the page chooses, up to 16)")
    parser.add_argument("--drain", type=float, default=15.0, help="seconds the page may take to catch up at the end")
    parser.add_argument("--write", action="store_true", help="write the figures into docs/performance.md")
    args = parser.parse_args()
    query = f"view={args.view}" + (f"&per_page={args.per_page}" if args.per_page else "")
    runs = default_runs(query=query)
    if args.tables:
        runs = [(n, 60.0 if n == TARGET["tables"] else 30.0, query) for n in args.tables]
    if args.seconds:
        runs = [(n, args.seconds, q) for n, _, q in runs]
    result = figures(runs, args.rate, args.drain)
    print(json.dumps(result, indent=2))
    if args.write:
        write_docs(result)
        print("wrote the screen figures into docs/performance.md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
