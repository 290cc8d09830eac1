"""Helpers for the feed tests: real states, a health log to wait on, and a table's daemon in
a child process (to kill it).

Run as a script (``python feed_helpers.py CONFIG``) it *is* that child: CONFIG is a JSON
object of :class:`~cueboard.table.mqtt.feed.MqttConfig` fields plus ``table``. It starts a
:class:`~cueboard.table.mqtt.feed.Feed`, publishes a state, waits until the broker has it, prints
``ready`` and waits on standard input: for SIGKILL, or for standard input to close, when it
stops cleanly and prints ``stopped``.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from cueboard.games.replay import replay
from cueboard.table.mqtt.feed import Feed, MqttConfig

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 30.0


def example_states(name: str) -> list[dict[str, Any]]:
    """The state after each line of ``examples/<name>.jsonl`` (the match line included)."""
    with (ROOT / "examples" / f"{name}.jsonl").open("rb") as f:
        return [match.state().to_json() for match, _ in replay(f)]


class HealthLog:
    """``on_health`` for a Feed: records each change; tests wait on it."""

    def __init__(self) -> None:
        self.changes: queue.Queue[str] = queue.Queue()
        self.history: list[str] = []

    def __call__(self, health: str) -> None:
        self.history.append(health)
        self.changes.put(health)

    def wait_for(self, prefix: str, timeout: float = TIMEOUT) -> str:
        """The next health that starts with ``prefix``."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                health = self.changes.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(f"health never became {prefix!r}: {self.history}") from None
            if health.startswith(prefix):
                return health


class FeedProcess:
    """A table's feed in a child process (this file run as a script)."""

    def __init__(self, table: str, **config: Any) -> None:
        self.table = table
        self.process = subprocess.Popen([sys.executable, __file__, json.dumps({"table": table, **config})],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.strip())
        self.lines.put("(exited)")

    def wait_line(self, expected: str, timeout: float = TIMEOUT) -> None:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"{self.table}: no {expected!r} within {timeout} s") from None
        assert line == expected, f"{self.table}: {line!r} instead of {expected!r}"

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(TIMEOUT)

    def close(self) -> None:
        if self.process.poll() is None:
            self.kill()



def main() -> int:
    options = json.loads(sys.argv[1])
    table = options.pop("table")
    feed = Feed(MqttConfig(**options), table=table)
    feed.start()
    feed.publish_state({"schema": 1, "game": "snooker", "seq": 0})
    if not feed.flush(TIMEOUT):
        print(f"not ready: {feed.health}", flush=True)
        return 1
    print("ready", flush=True)
    sys.stdin.read()
    feed.stop()
    print("stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
