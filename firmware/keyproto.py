# GENERATED from hw/keyproto.py by scripts/firmware.py: do not edit this copy.
# Edit hw/keyproto.py, then run: python3 scripts/firmware.py sync
"""The keypad link: frames, their CRC, and the numbered, acknowledged message stream.

One implementation serves both ends. The host imports it as ``cueboard.hw.keyproto``;
the keypad's MicroPython firmware imports it as ``keyproto``: ``firmware/keyproto.py`` is
a copy of this file that ``scripts/firmware.py sync`` writes (a test fails when it is
stale). It therefore keeps to what CPython 3.11 and MicroPython 1.20 share: no
dataclasses, enums, ``typing`` or ``from __future__`` at run time, no adjacent f-strings
and no ``!r`` in them (MicroPython before 1.24 compiles neither), and annotations that name only built-in
types (MicroPython's compiler discards annotations; CPython evaluates them).

The wire format and the rules are specified in ``docs/keypad-protocol.md``, whose test
vectors both ends are tested against. In short, a frame is one line of text::

    ":" hex(header | payload | crc32) "\\n"

and each end numbers the messages it sends (``seq``), keeps each one until the other end
acknowledges it (``ack``), sends it again if no acknowledgement comes, and drops any it
receives twice. Neither end ever sends ``0x03`` (Ctrl-C) or any other control byte but
the newline, so the firmware keeps MicroPython's Ctrl-C and ``mpremote`` can always stop it.
"""

import struct

try:
    from binascii import crc32 as _crc32_binascii
except ImportError:  # a MicroPython build without binascii.crc32
    _crc32_binascii = None  # type: ignore[assignment]  # the name is a function where binascii has crc32; None marks the fallback below
from binascii import hexlify, unhexlify

VERSION = 1

# Frame kinds. Bit 7 says the host sent it; the keypad's and the host's kinds differ, so
# an end that hears its own frames echoed back (a terminal in echo mode, the MicroPython
# REPL) ignores them.
FROM_HOST = 0x80
DATA = 0x01  # carries one numbered message
BEAT = 0x02  # carries no message: a heartbeat and an acknowledgement
KEYPAD_DATA = DATA
KEYPAD_BEAT = BEAT
HOST_DATA = FROM_HOST | DATA
HOST_BEAT = FROM_HOST | BEAT
KINDS = (KEYPAD_DATA, KEYPAD_BEAT, HOST_DATA, HOST_BEAT)

# version u8, kind u8, epoch u32, seq u32, base u32, ack_epoch u32, ack u32 (big-endian)
HEADER = ">BBIIIII"
HEADER_SIZE = 22
CRC_SIZE = 4
MAX_PAYLOAD = 16
MIN_BODY = HEADER_SIZE + CRC_SIZE
MAX_BODY = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE
MAX_HEX = 2 * MAX_BODY
START = 0x3A  # ":"
END = 0x0A  # "\n" ("\r" ends a frame too)
U32 = 0xFFFFFFFF

# Messages (the payload of a DATA frame starts with the message type).
MSG_KEY = 0x01  # keypad -> host: key u8, flags u8
MSG_FEEDBACK = 0x02  # host -> keypad: verdict u8
KEY_HELD = 0x01  # flag: a long press
VERDICT_REFUSED = 0
VERDICT_ACCEPTED = 1

# Timing and sizes (milliseconds, messages); docs/keypad-protocol.md, "Timing".
WINDOW = 8
QUEUE_LIMIT = 32
RETRANSMIT_MS = 100
BEAT_MS = 250
LOST_MS = 1000
CONFIRM_FRAMES = 2
RETIRED_EPOCHS = 8


# CRC-32 (the ZIP/zlib one: reflected polynomial 0xEDB88320), from binascii where the
# build has it, else from a table.
_TABLE: list[int] = []


def crc32_table(data: bytes) -> int:
    """CRC-32 of ``data`` without binascii (equal to ``binascii.crc32``)."""
    if not _TABLE:
        for n in range(256):
            c = n
            for _ in range(8):
                c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
            _TABLE.append(c)
    crc = U32
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ U32


def crc32(data: bytes) -> int:
    """CRC-32 of ``data``: ``crc32(b"123456789") == 0xCBF43926``."""
    if _crc32_binascii is None:
        return crc32_table(data)
    return _crc32_binascii(data) & U32


def new_epoch(random4: bytes) -> int:
    """An epoch from four random bytes: 30 bits (a small int on MicroPython), never 0."""
    return (int.from_bytes(random4, "big") & 0x3FFFFFFF) or 1


