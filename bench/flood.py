"""One user's login floods a table: do the referee, the desk and the venue's screens still get
through? (issue 26).

    .venv/bin/python bench/flood.py                  # a 10 s flood after 30 s without, by a scorer, then a desk
    .venv/bin/python bench/flood.py --seconds 60     # the measured run: at least 60 s of flood
    .venv/bin/python bench/flood.py --by desk        # a desk login's flood only (--by scorer: a scorer's)

One real table in this process, as in bench/latency.py (``open_table``: a referee box on
gpiozero's MockFactory, a 64x16 board on luma's dummy device, the feed and its paced links to
a loopback mosquitto with ``command = true``). Another process, the flood, publishes
``{"type": "foul", "points": 3, "id": ...}`` at QoS 0 as fast as this machine lets one paho
client, on ``<prefix>/score/flood`` (a scorer's topic, ``--by scorer``) or on
``<prefix>/command/flood`` (a second desk login's, ``--by desk``): never legal (a foul is 4 to 7),
so no flood line may change the score; each has an id, so each line the table reads is owed its
own answer. The table's link for that topic (cueboard.table.mqtt.paced_link) reads a user's lines no faster
than it answers them: the lines the broker drops for it never reach the table, and those past the
flooder's backlog are not read (counted, said in a summary); every line read is counted here (the
link's hand-over, wrapped) and must have exactly one answer by its id on ``rejected`` (a
subscriber in this process counts them), or the run fails. Meanwhile, in turns, each step
waiting for its answer:

- the referee presses RED, then UNDO: press to the frame on the board, press to the state at a
  venue subscriber;
- the desk (its own login, ``command/desk``) sends ``no_pot`` then ``undo`` with ids: command to
  its answer on ``event``, command to the state at the venue subscriber.

The same steps run first without the flood (the floor, same run, same machine), then during it.
A step without its answer within 5 s is a failure: counted, and in the percentiles at 5 s.
The process's memory (RSS: the table and this bench's clients; the flood, the desk and the broker
are other processes) is sampled before, every second during, and after. The test helper that runs
mosquitto keeps the broker's log in this process, and the broker logs every message it takes and
sends (``log_type all``): during a flood some 6,000 lines a second, which was the RSS growth of
earlier runs (44 to 242 MiB); here only its last 1,000 lines are kept. Afterwards the
journal is read: no event from the flooding login may be in it. Prints one JSON object; "meets"
is false when any step went unanswered, a flood line was applied, a flood line read got no answer
or two, an answer was dropped, a p99 during the flood is over 3 times the same p99 without it, or
the RSS grew by more than 64 MiB.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from gpiozero.pins.mock import MockFactory
from latency import KEYMAP, PINS, RED, UNDO, WAIT, Listener, TimedDevice, summary_ms
from paho.mqtt.enums import CallbackAPIVersion

from cueboard.contract.lines import peek_id
from cueboard.contract.topics import TableTopics, command, score
from cueboard.hw.display_config import parse_display
from cueboard.hw.display_devices import open_device
from cueboard.table.config import parse_config
from cueboard.table.devices import open_board
from cueboard.table.journal import read_lines
from cueboard.table.service import open_table

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.helpers
from tests.helpers.mosquitto import Mosquitto  # noqa: E402

TOPICS = TableTopics.of("bench", "t1")
BROKER = "set_tcp_nodelay true"
"""As the venue's broker runs (cueboard venue writes it): small messages are not held back."""
FAIL_NS = int(WAIT * 1e9)

FLOOD = """
import sys, time, json
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="cueboard-flood")
client.max_queued_messages_set(10000)
client.connect(sys.argv[1], int(sys.argv[2]))
client.loop_start()
topic, until, sent = sys.argv[3], time.monotonic() + float(sys.argv[4]), 0
while time.monotonic() < until:
    info = client.publish(topic, b'{"type": "foul", "points": 3, "id": "f%d"}' % sent, qos=0)
    if info.rc == 0:
        sent += 1
client.disconnect()
client.loop_stop()
print(json.dumps({"sent": sent}))
"""
"""The flood: as fast as one paho client in a process of its own sends (its queue bounded, so
it sends what the broker takes, never more than it can hold)."""


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


