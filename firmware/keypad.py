"""The marker's keypad: scan the keys, send each press to the host until it is
acknowledged, and show the host's verdicts. The protocol is ``keyproto`` (shared with
the host; see docs/keypad-protocol.md), over the board's USB serial (stdin/stdout).

``Keypad.step(now)`` does one round and never waits, so the tests run it on CPython
with a fake ``machine``, a fake port and their own clock; ``run()`` is the loop on the
board.
"""

import keyproto
from indicator import Indicator
from matrix import Keys, Matrix

FIRMWARE = 2  # reported to the host in every heartbeat; the host ships the same (hw/keypad_link.py)


class Keypad:
    def __init__(self, matrix, keys, indicator, link, port):
        self.matrix = matrix
        self.keys = keys
        self.indicator = indicator
        self.link = link
        self.port = port
        self.refused_locally = 0

    def step(self, now):
        """One round at ``now`` (milliseconds, never going back)."""
        data = self.port.read()
        if data:
            for message in self.link.feed(data, now):
                verdict = keyproto.parse_feedback_message(message)
                if verdict is not None:
                    self.indicator.show(verdict, now)
        for index, held in self.keys.update(self.matrix.scan(), now):
            if not self.link.send(keyproto.key_message(index, held)):
                # The host has not taken the last QUEUE_LIMIT presses: say no at once.
                self.refused_locally += 1
                self.indicator.show(False, now)
        for frame in self.link.poll(now):
            self.port.write(frame)
        self.indicator.update(now, self.link.peer_alive(now))


def build(pin, config, port, now, epoch, settle=None):
    """A keypad wired as ``config`` says (see keypad_config.py), talking on ``port``."""
    matrix = Matrix(pin, config.ROWS, config.COLUMNS, settle)
    keys = Keys(matrix.size, config.PRESS_MS, config.DEBOUNCE_MS, config.HOLD_MS, now, _first_scan(matrix))
    indicator = Indicator(pin, config.BUZZER, config.LED_ACCEPTED, config.LED_REFUSED, config.LED_STATUS)
    beat = keyproto.keypad_beat(len(config.ROWS), len(config.COLUMNS), FIRMWARE)
    link = keyproto.Link(False, epoch, now, beat_payload=beat)
    return Keypad(matrix, keys, indicator, link, port)


def _first_scan(matrix):
    down = matrix.scan()
    return down if down is not None else [False] * matrix.size


def safe_mode_requested(pin, config):
    """Whether the safe-mode key is down now (main.py then leaves the board at the REPL)."""
    down = Matrix(pin, config.ROWS, config.COLUMNS).scan()
    return down is not None and down[config.SAFE_MODE_KEY]


class Clock:
    """Milliseconds since start that never wrap (``time.ticks_ms`` wraps)."""

    def __init__(self, ticks_ms, ticks_diff):
        self._ticks_ms = ticks_ms
        self._ticks_diff = ticks_diff
        self._last = ticks_ms()
        self._now = 0

    def now(self):
        t = self._ticks_ms()
        self._now += self._ticks_diff(t, self._last)
        self._last = t
        return self._now


class UsbSerial:
    """The board's USB serial as MicroPython gives it: stdin and stdout, never waiting.
    Ctrl-C (never part of a frame) still interrupts, so mpremote can stop the keypad."""

    def __init__(self, stdin, stdout, select):
        self._in = stdin.buffer
        self._out = stdout.buffer
        self._poll = select.poll()
        self._poll.register(stdin, select.POLLIN)

    def read(self, limit=128):
        data = b""
        while len(data) < limit and self._poll.poll(0):
            data += self._in.read(1)
        return data

    def write(self, frame):
        self._out.write(frame)


def _epoch(os, time):
    try:
        return keyproto.new_epoch(os.urandom(4))
    except (AttributeError, NotImplementedError):
        return keyproto.new_epoch(time.ticks_us().to_bytes(4, "big"))


def run():
    """The keypad, forever. On an unexpected error: print it, give Ctrl-C three seconds
    to reach the REPL, then reset the board."""
    import machine
    import os
    import select
    import sys
    import time

    import keypad_config

    clock = Clock(time.ticks_ms, time.ticks_diff)
    port = UsbSerial(sys.stdin, sys.stdout, select)
    keypad = build(machine.Pin, keypad_config, port, clock.now(), _epoch(os, time), lambda: time.sleep_us(10))
    try:
        while True:
            keypad.step(clock.now())
            time.sleep_ms(1)
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # noqa: BLE001 - the keypad must come back by itself
        sys.print_exception(exc)
        time.sleep_ms(3000)
        machine.reset()