class Frame:
    """One frame, decoded; the fields are those of docs/keypad-protocol.md, "Frame"."""

    def __init__(self, kind: int, epoch: int, seq: int, base: int, ack_epoch: int, ack: int,
                 payload: bytes = b"") -> None:
        self.kind = kind
        self.epoch = epoch
        self.seq = seq
        self.base = base
        self.ack_epoch = ack_epoch
        self.ack = ack
        self.payload = payload

    def fields(self) -> tuple[int, int, int, int, int, int, bytes]:
        return (self.kind, self.epoch, self.seq, self.base, self.ack_epoch, self.ack, self.payload)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Frame) and self.fields() == other.fields()

    def __repr__(self) -> str:
        # Joined with + and repr() rather than !r: MicroPython before 1.24 compiles neither
        # adjacent f-strings nor conversions.
        return (f"Frame(kind=0x{self.kind:02x}, epoch=0x{self.epoch:08x}, seq={self.seq}, base={self.base}, "
                + f"ack_epoch=0x{self.ack_epoch:08x}, ack={self.ack}, payload={repr(self.payload)})")  # noqa: RUF010


def encode_body(kind: int, epoch: int, seq: int, base: int, ack_epoch: int, ack: int,
                payload: bytes = b"") -> bytes:
    """The binary body of a frame: header, payload and CRC (before the hex)."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload longer than {MAX_PAYLOAD} bytes")
    body = struct.pack(HEADER, VERSION, kind, epoch, seq, base, ack_epoch, ack) + payload
    return body + struct.pack(">I", crc32(body))


def encode_frame(kind: int, epoch: int, seq: int, base: int, ack_epoch: int, ack: int,
                 payload: bytes = b"") -> bytes:
    """A frame as it goes on the wire: ``:`` + lowercase hex of the body + newline."""
    return b":" + hexlify(encode_body(kind, epoch, seq, base, ack_epoch, ack, payload)) + b"\n"


def decode_body(body: bytes) -> "Frame | None":
    """The frame in a binary body, or None if the body is not a valid frame."""
    if len(body) < MIN_BODY or len(body) > MAX_BODY:
        return None
    if crc32(body[:-CRC_SIZE]) != int.from_bytes(body[-CRC_SIZE:], "big"):
        return None
    version, kind, epoch, seq, base, ack_epoch, ack = struct.unpack(HEADER, body[:HEADER_SIZE])
    if version != VERSION or kind not in KINDS or epoch == 0 or base > seq:
        return None
    payload = body[HEADER_SIZE:-CRC_SIZE]
    if kind & DATA and not payload:
        return None
    return Frame(kind, epoch, seq, base, ack_epoch, ack, payload)


def decode_hex(digits: bytes) -> "Frame | None":
    """The frame in the hex digits between ``:`` and the newline, or None."""
    if len(digits) & 1 or len(digits) < 2 * MIN_BODY or len(digits) > MAX_HEX:
        return None
    try:
        body = unhexlify(digits)
    except ValueError:  # binascii.Error on CPython
        return None
    return decode_body(body)


def _first_delimiter(data: bytes, start: int) -> int:
    """Index of the first ``:``, ``\\n`` or ``\\r`` at or after ``start``, or -1."""
    first = -1
    for mark in (b":", b"\n", b"\r"):
        i = data.find(mark, start)
        if i >= 0 and (first < 0 or i < first):
            first = i
    return first


class FrameDecoder:
    """Turns a byte stream into frames; anything else in the stream is skipped.

    A frame starts at ``:`` and ends at ``\\n`` or ``\\r``. A ``:`` inside a frame starts
    the frame afresh, so a truncated frame never swallows the next one; a frame that is
    too long, not hex, or fails its CRC or checks is counted in ``rejected`` and dropped.
    """

    def __init__(self) -> None:
        self._digits = b""
        self._in_frame = False
        self.frames = 0
        self.rejected = 0

    def reset(self) -> None:
        """Forget a partly read frame (after the port was reopened)."""
        self._digits = b""
        self._in_frame = False

    def feed(self, data: bytes) -> list[Frame]:
        found = []
        i = 0
        n = len(data)
        while i < n:
            if not self._in_frame:
                j = data.find(b":", i)
                if j < 0:
                    break
                self._in_frame = True
                self._digits = b""
                i = j + 1
                continue
            k = _first_delimiter(data, i)
            end = n if k < 0 else k
            if len(self._digits) + end - i > MAX_HEX:
                self.rejected += 1
                self._in_frame = False
                self._digits = b""
                i = end  # a ":" there starts the next frame
                continue
            if k < 0:
                self._digits += data[i:]
                break
            digits = self._digits + data[i:k]
            self._digits = b""
            i = k + 1
            if data[k] == START:  # a new frame begins: the one before was cut short
                if digits:
                    self.rejected += 1
                continue
            self._in_frame = False
            frame = decode_hex(digits)
            if frame is None:
                self.rejected += 1
            else:
                self.frames += 1
                found.append(frame)
        return found


class Link:
    """One end of the link: a numbered, acknowledged stream of messages in each direction.

    Sending: ``send(message)`` queues a message (False when ``queue_limit`` are waiting);
    ``poll(now)`` returns the frames to write now: new messages (at most ``window`` not
    yet acknowledged), the unacknowledged ones again ``retransmit_ms`` after the last
    progress (go-back-N), and a BEAT when an acknowledgement is due or nothing was sent
    for ``beat_ms``. Receiving: ``feed(data, now)`` returns the messages that arrived, in
    order and each once. Time is whatever ``now`` the caller passes: milliseconds from a
    clock that never goes back.

    An epoch is a random number each end draws when it starts; a frame names the epoch
    of its sender and the epoch of the peer whose messages it acknowledges. A new peer
    epoch (the other end restarted) is believed only after ``CONFIRM_FRAMES`` valid frames
    name it; the epochs it replaces are remembered, and their frames ignored.
    """

    def __init__(self, from_host: bool, epoch: int, now: int, window: int = WINDOW,
                 queue_limit: int = QUEUE_LIMIT, retransmit_ms: int = RETRANSMIT_MS,
                 beat_ms: int = BEAT_MS, lost_ms: int = LOST_MS, beat_payload: bytes = b"") -> None:
        if not 0 < epoch <= U32:
            raise ValueError("epoch must be 1 .. 2**32 - 1")
        self.from_host = from_host
        self.epoch = epoch
        self.window = window
        self.queue_limit = queue_limit
        self.retransmit_ms = retransmit_ms
        self.beat_ms = beat_ms
        self.lost_ms = lost_ms
        self.beat_payload = beat_payload
        self.decoder = FrameDecoder()
        own = FROM_HOST if from_host else 0
        self._data_kind = own | DATA
        self._beat_kind = own | BEAT
        self._peer_kinds = (DATA, BEAT) if from_host else (HOST_DATA, HOST_BEAT)
        # Sending: _out[i] is message number base + i; the first _sent of them are on the wire.
        self.base = 0
        self._out: list[bytes] = []
        self._sent = 0
        self._high = 0  # one past the highest number ever on the wire
        self._retransmit_at = -1
        self._last_tx = now - beat_ms  # a BEAT goes out at the first poll
        self._ack_due = False
        # Receiving.
        self.peer_epoch = 0
        self.expected = 0
        self.peer_beat = b""  # the payload of the peer's last BEAT
        self._heard_at = -1
        self._candidate = 0
        self._candidate_frames = 0
        self._candidate_beat = b""
        self._retired: list[int] = []
        # Counters, for health reports and tests.
        self.frames_sent = 0
        self.retransmissions = 0
        self.delivered = 0
        self.duplicates = 0
        self.out_of_order = 0
        self.ignored = 0
        self.gaps = 0
        self.peer_restarts = 0

    # -- sending ---------------------------------------------------------------------

    def send(self, message: bytes) -> bool:
        """Queue a message; False (and nothing queued) when the queue is full."""
        if not message or len(message) > MAX_PAYLOAD:
            raise ValueError(f"a message is 1 to {MAX_PAYLOAD} bytes")
        if len(self._out) >= self.queue_limit:
            return False
        self._out.append(message)
        return True

    def pending(self) -> int:
        """Messages queued or sent and not yet acknowledged."""
        return len(self._out)

    def drop_pending(self) -> int:
        """Forget the messages queued or sent and not yet acknowledged; how many. The next
        frame's ``base`` moves past them, so the peer counts them lost (``gaps``) and takes
        what comes after: for news that is stale once the link was down (a verdict for a
        press the keypad made before it was unplugged)."""
        dropped = len(self._out)
        self.base += dropped
        if self._high < self.base:
            self._high = self.base
        self._out = []
        self._sent = 0
        return dropped

    def poll(self, now: int) -> list[bytes]:
        """The frames to write now (possibly none)."""
        frames = []
        if self._sent and now >= self._retransmit_at:
            self.retransmissions += self._sent
            self._sent = 0  # go back to the oldest unacknowledged message
        limit = len(self._out) if len(self._out) < self.window else self.window
        while self._sent < limit:
            if self._sent == 0:
                interval = self.retransmit_ms if self.peer_alive(now) else self.beat_ms
                self._retransmit_at = now + interval
            seq = self.base + self._sent
            frames.append(self._frame(self._data_kind, seq, self._out[self._sent]))
            self._sent += 1
            if seq >= self._high:
                self._high = seq + 1
        if not frames and (self._ack_due or now - self._last_tx >= self.beat_ms):
            frames.append(self._frame(self._beat_kind, self.base + len(self._out), self.beat_payload))
        if frames:
            self._ack_due = False
            self._last_tx = now
            self.frames_sent += len(frames)
        return frames

    def _frame(self, kind: int, seq: int, payload: bytes) -> bytes:
        return encode_frame(kind, self.epoch, seq, self.base, self.peer_epoch, self.expected, payload)

    def restart_transport(self, now: int) -> None:
        """The port was reopened: forget a partial frame, send everything unacknowledged
        again and a BEAT at once."""
        self.decoder.reset()
        self._sent = 0
        self._last_tx = now - self.beat_ms
        self._heard_at = -1

    # -- receiving -------------------------------------------------------------------

    def peer_alive(self, now: int) -> bool:
        """Whether a valid frame came from the peer within ``lost_ms``."""
        return self._heard_at >= 0 and now - self._heard_at < self.lost_ms

    def feed(self, data: bytes, now: int) -> list[bytes]:
        """Bytes from the wire in; the messages they complete out, in order, each once."""
        messages = []
        for frame in self.decoder.feed(data):
            message = self.receive(frame, now)
            if message is not None:
                messages.append(message)
        return messages

    def receive(self, frame: Frame, now: int) -> "bytes | None":
        """One decoded frame in; the message it delivers, if any."""
        if frame.kind not in self._peer_kinds or frame.epoch == self.epoch:
            self.ignored += 1  # our own frame, echoed
            return None
        if frame.epoch != self.peer_epoch and not self._adopt(frame):
            self.ignored += 1
            return None
        self._heard_at = now
        if frame.ack_epoch == self.epoch and self.base < frame.ack <= self._high:
            done = frame.ack - self.base
            self._out = self._out[done:]
            self._sent = self._sent - done if self._sent > done else 0
            self.base = frame.ack
            self._retransmit_at = now + self.retransmit_ms
        if frame.base > self.expected:
            # The peer dropped messages it believes we acknowledged: they are lost. Only a
            # corrupted acknowledgement that passed the CRC gets here; going on beats a
            # link stuck forever.
            self.gaps += frame.base - self.expected
            self.expected = frame.base
        if not frame.kind & DATA:
            self.peer_beat = frame.payload
            return None
        self._ack_due = True
        if frame.seq < self.expected:
            self.duplicates += 1
            return None
        if frame.seq > self.expected:
            self.out_of_order += 1  # one before it was lost; it will come again
            return None
        self.expected += 1
        self.delivered += 1
        return frame.payload

    def _adopt(self, frame: Frame) -> bool:
        """A frame names an epoch other than the peer's: whether to take it as the peer's."""
        epoch = frame.epoch
        if epoch in self._retired:
            return False
        if epoch != self._candidate:
            self._candidate = epoch
            self._candidate_frames = 0
            self._candidate_beat = b""
        self._candidate_frames += 1
        if not frame.kind & DATA:
            self._candidate_beat = frame.payload
        if self._candidate_frames < CONFIRM_FRAMES:
            return False
        if self.peer_epoch:
            self._retired.append(self.peer_epoch)
            if len(self._retired) > RETIRED_EPOCHS:
                self._retired = self._retired[1:]
            self.peer_restarts += 1
        self.peer_epoch = epoch
        self.expected = frame.base  # what came before, whoever listened then acknowledged
        self.peer_beat = self._candidate_beat
        self._candidate = 0
        self._candidate_frames = 0
        return True


# -- messages ---------------------------------------------------------------------------

def key_message(index: int, held: bool = False) -> bytes:
    """The keypad's message for a press of key ``index`` (a long press if ``held``)."""
    return bytes((MSG_KEY, index, KEY_HELD if held else 0))