DESK = """
import json, socket, sys, threading, time
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
host, port, (event, rejected, command) = sys.argv[1], int(sys.argv[2]), sys.argv[3:6]
sent, lock = {}, threading.Lock()
def on_message(client, userdata, message):
    ident = json.loads(message.payload).get("id")
    with lock:
        t0 = sent.pop(ident, None) if isinstance(ident, str) else None
    if t0 is not None:
        print(ident, t0, time.perf_counter_ns(), message.topic.rsplit("/", 1)[1], flush=True)
subscribed = threading.Event()
client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="cueboard-desk-bench")
client.on_connect = lambda c, u, f, r, p: c.subscribe([(event, 1), (rejected, 1)])
client.on_subscribe = lambda *a: subscribed.set()
client.on_message = on_message
# As a browser's WebSocket does: small messages at once (no Nagle delay).
client.on_socket_open = lambda c, u, sock: sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
client.connect(host, port)
client.loop_start()
subscribed.wait(5)
print("ready", flush=True)
for line in sys.stdin:
    kind, ident = line.split()
    with lock:
        sent[ident] = time.perf_counter_ns()
    client.publish(command, json.dumps({"type": kind, "id": ident}), qos=1)
"""
"""The desk: another process (on its own machine in a venue), its own login, as a page would
be. Told what to send on its standard input; prints each answer's id, when it was sent and
answered (perf_counter_ns: the same monotonic clock in every process) and on which topic."""


