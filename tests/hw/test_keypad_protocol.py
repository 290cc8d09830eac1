"""The keypad protocol (hw/keyproto.py): frames, the vectors of docs/keypad-protocol.md,
and the reliable stream of ``Link`` over channels that lose, repeat, reorder and corrupt."""

from __future__ import annotations

import random
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cueboard.hw import keyproto as kp
from tests.helpers.keypad import (
    HOST_EPOCH,
    KEYPAD_EPOCH,
    FrameVector,
    RejectVector,
    play_session,
    session_lines,
    vectors,
)

FRAMES, REJECTS = vectors()
KEY7 = FRAMES[0].line


def test_the_doc_has_its_vectors() -> None:
    assert len(FRAMES) >= 6 and len(REJECTS) >= 12
    kinds = {v.fields[0] for v in FRAMES}
    assert kinds == set(kp.KINDS)


def test_crc_check_value() -> None:
    assert kp.crc32(b"123456789") == 0xCBF43926
    assert kp.crc32_table(b"123456789") == 0xCBF43926


@given(st.binary(max_size=64))
def test_table_crc_is_binascii_crc(data: bytes) -> None:
    # The firmware falls back to the table where MicroPython has no binascii.crc32.
    assert kp.crc32_table(data) == zlib.crc32(data) == kp.crc32(data)


@pytest.mark.parametrize("vector", FRAMES, ids=lambda v: v.name)
def test_frame_vector_encodes_to_the_doc_bytes(vector: FrameVector) -> None:
    assert kp.encode_frame(*vector.fields) == vector.line


@pytest.mark.parametrize("vector", FRAMES, ids=lambda v: v.name)
def test_frame_vector_decodes_to_its_fields(vector: FrameVector) -> None:
    (frame,) = kp.FrameDecoder().feed(vector.line)
    assert frame.fields() == vector.fields


@pytest.mark.parametrize("vector", FRAMES, ids=lambda v: v.name)
def test_frame_vector_crc_is_zlib_crc32(vector: FrameVector) -> None:
    body = bytes.fromhex(vector.line[1:-1].decode())
    assert zlib.crc32(body[:-4]) == int.from_bytes(body[-4:], "big")


@pytest.mark.parametrize("vector", REJECTS, ids=lambda v: v.name)
def test_reject_vector_decodes_to_nothing(vector: RejectVector) -> None:
    assert kp.FrameDecoder().feed(vector.line) == []
    assert kp.FrameDecoder().feed(vector.line.rstrip(b"\n")) == []
    decoder = kp.FrameDecoder()
    assert [f for i in range(len(vector.line)) for f in decoder.feed(vector.line[i:i + 1])] == []
    assert decoder.rejected == 1
    # ... and does not spoil the frame after it.
    assert len(kp.FrameDecoder().feed(vector.line.rstrip(b"\n") + KEY7)) == 1


def test_session_in_the_doc_is_what_the_link_writes() -> None:
    documented = session_lines()
    steps = list(dict.fromkeys((t, sender) for t, sender, _ in documented))
    written, to_keypad, to_host = play_session(kp, steps)
    assert written == documented
    assert to_host == [kp.key_message(7), kp.key_message(3)]
    assert to_keypad == [kp.feedback_message(True)]


# -- the decoder ------------------------------------------------------------------------

def test_every_single_byte_change_of_a_frame_is_rejected() -> None:
    for i in range(len(KEY7)):
        for value in range(256):
            if value == KEY7[i]:
                continue
            mutated = KEY7[:i] + bytes([value]) + KEY7[i + 1:]
            frames = kp.FrameDecoder().feed(mutated)
            # Only changing the hex digits' case, or the end of line to "\r", leaves the frame.
            assert frames == [] or frames == [kp.decode_hex(KEY7[1:-1])], (i, value)


def test_a_truncated_frame_does_not_swallow_the_next() -> None:
    decoder = kp.FrameDecoder()
    assert decoder.feed(KEY7[:30] + KEY7 + KEY7[:-1] + b"\r\n") == [kp.decode_hex(KEY7[1:-1])] * 2
    assert decoder.rejected == 1


