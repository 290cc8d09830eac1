"""Bytes the table publishes per event late in a best-of-35 final, by topic (issue 36).

Plays ``cueboard.games.simulate.final_log()`` through a real :class:`~cueboard.table.daemon.Table`
(its engine thread, journal and topics; no broker) whose feed encodes each payload as the MQTT
feed does and counts its bytes (payload and topic) by topic, and prints one JSON object: for the
last ``--late`` events of the match, the mean bytes per event by topic, their total, the state's
mean size and the ratio total / state (issue 36's bound: at most 2). Run from the repository root::

    .venv/bin/python bench/history.py [--late 200]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cueboard.contract.payloads import devices_payload, event_payload, input_payload, record_payload, state_payload
from cueboard.contract.topics import HISTORY, TableTopics
from cueboard.contract.wire import encode
from cueboard.games.simulate import final_log
from cueboard.table.config import parse_config
from cueboard.table.daemon import Table

TOPICS = TableTopics.of("club", "t1")
TS = "2026-11-26T19:30:04.500Z"


class CountingFeed:
    """A feed that publishes nowhere and counts what it would: bytes (topic + payload) by topic."""

    health = "ok"

    def __init__(self) -> None:
        self.bytes: Counter[str] = Counter()
        self.lock = threading.Lock()

    def _count(self, name: str, payload: bytes) -> None:
        kind = "history/<slot>" if name.startswith(f"{HISTORY}/") else name
        with self.lock:
            self.bytes[kind] += len(TOPICS.under(name)) + len(payload)
            self.bytes[kind + " (payload)"] += len(payload)

    def publish_state(self, state: Mapping[str, Any]) -> None:
        self._count("state", encode(state_payload(state, table="t1", ts=TS)))

    def publish_event(self, seq: int, event: Mapping[str, Any], *, logged: bool = True) -> None:
        self._count("event", encode(event_payload(seq, event, ts=TS)))

    def publish_rejected(self, event: Mapping[str, Any] | None, reason: str, source: str, *,
                         user: str | None = None, raw: bytes | None = None) -> None:
        self._count("rejected", encode({"event": event, "reason": reason}))

    def publish_devices(self, devices: Mapping[str, str], last_seen: Mapping[str, str] | None = None) -> None:
        self._count("devices", encode(devices_payload(devices, ts=TS)))

    def publish_input(self, source: str, keys: Sequence[str], next_: str = "", *, expires_at: float | None = None,
                      expired: bool = False) -> None:
        self._count("input", encode(input_payload(source, keys, next_, expires_at=expires_at, expired=expired, ts=TS)))

    def publish_record(self, record: Mapping[str, Any]) -> None:
        self._count("record", encode(record_payload(record, table="t1", ts=TS)))

    def publish_retained(self, name: str, payload: bytes) -> None:
        self._count(name, payload)

    def publish_once(self, name: str, payload: Mapping[str, Any]) -> None:
        self._count(name, encode(payload))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--late", type=int, default=200, help="the last N events of the match are measured")
    args = parser.parse_args(argv)
    log = final_log()
    with tempfile.TemporaryDirectory() as tmp:
        match = {k: v for k, v in log[0].items() if k != "type"}
        config = parse_config({"table": {"venue": "club", "name": "t1"}, "match": match,
                               "journal": {"dir": str(Path(tmp) / "journal")}}, Path(tmp) / "cueboard.toml")
        feed = CountingFeed()
        table = Table(config, feed=feed)
        thread = threading.Thread(target=table.run, name="engine", daemon=True)
        thread.start()
        try:
            lines = log[1:]
            start = len(lines) - args.late
            for i, line in enumerate(lines):
                if i == start:
                    with feed.lock:
                        before = Counter(feed.bytes)
                answer = table.ask(dict(line), "control", 60)
                if not answer.get("ok"):
                    raise SystemExit(f"line {i + 1} refused: {answer}")
            with feed.lock:
                late = feed.bytes - before
        finally:
            table.stop()
            thread.join(60)
    per_event = {k: round(v / args.late, 1) for k, v in sorted(late.items())}
    total = sum(v for k, v in late.items() if not k.endswith("(payload)")) / args.late
    total_payload = sum(v for k, v in late.items() if k.endswith("(payload)")) / args.late
    state = per_event.get("state", 0.0)
    print(json.dumps({
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]), "events": len(log) - 1, "late": args.late,
        "bytes_per_event": per_event, "total_per_event": round(total, 1),
        "total_payload_per_event": round(total_payload, 1), "state_per_event": state,
        "ratio_to_state": round(total / state, 2) if state else None,
        "ratio_to_state_payload": round(total_payload / per_event.get("state (payload)", 1), 2),
    }, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