class Desk:
    """The desk's process, and the answers it reports."""

    def __init__(self, host: str, port: int) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", DESK, host, str(port), TOPICS.event, TOPICS.rejected,
                                         TOPICS.command("desk")], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, start_new_session=True)
        assert self.process.stdout is not None
        if self.process.stdout.readline().strip() != "ready":
            raise RuntimeError("desk: not subscribed")
        self.answers: dict[str, tuple[int, int, str]] = {}
        self._cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            ident, t0, t1, topic = line.split()
            with self._cond:
                self.answers[ident] = (int(t0), int(t1), topic)
                self._cond.notify_all()

    def send(self, kind: str, ident: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(f"{kind} {ident}\n")
        self.process.stdin.flush()

    def answer(self, ident: str) -> tuple[int, int, str] | None:
        with self._cond:
            self._cond.wait_for(lambda: ident in self.answers, WAIT)
            return self.answers.get(ident)

    def close(self) -> None:
        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(WAIT)


class Steps:
    """The referee's presses and the desk's commands, in turns, each waiting for its answer."""

    def __init__(self, table: Any, pins: MockFactory, device: TimedDevice, venue: Listener, desk: Desk) -> None:
        self.table, self.pins, self.device, self.venue, self.desk = table, pins, device, venue, desk
        self.n = 0
        self.fsync_end: list[int] = []
        append = table.journal.append

        def timed_append(event: Any) -> None:
            append(event)
            self.fsync_end.append(time.perf_counter_ns())

        table.journal.append = timed_append

    def press(self, button: int) -> tuple[int, int] | None:
        """(press to pixels, press to venue) in ns, or None: no frame or no state in time."""
        pin = self.pins.pin(PINS[button])
        before = len(self.device.times)
        self.fsync_end.clear()
        self.venue.drain()
        t0 = time.perf_counter_ns()
        pin.drive_low()
        t_pix = None
        deadline = time.monotonic() + WAIT
        while t_pix is None and time.monotonic() < deadline:
            self.device.shown.wait(0.05)
            self.device.shown.clear()
            if self.fsync_end:
                t_pix = next((t for t in self.device.times[before:] if t >= self.fsync_end[0]), None)
        try:
            t_state = self.venue.next(TOPICS.state)[0] if t_pix is not None else None
        except queue.Empty:
            t_state = None
        pin.drive_high()
        time.sleep(0.025)  # the release's debounce timer fires before the next press
        if t_pix is None or t_state is None:
            return None
        return t_pix - t0, t_state - t0

    def command(self, kind: str) -> tuple[int, int] | None:
        """(command to its answer, command to the state at the venue) in ns, or None."""
        self.n += 1
        ident = f"d{self.n}"
        self.venue.drain()
        self.desk.send(kind, ident)
        answer = self.desk.answer(ident)
        if answer is None or answer[2] != "event":
            return None
        t0 = answer[0]
        try:
            t_state = self.venue.next(TOPICS.state)[0]
        except queue.Empty:
            return None
        return answer[1] - t0, t_state - t0

    def run(self, seconds: float, samples: list[int] | None = None) -> dict[str, Any]:
        got: dict[str, list[int]] = {"press_to_pixels": [], "press_to_venue": [], "desk_to_answer": [],
                                     "desk_to_venue": []}
        failures: list[str] = []
        until = time.monotonic() + seconds
        next_sample = time.monotonic()
        while time.monotonic() < until:
            cycle_start = time.monotonic()
            for what, step in (("RED", lambda: self.press(RED)), ("UNDO", lambda: self.press(UNDO)),
                               ("desk no_pot", lambda: self.command("no_pot")),
                               ("desk undo", lambda: self.command("undo"))):
                result = step()
                names = ("press_to_pixels", "press_to_venue") if what in ("RED", "UNDO") else (
                    "desk_to_answer", "desk_to_venue")
                if result is None:
                    failures.append(what)
                    result = (FAIL_NS, FAIL_NS)  # counted at the wait it cost
                for name, value in zip(names, result, strict=True):
                    got[name].append(value)
            # The desk keeps to its own rate ([commands] rate 5 a second): two commands a cycle,
            # a cycle at least half a second.
            time.sleep(max(0.0, cycle_start + 0.5 - time.monotonic()))
            if samples is not None and time.monotonic() >= next_sample:
                samples.append(rss_kib())
                next_sample += 1.0
        return {**{name: summary_ms(values) for name, values in got.items()}, "steps": sum(map(len, got.values())) // 2,
                "failures": len(failures), "failed": failures[:20]}


class FloodAnswers:
    """A venue subscriber (in this process) counting the table's answers to the flooding user:
    by id, and the summaries of its lines not read."""

    def __init__(self, host: str, port: int) -> None:
        self.by_id: dict[str, int] = {}
        self.not_read = 0  # the lines the summaries say were not read
        self.summaries = 0
        self._cond = threading.Condition()
        subscribed = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="cueboard-flood-answers")
        self.client.on_connect = lambda c, u, f, r, p: c.subscribe(TOPICS.rejected, 1)
        self.client.on_subscribe = lambda *a: subscribed.set()
        self.client.on_message = self._on_message
        self.client.connect(host, port)
        self.client.loop_start()
        if not subscribed.wait(WAIT):
            raise RuntimeError("flood answers: not subscribed")

    def _on_message(self, client: Any, userdata: Any, message: mqtt.MQTTMessage) -> None:
        body = json.loads(message.payload)
        if body.get("user") != "flood":
            return
        with self._cond:
            ident = body.get("id")
            if isinstance(ident, str):
                self.by_id[ident] = self.by_id.get(ident, 0) + 1
            elif " not read: " in body.get("reason", ""):
                self.summaries += 1
                self.not_read += int(body["reason"].split()[0])
            self._cond.notify_all()

    def wait_for(self, ids: set[str], unread: int, timeout: float) -> bool:
        """Until every id in ``ids`` is answered and the summaries say ``unread`` lines."""
        with self._cond:
            return self._cond.wait_for(lambda: ids <= self.by_id.keys() and self.not_read >= unread, timeout)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


