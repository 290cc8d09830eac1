"""Fuzzing the host's decoder: a million bytes of noise, mangled frames, replays, frames
out of order and strangers' frames, around the frames of real presses. No exception
may escape, and exactly the real presses come out, in order, once each.

``pytest --long`` also runs 20 million bytes with other seeds.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from cueboard.hw import keyproto as kp
from cueboard.hw.keypad_link import HostProtocol
from cueboard.hw.keys import KeyPress

EPOCH = 0x12345678
HOST_EPOCH = 0x0BADCAFE
HEXISH = b"0123456789abcdef:\r\n"


@dataclass
class Stream:
    chunks: list[bytes]
    presses: list[KeyPress]
    junk: int  # bytes of noise, mangled, replayed, early and strangers' frames
    size: int


def key_frame(seq: int, press: KeyPress, base: int, epoch: int = EPOCH, kind: int = kp.KEYPAD_DATA) -> bytes:
    return kp.encode_frame(kind, epoch, seq, base, HOST_EPOCH, 0, kp.key_message(press.index, press.held))


def mutate(rng: random.Random, frame: bytes) -> bytes:
    """A frame with one to a few random changes."""
    data = bytearray(frame)
    for _ in range(rng.randint(1, 4)):
        how = rng.randrange(7)
        i = rng.randrange(len(data)) if data else 0
        if how == 0 and data:
            data[i] ^= 1 << rng.randrange(8)  # a flipped bit
        elif how == 1 and data:
            data[i] = rng.choice(b"0123456789abcdef")  # another digit
        elif how == 2:
            del data[i:i + rng.randint(1, 8)]  # bytes lost
        elif how == 3:
            data[i:i] = rng.randbytes(rng.randint(1, 8))  # bytes added
        elif how == 4:
            data = data[:rng.randrange(len(data) + 1)]  # cut short
        elif how == 5 and data:
            j = rng.randrange(len(data))
            data[i], data[j] = data[j], data[i]  # two swapped
        else:
            data[i:i] = b"\n"  # a line break inside
    return bytes(data)


def make_stream(seed: int, size: int) -> Stream:
    rng = random.Random(seed)
    upcoming = [KeyPress(rng.randrange(20), rng.random() < 0.2) for _ in range(size // 200 + 10)]
    chunks = [kp.encode_frame(kp.KEYPAD_BEAT, EPOCH, 0, 0, 0, 0, kp.keypad_beat(4, 5, 1))] * 2
    sent: list[bytes] = []
    seq = 0
    junk = 0
    total = sum(map(len, chunks))
    while junk < size or seq == 0:
        r = rng.random()
        if r < 0.20:
            piece = rng.randbytes(rng.randint(1, 300))
        elif r < 0.40:
            piece = bytes(rng.choice(HEXISH) for _ in range(rng.randint(1, 300)))
        elif r < 0.70:
            target = rng.randrange(max(1, seq + 3))
            piece = mutate(rng, key_frame(target, upcoming[target], min(target, seq)))
        elif r < 0.78 and sent:
            piece = rng.choice(sent)  # a replay
        elif r < 0.83:
            ahead = seq + rng.randint(1, 5)  # out of order: a later message before its time
            piece = key_frame(ahead, upcoming[ahead], seq)
        elif r < 0.86:
            piece = key_frame(0, upcoming[seq], 0, epoch=rng.randrange(1, 2**32))  # a stranger, once
        elif r < 0.88:
            piece = key_frame(seq, upcoming[seq], seq, kind=kp.HOST_DATA)  # a host frame (echo)
        else:
            piece = key_frame(seq, upcoming[seq], seq)
            sent.append(piece)
            seq += 1
            junk -= len(piece)
        chunks.append(piece)
        total += len(piece)
        junk += len(piece)
    return Stream(chunks, upcoming[:seq], junk, total)


def feed(stream: Stream, seed: int) -> tuple[list[KeyPress], HostProtocol]:
    rng = random.Random(seed)
    data = b"".join(stream.chunks)
    protocol = HostProtocol(epoch=HOST_EPOCH)
    out: list[KeyPress] = []
    now = 0
    i = 0
    while i < len(data):
        n = rng.randint(1, 4096)
        now += 1
        out += protocol.feed(data[i:i + n], now)
        if now % 64 == 0:
            protocol.outgoing(now)
        i += n
    return out, protocol


def fuzz(seed: int, size: int, finding: Callable[..., None]) -> None:
    stream = make_stream(seed, size)
    assert stream.junk >= size
    started = time.perf_counter()
    presses, protocol = feed(stream, seed)
    elapsed = time.perf_counter() - started
    counters = protocol.counters()
    matched = sum(1 for got, sent in zip(presses, stream.presses, strict=False) if got == sent)
    missing, extra = len(stream.presses) - matched, len(presses) - matched
    finding(f"fuzz seed {seed}: {stream.size:,} bytes ({stream.junk:,} of them noise, mangled, replayed, early "
            f"or strangers' frames) around {len(stream.presses)} real presses: {matched} came out, in order, "
            f"{missing} missing, {extra} extra; {counters['rejected_frames']:,} frames rejected, "
            f"{counters['duplicates']:,} duplicates and {counters['out_of_order']:,} out of order dropped, "
            f"{counters['lost_messages']} lost; {stream.size / elapsed:,.0f} bytes/s",
            seed=seed, bytes=stream.size, junk_bytes=stream.junk, real_presses=len(stream.presses),
            presses_out=len(presses), matching_in_order=matched, missing=missing, extra=extra, counters=counters,
            bytes_per_second=round(stream.size / elapsed))
    assert presses == stream.presses
    assert counters["rejected_frames"] > 0 and counters["duplicates"] > 0 and counters["out_of_order"] > 0
    assert counters["lost_messages"] == 0 and counters["invalid_keys"] == 0


def test_a_million_fuzzed_bytes_give_exactly_the_real_presses(finding: Callable[..., None]) -> None:
    fuzz(seed=2024, size=1_000_000, finding=finding)


def test_pure_noise_gives_nothing() -> None:
    rng = random.Random(7)
    protocol = HostProtocol(epoch=HOST_EPOCH)
    for now in range(250):
        data = rng.randbytes(2000) if now % 2 else bytes(rng.choice(HEXISH) for _ in range(2000))
        assert protocol.feed(data, now) == []
    assert protocol.link.peer_epoch == 0


def test_the_keypads_decoder_takes_only_real_verdicts() -> None:
    # The firmware runs the same Link: mangled host frames never make it beep.
    rng = random.Random(11)
    keypad = kp.Link(False, EPOCH, 0)
    verdicts = [rng.random() < 0.5 for _ in range(500)]
    frames = [kp.encode_frame(kp.HOST_DATA, HOST_EPOCH, i, i, EPOCH, 0, kp.feedback_message(v))
              for i, v in enumerate(verdicts)]
    beat = kp.encode_frame(kp.HOST_BEAT, HOST_EPOCH, 0, 0, 0, 0, b"")
    got = keypad.feed(beat + beat, 0)
    for i, frame in enumerate(frames):
        for _ in range(rng.randint(0, 6)):
            got += keypad.feed(mutate(rng, rng.choice(frames[:i + 3])), i)
        got += keypad.feed(rng.randbytes(rng.randint(0, 100)) + frame, i)
    assert got == [kp.feedback_message(v) for v in verdicts]


@pytest.mark.long
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_twenty_million_fuzzed_bytes(seed: int, finding: Callable[..., None]) -> None:  # four times five million
    fuzz(seed=seed, size=5_000_000, finding=finding)
