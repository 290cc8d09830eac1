"""The host's keypad link over a real pseudo-terminal (os.openpty), with pyserial on the
host side and the simulated keypad on the other: presses become events exactly once,
through drops, corruption, repeats, noise, replays, unplugging and restarts."""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cueboard.hw import keyproto as kp
from cueboard.hw.keypad_link import FIRMWARE, KeypadHealth, SerialPort, open_serial
from cueboard.hw.keys import KeyPress
from cueboard.tools.keypad_sim import KeypadSimulator
from tests.helpers.keypad import WAIT, HostRecorder, PtyPort

OK, SILENT, LOST = KeypadHealth.OK, KeypadHealth.SILENT, KeypadHealth.LOST


@pytest.fixture
def port(tmp_path: Path) -> Iterator[PtyPort]:
    p = PtyPort(tmp_path)
    yield p
    p.close()


@pytest.fixture
def sim(port: PtyPort) -> Iterator[KeypadSimulator]:
    with KeypadSimulator(port.master) as s:
        yield s


@pytest.fixture
def host(port: PtyPort) -> Iterator[HostRecorder]:
    h = HostRecorder(port.path)
    h.link.start()
    yield h
    h.link.stop()


@pytest.fixture
def linked(sim: KeypadSimulator, host: HostRecorder) -> tuple[KeypadSimulator, HostRecorder]:
    """The simulator and the host, once each hears the other."""
    assert host.wait_health(OK)
    assert sim.wait_for(lambda s: s.host_alive, WAIT)
    return sim, host


def fence(sim: KeypadSimulator, host: HostRecorder, expected: list[KeyPress]) -> None:
    """Press one more key and check that exactly ``expected`` and then it came: any
    stray repeat of an earlier press would have arrived before it."""
    sim.press(19)
    got = host.take(len(expected) + 1)
    assert got == [*expected, KeyPress(19)]
    assert sim.wait_for(lambda s: s.pending == 0, WAIT)
    assert host.left() == []


def strays(sim: KeypadSimulator, host: HostRecorder) -> list[KeyPress] | None:
    """Press one more key as a fence and return what came besides it (stray repeats of
    earlier presses come before it); None if the fence itself never came."""
    sim.press(19)
    got = host.take(1)
    while got and got[-1] != KeyPress(19):
        got += host.take(1)
    if not got:
        return None
    sim.wait_for(lambda s: s.pending == 0, WAIT)
    return [*got[:-1], *host.left()]


def test_presses_become_events(sim: KeypadSimulator, host: HostRecorder) -> None:
    sim.press(3)
    sim.hold(7)
    sim.press(0)
    assert host.take(4) == [KeyPress(3), KeyPress(7), KeyPress(7, True), KeyPress(0)]
    assert host.wait_health(OK)
    assert host.healths[:2] == [SILENT, OK]
    fence(sim, host, [])


def test_health_and_status(linked: tuple[KeypadSimulator, HostRecorder]) -> None:
    host = linked[1]
    status = host.link.status()
    assert status["keypad"] == "ok" and status["firmware"] == FIRMWARE and status["matrix"] == [5, 4]
    assert status["firmware_expected"] == FIRMWARE
    assert status["opens"] == 1 and status["presses"] == 0
    assert host.link.health_report() == "ok"


def test_a_keypad_on_older_firmware_says_so_in_its_health(port: PtyPort, caplog: pytest.LogCaptureFixture) -> None:
    # Issue 17: the firmware reports its version in every heartbeat; an older one still
    # works (the protocol is the same), but the devices topic says to flash it again.
    host = HostRecorder(port.path)
    with KeypadSimulator(port.master, firmware=FIRMWARE - 1) as sim, host.link:
        assert host.wait_health(OK)
        assert host.link.health_report() == (
            f"ok: firmware {FIRMWARE - 1} is older than this host's {FIRMWARE}; flash firmware/ again "
            "(docs/firmware.md)")
        assert host.link.status()["firmware"] == FIRMWARE - 1
        sim.press(2)
        assert host.take(1) == [KeyPress(2)]
    assert f"firmware {FIRMWARE - 1}, older than this host's {FIRMWARE}" in caplog.text


def test_a_dropped_frame_is_sent_again(linked: tuple[KeypadSimulator, HostRecorder]) -> None:
    sim, host = linked
    sim.drop_next()
    sim.press(4)
    assert host.take(1) == [KeyPress(4)]
    assert sim.link.retransmissions >= 1
    fence(sim, host, [])