def test_an_endless_line_is_dropped_without_growing() -> None:
    decoder = kp.FrameDecoder()
    for _ in range(1000):
        assert decoder.feed(b"0123456789abcdef" * 64) == []
    assert decoder.feed(b":" + b"0" * 10_000 + b"\n" + KEY7) != []
    assert len(decoder._digits) == 0


def test_noise_around_frames_is_skipped() -> None:
    stream = b"MicroPython v1.23 on 2024-06-02\r\n>>> :\n:zz\r" + KEY7 + b"Traceback ...\r\n" + KEY7
    assert len(kp.FrameDecoder().feed(stream)) == 2


@settings(max_examples=200)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=30), st.data())
def test_any_split_of_a_stream_decodes_the_same(pieces: list[int], data: st.DataObject) -> None:
    parts = [KEY7, FRAMES[2].line, b"noise:\x00\xff\n", KEY7[:20], REJECTS[0].line]
    stream = b"".join(parts[p] for p in pieces)
    whole = kp.FrameDecoder().feed(stream)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    decoder = kp.FrameDecoder()
    split = []
    for start, end in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        split += decoder.feed(stream[start:end])
    assert split == whole


@given(st.sampled_from(kp.KINDS), st.integers(1, 2**32 - 1), st.integers(0, 2**32 - 1),
       st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1),
       st.binary(min_size=1, max_size=16))
def test_any_frame_round_trips(kind: int, epoch: int, seq: int, base: int, ack_epoch: int, ack: int,
                               payload: bytes) -> None:
    base = min(base, seq)
    line = kp.encode_frame(kind, epoch, seq, base, ack_epoch, ack, payload)
    assert line.startswith(b":") and line.endswith(b"\n") and all(32 < c < 127 for c in line[:-1])
    (frame,) = kp.FrameDecoder().feed(line)
    assert frame.fields() == (kind, epoch, seq, base, ack_epoch, ack, payload)


def test_messages() -> None:
    assert kp.parse_key_message(kp.key_message(19, held=True)) == (19, True)
    assert kp.parse_key_message(kp.key_message(0)) == (0, False)
    assert kp.parse_key_message(b"\x01\x03\x02") is None  # unknown flag
    assert kp.parse_key_message(b"\x01\x03") is None
    assert kp.parse_feedback_message(kp.feedback_message(False)) is False
    assert kp.parse_feedback_message(b"\x02\x02") is None
    assert kp.parse_keypad_beat(kp.keypad_beat(5, 4, 1)) == (5, 4, 1)
    assert kp.new_epoch(b"\x00\x00\x00\x00") == 1
    assert kp.new_epoch(b"\xff\xff\xff\xff") == 0x3FFFFFFF


# -- the link -------------------------------------------------------------------------

