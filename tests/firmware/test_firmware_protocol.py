"""The firmware's copy of the protocol, loaded as the board loads it (firmware/keyproto.py,
a module of its own), against the vectors and the session of docs/keypad-protocol.md."""

from __future__ import annotations

from types import ModuleType

import pytest
from tests.helpers.keypad import (
    FrameVector,
    RejectVector,
    fresh_firmware_module,
    play_session,
    session_lines,
    vectors,
)

FRAMES, REJECTS = vectors()


@pytest.fixture(scope="module")
def firmware_proto() -> ModuleType:
    return fresh_firmware_module("keyproto")


@pytest.fixture(scope="module")
def table_crc_proto() -> ModuleType:
    # As on a MicroPython build without binascii.crc32.
    module = fresh_firmware_module("keyproto")
    module._crc32_binascii = None  # type: ignore[attr-defined]
    return module


@pytest.mark.parametrize("vector", FRAMES, ids=lambda v: v.name)
@pytest.mark.parametrize("proto_name", ["firmware_proto", "table_crc_proto"])
def test_frame_vectors(vector: FrameVector, proto_name: str, request: pytest.FixtureRequest) -> None:
    proto = request.getfixturevalue(proto_name)
    assert proto.encode_frame(*vector.fields) == vector.line
    (frame,) = proto.FrameDecoder().feed(vector.line)
    assert frame.fields() == vector.fields


@pytest.mark.parametrize("vector", REJECTS, ids=lambda v: v.name)
@pytest.mark.parametrize("proto_name", ["firmware_proto", "table_crc_proto"])
def test_reject_vectors(vector: RejectVector, proto_name: str, request: pytest.FixtureRequest) -> None:
    proto = request.getfixturevalue(proto_name)
    assert proto.FrameDecoder().feed(vector.line) == []


def test_session(table_crc_proto: ModuleType) -> None:
    documented = session_lines()
    steps = list(dict.fromkeys((t, sender) for t, sender, _ in documented))
    written, _, _ = play_session(table_crc_proto, steps)
    assert written == documented
