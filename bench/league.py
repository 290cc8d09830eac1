"""A league on loopback (issue 20): venues' brokers bridged to one league broker, measured.

The topology of docs/scale.md, all on 127.0.0.1 (``tests/helpers/mosquitto.py`` starts each broker):

- one league broker with the general settings of ``examples/mosquitto/league.conf`` (its
  in-flight window and queues; its listeners, TLS and ACL left out: loopback, anonymous);
- ``venues`` venue brokers (mosquitto), each bridged to the league broker with the bridge
  of ``examples/mosquitto/venue.conf`` (``topic cueboard/# out 1``, ``cleansession false``;
  its address and client id for this loopback league, its TLS and password left out);
- ``tables`` tables a venue, each a real :class:`cueboard.table.mqtt.feed.Feed` connected to its
  venue's broker, a venue's tables in one process (``tables`` worker below), as
  ``bench/tables.py`` runs 64 tables in one process. Each table plays a realistic snooker
  match (``cueboard.games.simulate.realistic_log``, its own seed) through the engine and publishes
  what the daemon publishes for each event: the state (``publish_state``, retained), then the
  event (``publish_event``); strokes come at ``rate`` a table a second, the tables staggered
  evenly over the period;
- subscribers (``subscribers`` worker processes, paho, QoS 1, as the screen page subscribes:
  ``.../state``, ``.../status``, ``.../event``): ``everything`` on the league broker
  (``cueboard/+/+/...``: league screens, overlays, results), ``per_venue`` on the league
  broker to one venue each (``cueboard/<venue>/+/...``, the venues in turn), and one venue
  screen on each venue broker, for comparison with the bridged path.

Measured, per phase (the main one at ``rate``, then a short ramp of faster rates to find
where this machine saturates):

- publish to receipt of each state (``time.monotonic_ns()``, one clock for all processes:
  just before ``Feed.publish_state`` in the table's process, when the subscriber's process
  reads it from its socket), p50/p90/p99 per kind of subscriber; and for the league's
  subscribers, from the venue screen's receipt of the same state to theirs: the bridge and
  the league broker alone, without the tables' own processes (1,024 tables' feeds, some
  2,000 threads, on two cores: in a league each table has a Pi of its own);
- lost: a state published and never received by a subscriber that should have it. The
  state topic is a latest value: a state the feed never sent because a newer one came
  before its predecessor was acknowledged counts as lost here too (a screen would show the
  newer one), so at the ramp's rates "lost" is mostly that;
- the brokers' CPU (utime+stime from ``/proc``, % of one core) and memory (VmRSS, VmHWM),
  the bench's own processes' CPU (the tables' and the subscribers' Python);
- what each subscriber receives: MQTT PUBLISH packets and their bytes a second (fixed
  header, topic, packet id and payload; what crosses its TCP connection from the broker,
  TCP/IP headers and the screen's PUBACKs left out);
- the state payload's size, and the league broker's CPU per message it delivered.

Bounded: the phases' seconds plus start-up (some 10 s) and a 3 s drain; everything is
stopped at the end. Run: ``.venv/bin/python bench/league.py [--quick]`` (one JSON object);
``bench/run.py`` runs it.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import selectors
import socket
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

from stats import percentile  # noqa: E402
from workers import Worker  # noqa: E402

from cueboard.contract.topics import ANY, EVENT, STATE, STATUS, TableTopics  # noqa: E402

EXAMPLE = ROOT / "examples" / "mosquitto"
HOST = "127.0.0.1"
VENUES, TABLES, EVERYTHING, PER_VENUE = 16, 64, 20, 50
RATE, SECONDS = 0.2, 60.0
RAMP = ((0.5, 10.0), (1.0, 10.0), (2.0, 10.0))
SETUP = {"type": "match", "game": "snooker", "sides": ["Ann", "Bob"], "best_of": 35}
WAIT = 60.0  # safety net for each step of start-up and shut-down (they take seconds)
LIMIT = 120.0
"""The whole bench, start-up to shut-down, in seconds at most: phases that cannot fit are
refused; past it a watchdog kills every process the bench started."""
OVERHEAD = 25.0  # start-up (some 10 s), the 1.5 s lead-in, the drain and shut-down
SKIP = 1.0
"""Seconds behind its time after which a table process skips a stroke (and counts it): a
process that cannot keep up ends on time instead of running on past its phase."""


def venue_name(v: int) -> str:
    return f"v{v + 1:02d}"


def table_name(k: int) -> str:
    return f"t{k + 1:02d}"


def venue_bridge(venue: str, league_port: int) -> str:
    """The bridge of examples/mosquitto/venue.conf for this loopback league: its own lines
    (``topic``, ``cleansession``, ...), turned on (the file ships them commented out, as a
    venue without a league runs), with this league's address and the venue's client id;
    TLS and the password left out (loopback)."""
    text = (EXAMPLE / "venue.conf").read_text()
    lines = []
    for line in text[text.index("#connection league"):].splitlines():
        if not line.startswith("#") or line.startswith("# "):
            break  # the end of the bridge's block
        line = line[1:]
        key = line.split(" ", 1)[0]
        if key in ("bridge_cafile", "remote_username", "remote_password"):
            continue
        # The address is this league's; the client id and the notification topic name the venue.
        named = line.replace("venue-club", f"venue-{venue}")
        lines.append(f"address {HOST}:{league_port}" if key == "address" else named)
    return "\n".join(lines)


def league_settings() -> str:
    """The general settings of examples/mosquitto/league.conf (queues, in-flight window,
    session expiry): the bench's league broker runs them; its listeners, TLS and ACL are left
    out (loopback, anonymous)."""
    keys = ("max_inflight_messages", "max_queued_messages", "persistent_client_expiration")
    return "\n".join(line for line in (EXAMPLE / "league.conf").read_text().splitlines()
                     if line.split(" ", 1)[0] in keys)


def packet_bytes(topic: str, payload: bytes) -> int:
    """An MQTT 3.1.1 PUBLISH of QoS 1 on the wire: fixed header, topic, packet id, payload."""
    remaining = 2 + len(topic.encode()) + 2 + len(payload)
    length = 1
    while remaining >= 128 ** length:
        length += 1
    return 1 + length + remaining


def _seq(payload: bytes) -> int:
    at = payload.find(b'"seq":') + 6
    end = at
    while payload[end:end + 1].isdigit():
        end += 1
    return int(payload[at:end])


def _cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def _memory_mb(pid: int) -> tuple[float, float]:
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
    return (round(int(status["VmRSS"].split()[0]) / 1024, 1), round(int(status["VmHWM"].split()[0]) / 1024, 1))


# -- the table processes ---------------------------------------------------------------------


SCREEN_KEYS = ("schema", "game", "seq", "frame", "best_of", "striker", "break", "remaining", "ball_on",
               "snookers_required", "respotted_black", "frame_over", "match_over", "shot_clock")


def screen_subset(state: dict[str, Any]) -> dict[str, Any]:
    """For ``--compact`` only (an experiment, not the contract): what a snooker screen shows,
    to see what a smaller payload saves on the wire and at the broker."""
    return {**{k: state[k] for k in SCREEN_KEYS},
            "sides": [{k: side[k] for k in ("name", "score", "frames")} for side in state["sides"]]}


def tables_worker(venue: str, port: int, count: int, first: int, total: int, out: Path,
                  compact: bool = False) -> None:
    """``count`` tables of ``venue`` (global indices ``first``...): their feeds, their scripts;
    "ready" once all are connected with their first state retained; then the phases read from
    standard input; "done" once the broker has everything; "stop" ends it."""
    from cueboard.engine import Match, to_json
    from cueboard.games.simulate import realistic_log
    from cueboard.table.mqtt.feed import Feed, MqttConfig

    names = [table_name(k) for k in range(count)]
    feeds = [Feed(MqttConfig(prefix=TableTopics.of(venue, name).prefix, host=HOST, port=port,
                             client_id=f"cueboard-{venue}-{name}"), table=name) for name in names]
    for feed in feeds:
        feed.start()
    matches = [Match.from_json(SETUP) for _ in names]
    deadline = time.monotonic() + WAIT
    while not all(feed.connected for feed in feeds) and time.monotonic() < deadline:
        time.sleep(0.05)
    for feed, match in zip(feeds, matches, strict=True):
        feed.publish_state(match.state().to_json())
    ok = all(feed.flush(max(0.1, deadline - time.monotonic())) for feed in feeds)
    gc.freeze()  # what start-up made is never collected: later collections stay short
    print("ready" if ok else "not ready: not every feed connected", flush=True)
    plan = json.loads(sys.stdin.readline())
    start, phases = int(plan["start_ns"]), plan["phases"]
    needed = int(sum(rate * seconds for rate, seconds in phases)) + 2
    scripts = [realistic_log(SETUP, random.Random(first + k), needed)[1:] for k in range(count)]
    # Every stroke of every table: (when, table, phase); table i of the league strokes at
    # i/total of each period, so the league's strokes are spread evenly.
    strokes: list[tuple[int, int, int]] = []
    at = start
    for phase, (rate, seconds) in enumerate(phases):
        period = int(1e9 / rate)
        n = round(seconds * rate)
        for slot in range(n):
            for k in range(count):
                strokes.append((at + slot * period + (first + k) * period // total, k, phase))
        at += int(seconds * 1e9)
    strokes.sort()
    published: list[list[Any]] = []  # [table, seq, t_ns, phase]
    late: list[int] = []
    skipped = [0] * len(phases)  # strokes more than SKIP late: this process could not keep up
    for when, k, phase in strokes:
        delay = when - time.monotonic_ns()
        if delay > 0:
            time.sleep(delay / 1e9)
        elif -delay > SKIP * 1e9:
            skipped[phase] += 1
            continue
        late.append(max(0, -delay))
        match = matches[k]
        event = match.parse({**scripts[k][match.seq], "t": round(time.time(), 3)})
        match.apply(event)
        state = match.state().to_json()
        t0 = time.monotonic_ns()
        feeds[k].publish_state(screen_subset(state) if compact else state)
        feeds[k].publish_event(match.seq, to_json(event))
        published.append([k, match.seq, t0, phase])
    flushed = all(feed.flush(30) for feed in feeds)
    print("done", flush=True)
    sys.stdin.readline()
    for feed in feeds:
        feed.stop(timeout=2)
    out.write_text(json.dumps({
        "venue": venue, "tables": names, "published": published, "flushed": flushed,
        "dropped": sum(feed.dropped for feed in feeds), "skipped": skipped,
        "late_p99_ms": round(percentile(late, 99) / 1e6, 3) if late else None,
        "late_max_ms": round(max(late) / 1e6, 3) if late else None,
        "state_bytes": [len(json.dumps({**(screen_subset(m.state().to_json()) if compact else m.state().to_json()),
                                         "table": "t01",
                                        "ts": "2026-01-01T00:00:00.000Z"},
                                       separators=(",", ":"), ensure_ascii=False).encode()) for m in matches],
    }))


# -- the subscriber processes ----------------------------------------------------------------


class Screen:
    """A minimal MQTT 3.1.1 subscriber (CONNECT with a clean session, SUBSCRIBE at QoS 1 to
    the screen page's topics under ``prefix``, PUBACK for each PUBLISH) on a blocking socket
    that :func:`subscribers_worker` reads when it is readable. The bench's instrument: paho
    took a whole core of this machine for the same 70 league subscribers at 0.2 strokes a
    second (the first version of this bench), the core the brokers are measured on."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.states: list[list[Any]] = []  # [venue/table, seq, t_ns] of each live state
        self.messages = self.bytes = 0
        self.buffer = b""
        self.sock = socket.create_connection((HOST, spec["port"]), timeout=WAIT)
        client_id = f"bench-{spec['name']}".encode()
        # Keepalive 0: the broker does not expect pings (the bench lasts two minutes at most).
        self._send(0x10, b"\x00\x04MQTT\x04\x02\x00\x00" + len(client_id).to_bytes(2, "big") + client_id)
        if self._read_packet()[0] != 0x20:
            raise RuntimeError(f"{spec['name']}: no CONNACK")
        filters = b"".join(len(t).to_bytes(2, "big") + t + b"\x01" for t in
                           (TableTopics(spec["prefix"]).under(name).encode() for name in (STATE, STATUS, EVENT)))
        self._send(0x82, b"\x00\x01" + filters)
        if self._read_packet()[0] != 0x90:
            raise RuntimeError(f"{spec['name']}: no SUBACK")
        self.sock.settimeout(None)

    def _send(self, first: int, body: bytes) -> None:
        self.sock.sendall(bytes([first]) + _varint(len(body)) + body)

    def _read_packet(self) -> tuple[int, bytes]:
        while True:
            packet = _packet_at(self.buffer, 0)
            if packet is not None:
                first, start, end = packet
                body, self.buffer = self.buffer[start:end], self.buffer[end:]
                return first, body
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError(f"{self.spec['name']}: closed by the broker")
            self.buffer += data

    def readable(self) -> None:
        data = self.sock.recv(1 << 18)
        t = time.monotonic_ns()
        if not data:
            raise ConnectionError(f"{self.spec['name']}: closed by the broker")
        buffer = self.buffer + data
        acks = []
        at = 0
        while (packet := _packet_at(buffer, at)) is not None:
            begin = at
            first, start, at = packet
            if first >> 4 != 3:  # not a PUBLISH
                continue
            n = int.from_bytes(buffer[start:start + 2], "big")
            topic = buffer[start + 2:start + 2 + n].decode()
            qos = (first >> 1) & 3
            if qos:
                acks.append(b"\x40\x02" + buffer[start + 2 + n:start + 4 + n])
            self.messages += 1
            self.bytes += at - begin  # the whole packet
            if topic.endswith("/state") and not first & 1:  # a live state, not the retained one
                parts = topic.split("/")
                payload = buffer[start + 2 + n + (2 if qos else 0):at]
                self.states.append([f"{parts[1]}/{parts[2]}", _seq(payload), t])
        self.buffer = buffer[at:]
        if acks:
            self.sock.sendall(b"".join(acks))


def _packet_at(buffer: bytes, at: int) -> tuple[int, int, int] | None:
    """The whole MQTT packet at ``at`` in ``buffer``: (first byte, where its body starts,
    where it ends), or None if it is not all there yet."""
    length, shift, i = 0, 0, at + 1
    while True:
        if i >= len(buffer):
            return None
        byte = buffer[i]
        length |= (byte & 0x7F) << shift
        i += 1
        if not byte & 0x80:
            break
        shift += 7
    if len(buffer) < i + length:
        return None
    return buffer[at], i, i + length


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        n, digit = n >> 7, n & 0x7F
        out.append(digit | (0x80 if n else 0))
        if not n:
            return bytes(out)


def subscribers_worker(specs: list[dict[str, Any]], out: Path) -> None:
    """A :class:`Screen` a spec (``{"name", "kind", "port", "prefix", "venue"}``), all read in
    one selector loop; "ready" once all are subscribed; then "mark" and "end" bound the window
    for what they receive a second, and "stop" writes what each received."""
    screens = [Screen(spec) for spec in specs]
    # No garbage collector pauses in the instrument: its records (a list a state received,
    # some 250,000 in a run) would make each full collection stop every screen of the process.
    gc.disable()
    selector = selectors.DefaultSelector()
    for screen in screens:
        selector.register(screen.sock, selectors.EVENT_READ, screen)
    selector.register(sys.stdin, selectors.EVENT_READ, None)
    print("ready", flush=True)
    marks: list[tuple[int, int]] = []
    ends: list[tuple[int, int]] = []
    t_mark = t_end = 0
    while True:
        for key, _ in selector.select():
            if key.data is not None:
                key.data.readable()
                continue
            word = sys.stdin.readline().strip()
            if word == "mark":
                marks, t_mark = [(s.messages, s.bytes) for s in screens], time.monotonic_ns()
                print("marked", flush=True)
            elif word == "end":
                ends, t_end = [(s.messages, s.bytes) for s in screens], time.monotonic_ns()
                print("ended", flush=True)
            else:  # "stop", or the coordinator went
                for screen in screens:
                    screen.sock.close()
                window = (t_end - t_mark) / 1e9
                out.write_text(json.dumps([
                    {**s.spec, "states": s.states, "messages": s.messages, "window_s": window,
                     "window_messages": e[0] - m[0], "window_bytes": e[1] - m[1]}
                    for s, m, e in zip(screens, marks, ends, strict=True)]))
                return


# -- the coordinator ---------------------------------------------------------------------------


def _summary(ns: list[int]) -> dict[str, Any]:
    if not ns:
        return {"n": 0}
    ms = [v / 1e6 for v in ns]
    return {"n": len(ms), "p50_ms": round(percentile(ms, 50), 3), "p90_ms": round(percentile(ms, 90), 3),
            "p99_ms": round(percentile(ms, 99), 3), "max_ms": round(max(ms), 3)}


def league_figures(seconds: float = SECONDS, rate: float = RATE, ramp: tuple[tuple[float, float], ...] = RAMP,
                   venues: int = VENUES, tables: int = TABLES, everything: int = EVERYTHING,
                   per_venue: int = PER_VENUE, compact: bool = False) -> dict[str, Any]:
    from tests.helpers.mosquitto import Mosquitto

    phases = [(rate, seconds), *ramp]
    started = time.monotonic()
    planned = sum(secs for _, secs in phases) + OVERHEAD
    if planned > LIMIT:
        raise ValueError(f"league bench: {planned:.0f} s planned (phases and {OVERHEAD:.0f} s of start-up and "
                         f"shut-down), more than its limit of {LIMIT:.0f} s")
    total = venues * tables
    names = [venue_name(v) for v in range(venues)]
    with tempfile.TemporaryDirectory(prefix="cueboard-league-") as tmp_name, ExitStack() as stack:
        tmp = Path(tmp_name)
        league = stack.enter_context(Mosquitto(tmp / "league", extra=league_settings()))
        brokers = {}
        for venue in names:
            brokers[venue] = stack.enter_context(Mosquitto(tmp / venue, extra=venue_bridge(venue, league.port)))
            # The bridge's client id is venue.conf's remote_clientid, cueboard-bridge-venue-<venue>.
            league.wait_for_log(lambda line, v=venue: f" as cueboard-bridge-venue-{v} " in line, WAIT)
        # The subscribers: everything, one venue each (the venues in turn), a screen at each venue.
        specs = [{"name": f"all{i:02d}", "kind": "league, everything", "port": league.port,
                  "prefix": TableTopics.of(ANY, ANY).prefix, "venue": None} for i in range(everything)]
        specs += [{"name": f"one{i:02d}", "kind": "league, one venue", "port": league.port,
                   "prefix": TableTopics.of(names[i % venues], ANY).prefix, "venue": names[i % venues]}
                  for i in range(per_venue)]
        specs += [{"name": f"venue-{v}", "kind": "venue screen (venue broker)", "port": brokers[v].port,
                   "prefix": TableTopics.of(v, ANY).prefix, "venue": v} for v in names]
        groups = [specs[i::2] for i in range(2)]
        workers: list[Worker] = []
        brokers_all = [league, *brokers.values()]

        def kill_workers() -> None:
            for w in workers:
                w.kill()

        expired = threading.Event()

        def kill_all() -> None:  # the watchdog: past the limit, every process of the bench goes
            expired.set()
            for process in [*(w.process for w in workers), *(b._process for b in brokers_all if b._process)]:
                process.kill()

        stack.callback(kill_workers)
        watchdog = threading.Timer(max(1.0, started + LIMIT - time.monotonic()), kill_all)
        watchdog.daemon = True
        watchdog.start()
        stack.callback(watchdog.cancel)
        try:
            subs = []
            for i, group in enumerate(groups):
                out = tmp / f"subscribers-{i}.json"
                worker = Worker(Path(__file__), ["subscribers", json.dumps(group), str(out)], f"subscribers {i}",
                                wait=WAIT)
                subs.append((worker, out))
            workers += [w for w, _ in subs]
            for w, _ in subs:
                w.expect("ready")
            pubs = []
            for v, venue in enumerate(names):
                out = tmp / f"tables-{venue}.json"
                args = ["tables", venue, str(brokers[venue].port), str(tables), str(v * tables), str(total), str(out),
                        "compact" if compact else "full"]
                pubs.append((Worker(Path(__file__), args, f"tables {venue}", wait=WAIT), out))
            workers += [w for w, _ in pubs]
            for w, _ in pubs:
                w.expect("ready")
            time.sleep(1.0)  # the first states' deliveries settle
            setup_s = time.monotonic() - started
            start_ns = time.monotonic_ns() + int(1.5e9)  # the table processes make their scripts meanwhile
            plan = json.dumps({"start_ns": start_ns, "phases": phases})
            for w, _ in pubs:
                w.send(plan)
            pids = {"league": [league._process.pid] if league._process else [],
                    "venues": [b._process.pid for b in brokers.values() if b._process],
                    "tables": [w.pid for w, _ in pubs], "subscribers": [w.pid for w, _ in subs]}
            samples = []  # per phase boundary: (monotonic_ns, {group: ticks})
            memory: dict[str, Any] = {}
            bounds, at = [], start_ns
            for _, secs in phases:
                bounds.append(at)
                at += int(secs * 1e9)
            bounds.append(at)

            def sample() -> tuple[int, dict[str, list[int]]]:
                return time.monotonic_ns(), {g: [_cpu_ticks(p) for p in ps] for g, ps in pids.items()}

            for i, when in enumerate(bounds):
                delay = when - time.monotonic_ns()
                if delay > 0:
                    time.sleep(delay / 1e9)
                samples.append(sample())
                if i == 0:
                    for w, _ in subs:
                        w.send("mark")
                    for w, _ in subs:
                        w.expect("marked")
                if i == 1:
                    memory = {"league": _memory_mb(pids["league"][0]),
                              "venues": [_memory_mb(p) for p in pids["venues"]]}
                    for w, _ in subs:
                        w.send("end")
                    for w, _ in subs:
                        w.expect("ended")
            for w, _ in pubs:
                w.expect("done", WAIT)
            time.sleep(3.0)  # the last deliveries through the bridges
            for w, _ in subs:
                w.send("stop")
            for w, _ in subs:
                w.finish()
            for w, _ in pubs:
                w.send("stop")
            for w, _ in pubs:
                w.finish()
            published = [json.loads(out.read_text()) for _, out in pubs]
            received = [r for _, out in subs for r in json.loads(out.read_text())]
        except (OSError, RuntimeError, ValueError) as exc:  # a worker killed, or its output missing
            if expired.is_set():
                raise TimeoutError(f"league bench: past its limit of {LIMIT:.0f} s; every process it started "
                                   "was killed") from exc
            raise
    hz = os.sysconf("SC_CLK_TCK")
    result = figures(phases, published, received, samples, hz, memory, venues, tables,
                     round(setup_s, 1), round(time.monotonic() - started, 1))
    result["payload"] = "screen subset (--compact)" if compact else "state (the contract's)"
    return result


def figures(phases: list[tuple[float, float]], published: list[dict[str, Any]], received: list[dict[str, Any]],
            samples: list[tuple[int, dict[str, list[int]]]], hz: int, memory: dict[str, Any], venues: int,
            tables: int, setup_s: float, total_s: float) -> dict[str, Any]:
    sent: dict[tuple[str, int], tuple[int, int]] = {}  # (venue/table, seq) -> (t_ns, phase)
    for p in published:
        for k, seq, t, phase in p["published"]:
            sent[(f"{p['venue']}/{p['tables'][k]}", seq)] = (t, phase)
    kinds = sorted({r["kind"] for r in received}, key=lambda k: ("venue" in k, k))
    out_phases: list[dict[str, Any]] = []
    for i, (rate, seconds) in enumerate(phases):
        (t0, ticks0), (t1, ticks1) = samples[i], samples[i + 1]
        wall = (t1 - t0) / 1e9
        cpu = {g: [round((b - a) / hz / wall * 100, 1) for a, b in zip(ticks0[g], ticks1[g], strict=True)]
               for g in ticks0}
        phase_sent = {key: t for key, (t, ph) in sent.items() if ph == i}
        per_kind: dict[str, Any] = {}
        delivered_by_league = 0  # states the league broker delivered to its subscribers
        # When the venue's own screen got each state: the league's subscribers' receipts less
        # this is the bridge and the league broker alone (the tables' processes left out).
        at_venue = {(key, seq): t for r in received if r["kind"].startswith("venue")
                    for key, seq, t in r["states"]}
        for kind in kinds:
            lat: list[int] = []
            hop: list[int] = []
            lost = expected = 0
            for r in (r for r in received if r["kind"] == kind):
                got = {(key, seq): t for key, seq, t in r["states"]}
                mine = [key for key in phase_sent if r["venue"] is None or key[0].startswith(r["venue"] + "/")]
                expected += len(mine)
                before = len(lat)
                for key in mine:
                    t = got.get(key)
                    if t is None:
                        lost += 1
                    else:
                        lat.append(t - phase_sent[key])
                        if key in at_venue:
                            hop.append(t - at_venue[key])
                if not kind.startswith("venue"):
                    delivered_by_league += len(lat) - before
            per_kind[kind] = {"subscribers": sum(r["kind"] == kind for r in received), "states_expected": expected,
                              "lost": lost, "publish_to_receipt": _summary(lat)}
            if not kind.startswith("venue"):
                per_kind[kind]["venue_screen_to_receipt"] = _summary(hop)
            if os.environ.get("LEAGUE_DUMP"):  # by hand: every latency with its publish time, for a closer look
                with open(f"{os.environ['LEAGUE_DUMP']}-{i}-{kind.split(',')[0].split()[0]}.txt", "a") as dump:
                    for r in (r for r in received if r["kind"] == kind):
                        for key, seq, t in r["states"]:
                            if (key, seq) in phase_sent:
                                dump.write(f"{phase_sent[(key, seq)]} {t - phase_sent[(key, seq)]} {r['name']} {key}\n")
        league_cpu = cpu["league"][0]
        delivered = 2 * delivered_by_league / wall  # each state goes with its event
        out_phases.append({
            "events_per_second_per_table": rate, "seconds": seconds, "tables": venues * tables,
            "states_published": len(phase_sent), "per_kind": per_kind,
            "strokes_skipped_by_table_processes": sum(p["skipped"][i] for p in published),
            "cpu_percent_of_one_core": {"league_broker": league_cpu,
                                        "venue_brokers_total": round(sum(cpu["venues"]), 1),
                                        "venue_broker_max": max(cpu["venues"]),
                                        "table_processes_total": round(sum(cpu["tables"]), 1),
                                        "subscriber_processes_total": round(sum(cpu["subscribers"]), 1)},
            "league_messages_delivered_per_second": round(delivered),
            "league_cpu_us_per_delivered_message": round(league_cpu / 100 * 1e6 / max(1.0, delivered), 2),
        })
    main = out_phases[0]
    main_kinds: dict[str, Any] = main["per_kind"]
    receipts: dict[str, Any] = {}
    for kind in kinds:
        rs = [r for r in received if r["kind"] == kind]
        per_s = [r["window_bytes"] / r["window_s"] for r in rs]
        per_m = [r["window_messages"] / r["window_s"] for r in rs]
        receipts[kind] = {"messages_per_second": round(sum(per_m) / len(per_m), 1),
                          "bytes_per_second": round(sum(per_s) / len(per_s)),
                          "bytes_per_second_max": round(max(per_s))}
    state_bytes = [b for p in published for b in p["state_bytes"]]
    return {
        "topology": f"{venues} venue brokers x {tables} tables, bridged (examples/mosquitto/venue.conf's bridge) "
                    "to one league broker; mosquitto on 127.0.0.1, no TLS",
        "tables": venues * tables, "venues": venues,
        "subscribers": {kind: sum(r["kind"] == kind for r in received) for kind in kinds},
        "phases": out_phases,
        "main": main,
        "received_in_main_phase": receipts,
        "state_payload_bytes": {"p50": percentile(state_bytes, 50), "max": max(state_bytes)},
        "memory_mb_at_end_of_main_phase": {"league_broker_rss": memory["league"][0],
                                           "league_broker_peak": memory["league"][1],
                                           "venue_broker_rss_max": max(m[0] for m in memory["venues"])},
        "feeds_dropped": sum(p["dropped"] for p in published),
        "feeds_flushed": all(p["flushed"] for p in published),
        "publisher_late_max_ms": max(p["late_max_ms"] or 0 for p in published),
        "publisher_late_p99_ms_worst_process": max(p["late_p99_ms"] or 0 for p in published),
        "setup_s": setup_s, "seconds": total_s,
        "meets_target": all(k["lost"] == 0 for k in main_kinds.values()),
    }


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "tables":
        venue, port, count, first, total, out, compact = sys.argv[2:9]
        tables_worker(venue, int(port), int(count), int(first), int(total), Path(out), compact == "compact")
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == "subscribers":
        subscribers_worker(json.loads(sys.argv[2]), Path(sys.argv[3]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="20 s at the main rate, 5 s a ramp step")
    parser.add_argument("--seconds", type=float, help="seconds at the main rate")
    parser.add_argument("--rate", type=float, default=RATE, help="strokes a table a second (main phase)")
    parser.add_argument("--ramp", default=None, help='faster phases, "rate:seconds,..." ("" for none)')
    parser.add_argument("--venues", type=int, default=VENUES)
    parser.add_argument("--tables", type=int, default=TABLES, help="tables a venue")
    parser.add_argument("--everything", type=int, default=EVERYTHING, help="league subscribers to everything")
    parser.add_argument("--per-venue", type=int, default=PER_VENUE, help="league subscribers to one venue each")
    parser.add_argument("--compact", action="store_true",
                        help="publish only what a screen shows instead of the state (an experiment)")
    args = parser.parse_args()
    seconds = args.seconds or (20.0 if args.quick else SECONDS)
    ramp = RAMP if args.ramp is None else tuple(
        (float(r), float(s)) for r, s in (p.split(":") for p in args.ramp.split(",") if p))
    if args.quick and args.ramp is None:
        ramp = tuple((r, 5.0) for r, _ in RAMP)
    result = league_figures(seconds, args.rate, ramp, args.venues, args.tables, args.everything, args.per_venue,
                            args.compact)
    result["command"] = "bench/league.py " + " ".join(sys.argv[1:])
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
