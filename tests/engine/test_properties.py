"""Properties of the engine over random legal event sequences (``cueboard.games.simulate``).

Hypothesis draws a match line (15/10/6 reds, best of / race to, handicap, aggregate,
doubles), a length and a random source that drives :func:`cueboard.games.simulate.choose`
(``undo``/``redo`` lines included), and shrinks all three on a failure; the failing log is
printed (``note``) as JSON lines, ready for ``cueboard replay``.

Every game in both ``cueboard.engine.GAMES`` and ``cueboard.games.simulate.CANDIDATES`` gets the
game-agnostic properties (undo, refused input, replay, invariants); scores and ``remaining``
are snooker's.

Fast by default (CI); ``pytest --long`` or ``CUEBOARD_LONG=1`` gives many more examples,
``CUEBOARD_EXAMPLES=n`` sets the number outright.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import random
import typing
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

from cueboard.engine import GAMES, IllegalEvent, Match, to_json
from cueboard.engine.snooker.events import Foul
from cueboard.games.replay import replay
from cueboard.games.simulate import CANDIDATES, SETUPS, candidates, choose, random_log

LONG = os.environ.get("CUEBOARD_LONG", "") not in ("", "0")
EXAMPLES = int(os.environ.get("CUEBOARD_EXAMPLES", "500" if LONG else "20"))  # 20: pytest -m "not system" stays quick
MAX_EVENTS = 600 if LONG else 250

PROPERTY = settings(max_examples=EXAMPLES, deadline=None, print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

GAMES_UNDER_TEST = sorted(g for g in CANDIDATES if g in GAMES)
"""Every game the engine plays and the simulator can play (blackball once it registers)."""

Line = dict[str, Any]
"""A line of the log as JSON: what the walks record and the junk is made of."""


# -- strategies -------------------------------------------------------------------------


@st.composite
def snooker_setups(draw: st.DrawFn) -> dict[str, Any]:
    """Snooker match lines; they shrink towards one short frame of six reds."""
    setup: dict[str, Any] = {"type": "match", "game": "snooker"}
    doubles = draw(st.booleans())
    setup["sides"] = [["A1", "A2"], ["B1", "B2"]] if doubles else ["Ann", "Bob"]
    kind = draw(st.sampled_from(["best_of", "race_to", "aggregate"]))
    if kind == "best_of":
        setup["best_of"] = draw(st.sampled_from([1, 3, 5, 7]))
    elif kind == "race_to":
        setup["race_to"] = draw(st.integers(1, 4))
    else:
        setup["best_of"] = draw(st.integers(1, 4))
        setup["aggregate"] = True
    setup["reds"] = draw(st.sampled_from([6, 10, 15]))
    handicap = draw(st.none() | st.lists(st.integers(0, 50), min_size=2, max_size=2))
    if handicap is not None:
        setup["handicap"] = handicap
    if draw(st.booleans()):
        setup["first"] = 1
    return setup


def setups(game: str) -> st.SearchStrategy[dict[str, Any]]:
    if game == "snooker":
        return snooker_setups()
    return st.randoms(use_true_random=False).map(SETUPS[game])


def randoms() -> st.SearchStrategy[random.Random]:
    return st.randoms(use_true_random=False, note_method_calls=False)


def lengths(most: int = 0) -> st.SearchStrategy[int]:
    """How many lines to walk: often the most, so that matches get played out (it shrinks)."""
    most = most or MAX_EVENTS
    return st.integers(1, most) | st.just(most)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 200) | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)

WORDS = ["red", "yellow", "green", "brown", "blue", "pink", "black", "free", "white", "cue", "Red",
         "A1", "A2", "B1", "B2", "Ann", "Bob", "", " "]


def _plausible(hint: Any) -> st.SearchStrategy[Any]:
    """Values of about the right shape for a field's type (the engine must still refuse the
    wrong ones): small numbers, ball and player names, lists of them."""
    origin = typing.get_origin(hint)
    if origin is tuple:
        return st.lists(st.sampled_from(WORDS), max_size=4)
    if hint is bool:
        return st.booleans()
    if hint is int:
        return st.integers(-2, 17)
    if hint is float:
        return st.floats(0, 2e9)
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if args:
        return st.none() | _plausible(args[0])
    return st.sampled_from(WORDS)


def _fields(game: str) -> dict[str, list[st.SearchStrategy[Any]]]:
    """Every event field of the game (and some near misses), with plausible values."""
    out: dict[str, list[st.SearchStrategy[Any]]] = {}
    for cls in GAMES[game].events.values():
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            out.setdefault(f.name, []).append(_plausible(hints[f.name]))
    for near in ("sied", "ball", "Points", "reds-off", "", "type "):
        out[near] = [JSON]
    return out


class Mutation(typing.NamedTuple):
    """Change one thing in one of the candidate events (resolved against the current ones)."""

    pick: int
    how: int
    key: str
    value: Any

    def apply(self, proposed: list[Line]) -> Any:
        obj = dict(proposed[self.pick % len(proposed)])
        keys = [k for k in obj if k != "type"]
        if self.how == 0:
            obj[self.key] = self.value  # an unknown or misspelt field, or another event's field
        elif self.how == 1 and keys:
            obj[keys[len(self.key) % len(keys)]] = self.value  # a known field, any value
        elif self.how == 2 and keys:
            del obj[keys[0]]
        else:
            obj["type"] = self.key
        return obj


@functools.cache
def junk(game: str) -> st.SearchStrategy[Any]:
    """Input a marker might send: random events (known types, any fields, wrong types),
    a candidate event with one thing changed (a :class:`Mutation`), and any JSON at all."""
    types = [*GAMES[game].events, "match", "", "Pot", "no-pot", "undo ", "UNDO"]
    fields = _fields(game)
    values = {name: st.one_of(*strats, JSON) for name, strats in fields.items()}
    random_events = st.builds(lambda t, rest: {"type": t, **rest}, st.sampled_from(types),
                              st.fixed_dictionaries({}, optional=values))
    mutated = st.builds(Mutation, st.integers(0, 200), st.integers(0, 3), st.sampled_from(sorted(fields)),
                        st.one_of(*[v for strats in fields.values() for v in strats], JSON))
    return st.one_of(random_events, mutated, JSON)


# -- helpers ----------------------------------------------------------------------------


def walk(match: Match, rng: random.Random, n: int,
         raw: list[Line]) -> Iterator[tuple[Line, dict[str, Any]]]:
    """Apply up to ``n`` random legal lines (``undo``/``redo`` included, so the walk may go
    on past the end of the match by taking events back); after each, yield the line and
    the state before it. Every line is appended to ``raw``."""
    for _ in range(n):
        chosen = choose(match, rng)
        if chosen is None:
            return
        obj = to_json(chosen)  # the log's line, applied from its JSON as a replay would
        before = match.state().to_json()
        raw.append(obj)
        match.apply(match.parse(obj))
        event(f"line: {obj['type']}")
        yield obj, before


@contextmanager
def recording(setup: dict[str, Any]) -> Iterator[list[Line]]:
    """The lines of the walk; shown as a JSON-lines log when a property fails."""
    raw: list[Line] = []
    try:
        yield raw
    finally:
        note("log:\n" + "\n".join(json.dumps(o) for o in [setup, *raw]))


def snapshot(match: Match) -> tuple[Any, ...]:
    return (match.state().to_json(), match.position, match.seq, match.events, match.can_undo, match.can_redo)


def last_type(match: Match, obj: Line) -> str:
    """The type of the game event a line put into effect (``redo`` puts one back)."""
    return match.events[-1].TYPE if obj["type"] == "redo" else str(obj["type"])


def only_black_left(state: dict[str, Any]) -> bool:
    return bool(state["reds"] == 0 and state["colours"] == ["black"] and state["ball_on"] == "black")


# -- (a) undo ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES_UNDER_TEST)
@PROPERTY
@given(data=st.data())
def test_undo_after_push_restores_the_state_exactly(game: str, data: st.DataObject) -> None:
    setup = data.draw(setups(game), label="setup")
    rng, n = data.draw(randoms(), label="rng"), data.draw(lengths(), label="n")
    match = Match.from_json(setup)
    with recording(setup) as raw:
        for obj, before in walk(match, rng, n, raw):
            if obj["type"] == "undo":
                continue
            after, position = match.state().to_json(), match.position
            match.pop()
            assert match.state().to_json() == before
            assert match.seq == before["seq"]
            match.redo()
            assert match.state().to_json() == after
            assert match.position == position


# -- (b) refused input ---------------------------------------------------------------------


def assert_refused(match: Match, obj: Any) -> bool:
    """If the match refuses ``obj`` (at parse or check), it must raise IllegalEvent from
    ``apply`` too and change nothing. False when the input is in fact legal now."""
    before = snapshot(match)
    try:
        ev = match.parse(obj)
        match.check(ev)
    except IllegalEvent:
        pass
    else:
        return False
    assert snapshot(match) == before
    with pytest.raises(IllegalEvent):
        match.apply(match.parse(obj))
    assert snapshot(match) == before
    return True


@pytest.mark.parametrize("game", GAMES_UNDER_TEST)
@PROPERTY
@given(data=st.data())
def test_refused_input_raises_illegal_event_and_changes_nothing(game: str, data: st.DataObject) -> None:
    setup = data.draw(setups(game), label="setup")
    rng, n = data.draw(randoms(), label="rng"), data.draw(lengths(), label="n")
    # Junk: random events, candidate events with one thing changed, any JSON; offered at
    # random points of the walk.
    items = data.draw(st.lists(junk(game), max_size=40), label="junk")
    where = random.Random(data.draw(st.integers(0, 2**32), label="where"))  # cheap, need not shrink
    offered = sorted(where.randrange(n + 1) for _ in items)
    match = Match.from_json(setup)

    def offer(step: int) -> None:
        proposed = [to_json(e) for _, e in candidates(match)]
        # Events of the right shape that may be illegal now: the engine's verdict is checked
        # by assert_refused (which skips the legal ones).
        for obj in where.sample(proposed, min(4, len(proposed))):
            if assert_refused(match, obj):
                event("candidate refused")
        while offered and offered[0] == step:
            offered.pop(0)
            drawn = items.pop()
            obj = drawn.apply(proposed) if isinstance(drawn, Mutation) else drawn
            if assert_refused(match, obj):
                event("junk refused")

    with recording(setup) as raw:
        offer(0)
        for step, _ in enumerate(walk(match, rng, n, raw), start=1):
            offer(step)


def _unasked_value(hint: Any, rng: random.Random) -> Any:
    """A value of about the right shape for a field, drawn cheaply: small numbers (mostly the
    penalties and sides a referee keys), ball and player names, now and then the wrong type."""
    if rng.random() < 0.05:
        return rng.choice([None, -1, "x", [], {}, 3.5, True])
    origin = typing.get_origin(hint)
    if origin is tuple:
        return [rng.choice(WORDS[:8] if rng.random() < 0.9 else WORDS) for _ in range(rng.choice((1, 1, 1, 2, 3)))]
    if hint is bool:
        return rng.random() < 0.3
    if hint is int:
        return rng.choice((0, 1, 4, 4, 5, 6, 7, rng.randint(-2, 17)))
    if hint is float:
        return rng.uniform(0, 2e9)
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if args:
        return None if rng.random() < 0.3 else _unasked_value(args[0], rng)
    return rng.choice(WORDS)


def unasked(game: str, rng: random.Random) -> Line:
    """An event proposed without asking the engine what is legal: one of the game's types
    (strokes more often, undo and redo now and then), each field there or not. Many are
    illegal; enough are legal that the match moves on."""
    events = GAMES[game].events
    kind = rng.choice([*events, "pot", "pot", "pot", "no_pot", "no_pot", "foul", "next_frame"])
    cls = events[kind]
    hints = typing.get_type_hints(cls)
    obj: Line = {"type": kind}
    for f in dataclasses.fields(cls):
        required = f.default is dataclasses.MISSING
        if f.name != "t" and rng.random() < (0.95 if required else 0.2):
            obj[f.name] = _unasked_value(hints[f.name], rng)
    if rng.random() < 0.03:
        obj[rng.choice(["sied", "ball", "Points", "reds-off", ""])] = 1
    return obj


@pytest.mark.parametrize("game", GAMES_UNDER_TEST)
@settings(PROPERTY, max_examples=max(10, EXAMPLES // 4))  # each example offers 500 events
@given(data=st.data())
def test_events_proposed_without_asking_are_refused_cleanly_or_keep_the_invariants(
        game: str, data: st.DataObject) -> None:
    """The walks above ask the engine which events are legal, so they can never catch it
    accepting an illegal one. Here nothing is asked: every refusal must change nothing, and
    every acceptance must keep the invariants and replay from the log."""
    setup = data.draw(setups(game), label="setup")
    rng = random.Random(data.draw(st.integers(0, 2**32), label="seed"))  # cheap; the log is noted
    match = Match.from_json(setup)
    accepted = 0
    with recording(setup) as raw:
        for _ in range(MAX_EVENTS * 2):
            obj = unasked(game, rng)
            if assert_refused(match, obj):
                continue
            raw.append(obj)
            match.apply(match.parse(obj))
            accepted += 1
            check_invariants(match)
        event(f"accepted {min(accepted, 50) // 10 * 10}+")
        assert_replays(match, setup, raw)


SETUP_VALUES = st.one_of(
    JSON, st.sampled_from(["snooker", "blackball", "Snooker"]), st.integers(-1, 40),
    st.sampled_from([6, 10, 15, 6.0, True]), st.lists(st.integers(-1, 200), max_size=3),
    st.lists(st.text(max_size=3) | st.lists(st.text(max_size=3)), max_size=3), st.floats(),
)


@PROPERTY
@given(setup=snooker_setups(), key=st.sampled_from(
    ["type", "game", "sides", "best_of", "race_to", "first", "reds", "handicap", "aggregate", "shot_clock",
     "t", "legs", "Reds"]), value=SETUP_VALUES, drop=st.booleans())
def test_a_match_line_is_refused_with_illegal_event_or_round_trips(
        setup: dict[str, Any], key: str, value: Any, drop: bool) -> None:
    line = dict(setup)
    if drop:
        line.pop(key, None)
    else:
        line[key] = value
    try:
        match = Match.from_json(line)
    except IllegalEvent:
        return
    again = Match.from_json(json.loads(json.dumps(match.setup.to_json())))
    assert again.setup == match.setup
    assert again.state().to_json() == match.state().to_json()


# -- (c) replay -------------------------------------------------------------------------


def replayed(lines: list[Line]) -> Match:
    """A new match from log lines (JSON round trip), each line through ``Match.apply``."""
    match = Match.from_line(json.dumps(lines[0]))
    for obj in lines[1:]:
        match.apply(match.parse_line(json.dumps(obj)))
    return match


def assert_replays(match: Match, setup: dict[str, Any], raw: list[Line]) -> None:
    state = match.state().to_json()
    from_log = replayed(match.log())
    assert from_log.state().to_json() == state
    assert from_log.position == match.position
    assert from_log.events == match.events
    from_raw = replayed([setup, *raw])
    assert from_raw.state().to_json() == state
    assert from_raw.position == match.position
    # The same raw log through the ``cueboard replay`` reader.
    text = [(json.dumps(o) + "\n").encode() for o in [setup, *raw]]
    last, _ = list(replay(text))[-1]
    assert last.state().to_json() == state


@pytest.mark.parametrize("game", GAMES_UNDER_TEST)
@PROPERTY
@given(data=st.data())
def test_replaying_the_log_gives_the_live_state(game: str, data: st.DataObject) -> None:
    setup = data.draw(setups(game), label="setup")
    rng, n = data.draw(randoms(), label="rng"), data.draw(lengths(), label="n")
    match = Match.from_json(setup)
    with recording(setup) as raw:
        for obj, _ in walk(match, rng, n, raw):
            if obj["type"] == "next_frame":
                assert_replays(match, setup, raw)
        assert_replays(match, setup, raw)


# -- (d), (e) scores and points remaining (snooker) ---------------------------------------


@PROPERTY
@given(setup=snooker_setups(), rng=randoms(), n=lengths())
def test_scores_never_go_down(setup: dict[str, Any], rng: random.Random, n: int) -> None:
    """Except on rerack (Rule 16 nullifies them), next_frame, and an award in aggregate play
    (Section 4 Rule 2(a)(ii): the offender forfeits all points scored). ``undo`` lines take
    points back by design (see the undo property); a ``redo`` counts as the event it puts back."""
    match = Match.from_json(setup)
    with recording(setup) as raw:
        for obj, before in walk(match, rng, n, raw):
            if obj["type"] == "undo":
                continue
            kind = last_type(match, obj)
            if kind in ("rerack", "next_frame") or (kind == "award" and before["aggregate"]):
                continue
            after = match.state().to_json()
            for i in (0, 1):
                assert after["sides"][i]["score"] >= before["sides"][i]["score"], kind
                assert after["sides"][i]["total"] >= before["sides"][i]["total"], kind


@PROPERTY
@given(setup=snooker_setups(), rng=randoms(), n=lengths())
def test_remaining_grows_only_on_free_ball_replace_rerack_next_frame_or_undo(
        setup: dict[str, Any], rng: random.Random, n: int) -> None:
    match = Match.from_json(setup)
    with recording(setup) as raw:
        for obj, before in walk(match, rng, n, raw):
            if obj["type"] == "undo":
                continue
            kind = last_type(match, obj)
            ev = match.events[-1]
            if kind in ("replace", "rerack", "next_frame") or (isinstance(ev, Foul) and ev.free_ball):
                continue
            assert match.state().to_json()["remaining"] <= before["remaining"], kind


# -- (f) invariants of every state --------------------------------------------------------


VALUE = {"red": 1, "yellow": 2, "green": 3, "brown": 4, "blue": 5, "pink": 6, "black": 7}


def waiting_for_the_lot(match: Match, state: dict[str, Any]) -> bool:
    """The frame is on a re-spotted black and nobody has been drawn to play it yet: no
    ``respotted_black`` event since the frame started (worked out from the events in
    effect, not from the engine's position)."""
    if state["frame_over"] or not state.get("respotted_black"):
        return False
    for ev in reversed(match.events):
        if ev.TYPE == "respotted_black":
            return False
        if ev.TYPE in ("next_frame", "rerack"):
            break
    return True


def expected_remaining(s: dict[str, Any]) -> int:
    """``remaining`` as ``state.md`` defines it, from the other fields."""
    if s["frame_over"]:
        return 0
    if s["respotted_black"]:
        return 7
    on = s["ball_on"]
    if on in ("red", "colour"):
        return int(8 * s["reds"] + 27 + (7 if on == "colour" else 0) + (8 if s["free_ball"] else 0))
    return sum(VALUE[c] for c in s["colours"]) + (VALUE[on] if s["free_ball"] else 0)


def check_invariants(match: Match) -> None:
    s = match.state().to_json()
    setup = match.setup
    frames = [side["frames"] for side in s["sides"]]
    assert s["seq"] == match.seq
    # Frames never exceed what wins the match; a match is over exactly when it has a winner.
    assert 1 <= s["frame"] <= setup.frames_in_match
    to_win = setup.frames_to_win
    if to_win is None:  # aggregate: every frame is played
        assert sum(frames) <= setup.frames_in_match
    else:
        assert max(frames) <= to_win
        assert min(frames) < to_win
        assert s["match_over"] == (max(frames) == to_win)
    assert s["match_over"] == (s["match_winner"] is not None)
    if s["match_over"]:
        assert s["frame_over"]
    # Nobody is at the table exactly when the frame is over or the re-spotted black waits
    # for the lot (Section 3 Rule 4(b)).
    assert (s["striker"] is None) == (s["frame_over"] or waiting_for_the_lot(match, s))
    if s["striker"] is not None:
        assert s["player"] in setup.players[s["striker"]]
    if s["game"] != "snooker":
        return
    assert s["remaining"] >= 0
    assert s["remaining"] == expected_remaining(s)
    assert (s["ball_on"] is None) == s["frame_over"]
    assert s["reds"] >= 0
    needs = s["snookers_required"]
    scores = [side["score"] for side in s["sides"]]
    if s["aggregate"]:
        # state.md: in aggregate play only in the last frame, on the match totals.
        if s["frame"] < setup.frames_in_match:
            assert needs is None
            return
        scores = [side["total"] for side in s["sides"]]
    deficit = abs(scores[0] - scores[1])
    # What the side behind can still score (state.md, Section 3 Rule 1(e)): remaining at the
    # table; with the side ahead at the table, without its colour after a red or free ball.
    trailer = 0 if scores[0] < scores[1] else 1
    values = {"yellow": 2, "green": 3, "brown": 4, "blue": 5, "pink": 6, "black": 7}
    available = s["remaining"] if s["striker"] == trailer else (
        8 * s["reds"] + 27 if s["reds"] else sum(values[c] for c in s["colours"]))
    if s["frame_over"] or deficit <= available or s["respotted_black"]:
        # On a re-spotted black nobody needs snookers: the scores are level, or in aggregate
        # play the totals are (Rule 4(c)), whatever this frame's scores.
        assert needs is None
    else:
        assert needs is not None
        assert needs["side"] == trailer
        assert scores[trailer] + available < scores[1 - trailer]
        each = 4 if s["reds"] or not s["colours"] else max(4, values[s["colours"][0]])
        assert needs["each"] == each
        if needs["count"] is None:
            assert only_black_left(s), "count is null only with the black alone left"
        else:
            assert not only_black_left(s)
            assert needs["count"] == -(-(deficit - available) // each) >= 1
    for side in s["sides"]:
        assert side["high_break"] >= 0


@pytest.mark.parametrize("game", GAMES_UNDER_TEST)
@PROPERTY
@given(data=st.data())
def test_state_invariants(game: str, data: st.DataObject) -> None:
    setup = data.draw(setups(game), label="setup")
    rng, n = data.draw(randoms(), label="rng"), data.draw(lengths(), label="n")
    match = Match.from_json(setup)
    with recording(setup) as raw:
        check_invariants(match)
        for _ in walk(match, rng, n, raw):
            check_invariants(match)


# -- soak (--long) ----------------------------------------------------------------------


@pytest.mark.long
@pytest.mark.parametrize("game", GAMES_UNDER_TEST)
def test_soak_whole_matches(game: str) -> None:
    """Many seeded matches played to their end, every property checked as they go."""
    for seed in range(300):
        rng = random.Random(seed)
        log = random_log(SETUPS[game](rng), rng, events=5000)
        match = Match.from_json(log[0])
        for obj in log[1:]:
            match.apply(match.parse(obj))
            check_invariants(match)
        assert_replays(match, log[0], log[1:])
