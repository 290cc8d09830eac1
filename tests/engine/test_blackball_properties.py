"""Properties of the blackball engine over random event sequences, as for snooker: undo
restores exactly, refused input changes nothing, replaying the log gives the live state,
and every state keeps the invariants of ``state.md``.

The walk takes, at each step, a random candidate of ``blackball_candidates`` that the engine
accepts (weighted; ``undo``/``redo`` included). ``pytest --long`` or ``CUEBOARD_LONG=1`` runs
many more examples.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from cueboard.engine import Event, IllegalEvent, Match, to_json
from cueboard.engine.events import Redo, Undo
from cueboard.games.replay import replay
from cueboard.games.simulate_blackball import blackball_candidates, blackball_setup

LONG = os.environ.get("CUEBOARD_LONG", "") not in ("", "0")
PROPERTY = settings(max_examples=400 if LONG else 15, deadline=None,  # 15: -m "not system" stays quick
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
MAX_EVENTS = 600 if LONG else 250

Line = dict[str, Any]
"""A line of the log as JSON."""

JUNK: list[Any] = [
    {"type": "pot", "balls": ["blue"]}, {"type": "pot", "balls": []}, {"type": "pot", "balls": ["free"]},
    {"type": "pot", "balls": ["red"] * 8}, {"type": "pot"}, {"type": "pot", "balls": "red"},
    {"type": "no_pot", "legal": "no"}, {"type": "foul", "points": 4}, {"type": "foul", "balls": ["cue"]},
    {"type": "foul", "reason": 7}, {"type": "loss", "side": 1}, {"type": "rerack", "breaker": 2},
    {"type": "rerack", "breaker": -1}, {"type": "award", "side": 3}, {"type": "award"},
    {"type": "claim"}, {"type": "respotted_black", "striker": 0}, {"type": "order", "players": []},
    {"type": "match", "game": "blackball"}, {"type": ""}, {"type": None}, {}, [], "pot", None, 7,
    {"type": "undo", "n": 2}, {"type": "next_frame", "frame": 2},
]


# -- the walk --------------------------------------------------------------------------------


def weighted(pool: list[tuple[float, Event]], rng: random.Random) -> Iterator[Event]:
    """The events of ``pool`` in a random order, heavier ones tending to come first."""
    pool = list(pool)
    while pool:
        x = rng.random() * sum(w for w, _ in pool)
        for i, (w, _) in enumerate(pool):
            x -= w
            if x < 0 or i == len(pool) - 1:
                yield pool.pop(i)[1]
                break


def takes(match: Match, event: Event) -> bool:
    """Whether the match takes this event now (nothing changes)."""
    try:
        match.check(event)
    except IllegalEvent:
        return False
    return True


def accepts(match: Match, obj: Any) -> bool:
    """Whether the match takes this line of JSON now: parsed and checked (nothing changes)."""
    try:
        match.check(match.parse(obj))
    except IllegalEvent:
        return False
    return True


def proposals(match: Match) -> list[tuple[float, Event]]:
    out = blackball_candidates(match.state())
    if match.can_undo:
        out.append((1.5, Undo()))
    if match.can_redo:
        out.append((6.0, Redo()))
    return out


def walk(match: Match, rng: random.Random, n: int,
         log: list[Line]) -> Iterator[tuple[Line, dict[str, Any]]]:
    """Up to ``n`` accepted lines; after each, yield it (as the log's JSON, applied from it as a
    replay would) and the state before it."""
    for _ in range(n):
        chosen = next((e for e in weighted(proposals(match), rng) if takes(match, e)), None)
        if chosen is None:
            return
        obj = to_json(chosen)
        before = match.state().to_json()
        log.append(obj)
        match.apply(match.parse(obj))
        yield obj, before


def setups() -> st.SearchStrategy[dict[str, Any]]:
    return st.randoms(use_true_random=False).map(blackball_setup)


def randoms() -> st.SearchStrategy[random.Random]:
    return st.randoms(use_true_random=False, note_method_calls=False)


def lengths() -> st.SearchStrategy[int]:
    return st.integers(1, MAX_EVENTS) | st.just(MAX_EVENTS)


def show(setup: dict[str, Any], log: list[Line]) -> None:
    note("log:\n" + "\n".join(json.dumps(o) for o in [setup, *log]))


def snapshot(match: Match) -> tuple[Any, ...]:
    return (match.state().to_json(), match.position, match.seq, match.events, match.can_undo, match.can_redo)


# -- undo --------------------------------------------------------------------------------------


@PROPERTY
@given(setup=setups(), rng=randoms(), n=lengths())
def test_undo_after_push_restores_the_state_exactly(setup: dict[str, Any], rng: random.Random,
                                                     n: int) -> None:
    match = Match.from_json(setup)
    log: list[Line] = []
    for obj, before in walk(match, rng, n, log):
        if obj["type"] == "undo":
            continue
        after, position = match.state().to_json(), match.position
        match.pop()
        assert match.state().to_json() == before, show(setup, log)
        match.redo()
        assert match.state().to_json() == after and match.position == position, show(setup, log)


# -- refused input -------------------------------------------------------------------------------


def assert_refused(match: Match, obj: Any) -> None:
    before = snapshot(match)
    try:
        match.apply(match.parse(obj))
    except IllegalEvent as exc:
        assert str(exc)
    else:
        raise AssertionError(f"accepted {obj!r}")
    assert snapshot(match) == before


@PROPERTY
@given(setup=setups(), rng=randoms(), n=lengths())
def test_refused_events_change_nothing(setup: dict[str, Any], rng: random.Random, n: int) -> None:
    match = Match.from_json(setup)
    log: list[Line] = []
    for _ in walk(match, rng, n, log):
        # Events of the right shape the engine turns down now, and junk a keypad might send.
        pool = [to_json(e) for _, e in proposals(match)]
        for obj in rng.sample(pool, min(4, len(pool))):
            if not accepts(match, obj):
                assert_refused(match, obj)
        junk = rng.choice(JUNK)
        if not accepts(match, junk):
            assert_refused(match, junk)


# -- replay ------------------------------------------------------------------------------------


def replayed(lines: list[Any]) -> Match:
    match = Match.from_line(json.dumps(lines[0]))
    for obj in lines[1:]:
        match.apply(match.parse_line(json.dumps(obj)))
    return match


@PROPERTY
@given(setup=setups(), rng=randoms(), n=lengths())
def test_replaying_the_log_gives_the_live_state(setup: dict[str, Any], rng: random.Random, n: int) -> None:
    match = Match.from_json(setup)
    log: list[Line] = []
    for obj, _ in walk(match, rng, n, log):
        if obj["type"] == "next_frame":
            assert replayed(match.log()).state().to_json() == match.state().to_json(), show(setup, log)
    state = match.state().to_json()
    from_log = replayed(match.log())
    assert from_log.state().to_json() == state and from_log.position == match.position, show(setup, log)
    assert replayed([setup, *log]).state().to_json() == state, show(setup, log)
    text = [(json.dumps(o) + "\n").encode() for o in [setup, *log]]
    last, _ = list(replay(text))[-1]
    assert last.state().to_json() == state


# -- invariants of every state ---------------------------------------------------------------------


def check(match: Match) -> None:
    s = match.state().to_json()
    sides = s["sides"]
    frames = [side["frames"] for side in sides]
    balls = s["balls"]
    assert s["seq"] == match.seq
    assert max(frames) <= s["race_to"] and min(frames) < s["race_to"]
    assert s["match_over"] == (max(frames) == s["race_to"]) == (s["match_winner"] is not None)
    assert 0 <= balls["red"] <= 7 and 0 <= balls["yellow"] <= 7 and balls["black"] in (0, 1)
    if balls["black"] == 0:
        assert s["frame_over"]
    assert (s["striker"] is None) == s["frame_over"] == (s["player"] is None)
    if s["frame_over"]:
        assert s["frame_winner"] in (0, 1) and s["visits"] == 0 and not s["free_shot"]
        assert not s["black_on"] and not s["break_shot"]
    else:
        assert s["frame_winner"] is None
        assert s["player"] in sides[s["striker"]]["players"]
        assert s["visits"] in (1, 2)
        # Rule 6a, 6b: the free shot is the first stroke of a turn of two visits.
        assert not s["free_shot"] or s["visits"] == 2
    groups = [side["group"] for side in sides]
    if s["open_table"]:
        assert groups == [None, None] and [side["balls_left"] for side in sides] == [None, None]
    else:
        assert sorted(str(g) for g in groups) == ["red", "yellow"]
        assert [side["balls_left"] for side in sides] == [balls[g] for g in groups]
    if s["black_on"]:
        assert sides[s["striker"]]["balls_left"] == 0
    if s["break_shot"]:
        assert s["open_table"] and balls["black"] == 1
    assert s["order"][0] in match.setup.players[s["breaker"]]
    if s["shot_clock"] is None:
        assert s["shot_clock_call"] is None
    else:
        assert s["shot_clock_call"] is None or s["shot_clock_call"] < s["shot_clock"]


def table_count(s: dict[str, Any]) -> int:
    return int(sum(s["balls"].values()))


@PROPERTY
@given(setup=setups(), rng=randoms(), n=lengths())
def test_state_invariants(setup: dict[str, Any], rng: random.Random, n: int) -> None:
    """Every state keeps the invariants; balls only leave the table, except on a re-rack, the
    next frame, or an undo; the groups, once set, stay until then (rule 4e)."""
    match = Match.from_json(setup)
    log: list[Line] = []
    check(match)
    for obj, before in walk(match, rng, n, log):
        check(match)
        kind = match.events[-1].TYPE if obj["type"] == "redo" else obj["type"]
        if kind in ("undo", "rerack", "next_frame"):
            continue
        after = match.state().to_json()
        assert table_count(after) <= table_count(before), show(setup, log)
        if not before["open_table"]:
            assert [x["group"] for x in after["sides"]] == [x["group"] for x in before["sides"]]
        assert sum(x["frames"] for x in after["sides"]) >= sum(x["frames"] for x in before["sides"])


def test_whole_matches_are_played_out() -> None:
    """Seeded matches of the candidate walk end (the weights let frames finish)."""
    for seed in range(30):
        rng = random.Random(seed)
        setup = blackball_setup(rng)
        match = Match.from_json(setup)
        log: list[Line] = []
        for _ in walk(match, rng, 5000, log):
            check(match)
            if match.state().to_json()["match_over"]:
                break
        assert match.state().to_json()["match_over"], show(setup, log)
