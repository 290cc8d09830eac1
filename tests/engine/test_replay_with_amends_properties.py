"""Any log replays to the same states with and without amends that change nothing (issue 39).

Hypothesis draws a match line, a random source and a length; the walk plays random legal lines
(``cueboard.games.simulate.choose``: undo and redo included) and, now and then, one of the
rulings the simulator does not make: blackball touching balls (several a stroke), holds and
resumes of the clock and fouls for time (refused while held); snooker's ``no_pot`` with
``safety``, fouls by a non-striker or out of turn, awards for a miss. A second log is the same
lines with amends that change nothing put in: an event amended to itself, or deleted and put
back (an insert before the event that took its place, or keyed again when it was the last).
``cueboard replay`` (:func:`cueboard.games.replay.replay`) of both gives the same state after
every line of the first, and the same events in effect at the end.

An amend is itself a line that ``undo`` takes back and that clears what ``redo`` could put back
(events.md), so one is put only where no later ``undo`` reaches back to it and nothing is waiting
to be redone (:func:`safe_places`).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from cueboard.engine import IllegalEvent, Match, to_json
from cueboard.games.replay import replay
from cueboard.games.simulate import choose
from tests.engine.test_properties import GAMES_UNDER_TEST, PROPERTY, lengths, randoms, setups

Line = dict[str, Any]


def rulings(match: Match, rng: random.Random) -> Line:
    """One ruling the simulator does not make, often refused (the walk keeps it only if taken)."""
    if match.setup.game == "blackball":
        return rng.choice([
            {"type": "touching", "ball": rng.choice(["red", "yellow", "black"])},
            {"type": "clock_hold", "reason": rng.choice(["rest", "interference", "touching"])},
            {"type": "clock_hold"},
            {"type": "clock_resume"},
            {"type": "foul", "reason": "time"},
        ])
    players = [p for side in match.setup.players for p in side]
    return rng.choice([
        {"type": "no_pot", "safety": rng.choice([True, False])},
        {"type": "foul", "points": rng.choice([4, 7]), "non_striker": rng.choice(players)},
        {"type": "foul", "points": rng.choice([4, 7]), "out_of_turn": rng.choice(players)},
        {"type": "award", "side": rng.choice([0, 1]), "reason": "miss"},
    ])


def walk(setup: Line, rng: random.Random, n: int) -> list[Line]:
    """Up to ``n`` lines the match took, the simulator's and now and then a ruling's."""
    match = Match.from_json(setup)
    lines: list[Line] = []
    for _ in range(n):
        obj: Line | None = None
        if rng.random() < 0.2:
            obj = rulings(match, rng)
            try:
                match.check(match.parse(obj))
            except IllegalEvent:
                obj = None
        if obj is None:
            chosen = choose(match, rng)
            if chosen is None:
                break
            obj = to_json(chosen)
        match.apply(match.parse(obj))
        lines.append(obj)
    return lines


def keyed(match: Match, k: int) -> Line:
    out = to_json(match.events[k - 1])
    out.pop("t", None)
    return out


def no_op_amends(match: Match, rng: random.Random) -> list[Line]:
    """Amends that leave ``match`` as it is (applied to it), or none when a deletion is refused."""
    k = rng.randint(1, match.seq)
    if rng.random() < 0.5:
        same = {"type": "amend", "seq": k, "event": keyed(match, k)}
        match.apply(match.parse(same))
        return [same]
    event, delete = keyed(match, k), {"type": "amend", "seq": k, "event": None}
    try:
        match.apply(match.parse(delete))
    except IllegalEvent:
        return []
    back = {"type": "amend", "seq": k, "insert": event} if k <= match.seq else event
    match.apply(match.parse(back))
    return [delete, back]


def states(log: list[Line]) -> list[tuple[dict[str, Any], Match]]:
    return [(m.state().to_json(), m) for m, _ in replay(json.dumps(o).encode() for o in log)]


def safe_places(lines: list[Line]) -> list[bool]:
    """Before which lines an amend changes what no later line does: nothing waits to be redone
    there, and the undos after never take back more than the lines after it."""
    done = redoable = 0
    before: list[tuple[int, int]] = []
    after: list[int] = []
    for line in lines:
        before.append((done, redoable))
        if line["type"] == "undo":
            done, redoable = done - 1, redoable + 1
        elif line["type"] == "redo":
            done, redoable = done + 1, redoable - 1
        else:
            done, redoable = done + 1, 0
        after.append(done)
    lowest = after[:]
    for i in range(len(lowest) - 2, -1, -1):
        lowest[i] = min(lowest[i], lowest[i + 1])
    return [redoable == 0 and low >= done for (done, redoable), low in zip(before, lowest, strict=True)]


@pytest.mark.parametrize("game", GAMES_UNDER_TEST)
@PROPERTY
@given(data=st.data())
def test_a_log_replays_the_same_with_and_without_amends_that_change_nothing(game: str, data: st.DataObject) -> None:
    setup = data.draw(setups(game), label="setup")
    rng = data.draw(randoms(), label="rng")
    lines = walk(setup, rng, data.draw(lengths(), label="n"))
    match = Match.from_json(setup)
    amended: list[Line] = []
    at: list[int] = []  # the index in ``amended`` of each line of ``lines``
    for line, safe in zip(lines, safe_places(lines), strict=True):
        if match.seq and safe and rng.random() < 0.2:
            amended += no_op_amends(match, rng)
        match.apply(match.parse(line))
        amended.append(line)
        at.append(len(amended))
    note("log:\n" + "\n".join(json.dumps(o) for o in [setup, *amended]))
    plain = states([setup, *lines])
    corrected = states([setup, *amended])
    assert [s for s, _ in plain] == [corrected[0][0], *(corrected[i][0] for i in at)]
    assert plain[-1][1].events == corrected[-1][1].events