class Pair:
    """A keypad Link and a host Link joined by a channel the test controls."""

    def __init__(self, seed: int = 0, keypad_epoch: int = KEYPAD_EPOCH, host_epoch: int = HOST_EPOCH) -> None:
        self.now = 0
        self.keypad = kp.Link(False, keypad_epoch, 0, beat_payload=kp.keypad_beat(5, 4, 1))
        self.host = kp.Link(True, host_epoch, 0)
        self.to_host: list[bytes] = []
        self.to_keypad: list[bytes] = []
        self.wire: list[bytes] = []  # every frame the keypad wrote
        self.rng = random.Random(seed)

    def step(self, ms: int = 10, *, loss: float = 0.0, dup: float = 0.0, corrupt: float = 0.0,
             reorder: float = 0.0) -> None:
        self.now += ms
        for sender, receiver, sink in ((self.keypad, self.host, self.to_host),
                                       (self.host, self.keypad, self.to_keypad)):
            frames = sender.poll(self.now)
            if sender is self.keypad:
                self.wire += frames
            out: list[bytes] = []
            for frame in frames:
                r = self.rng.random()
                if r < loss:
                    continue
                if r < loss + corrupt:
                    i = self.rng.randrange(1, len(frame) - 1)
                    frame = frame[:i] + bytes([self.rng.choice(b"0123456789abcdef")]) + frame[i + 1:]
                out.append(frame)
                if self.rng.random() < dup:
                    out.append(frame)
            if len(out) > 1 and self.rng.random() < reorder:
                self.rng.shuffle(out)
            for frame in out:
                sink += receiver.feed(frame, self.now)

    def run(self, ms: int, **channel: float) -> None:
        for _ in range(ms // 10):
            self.step(10, **channel)


def test_link_delivers_in_order_once_and_acknowledges() -> None:
    pair = Pair()
    pair.run(300)
    for key in range(20):
        assert pair.keypad.send(kp.key_message(key))
    pair.host.send(kp.feedback_message(True))
    pair.run(300)
    assert pair.to_host == [kp.key_message(key) for key in range(20)]
    assert pair.to_keypad == [kp.feedback_message(True)]
    assert pair.keypad.pending() == 0 and pair.host.pending() == 0
    assert pair.keypad.retransmissions == 0
    assert kp.parse_keypad_beat(pair.host.peer_beat) == (5, 4, 1)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.floats(0, 0.5), st.floats(0, 0.5), st.floats(0, 0.3), st.floats(0, 0.5))
def test_link_recovers_from_any_bad_channel(seed: int, loss: float, dup: float, corrupt: float,
                                            reorder: float) -> None:
    pair = Pair(seed)
    presses = [kp.key_message(i % 20, held=i % 3 == 0) for i in range(40)]
    verdicts = [kp.feedback_message(i % 2 == 0) for i in range(10)]
    pending_presses, pending_verdicts = list(presses), list(verdicts)
    for _ in range(300):
        if pending_presses and pair.keypad.send(pending_presses[0]):
            pending_presses.pop(0)
        if pending_verdicts and pair.host.send(pending_verdicts[0]):
            pending_verdicts.pop(0)
        pair.step(10, loss=loss, dup=dup, corrupt=corrupt, reorder=reorder)
        # Whatever the channel does, nothing is delivered twice or out of order.
        assert pair.to_host == presses[:len(pair.to_host)]
        assert pair.to_keypad == verdicts[:len(pair.to_keypad)]
    while pending_presses or pending_verdicts:  # queues full: feed the rest over a clean line
        if pending_presses and pair.keypad.send(pending_presses[0]):
            pending_presses.pop(0)
        if pending_verdicts and pair.host.send(pending_verdicts[0]):
            pending_verdicts.pop(0)
        pair.step(10)
    pair.run(1000)  # a clean line: everything gets through
    assert pair.to_host == presses
    assert pair.to_keypad == verdicts


def test_replayed_frames_deliver_nothing() -> None:
    pair = Pair()
    pair.run(300)
    pair.keypad.send(kp.key_message(5))
    pair.run(100)
    assert pair.to_host == [kp.key_message(5)]
    for frame in pair.wire:
        assert pair.host.feed(frame, pair.now) == []
    assert pair.host.duplicates >= 1


def test_keypad_restart_is_followed_and_its_old_epoch_ignored() -> None:
    pair = Pair()
    pair.run(300)
    pair.keypad.send(kp.key_message(1))
    pair.run(100)
    old_wire = list(pair.wire)
    pair.keypad = kp.Link(False, 0x2222, pair.now)  # power-cycled: numbering from 0 again
    pair.keypad.send(kp.key_message(2))
    pair.run(600)
    assert pair.to_host == [kp.key_message(1), kp.key_message(2)]
    assert pair.host.peer_epoch == 0x2222 and pair.host.peer_restarts == 1
    for frame in old_wire:  # the old session's message 0 must not come back as new
        assert pair.host.feed(frame, pair.now) == []