def test_a_corrupted_frame_is_rejected_and_sent_again(linked: tuple[KeypadSimulator, HostRecorder]) -> None:
    sim, host = linked
    sim.corrupt_next(2)
    sim.press(5)
    sim.press(6, held=True)
    assert host.take(2) == [KeyPress(5), KeyPress(6, True)]
    assert host.link.protocol.link.decoder.rejected >= 2
    fence(sim, host, [])


def test_a_repeated_frame_is_delivered_once(linked: tuple[KeypadSimulator, HostRecorder]) -> None:
    sim, host = linked
    sim.duplicate_next(3)
    for key in (1, 2, 1):
        sim.press(key)
    assert host.take(3) == [KeyPress(1), KeyPress(2), KeyPress(1)]
    fence(sim, host, [])
    assert host.link.protocol.link.duplicates >= 3


def test_noise_and_replays_make_no_presses(linked: tuple[KeypadSimulator, HostRecorder],
                                          finding: Callable[..., None]) -> None:
    sim, host = linked
    rng = random.Random(5)
    sim.press(8)
    assert host.take(1) == [KeyPress(8)]
    replay = kp.encode_frame(kp.KEYPAD_DATA, sim.link.epoch, 0, 0, 0, 0, kp.key_message(8))
    noise = 0
    for _ in range(50):
        junk = rng.randbytes(rng.randint(1, 200))
        hexish = bytes(rng.choice(b"0123456789abcdef:\n") for _ in range(100))
        sim.inject(junk)
        sim.inject(hexish)
        sim.inject(replay)
        noise += len(junk) + len(hexish)
    extra = strays(sim, host)
    rejected = host.link.protocol.link.decoder.rejected
    finding(f"over a real pseudo-terminal: {noise:,} bytes of noise and 50 replays of a delivered press: "
            f"{'no fence' if extra is None else len(extra)} extra presses, {rejected} frames rejected",
            noise_bytes=noise, replays=50, extra=None if extra is None else len(extra), rejected_frames=rejected)
    assert extra == []


def test_unplug_and_replug_recover(port: PtyPort, sim: KeypadSimulator, host: HostRecorder,
                                   finding: Callable[..., None]) -> None:
    """The presses made while unplugged come once, in order; how soon is reported (a
    finding), not asserted: a busy machine may take longer. What bounds it, the reopen
    backoff, is checked without a clock (test_the_reopen_backoff_is_capped)."""
    sim.press(1)
    assert host.take(1) == [KeyPress(1)]
    sim.unplug()
    port.unplug()
    assert host.wait_health(LOST)
    sim.press(2)  # pressed while unplugged (the keypad kept its power)
    sim.press(3, held=True)
    started = time.monotonic()
    sim.plug(port.replug())
    got = host.take(2)
    delivered = time.monotonic() - started
    healthy = host.wait_health(OK)
    ok_after = time.monotonic() - started
    extra = strays(sim, host)
    expected = [KeyPress(2), KeyPress(3, True)]
    finding(f"unplugged (health {LOST}), 2 presses made meanwhile, replugged: {len(got)} of them delivered "
            f"{delivered:.3f} s after the replug{'' if got == expected else ' (not the ones made!)'}, health "
            f"{'ok' if healthy else 'not ok'} after {ok_after:.3f} s, "
            f"{'no fence' if extra is None else len(extra)} extra presses",
            presses_while_unplugged=2, delivered=len(got), delivered_as_made=got == expected,
            seconds_to_presses=round(delivered, 3), seconds_to_ok=round(ok_after, 3) if healthy else None,
            extra=None if extra is None else len(extra))
    assert got == expected
    assert healthy
    assert extra == []


