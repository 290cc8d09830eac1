"""Scanning the key matrix, and turning its readings into presses.

Runs on MicroPython and, in the tests, on CPython with a fake ``machine``; nothing here
reads a clock: the caller passes ``now`` in milliseconds.
"""


class Matrix:
    """A key matrix without diodes: one row at a time is driven low, the others float
    (inputs), and the columns, pulled up, read low where a key joins them to that row.

    ``pin`` is ``machine.Pin`` (or a fake); ``settle``, if given, is called after driving
    a row, before reading (e.g. a few microseconds' wait for long wires).
    """

    def __init__(self, pin, rows, columns, settle=None):
        self._pin = pin
        self._rows = [pin(n, pin.IN) for n in rows]
        self._columns = [pin(n, pin.IN, pin.PULL_UP) for n in columns]
        self._settle = settle
        self.size = len(rows) * len(columns)

    def scan(self):
        """A list of booleans, one per key (True: down); None when the reading is
        ambiguous: without diodes, three keys at the corners of a rectangle make the
        fourth read as down (ghosting), so no key of such a reading is believed."""
        pin = self._pin
        down = []
        for row in self._rows:
            row.init(pin.OUT, value=0)
            if self._settle is not None:
                self._settle()
            for column in self._columns:
                down.append(column.value() == 0)
            row.init(pin.IN)
        return None if ghosting(down, len(self._columns)) else down


def ghosting(down, columns):
    """Whether two rows share two or more down columns (a rectangle of down keys)."""
    rows = []
    for start in range(0, len(down), columns):
        bits = 0
        for c in range(columns):
            if down[start + c]:
                bits |= 1 << c
        rows.append(bits)
    for i in range(len(rows)):
        for j in range(i + 1, len(rows)):
            shared = rows[i] & rows[j]
            if shared & (shared - 1):  # more than one bit
                return True
    return False


class Keys:
    """Debounced keys, reported as the host's keymaps expect (hw/keys.py, docs/keymaps.md).

    A press is reported once, as ``(index, False)``, when the key has read down for
    ``press_ms`` without a break: a glitch or a burst of bounce shorter than that makes
    nothing. It is reported once more, as ``(index, True)``, if the key is still down
    ``hold_ms`` after its first edge. A release counts only once the key has read up for
    ``debounce_ms`` without a break, so bouncing on release, or a key jostled while
    held, never makes a second press. A key already down at start makes nothing until
    it has been released. An ambiguous scan (None) restarts every key's count.
    """

    def __init__(self, size, press_ms, debounce_ms, hold_ms, now, down=None):
        self.press_ms = press_ms
        self.debounce_ms = debounce_ms
        self.hold_ms = hold_ms
        start = list(down) if down is not None else [False] * size
        self._raw = list(start)
        self._raw_since = [now] * size
        self._down = list(start)
        self._first_edge = [now] * size
        self._held = list(start)  # True once held is reported (or not to be)

    def update(self, down, now):
        """The reports made by the reading ``down`` (a list, or None) at ``now``."""
        events = []
        for i in range(len(self._raw)):
            if down is None:
                self._raw_since[i] = now
            elif down[i] != self._raw[i]:
                self._raw[i] = down[i]
                self._raw_since[i] = now
            steady = now - self._raw_since[i]
            if not self._down[i]:
                if self._raw[i] and steady >= self.press_ms:
                    self._down[i] = True
                    self._first_edge[i] = self._raw_since[i]
                    self._held[i] = False
                    events.append((i, False))
            elif not self._raw[i]:
                if steady >= self.debounce_ms:
                    self._down[i] = False
            elif not self._held[i] and now - self._first_edge[i] >= self.hold_ms:
                self._held[i] = True
                events.append((i, True))
        return events

    def is_down(self, index):
        return self._down[index]