def test_one_frame_from_a_stranger_does_not_take_over() -> None:
    pair = Pair()
    pair.run(300)
    stranger = kp.encode_frame(kp.KEYPAD_DATA, 0x3333, 0, 0, HOST_EPOCH, 0, kp.key_message(9))
    assert pair.host.feed(stranger, pair.now) == []
    pair.keypad.send(kp.key_message(4))
    pair.run(100)
    assert pair.to_host == [kp.key_message(4)]
    assert pair.host.peer_epoch == KEYPAD_EPOCH


def test_host_restart_gets_what_the_keypad_still_holds() -> None:
    pair = Pair()
    pair.run(300)
    pair.keypad.send(kp.key_message(1))
    pair.run(100)
    pair.host = kp.Link(True, 0x4444, pair.now)  # the daemon restarted
    pair.keypad.send(kp.key_message(2))
    pair.keypad.send(kp.key_message(3))
    pair.run(600)
    assert pair.to_host == [kp.key_message(k) for k in (1, 2, 3)]


def test_acks_for_another_epoch_or_unsent_messages_are_ignored() -> None:
    link = kp.Link(False, KEYPAD_EPOCH, 0)
    link.send(kp.key_message(1))
    link.send(kp.key_message(2))
    link.poll(0)
    beat = kp.encode_frame(kp.HOST_BEAT, HOST_EPOCH, 0, 0, 0x9999, 2, b"")
    for _ in range(2):
        link.feed(beat, 1)
    assert link.pending() == 2
    link.feed(kp.encode_frame(kp.HOST_BEAT, HOST_EPOCH, 0, 0, KEYPAD_EPOCH, 3, b""), 2)
    assert link.pending() == 2  # 3 would acknowledge a message never sent
    link.feed(kp.encode_frame(kp.HOST_BEAT, HOST_EPOCH, 0, 0, KEYPAD_EPOCH, 1, b""), 3)
    assert link.pending() == 1 and link.base == 1


def test_own_frames_echoed_back_are_ignored() -> None:
    link = kp.Link(False, KEYPAD_EPOCH, 0)
    link.send(kp.key_message(1))
    for frame in link.poll(0) * 3:
        assert link.feed(frame, 1) == []
    assert link.ignored == 3 and link.peer_epoch == 0


def test_queue_and_window_limits() -> None:
    link = kp.Link(False, KEYPAD_EPOCH, 0)
    assert all(link.send(kp.key_message(i % 20)) for i in range(kp.QUEUE_LIMIT))
    assert not link.send(kp.key_message(0))
    assert len(link.poll(0)) == kp.WINDOW
    assert link.poll(50) == []
    assert len(link.poll(kp.BEAT_MS)) == kp.WINDOW  # no peer heard: resent at the heartbeat rate
    with pytest.raises(ValueError):
        link.send(b"")


def test_heartbeats_and_liveness() -> None:
    pair = Pair()
    pair.run(300)
    assert pair.host.peer_alive(pair.now)
    before = pair.keypad.frames_sent
    pair.run(2500)
    assert pair.keypad.frames_sent - before == 10  # one every 250 ms, nothing more
    quiet = pair.now  # the keypad's last frame came at most BEAT_MS before
    assert pair.host.peer_alive(quiet + kp.LOST_MS - kp.BEAT_MS)
    assert not pair.host.peer_alive(quiet + kp.LOST_MS)


def test_a_base_beyond_expected_skips_and_counts_the_gap() -> None:
    host = kp.Link(True, HOST_EPOCH, 0)
    for seq in (0, 0):
        host.feed(kp.encode_frame(kp.KEYPAD_BEAT, KEYPAD_EPOCH, seq, 0, 0, 0, b""), 0)
    assert host.expected == 0
    frame = kp.encode_frame(kp.KEYPAD_DATA, KEYPAD_EPOCH, 3, 3, HOST_EPOCH, 0, kp.key_message(8))
    assert host.feed(frame, 1) == [kp.key_message(8)]
    assert host.gaps == 3
