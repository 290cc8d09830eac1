"""schema/event.schema.json names the fields of the rulings the contract gained (issue 39): the
event payload of each, as the engine writes it back (``to_json``), is valid, and a mistyped one is
not. (Every state and the other payloads: tests/table/test_feed_schema.py.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from cueboard.contract.payloads import event_payload
from cueboard.engine import Match, to_json

ROOT = Path(__file__).resolve().parents[2]
EVENT = jsonschema.Draft202012Validator(json.loads((ROOT / "schema" / "event.schema.json").read_text()))
TS = "2026-11-29T00:00:00Z"

SNOOKER = {"type": "match", "game": "snooker", "sides": ["Ann", "Bob"]}
BLACKBALL = {"type": "match", "game": "blackball", "sides": ["Ann", "Bob"]}


@pytest.mark.parametrize(("setup", "line"), [
    (SNOOKER, {"type": "no_pot", "safety": True}),
    (SNOOKER, {"type": "no_pot", "safety": False}),
    (SNOOKER, {"type": "foul", "points": 4, "non_striker": "Bob"}),
    (SNOOKER, {"type": "foul", "points": 4, "out_of_turn": "Bob"}),
    (SNOOKER, {"type": "award", "side": 1, "reason": "miss"}),
    (BLACKBALL, {"type": "touching", "ball": "red"}),
    (BLACKBALL, {"type": "clock_hold", "reason": "touching"}),
    (BLACKBALL, {"type": "foul", "reason": "time"}),
])
def test_the_rulings_event_payloads_are_valid(setup: dict[str, Any], line: dict[str, Any]) -> None:
    event = to_json(Match.from_json(setup).parse(line))
    assert event == line
    EVENT.validate(event_payload(3, event, ts=TS))


@pytest.mark.parametrize("bad", [{"safety": "yes"}, {"ball": 3}, {"non_striker": ["Bob"]}, {"reason": 1}])
def test_a_mistyped_ruling_field_is_refused_by_the_schema(bad: dict[str, Any]) -> None:
    payload = event_payload(3, {"type": "no_pot", **bad}, ts=TS)
    with pytest.raises(jsonschema.ValidationError):
        EVENT.validate(payload)
