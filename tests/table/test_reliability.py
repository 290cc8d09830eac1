"""Reliability through the real daemon (issue 7): a table from ``cueboard.table.service.open_table``,
its engine loop in a thread as under ``cueboard run``, with a real mosquitto, a real full
disk and referee boxes on gpiozero's ``MockFactory``. Each test records what it did and what
it found (the ``finding`` fixture of ``tests/conftest.py``; ``--findings-json PATH``).

- A 10 s broker outage mid-match: events keep being entered, accepted and journalled; when
  the broker is back (same port, no persistence: it has forgotten every retained message)
  a fresh subscriber has the retained state, equal to the table's, within 2 s.
- A full disk: the journal on a small tmpfs that is filled up. Inputs are refused saying the
  journal cannot be written, nothing is shown or published for them, ``devices`` says the
  journal failed; once space is freed the next input is accepted, and a restart recovers
  exactly the accepted events. Needs ``mount -t tmpfs`` (root); skips, saying so, without it
  (``tests/table/test_journal.py`` has the always-on version with a file-size limit).
- Bounce storms on every button of two referee boxes: random edges on pressing and on
  releasing, on a ManualClock; exactly one press per storm reaches the engine, and the
  engine's state is what one press per storm makes.

The CI versions take some 13 s (the outage is most of it); ``--long`` runs bigger ones
(three outages, ten fills of the disk, 2,400 storms), some 40 s.
"""

from __future__ import annotations

import contextlib
import errno
import os
import random
import shutil
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from gpiozero.pins.mock import MockFactory, MockPin

import cueboard.table.mqtt.feed
import cueboard.table.service
from cueboard.boards.shown import Shown
from cueboard.engine import Event, IllegalEvent, Match, decode
from cueboard.hw.clock import ManualClock
from cueboard.hw.debounce import DEBOUNCE, HOLD_TIME
from cueboard.hw.keys import ButtonPress
from cueboard.table.config import Config
from cueboard.table.daemon import Table
from cueboard.table.inputs import Call, Input, KeyInput
from cueboard.table.journal import Journal, read_lines
from cueboard.table.keymap import Entry, Pending, Refusal, load_keymap
from cueboard.table.service import open_table
from tests.helpers.daemon import EXAMPLES, StillOutput, scripted_events, table_config
from tests.helpers.feed import HealthLog
from tests.helpers.mosquitto import Message, Mosquitto, Subscriber

pytestmark = pytest.mark.system


Finding = Callable[..., None]
T = TypeVar("T")

TIMEOUT = 30.0
"""Upper bound for anything awaited (it comes far sooner)."""
PREFIX = "cueboard/test-venue/t1"  # daemon_helpers.table_config's table
KEYMAP = EXAMPLES / "keymaps" / "referee-box-12.toml"
PINS = ([5, 6, 13, 19, 26, 12, 16, 20, 21, 4, 17, 27], [22, 23, 24, 25, 18, 7, 8, 9, 10, 11, 14, 15])
"""The two referee boxes' pins (BCM), button 0 first."""
UNDO = 11  # the UNDO button of referee-box-12.toml


