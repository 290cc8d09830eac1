"""schema/*.schema.json: the state (both games) and the event, rejected and devices payloads.

Every state of both example logs and of many random legal logs (``cueboard.games.simulate``) is
valid once the feed adds ``table`` and ``ts``; so are the feed's own payloads; and the
schema does refuse what breaks the contract (a missing or mistyped field)."""

from __future__ import annotations

import copy
import json
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from cueboard.contract.codes import Reason
from cueboard.engine import Match
from cueboard.games.simulate import SETUPS, random_log
from cueboard.table.mqtt.feed import devices_payload, encode, event_payload, rejected_payload, state_payload, timestamp
from tests.helpers.feed import example_states

ROOT = Path(__file__).resolve().parents[2]
LONG = os.environ.get("CUEBOARD_LONG", "") not in ("", "0")
LOGS = 100 if LONG else 12  # random logs per game
EVENTS = 400 if LONG else 250


def validator(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((ROOT / "schema" / f"{name}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


STATE = validator("state")


def with_feed_fields(state: dict[str, Any]) -> dict[str, Any]:
    """The state as the feed publishes it."""
    return dict(json.loads(encode(state_payload(state, table="t1", ts=timestamp(1_743_535_800.125)))))


def random_states(game: str, seed: int) -> Iterator[dict[str, Any]]:
    rng = random.Random(seed)
    log = random_log(SETUPS[game](rng), rng, events=EVENTS)
    match = Match.from_json(log[0])
    yield match.state().to_json()
    for event in log[1:]:
        match.apply(match.parse(event))
        yield match.state().to_json()


@pytest.mark.parametrize("name", ["snooker-frame", "blackball-match"])
def test_example_logs(name: str) -> None:
    for state in example_states(name):
        STATE.validate(with_feed_fields(state))


@pytest.mark.parametrize("game", ["snooker", "blackball"])
@pytest.mark.parametrize("seed", range(LOGS))
def test_random_logs(game: str, seed: int) -> None:
    count = 0
    for state in random_states(game, seed):
        STATE.validate(with_feed_fields(state))
        count += 1
    assert count > 1


def snooker_state() -> dict[str, Any]:
    return with_feed_fields(example_states("snooker-frame")[-1])


def blackball_state() -> dict[str, Any]:
    return with_feed_fields(example_states("blackball-match")[3])


def test_extra_fields_are_allowed() -> None:
    STATE.validate({**snooker_state(), "new_extension": {"anything": [1, 2]}})
    state = blackball_state()
    state["sides"][0]["nickname"] = "The Rocket"
    STATE.validate(state)


def broken(state: dict[str, Any], path: str, value: Any = KeyError) -> dict[str, Any]:
    """``state`` with the field at ``path`` (``sides.0.score``) removed, or set to ``value``."""
    state = copy.deepcopy(state)
    *parents, last = path.split(".")
    target: Any = state
    for key in parents:
        target = target[int(key) if key.isdigit() else key]
    if value is KeyError:
        del target[last]
    else:
        target[last] = value
    return state


@pytest.mark.parametrize(("path", "value"), [
    ("table", KeyError), ("ts", KeyError), ("ts", "yesterday"), ("schema", 2), ("game", "pool"),
    ("seq", -1), ("seq", "3"), ("striker", 2), ("player", 0), ("frame_winner", "0"),
    ("sides", []), ("sides.0.score", KeyError), ("sides.0.score", 1.5), ("sides.1.high_break", None),
    ("reds", 16), ("colours", ["purple"]), ("ball_on", "cue"), ("free_ball", 0), ("misses", KeyError),
    ("remaining", KeyError), ("snookers_required", {"side": 0, "count": 1}),
    ("snookers_required", {"side": 0, "count": 0, "each": 4}), ("respotted_black", "no"),
    ("frame_over", KeyError), ("match_winner", 3), ("break", -4),
])
def test_snooker_contract_violations_are_refused(path: str, value: Any) -> None:
    with pytest.raises(jsonschema.ValidationError):
        STATE.validate(broken(snooker_state(), path, value))


@pytest.mark.parametrize(("path", "value"), [
    ("race_to", KeyError), ("open_table", "yes"), ("balls", KeyError), ("balls.red", 8), ("balls.black", 2),
    ("visits", 3), ("free_shot", None), ("black_on", KeyError), ("shot_clock", "60"),
    ("sides.0.group", "blue"), ("sides.1.balls_left", 8), ("sides.0.frames", KeyError),
])
def test_blackball_contract_violations_are_refused(path: str, value: Any) -> None:
    with pytest.raises(jsonschema.ValidationError):
        STATE.validate(broken(blackball_state(), path, value))


def test_each_game_is_checked_by_its_own_rules() -> None:
    """A snooker state relabelled as blackball is refused (and the other way round)."""
    with pytest.raises(jsonschema.ValidationError):
        STATE.validate({**snooker_state(), "game": "blackball"})
    with pytest.raises(jsonschema.ValidationError):
        STATE.validate({**blackball_state(), "game": "snooker"})


def test_event_rejected_devices_payloads() -> None:
    ts = timestamp(1_700_000_000)
    validator("event").validate(event_payload(4, {"type": "pot", "balls": ["red"]}, ts=ts))
    validator("event").validate(event_payload(5, {"type": "undo"}, ts=ts))
    validator("rejected").validate(rejected_payload({"type": "pot", "balls": ["pink"]}, Reason("red is on", "not_on"),
                                                    "keypad", ts=ts))
    validator("rejected").validate(rejected_payload(None, Reason("not JSON", "not_json"), "command", ts=ts))
    validator("devices").validate(devices_payload({"buttons": "ok", "keypad": "lost", "mqtt": "ok"}, ts=ts))
    with pytest.raises(jsonschema.ValidationError):
        validator("event").validate(event_payload(4, {}, ts=ts))
    with pytest.raises(jsonschema.ValidationError):
        validator("rejected").validate(rejected_payload(None, Reason("", "invalid"), "keypad", ts=ts))
    with pytest.raises(jsonschema.ValidationError):  # a code a client would not know what to do with
        validator("rejected").validate({**rejected_payload(None, Reason("x", "rate"), "command", ts=ts),
                                        "code": "rate"})
    # Every rejected the table makes carries its code; the schema lets an older table's go without
    # one (a client reads it as "refused"), so that it is still read.
    assert rejected_payload(None, Reason("x", "rate"), "command", ts=ts)["code"] == "later"
    validator("rejected").validate({k: v for k, v in rejected_payload(None, Reason("x", "rate"), "command",
                                                                      ts=ts).items() if k != "code"})
    with pytest.raises(jsonschema.ValidationError):
        validator("devices").validate({"schema": 1, "keypad": 3, "ts": ts})