def test_a_long_unplug_still_recovers(port: PtyPort, sim: KeypadSimulator,
                                                         finding: Callable[..., None]) -> None:
    failures = threading.Semaphore(0)

    def counting_open(path: str) -> SerialPort:
        try:
            return open_serial(path)
        except OSError:
            failures.release()
            raise

    host = HostRecorder(port.path, open_port=counting_open)
    with host.link:
        sim.press(1)
        assert host.take(1) == [KeyPress(1)]
        sim.unplug()
        port.unplug()
        unplugged = time.monotonic()
        for _ in range(5):  # the backoff has grown to its ceiling (0.05, 0.1, 0.2, 0.4, 0.5 s)
            assert failures.acquire(timeout=WAIT)
        sim.press(2)
        started = time.monotonic()
        sim.plug(port.replug())
        got = host.take(1)
        delivered = time.monotonic() - started
        extra = strays(sim, host)
    finding(f"unplugged for {started - unplugged:.2f} s (5 failed reopens, backoff at its ceiling), 1 press "
            f"made meanwhile: {len(got)} delivered {delivered:.3f} s after the replug, "
            f"{'no fence' if extra is None else len(extra)} extra presses",
            seconds_unplugged=round(started - unplugged, 2), failed_reopens=5, delivered=len(got),
            seconds_to_press=round(delivered, 3), extra=None if extra is None else len(extra))
    assert got == [KeyPress(2)]
    assert extra == []