def parse_key_message(message: bytes) -> "tuple[int, bool] | None":
    """(index, held) from a key message, or None if it is not a well-formed one."""
    if len(message) != 3 or message[0] != MSG_KEY or message[2] & ~KEY_HELD:
        return None
    return message[1], bool(message[2] & KEY_HELD)


def feedback_message(accepted: bool) -> bytes:
    """The host's verdict on the last input: the keypad beeps or lights accordingly."""
    return bytes((MSG_FEEDBACK, VERDICT_ACCEPTED if accepted else VERDICT_REFUSED))


def parse_feedback_message(message: bytes) -> "bool | None":
    """True (accepted) or False (refused) from a feedback message, or None."""
    if len(message) != 2 or message[0] != MSG_FEEDBACK or message[1] > VERDICT_ACCEPTED:
        return None
    return message[1] == VERDICT_ACCEPTED


def keypad_beat(rows: int, columns: int, firmware: int) -> bytes:
    """The payload of the keypad's BEAT: its matrix and firmware version."""
    return bytes((rows, columns, firmware))


def parse_keypad_beat(payload: bytes) -> "tuple[int, int, int] | None":
    """(rows, columns, firmware) from a keypad BEAT payload, or None."""
    if len(payload) != 3:
        return None
    return payload[0], payload[1], payload[2]