DRAIN = 120.0
"""Seconds the bench waits at most, once the flood stopped, for the answers to every flood line
read (a user's answers go out at 50 a second: the backlog and the lane of 1,000 take 30 s)."""


def flood_run(seconds: float, quiet_seconds: float, by: str = "scorer") -> dict[str, Any]:
    """The flood by one login: ``by`` ``scorer`` (``score/flood``) or ``desk`` (``command/flood``)."""
    topic, link_name = {"scorer": (TOPICS.score("flood"), "mqtt_scorers"),
                        "desk": (TOPICS.command("flood"), "mqtt_commands")}[by]
    with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp_name, \
            tempfile.TemporaryDirectory() as bdir, Mosquitto(Path(bdir), extra=BROKER) as broker:
        tmp = Path(tmp_name)
        raw = {"table": {"venue": "bench", "name": "t1"},
               "match": {"game": "snooker", "sides": ["Ann", "Bob"], "best_of": 3},
               "journal": {"dir": str(tmp / "journal")},
               "mqtt": {"host": broker.host, "port": broker.port, "command": True, "insecure_commands": True},
               "referee_box": [{"pins": PINS, "keymap": str(KEYMAP)}]}
        config = parse_config(raw, tmp / "cueboard.toml")
        devices: list[TimedDevice] = []

        def factory(c: Any) -> TimedDevice:
            devices.append(TimedDevice(open_device(c)))
            return devices[-1]

        board = open_board(parse_display({"device": "dummy", "width": 64, "height": 16, "mode": "1"}),
                           device_factory=factory)
        broker.log = deque(maxlen=1000)  # type: ignore[assignment]  # the broker's log, only its end kept
        pins = MockFactory()
        venue = Listener(broker.host, broker.port, [TOPICS.state])
        desk = Desk(broker.host, broker.port)
        flood_answers = FloodAnswers(broker.host, broker.port)
        try:
            with open_table(config, pin_factory=pins, boards=[board], control=False) as table:
                engine = threading.Thread(target=table.run, name="engine", daemon=True)
                engine.start()
                venue.next(TOPICS.state)  # the retained state of the start
                steps = Steps(table, pins, devices[-1], venue, desk)
                link = table.links[link_name]
                read: dict[str, int] = {}  # the flood's ids the table read, and how often
                on_line = link._on_line

                def reading(payload: bytes, retained: bool, user: str | None) -> None:
                    if user == "flood":
                        ident = peek_id(payload) or "?"
                        read[ident] = read.get(ident, 0) + 1
                    on_line(payload, retained, user)

                link._on_line = reading
                rss_before = rss_kib()
                quiet = steps.run(quiet_seconds)
                rss_quiet = rss_kib()
                flooder = subprocess.Popen([sys.executable, "-c", FLOOD, broker.host, str(broker.port),
                                            topic, str(seconds)], stdout=subprocess.PIPE,
                                           text=True, start_new_session=True)
                refused_before = table.refused
                samples: list[int] = []
                flooded = steps.run(seconds, samples)
                try:
                    out, _ = flooder.communicate(timeout=seconds + 60)
                    sent = json.loads(out)["sent"]
                except (subprocess.TimeoutExpired, ValueError):
                    os.killpg(flooder.pid, signal.SIGTERM)
                    sent = -1
                after = steps.run(min(quiet_seconds, 5.0))  # once the flood stopped: back to the floor?
                rss_after = rss_kib()
                # Every flood line read is owed its answer: wait for them (and the summaries of those
                # not read) to reach the venue, at the flooder's 50 answers a second.
                drain_start = time.monotonic()
                drained = link.drained(DRAIN) and table.feed.flush(DRAIN)
                answered = flood_answers.wait_for(set(read), link.unread,
                                                  max(1.0, DRAIN - (time.monotonic() - drain_start)))
                drain_seconds = round(time.monotonic() - drain_start, 1)
                refused = table.refused - refused_before
                dropped = getattr(table.feed, "dropped", 0)
                unread = link.unread
                table.stop()
                engine.join(WAIT)
                journal = table.journal.path
                lines = [json.loads(line) for line in read_lines(journal)[1:]] if journal is not None else []
        finally:
            venue.close()
            desk.close()
            flood_answers.close()
            pins.close()
    flood_events = [line for line in lines if line.get("user") == "flood"]
    unanswered = sorted(set(read) - flood_answers.by_id.keys())
    twice = sorted({ident for counts in (read, flood_answers.by_id) for ident, count in counts.items() if count > 1})
    ratio = {name: round(flooded[name]["p99_ms"] / max(quiet[name]["p99_ms"], 1e-3), 2)
             for name in ("press_to_pixels", "press_to_venue", "desk_to_answer", "desk_to_venue")}
    rss_during = max(samples, default=0)
    return {
        "command": f"{sys.executable} bench/flood.py --by {by} --seconds {seconds:g} --quiet-seconds {quiet_seconds:g}",
        "by": by, "flood_topic": topic,
        "flood_seconds": seconds, "flood_lines_sent": sent,
        "flood_lines_a_second": round(sent / seconds) if sent > 0 else None,
        "flood_lines_read_by_the_table": len(read),
        "flood_lines_refused_by_the_table": refused,
        "flood_lines_read_without_their_answer": len(unanswered), "unanswered_ids": unanswered[:20],
        "flood_lines_read_or_answered_twice": len(twice),
        "flood_lines_not_read_by_the_table": unread,
        "flood_lines_not_read_said_in_summaries": flood_answers.not_read,
        "flood_lines_the_broker_never_delivered": sent - len(read) - unread if sent > 0 else None,
        "answers_all_out_seconds_after_the_flood": drain_seconds if drained and answered else None,
        "answers_dropped_from_the_floods_own_lane": dropped,
        "flood_events_in_the_journal": len(flood_events),
        "without_flood": quiet, "during_flood": flooded, "after_flood": after,
        "p99_during_to_without_ratio": ratio,
        "rss_kib": {"before": rss_before, "after_quiet_steps": rss_quiet, "during_max": rss_during,
                    "during_samples": samples[:120], "after": rss_after},
        "failures": quiet["failures"] + flooded["failures"] + after["failures"],
        "failures_during_flood": flooded["failures"],
        "meets": quiet["failures"] == 0 and flooded["failures"] == 0 and after["failures"] == 0 and not flood_events
        and dropped == 0 and not unanswered and not twice and drained and answered
        and all(r <= 3.0 for r in ratio.values())
        and max(rss_during, rss_after) < rss_quiet + 65536,
        "targets": {"failures (without, during and after the flood)": 0, "flood_events_in_the_journal": 0,
                    "answers_dropped_from_the_floods_own_lane": 0, "flood_lines_read_without_their_answer": 0,
                    "flood_lines_read_or_answered_twice": 0,
                    "p99_during_to_without_ratio": "3 at most, each",
                    "rss_kib during and after": "under the RSS before the flood plus 64 MiB"},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds of flood (60 or more for the "
                        "measured figure; default 10, CI's short run)")
    parser.add_argument("--quiet-seconds", type=float, default=30.0, help="seconds of the same steps without the "
                        "flood first (default 30: about as many steps as 60 s of flood gives, so the two p99 are "
                        "alike)")
    parser.add_argument("--by", choices=("scorer", "desk", "both"), default="both",
                        help=f"who floods: a scorer's login ({score('flood')}), a desk login ({command('flood')}), or "
                        "each in turn (default)")
    args = parser.parse_args()
    runs = {by: flood_run(args.seconds, args.quiet_seconds, by) for by in
            (("scorer", "desk") if args.by == "both" else (args.by,))}
    print(json.dumps({**runs, "meets": all(run["meets"] for run in runs.values())}, indent=2))


if __name__ == "__main__":
    main()