class Daemon:
    """``open_table(config, ...)`` with the engine loop in a thread, as under ``cueboard run``."""

    def __init__(self, config: Config, **options: Any) -> None:
        self._opened = open_table(config, **options)
        self.table: Table
        self._thread: threading.Thread

    def __enter__(self) -> Daemon:
        self.table = self._opened.__enter__()
        self._thread = threading.Thread(target=self.table.run, name="engine", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.table.stop()
        self._thread.join(TIMEOUT)
        self._opened.__exit__(*exc)

    def send(self, obj: dict[str, Any]) -> dict[str, Any]:
        """An event or command as the control socket sends it, and the daemon's answer."""
        answer = self.table.ask(obj, "control", TIMEOUT)
        assert answer.get("reason") != "the daemon did not answer in time", "the engine thread did not answer"
        return answer

    def on_engine(self, function: Callable[[], T]) -> T:
        """``function()`` run on the engine thread, after everything submitted before it."""
        done = threading.Event()
        result: list[T] = []

        def run() -> None:
            try:
                result.append(function())
            finally:
                done.set()

        self.table.submit(Call("test", run))
        assert done.wait(TIMEOUT) and result, "the engine thread did not run it"
        return result[0]

    def state(self) -> dict[str, Any]:
        state = self.on_engine(lambda: self.table.match.state().to_json() if self.table.match else None)
        assert state is not None
        return state


def expected_match(config: Config, events: list[dict[str, Any]]) -> Match:
    """The table's default match with ``events`` applied: what the table must hold."""
    match = Match.from_json(config.match_setup().to_json())
    for obj in events:
        match.apply(match.parse(obj))
    return match


def journalled(directory: Path) -> Match:
    """The newest match file of a journal replayed, read only (a Journal would cut the file
    the running table has open)."""
    lines = read_lines(Journal(directory).matches()[-1])
    match = Match.from_json(decode(lines[0]))
    for line in lines[1:]:
        match.apply(match.parse_line(line))
    return match


def published_state(message: Message) -> dict[str, Any]:
    """A state message without what the feed adds (``table``, ``ts``)."""
    return {k: v for k, v in message.json().items() if k not in ("table", "ts")}


def seen_after(watcher: Subscriber, start: int, match: Callable[[Message], bool]) -> tuple[int, Message]:
    """The first message from ``watcher.seen[start]`` on that ``match``es, waiting for it,
    and its index. (Subscriber.wait_for would drop the other topics' messages on the way,
    and a feed may send a later event before an earlier devices message.)"""
    deadline = time.monotonic() + TIMEOUT
    while True:
        end = len(watcher.seen)
        for i in range(start, end):
            if match(watcher.seen[i]):
                return i, watcher.seen[i]
        start = end
        watcher.get(max(0.0, deadline - time.monotonic()))  # the next message (kept in seen)


def watch_feed_health(monkeypatch: pytest.MonkeyPatch) -> HealthLog:
    """The health changes of the Feed that ``open_table`` makes (through its ``on_health``)."""
    health = HealthLog()

    class WatchedFeed(cueboard.table.mqtt.feed.Feed):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, on_health=health, **kwargs)

    monkeypatch.setattr(cueboard.table.service, "Feed", WatchedFeed)
    return health


# -- a. the broker away for 10 s mid-match -------------------------------------------------------

OUTAGE = 10.0
BACK_WITHIN = 2.0
EVENTS_BEFORE = 20
EVENTS_DURING = 20  # each outage, spread over it


