"""The feed's messages (``docs/mqtt.md``, ``schema/*.schema.json``): one builder a topic
(encoded by :func:`cueboard.contract.wire.encode`). Pure: the client
(:mod:`cueboard.table.mqtt.feed`) sends what these build.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cueboard.contract.codes import Reason
from cueboard.contract.lines import ECHO_BYTES, echo
from cueboard.contract.times import timestamp

SCHEMA = 1
"""The ``schema`` of the event, rejected and devices payloads (the state carries its own)."""


def state_payload(state: Mapping[str, Any], *, table: str, ts: str) -> dict[str, Any]:
    """``<prefix>/state``: the state of ``state.md``, plus ``table`` and ``ts``."""
    return {**state, "table": table, "ts": ts}


def event_payload(seq: int, event: Mapping[str, Any], *, ts: str) -> dict[str, Any]:
    """``<prefix>/event``: an applied event (undo and redo included) and the ``seq`` after it;
    the ``id`` and the ``user`` of a command from the network also beside the event."""
    payload: dict[str, Any] = {"schema": SCHEMA, "seq": seq, "event": dict(event)}
    for key in ("id", "user"):
        if isinstance(event.get(key), str):
            payload[key] = event[key]
    payload["ts"] = ts
    return payload


def rejected_payload(event: Mapping[str, Any] | None, reason: Reason, source: str, *, ts: str, user: str | None = None,
                     raw: bytes | None = None) -> dict[str, Any]:
    """``<prefix>/rejected``: a refused input (``event`` ``None`` when it was not even an event, or
    when it is longer than 1 KiB: then ``input`` has its first 1 KiB and ``length`` its bytes;
    ``id`` and ``type`` when it had them; ``user``: who sent it over the command topic). ``raw``:
    the bytes as they came, for an input that is not an event. The reason is cut at 1 KiB too;
    ``code`` (what a client does about it) and ``short`` (what exactly) are the reason's
    machine codes (:mod:`cueboard.contract.codes`): clients decide on them, never the words."""
    said = echo(None if event is None else dict(event), raw)
    words = str(reason) if len(reason) <= ECHO_BYTES else reason[:ECHO_BYTES] + "..."
    payload: dict[str, Any] = {"schema": SCHEMA, **said, "reason": words, "code": reason.code, "short": reason.short,
                               "source": source}
    if user is not None:
        payload["user"] = user
    payload["ts"] = ts
    return payload


def input_payload(source: str, keys: Sequence[str], next_: str, *, expires_at: float | None, expired: bool,
                  ts: str) -> dict[str, Any]:
    """``<prefix>/input``: what a referee box or the keypad has keyed so far and what it waits
    for, or ``"expired": true`` with the keys of a call that lapsed."""
    payload: dict[str, Any] = {"schema": SCHEMA, "source": source, "keys": list(keys)}
    if expired:
        payload["expired"] = True
    else:
        payload["next"] = next_
        payload["expires_at"] = None if expires_at is None else timestamp(expires_at)
    payload["ts"] = ts
    return payload


def record_payload(record: Mapping[str, Any], *, table: str, ts: str) -> dict[str, Any]:
    """``<prefix>/record``: the match record of ``record.md``, plus ``table`` and ``ts``."""
    return {**record, "table": table, "ts": ts}


def archived_payload(key: str, digest: str, *, match_id: str | None, ts: str) -> dict[str, Any]:
    """``<prefix>/archived/<login>``: an archive stored the record it read on
    ``<prefix>/record/<key>``, whose payload's SHA-256 is ``digest`` (hex): the table clears that
    retained record if it still holds those very bytes (docs/league.md, "Never a match missed")."""
    return {"schema": SCHEMA, "record": key, "digest": digest, "match_id": match_id, "ts": ts}


def devices_payload(devices: Mapping[str, str], *, ts: str) -> dict[str, Any]:
    """``<prefix>/devices``: each device's health, with ``schema`` and ``ts``."""
    return {"schema": SCHEMA, **devices, "ts": ts}