def test_the_reopen_backoff_is_capped() -> None:
    """What bounds the time to recover from an unplug: the wait between two attempts to
    reopen a missing port doubles from 0.05 s and never passes 0.5 s. Read from the waits
    the link asks for, on no clock."""
    from cueboard.hw.keypad_link import KeypadLink

    asked: list[float] = []

    class Waits(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            asked.append(float(timeout or 0.0))
            if len(asked) >= 8:
                self.set()
            return self.is_set()

    def missing(path: str) -> SerialPort:
        raise FileNotFoundError(path)

    link = KeypadLink("/dev/nothing-here", lambda press: None, open_port=missing)
    link._stopping = Waits()
    link._run()  # on this thread: returns once the 8th wait has stopped it
    assert asked == [0.05, 0.1, 0.2, 0.4, 0.5, 0.5, 0.5, 0.5]
    assert link.health is LOST


def test_verdicts_queued_before_a_reconnect_are_dropped_not_beeped(port: PtyPort, sim: KeypadSimulator,
                                                                   host: HostRecorder) -> None:
    """A keypad plugged in again must not beep for a verdict on a press it made before: the
    host drops the verdicts it had queued, or sent without an acknowledgement."""
    sim.press(1)
    assert host.take(1) == [KeyPress(1)]
    assert host.wait_health(OK)
    sim.unplug()
    port.unplug()
    assert host.wait_health(LOST)
    host.link.feedback(False)  # the daemon's verdict on key 1, too late for this connection
    sim.reboot()  # unplugging a Pico powers it off
    sim.plug(port.replug())
    assert host.wait_health(OK)
    sim.press(2)
    assert host.take(1) == [KeyPress(2)]
    host.link.feedback(True)  # the verdict on key 2
    # Verdicts arrive in order: a stale one would have come before this one.
    assert sim.wait_for(lambda s: len(s.feedback) >= 1, WAIT)
    assert sim.feedback == [True]
    assert host.link.status()["stale_verdicts"] == 1


def test_a_verdict_sent_but_not_acknowledged_is_dropped_at_a_reconnect() -> None:
    """The host's end without a port: a verdict on the wire when the port went down is not
    sent again to the keypad plugged in after; the keypad takes the next one."""
    from cueboard.hw.keypad_link import HostProtocol

    host = HostProtocol(epoch=0x1111, now_ms=0)
    keypad = kp.Link(False, 0x2222, 0)

    def exchange(now: int) -> list[bytes]:
        """Frames both ways until quiet; the messages the keypad got."""
        got: list[bytes] = []
        for _ in range(10):
            to_keypad = b"".join(host.outgoing(now))
            to_host = b"".join(keypad.poll(now))
            got += keypad.feed(to_keypad, now)
            host.feed(to_host, now)
        return got

    for beat in range(3):  # heartbeats both ways: each end believes the other's epoch
        exchange(beat * kp.BEAT_MS)
    assert keypad.peer_epoch == 0x1111 and host.link.peer_epoch == 0x2222
    now = 3 * kp.BEAT_MS
    host.feedback(False)
    assert host.outgoing(now)  # on the wire, and lost with the port
    host.reconnected(now + 1000)
    assert host.link.pending() == 0 and host.counters()["stale_verdicts"] == 1
    host.feedback(True)
    assert exchange(now + 1000) == [kp.feedback_message(True)]
    assert keypad.gaps == 1  # the keypad counts the dropped verdict as lost, and goes on


def test_keypad_reboot_is_followed_and_its_old_frames_ignored(
        linked: tuple[KeypadSimulator, HostRecorder]) -> None:
    sim, host = linked
    sim.press(1)
    assert host.take(1) == [KeyPress(1)]
    old = kp.encode_frame(kp.KEYPAD_DATA, sim.link.epoch, 0, 0, 0, 0, kp.key_message(1))
    sim.reboot()
    sim.press(2)
    assert host.take(1) == [KeyPress(2)]
    for _ in range(3):
        sim.inject(old)
    fence(sim, host, [])
    assert host.link.status()["keypad_restarts"] == 1


def test_a_restarted_host_gets_what_the_keypad_holds(port: PtyPort, sim: KeypadSimulator) -> None:
    first = HostRecorder(port.path)
    with first.link:
        sim.press(1)
        assert first.take(1) == [KeyPress(1)]
        assert sim.wait_for(lambda s: s.pending == 0, WAIT)
    sim.press(2)
    sim.press(3)
    second = HostRecorder(port.path)
    with second.link:
        assert second.take(2) == [KeyPress(2), KeyPress(3)]
        fence(sim, second, [])


def test_verdicts_reach_the_keypad(linked: tuple[KeypadSimulator, HostRecorder]) -> None:
    sim, host = linked
    sim.press(2)
    assert host.take(1) == [KeyPress(2)]
    host.link.feedback(True)
    host.link.feedback(False)
    assert sim.wait_for(lambda s: s.feedback == [True, False], WAIT)


def test_a_key_the_host_does_not_have_is_refused(port: PtyPort, host: HostRecorder) -> None:
    with KeypadSimulator(port.master, rows=6, columns=4) as sim:
        sim.press(22)
        assert sim.wait_for(lambda s: s.feedback == [False], WAIT)
        fence(sim, host, [])
    assert host.link.status()["invalid_keys"] == 1


def test_a_port_with_no_keypad_is_silent_then_reopened(port: PtyPort) -> None:
    host = HostRecorder(port.path, reopen_silent_after=0.3)
    with host.link:
        assert host.wait_healths([SILENT, LOST, SILENT])
        assert host.link.opens >= 2
        with KeypadSimulator(port.master) as sim:
            sim.press(9)
            assert host.take(1) == [KeyPress(9)]
            assert host.wait_health(OK)
        port.master = -1  # closed by the simulator


def test_a_missing_port_is_lost_until_it_appears(tmp_path: Path, finding: Callable[..., None]) -> None:
    path = tmp_path / "not-yet"
    host = HostRecorder(path)
    with host.link:
        health_before = host.link.health
        master, slave = os.openpty()
        try:
            os.symlink(os.ttyname(slave), path)
            started = time.monotonic()
            with KeypadSimulator(master) as sim:
                sim.press(4)
                got = host.take(1)
                delivered = time.monotonic() - started
                healthy = host.wait_health(OK)
        finally:
            os.close(slave)
    finding(f"started with no port (health {health_before}); the port appeared and {len(got)} press came "
            f"{delivered:.3f} s later, health {'ok' if healthy else 'not ok'}",
            health_before=str(health_before), delivered=len(got), seconds_to_press=round(delivered, 3),
            healthy=healthy)
    assert health_before is LOST
    assert got == [KeyPress(4)]
    assert healthy


def test_a_failing_press_handler_does_not_stop_the_link(port: PtyPort, sim: KeypadSimulator) -> None:
    got: list[KeyPress] = []
    done = threading.Event()

    def handler(press: KeyPress) -> None:
        if press.index == 13:
            raise RuntimeError("engine said no")
        got.append(press)
        done.set()

    from cueboard.hw.keypad_link import KeypadLink

    with KeypadLink(str(port.path), handler):
        sim.press(13)
        sim.press(14)
        assert done.wait(WAIT)
    assert got == [KeyPress(14)]


def test_the_reader_survives_a_port_that_misbehaves(port: PtyPort, sim: KeypadSimulator) -> None:
    class Broken:
        in_waiting = 0

        def read(self, size: int = 1) -> bytes:
            raise ValueError("not what a port should raise")

        def write(self, data: bytes, /) -> int | None:
            return len(data)

        def close(self) -> None:
            pass

    opened: list[str] = []

    def open_port(path: str) -> SerialPort:
        opened.append(path)
        return Broken() if len(opened) == 1 else open_serial(path)

    host = HostRecorder(port.path, open_port=open_port)
    with host.link:
        sim.press(12)
        assert host.take(1) == [KeyPress(12)]
    assert len(opened) >= 2
