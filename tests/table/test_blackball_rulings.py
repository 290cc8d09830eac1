"""Blackball rulings as events of the log (docs/events.md): the touching ball (rule 4i) and the
shot clock held and resumed (rule 8a (a)-(c)), in the engine and through the daemon's clock."""

from __future__ import annotations

import json
from pathlib import Path

from cueboard.table.daemon import Table
from cueboard.table.journal import read_lines
from tests.helpers.blackball import NO_POT, new_match, play, pot, refused
from tests.helpers.daemon import table_config
from tests.table.test_daemon import FakeMonotonic, Recorder

TOUCHING = {"type": "touching", "ball": "red"}
HOLD = {"type": "clock_hold", "reason": "touching"}
RESUME = {"type": "clock_resume"}


def test_a_touching_ball_is_called_until_the_stroke_rule_4i() -> None:
    """Rule 4i: "Une bille en contact ne doit pas bouger au départ du coup." The call changes what
    a legal stroke needs, not the balls nor who plays; it lasts until the stroke."""
    m = new_match()
    before = play(m, NO_POT)
    after = play(m, TOUCHING)
    assert {k: v for k, v in after.items() if k != "seq"} == {k: v for k, v in before.items() if k != "seq"}
    assert after["seq"] == 2
    play(m, {"type": "touching", "ball": "black"})  # several balls may touch (rule 4i), each called once
    refused(m, {"type": "touching", "ball": "black"}, "called touching already")
    play(m, pot("red"))
    assert m.position.touching == ()
    play(m, {"type": "touching", "ball": "yellow"})  # a new stroke, a new call


def test_a_touching_ball_must_be_on_the_table_rule_4i() -> None:
    m = new_match(race_to=2)
    refused(m, {"type": "touching", "ball": "white"}, "'ball' is red, yellow, black", "rule 4i")
    play(m, {"type": "concede"})
    refused(m, TOUCHING, "the frame is over")


def test_the_clock_is_held_for_the_reasons_of_rule_8a_and_resumed() -> None:
    """Rule 8a: "Une suspension de temps est demandée pour les raisons suivantes... (a) Le joueur
    demande un râteau. (b) Quelqu'un ou quelque chose gêne le joueur. (c) Il doit y avoir décision
    sur des billes touchantes." """
    m = new_match()
    s = play(m, TOUCHING, HOLD)
    assert m.position.held == "touching" and s["shot_clock"] == 60
    refused(m, {"type": "clock_hold", "reason": "rest"}, "held already")
    play(m, RESUME)
    refused(m, RESUME, "not held")
    refused(m, {"type": "clock_hold", "reason": "thinking"}, "'reason' is rest, interference, touching")
    play(m, {"type": "clock_hold", "reason": "rest"}, NO_POT)  # the stroke ends the hold
    assert m.position.held is None
    refused(new_match(shot_clock=None), HOLD, "no shot clock")


def test_a_hold_in_the_log_holds_the_daemons_clock_rule_8a(tmp_path: Path) -> None:
    config = table_config(tmp_path, match={"game": "blackball", "sides": ["Ann", "Bob"], "race_to": 2},
                          shot_clock={"auto": True})
    mono = FakeMonotonic()
    t = Table(config, monotonic=mono)
    t.boards.append(Recorder())
    t.start()
    try:
        t.command({"type": "clock"}, "referee_box:0")
        mono.now += 20
        t.command(HOLD, "referee_box:0")
        assert t.clock is not None and t.clock.paused_at is not None
        mono.now += 300  # a long ruling: no time foul
        t._timers(None)
        assert t.match is not None and t.match.events[-1].TYPE == "clock_hold"
        t.command(RESUME, "referee_box:0")
        assert t.clock is not None and t.clock.paused_at is None and t.clock.left(mono.now) == 40
        t.command(TOUCHING, "referee_box:0")  # a call during the shot: the clock runs on
        assert t.clock.left(mono.now) == 40
        assert [json.loads(line)["type"] for line in read_lines(t.journal.path)[1:]] == [  # type: ignore[arg-type]
            "clock_hold", "clock_resume", "touching"]
    finally:
        t.journal.close()