@pytest.mark.parametrize("outages", [pytest.param(1, id="one"), pytest.param(3, id="three", marks=pytest.mark.long)])
def test_a_ten_second_broker_outage_mid_match(tmp_path: Path, mosquitto_broker: Mosquitto,
                                              monkeypatch: pytest.MonkeyPatch, finding: Finding,
                                              outages: int) -> None:
    broker = mosquitto_broker
    health = watch_feed_health(monkeypatch)
    config = table_config(tmp_path, mqtt={"host": broker.host, "port": broker.port})
    script = scripted_events(EVENTS_BEFORE + outages * EVENTS_DURING + 1)
    assert len(script) == EVENTS_BEFORE + outages * EVENTS_DURING + 1
    entered = 0
    refused: list[str] = []
    during = accepted_during = while_down = journalled_during = 0
    back: list[float] = []  # seconds from starting the broker again to the retained state, each outage
    broker_start: list[float] = []  # of which the broker's own start-up
    stale: list[str] = []

    with Daemon(config, boards=[], control=False) as daemon:
        health.wait_for("ok")
        for obj in script[:EVENTS_BEFORE]:
            answer = daemon.send(obj)
            assert answer["ok"], answer
        entered = EVENTS_BEFORE
        with Subscriber(f"{PREFIX}/state", port=broker.port) as live:
            live.wait_for(lambda m: m.json()["seq"] == EVENTS_BEFORE)  # the feed works, mid-match

        for _ in range(outages):
            broker.stop()
            stopped = time.monotonic()
            health.wait_for("down:")
            for i, obj in enumerate(script[entered:entered + EVENTS_DURING]):
                # The outage itself: the only wait here. Events go in spread over it.
                time.sleep(max(0.0, stopped + (i + 1) * OUTAGE / (EVENTS_DURING + 1) - time.monotonic()))
                answer = daemon.send(obj)
                during += 1
                if answer["ok"]:
                    accepted_during += 1
                else:
                    refused.append(answer["reason"])
                while_down += daemon.on_engine(daemon.table.device_health)["mqtt"].startswith("down:")
            entered += EVENTS_DURING
            # Journalled while the broker is still away: the journal replays to the script's state.
            journalled_during += journalled(config.journal_dir).state() == expected_match(config,
                                                                                          script[:entered]).state()
            time.sleep(max(0.0, stopped + OUTAGE - time.monotonic()))  # the rest of the outage

            current = daemon.state()
            assert current == expected_match(config, script[:entered]).state().to_json()
            began = time.monotonic()
            broker.start()  # same port; no persistence: the broker remembers nothing retained
            broker_start.append(time.monotonic() - began)
            with Subscriber(f"{PREFIX}/state", port=broker.port) as first:
                # The first state to arrive, live or retained: awaited, not polled.
                got = first.wait_for(lambda m, seq=current["seq"]: m.json()["seq"] == seq)
            # A fresh subscriber now: the broker's retained copy must be the table's state.
            with Subscriber(f"{PREFIX}/state", port=broker.port) as fresh:
                retained = fresh.get()
                back.append(time.monotonic() - began)
            if not (retained.retain and published_state(retained) == current and published_state(got) == current):
                stale.append(f"retained {retained.retain}, seq {retained.json().get('seq')} for {current['seq']}")
            health.wait_for("ok")

        # After the outages the feed carries on as before.
        answer = daemon.send(script[entered])
        assert answer["ok"], answer
        entered += 1
        with Subscriber(f"{PREFIX}/state", port=broker.port) as late:
            after = late.wait_for(lambda m: m.json()["seq"] == entered)
        final = daemon.state()

    worst = max(back)
    finding(f"broker stopped {outages} time(s) for {OUTAGE:g} s mid-match: {during} events entered meanwhile, "
            f"{accepted_during} accepted and journalled ({while_down} while the table's devices said mqtt down, "
            f"{journalled_during} of {outages} outages' journals whole before the broker came back); a fresh "
            f"subscriber had the retained state, equal to the table's, {', '.join(f'{b:.2f}' for b in back)} s "
            f"after the broker was started again (of which its own start-up "
            f"{', '.join(f'{b:.2f}' for b in broker_start)} s; budget {BACK_WITHIN:g} s, reconnect_max "
            f"{config.mqtt.reconnect_max if config.mqtt else None} s); {len(stale)} wrong retained states",
            outages=outages, outage_seconds=OUTAGE, events_during=during, accepted_during=accepted_during,
            entered_while_mqtt_down=while_down, journal_whole_during=journalled_during,
            seconds_to_retained_state=[round(b, 3) for b in back], worst_seconds=round(worst, 3),
            broker_start_seconds=[round(b, 3) for b in broker_start], wrong_retained=len(stale))
    assert refused == [] and accepted_during == outages * EVENTS_DURING
    assert while_down == during  # the feed was down (awaited before the first) for every one of them
    assert journalled_during == outages
    assert stale == []
    # How soon is the finding's (a busy machine may be slower: no wall-clock limit here); what
    # bounds it is the feed's reconnect backoff, which the table's configuration caps.
    assert config.mqtt is not None and config.mqtt.reconnect_max <= BACK_WITHIN
    assert published_state(after) == final == expected_match(config, script[:entered]).state().to_json()


# -- b. a full disk -----------------------------------------------------------------------------

TMPFS_SIZE = "64k"  # 16 pages of 4 KiB: the match file takes one, the rest is filled


