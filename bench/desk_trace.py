"""Where the desk page's main thread is busy, from the timeline ``bench/desk.py --trace FILE`` wrote:
the time of the renderer main thread's outermost events, summed by name (script run by an
animation frame or a message, layout, paint...), for each page (the desk is the busier one).

    .venv/bin/python bench/desk.py --tables 256 --seconds 10 --trace /tmp/desk-trace.json
    .venv/bin/python bench/desk_trace.py /tmp/desk-trace.json
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any


def outermost(events: list[dict[str, Any]]) -> tuple[float, Counter[str]]:
    """The span (ms) of one thread's complete events, and the time (ms) of its outermost ones by name."""
    mine = sorted((e for e in events if e.get("ph") == "X" and "dur" in e), key=lambda e: (e["ts"], -e["dur"]))
    totals: Counter[str] = Counter()
    end = -1.0
    for e in mine:
        if e["ts"] >= end:
            totals[e["name"]] += e["dur"] / 1000
            end = e["ts"] + e["dur"]
    span = (mine[-1]["ts"] - mine[0]["ts"]) / 1000 if mine else 0.0
    return span, totals


def main() -> int:
    raw = json.loads(Path(sys.argv[1]).read_text())
    events: list[dict[str, Any]] = raw["traceEvents"] if isinstance(raw, dict) else raw
    mains = {e["pid"] for e in events
             if e.get("name") == "thread_name" and e.get("args", {}).get("name") == "CrRendererMain"}
    for pid in sorted(mains):
        span, totals = outermost([e for e in events if e["pid"] == pid and e["tid"] == pid])
        if not span:
            continue
        print(f"renderer {pid}: {span:.0f} ms traced, busy {100 * sum(totals.values()) / span:.1f} %")
        for name, ms in totals.most_common(12):
            print(f"  {ms:9.0f} ms {100 * ms / span:5.1f} %  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