@contextlib.contextmanager
def small_tmpfs(mountpoint: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` at ``mountpoint``, or the test skipped saying why it cannot be had."""
    mountpoint.mkdir()
    mount, umount = shutil.which("mount"), shutil.which("umount")
    if os.geteuid() != 0 or mount is None or umount is None:
        pytest.skip("a real full disk needs `mount -t tmpfs` as root (not root, or no mount command); "
                    "tests/table/test_journal.py's file-size-limit test covers a failed write")
    result = subprocess.run([mount, "-t", "tmpfs", "-o", f"size={size},mode=0700", "cueboard-full-disk",
                             str(mountpoint)], capture_output=True, text=True, timeout=TIMEOUT, check=False)
    if result.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs ({result.stderr.strip() or result.returncode}): no real full disk "
                    "here; tests/table/test_journal.py's file-size-limit test covers a failed write")
    try:
        yield mountpoint
    finally:
        if subprocess.run([umount, str(mountpoint)], capture_output=True, timeout=TIMEOUT).returncode != 0:
            subprocess.run([umount, "-l", str(mountpoint)], capture_output=True, timeout=TIMEOUT)


def fill(directory: Path) -> int:
    """Write a file in ``directory`` until the disk is full; the bytes it took."""
    written = 0
    with open(directory / "filler", "wb", buffering=0) as f:
        chunk = b"\0" * 4096
        while True:
            try:
                n = f.write(chunk)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc
                return written
            written += n or 0


class Board(StillOutput):
    """A board that records what it is given to show, and its flashes (the refusals)."""

    def __init__(self) -> None:
        self.shown: list[int] = []
        self.flashes = 0
        self.health = "ok"

    def show(self, shown: Shown, clock: float | None = None) -> None:
        self.shown.append(shown.state.seq)

    def flash(self, now: float | None = None, reason: str | None = None) -> None:
        self.flashes += 1


class Outputs:
    """What the daemon asks its outputs to do for an input: states shown on the board, and
    states and events handed to the feed (counted by wrapping the feed's methods)."""

    def __init__(self, daemon: Daemon, board: Board) -> None:
        self.board = board
        self.published = 0
        feed = daemon.table.feed
        assert feed is not None
        for name in ("publish_state", "publish_event"):
            setattr(feed, name, self._counting(getattr(feed, name)))

    def _counting(self, method: Callable[..., None]) -> Callable[..., None]:
        def counted(*args: Any) -> None:
            self.published += 1
            method(*args)
        return counted

    def now(self) -> tuple[int, int]:
        return len(self.board.shown), self.published


def shortest_line(kind: str) -> dict[str, Any]:
    """An undo or redo whose journal line is as short as any event's can be: the shortest
    type and a ``t`` with one decimal (the daemon's own have up to three)."""
    return {"type": kind, "t": int(time.time()) + 0.5}


def tally(values: list[str]) -> str:
    """``"a" x2, "b" x1``: each value and how many times it came."""
    return ", ".join(f'"{value}" x{n}' for value, n in Counter(values).items()) or "nothing"


def devices_journal(daemon: Daemon, broker: Mosquitto) -> str:
    """``journal`` in the retained devices message a screen gets now, once the feed has handed
    the broker everything; it must agree with the table's own health."""
    health = daemon.on_engine(daemon.table.device_health)["journal"]
    assert daemon.table.feed is not None and daemon.table.feed.flush(TIMEOUT)
    with Subscriber(f"{PREFIX}/devices", port=broker.port) as fresh:
        retained = fresh.get()
    published = str(retained.json()["journal"])
    return published if published == health and retained.retain else f"{published} (table: {health})"


@pytest.mark.parametrize("fills", [pytest.param(2, id="twice"), pytest.param(10, id="ten", marks=pytest.mark.long)])
def test_a_full_disk_refuses_inputs_until_space_is_freed(tmp_path: Path, mosquitto_broker: Mosquitto,
                                                         finding: Finding, fills: int) -> None:
    disk = tmp_path / "disk"
    clock = ManualClock(start=1000.0)  # the referee box debounces on it (open_table's button_clock)
    setup = {"game": "snooker", "sides": ["Ann", "Bob"], "best_of": 35}  # a match long enough for every fill
    config = table_config(tmp_path, match=setup, journal={"dir": str(disk / "journal")},
                          mqtt={"host": mosquitto_broker.host, "port": mosquitto_broker.port},
                          referee_box=[{"pins": PINS[0], "keymap": str(KEYMAP)}])
    script = iter(scripted_events(2000, setup={"type": "match", **setup}))
    board = Board()
    pins = MockFactory()
    undo_pin: MockPin = pins.pin(PINS[0][UNDO])
    applied: list[dict[str, Any]] = []  # the inputs accepted, in order
    fitted: list[int] = []  # events still accepted after each fill (room left in the file's last page)
    topped: list[int] = []  # and then the shortest events (undo, redo) still accepted
    filled: list[int] = []  # bytes of filler each time
    refusals: list[str] = []  # the reasons given to the desk (control inputs)
    refused_presses = 0  # referee presses refused
    accepted_while_full = 0  # inputs accepted once even the shortest line did not fit: none may be
    shown_for_refused = published_for_refused = 0  # states shown, states and events published for them
    journal_health: list[str] = []  # devices.journal (retained) once full, then once freed
    watcher = Subscriber(f"{PREFIX}/#", port=mosquitto_broker.port)
    watcher.wait_subscribed()
    try:
        with small_tmpfs(disk, TMPFS_SIZE):
            with Daemon(config, boards=[board], pin_factory=pins, button_clock=clock, control=False) as daemon:
                outputs = Outputs(daemon, board)

                def enter(obj: dict[str, Any]) -> bool:
                    """One input from the desk; True if accepted. Nothing may be output for a refusal."""
                    nonlocal shown_for_refused, published_for_refused
                    before = outputs.now()
                    answer = daemon.send(obj)
                    if answer["ok"]:
                        applied.append(obj)
                        return True
                    refusals.append(answer["reason"])
                    after = outputs.now()
                    shown_for_refused += after[0] - before[0]
                    published_for_refused += after[1] - before[1]
                    return False

                for _ in range(10):
                    assert enter(next(script))
                for _ in range(fills):
                    filled.append(fill(disk))
                    # tmpfs gives space a page at a time: the journal file's last page may still have
                    # room. The match goes on until an event does not fit ...
                    fit = 0
                    nxt = next(script)
                    while enter(nxt):
                        fit += 1
                        assert fit < 4096, "the disk never filled"
                        nxt = next(script)
                    fitted.append(fit)
                    # ... then the shortest lines (undo, redo) until one does not fit either: from here
                    # on no input can fit.
                    top = 0
                    while enter(last := shortest_line("redo" if top % 2 else "undo")):
                        top += 1
                    topped.append(top)
                    # Full: more legal inputs, from the desk and from the referee's box; all refused.
                    for _ in range(2):
                        accepted_while_full += enter(shortest_line(last["type"]))
                    before, refused = outputs.now(), daemon.table.refused
                    undo_pin.drive_low()  # the referee's UNDO, a legal event
                    clock.advance(0.1)
                    undo_pin.drive_high()
                    clock.advance(DEBOUNCE * 2)
                    # The press reaches the engine from gpiozero's thread, after the release: wait
                    # until it is refused (or, wrongly, shown) before freeing the disk, or a press
                    # taken late would be an UNDO the script does not know of.
                    deadline = time.monotonic() + TIMEOUT
                    while True:
                        after, refused_after = daemon.on_engine(lambda: (outputs.now(), daemon.table.refused))
                        if refused_after > refused or after[0] > before[0] or time.monotonic() > deadline:
                            break
                        threading.Event().wait(0.01)  # not a wall-clock limit: a poll's pause
                    refused_presses += refused_after - refused
                    accepted_while_full += refused_after == refused
                    shown_for_refused += after[0] - before[0]
                    published_for_refused += after[1] - before[1]
                    journal_health.append(devices_journal(daemon, mosquitto_broker))
                    # Space again: the next input is accepted (the redo owed, if the top-up ended on an
                    # undo; then the event that did not fit), and the journal is reported ok.
                    (disk / "filler").unlink()
                    for obj in ([shortest_line("redo")] if top % 2 else []) + [nxt]:
                        enter(obj)
                    journal_health.append(devices_journal(daemon, mosquitto_broker))
                at = -1
                for _ in applied:  # every accepted input's event has come
                    at, _event = seen_after(watcher, at + 1, lambda m: m.topic.endswith("/event"))
                live = daemon.state()
                flashes = board.flashes
            # A restart on the same journal: exactly the accepted inputs.
            with Daemon(config, boards=[], pin_factory=pins, button_clock=clock, control=False) as again:
                recovered = again.state()
    finally:
        watcher.close()
        pins.close()
    events = [m.json() for m in watcher.seen if m.topic.endswith("/event")]
    rejected = [m.json() for m in watcher.seen if m.topic.endswith("/rejected")]
    expected = expected_match(config, applied).state().to_json()
    no_space = [r for r in refusals if "the journal cannot be written" in r and "No space left on device" in r]
    finding(f"journal on a {TMPFS_SIZE} tmpfs filled {fills} time(s) ({', '.join(map(str, filled))} bytes of "
            f"filler): {', '.join(map(str, fitted))} more events and then {', '.join(map(str, topped))} undo/redo "
            f"fitted in the file's last page; {len(refusals)} inputs from the desk and {refused_presses} referee "
            f"presses refused ({len(no_space)} desk refusals saying the journal cannot be written: no space "
            f"left), {accepted_while_full} accepted while full, {shown_for_refused} states shown and "
            f"{published_for_refused} states or events published for them; devices.journal when full: "
            f"{tally(journal_health[0::2])}, once freed: {tally(journal_health[1::2])}; {len(applied)} inputs "
            f"accepted in all, {len(events)} events published, and a restart recovered seq {recovered['seq']} "
            f"with the state {'equal' if recovered == expected else 'NOT equal'} to theirs",
            fills=fills, filler_bytes=filled, fitted=fitted, fitted_shortest=topped, refused_inputs=len(refusals),
            refused_no_space=len(no_space), refused_presses=refused_presses,
            accepted_while_full=accepted_while_full, shown_for_refused=shown_for_refused,
            published_for_refused=published_for_refused, journal_health=journal_health, accepted=len(applied),
            events_published=len(events), recovered_seq=recovered["seq"], recovered_equal=recovered == expected)
    assert len(refusals) == 4 * fills and len(no_space) == len(refusals), refusals
    assert refused_presses == fills and accepted_while_full == 0
    assert shown_for_refused == 0 and published_for_refused == 0
    assert flashes == fills  # the referee's refused press flashed on the board; the desk's refusals not
    assert [e["event"]["type"] for e in events] == [obj["type"] for obj in applied]
    assert sum(r["source"] == "referee_box:0" for r in rejected) == fills
    assert len(rejected) == 5 * fills and all("the journal cannot be written" in r["reason"] for r in rejected)
    # Each failure says what to do about it (issue 24), and each is over once there is room.
    assert [h.split(":")[0] + (": " + h.split(": ")[1] if h != "ok" else "") for h in journal_health] == [
        "failed: No space left on device", "ok"] * fills, journal_health
    assert all("until there is room on the disk again" in h for h in journal_health if h != "ok")
    assert live == expected and recovered == expected


# -- c. bounce storms on every button -------------------------------------------------------------


class Shadow:
    """What one press per storm must do: the keymap and the rules, without the daemon."""

    def __init__(self, config: Config) -> None:
        keymap = load_keymap(KEYMAP)
        self.entries = [Entry(keymap), Entry(keymap)]
        self.match = Match.from_json(config.match_setup().to_json())
        self.accepted = self.refused = 0

    def press(self, press: ButtonPress) -> None:
        outcome = self.entries[press.box].feed(press, self.match.state(), now=time.monotonic())
        if isinstance(outcome, Refusal):
            self.refused += 1
        elif isinstance(outcome, Event):
            try:
                self.match.check(outcome)
            except IllegalEvent:
                self.refused += 1
                return
            self.match.apply(outcome)
            self.accepted += 1
        else:
            assert isinstance(outcome, Pending)


def storm(rng: random.Random, pin: MockPin, clock: ManualClock, pressed: bool, budget: float) -> int:
    """A bouncing contact: an odd number of edges, the first and last to ``pressed``, each gap
    shorter than the debounce, all within ``budget`` seconds. The edges made."""
    edges = rng.randrange(1, 32, 2)
    gap = min(0.9 * DEBOUNCE, budget / max(1, edges - 1))
    level = pressed
    for n in range(edges):
        if n:
            clock.advance(rng.uniform(0.00005, gap))
        (pin.drive_low if level else pin.drive_high)()  # a button pulls its pin to ground
        level = not level
    return edges


@pytest.mark.parametrize("rounds", [pytest.param(4, id="4-rounds"),
                                    pytest.param(100, id="100-rounds", marks=pytest.mark.long)])
def test_bounce_storms_on_every_button_make_one_press_each(tmp_path: Path, finding: Finding, rounds: int) -> None:
    clock = ManualClock(start=1000.0)  # the referee boxes debounce on it (open_table's button_clock)
    config = table_config(tmp_path, referee_box=[{"pins": PINS[0], "keymap": str(KEYMAP)},
                                                 {"pins": PINS[1], "keymap": str(KEYMAP)}])
    buttons = [(box, button) for box in (0, 1) for button in range(len(PINS[box]))]
    rng = random.Random(7)
    pins = MockFactory()
    shadow = Shadow(config)
    reached: list[ButtonPress] = []
    storms = edges = 0
    extra = missed = held = 0
    diverged: list[str] = []
    # Press and release storms and the time held between them stay well inside the hold time.
    budget = (HOLD_TIME - 2 * DEBOUNCE) / 4
    try:
        with Daemon(config, boards=[], pin_factory=pins, button_clock=clock, control=False) as daemon:
            table = daemon.table
            submit = table.submit

            def counting_submit(item: Input) -> None:  # the boxes look up table.submit at each press
                if isinstance(item, KeyInput) and isinstance(item.press, ButtonPress):
                    reached.append(item.press)
                submit(item)

            table.submit = counting_submit  # type: ignore[method-assign]
            for _ in range(rounds):
                rng.shuffle(buttons)
                for box, button in buttons:
                    pin = pins.pin(PINS[box][button])
                    before = len(reached)
                    edges += storm(rng, pin, clock, True, budget)
                    clock.advance(rng.uniform(DEBOUNCE, budget))  # held down a moment
                    edges += storm(rng, pin, clock, False, budget)
                    clock.advance(DEBOUNCE * 2)  # the release counts
                    storms += 1
                    expected = ButtonPress(box, button, False)
                    daemon.on_engine(lambda: None)  # every press submitted so far is handled
                    got = reached[before:]
                    extra += max(0, len(got) - 1)
                    missed += expected not in got
                    held += sum(p.held for p in got)
                    shadow.press(expected)
                    state, counts = daemon.on_engine(lambda: (table.match.state().to_json() if table.match else None,
                                                               (table.accepted, table.refused)))
                    if state != shadow.match.state().to_json() or counts != (shadow.accepted, shadow.refused):
                        diverged.append(f"storm {storms} (box {box} button {button}): the engine's state or "
                                        f"counts {counts} differ from one press's {shadow.accepted, shadow.refused}")
    finally:
        pins.close()
    finding(f"{storms} storms on {len(buttons)} buttons of 2 referee boxes (bouncing on press and on release, "
            f"{edges:,} edges): {len(reached)} presses reached the engine, {extra} extra, {missed} missed, "
            f"{held} held; the engine's state and counts were those of one press per storm after "
            f"{storms - len(diverged)} of the {storms} storms ({shadow.accepted} events accepted, {shadow.refused} "
            "refused by the keymap or the rules)",
            storms=storms, buttons=len(buttons), edges=edges, presses=len(reached), extra=extra, missed=missed,
            held=held, diverged=len(diverged), accepted=shadow.accepted, refused=shadow.refused)
    assert storms == rounds * 24
    assert (extra, missed, held) == (0, 0, 0)
    assert len(reached) == storms
    assert diverged == [], diverged[:3]
    assert shadow.accepted > 0  # the presses did score: the comparison is not of an idle table
