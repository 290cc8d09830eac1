"""Blackball rulings no test reached before issue 39, each worked from the French text it quotes:
rules 4k-4o and 5g (what the log can and cannot carry: docs/blackball.md), 4p(b) a stalemate by
choice, 4i two touching balls and an impossible stroke, holds and touching balls in doubles,
amends across frames, and the call of rule 8a with a clock of 30 seconds or less."""

from __future__ import annotations

from typing import Any

import pytest

from cueboard.engine import Match
from tests.helpers.blackball import (
    CONCEDE,
    NEXT_FRAME,
    NO_POT,
    ann_takes_red,
    foul,
    groups,
    new_match,
    play,
    pot,
    refused,
    rerack,
    turn,
)

PAIRS = [["A1", "A2"], ["B1", "B2"]]
HOLD: dict[str, Any] = {"type": "clock_hold", "reason": "touching"}
RESUME: dict[str, Any] = {"type": "clock_resume"}
TIME = foul(reason="time")


def touching(ball: str) -> dict[str, Any]:
    return {"type": "touching", "ball": ball}


def keyed_as(events: list[dict[str, Any]], **setup: Any) -> dict[str, Any]:
    return play(new_match(**setup), *events)


def without_seq(s: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in s.items() if k != "seq"}


# -- 4k, 4l: balls off the table ---------------------------------------------------------------


def test_a_ball_off_the_table_and_back_is_no_foul_rule_4k_a() -> None:
    """4k(a): "Il n'y a pas faute si une bille quitte la surface de jeu, roule le long d'une bande
    avant de retomber sur la table ou dans une poche, et que toutes les exigences d'un coup légal
    sont remplies": the stroke is keyed as what it was, a pot if the ball fell in a pocket."""
    s = play(new_match(), *ann_takes_red(), pot("red"))
    assert (s["sides"][0]["balls_left"], turn(s)) == (5, (0, 1, False))


def test_a_ball_off_the_table_that_hits_someone_is_a_foul_and_goes_back_rule_4k_b_4l_5o() -> None:
    """4k(b), 5o: "Il y a faute si la bille sort de la surface du jeu et touche une personne ...
    et retombe ensuite sur la table"; 4l: it is put back (the black on its spot, a colour near it),
    so the foul takes no `balls`: the opponent has a free shot followed by a visit (6a)."""
    m = new_match()
    before = play(m, *ann_takes_red())
    s = play(m, foul(reason="4k(b): a red off the table onto a spectator"))
    assert s["balls"] == before["balls"] and groups(s) == ("red", "yellow")
    assert turn(s) == (1, 2, True)


# -- 4m, 4n: interference, a ball that falls by itself -----------------------------------------


def test_interference_is_no_foul_and_holds_the_clock_rule_4m_8a_b() -> None:
    """4m: "Il n'y a PAS faute si les billes sont bougées ... (a) Par des personnes autres que les
    joueurs" and the referee puts them back: nothing to key but the hold of 8a(b) ("Quelqu'un ou
    quelque chose gêne le joueur"); the shot goes on with the same player."""
    m = new_match()
    before = play(m, *ann_takes_red())
    s = play(m, {"type": "clock_hold", "reason": "interference"}, RESUME)
    assert without_seq(s) == without_seq(before)


def test_balls_that_cannot_be_put_back_are_re_racked_by_the_same_breaker_rule_4n_c() -> None:
    """4n(c): "le triangle serait reformé sans qu'aucune pénalité ne soit infligée et la casse
    serait effectuée par le même joueur ayant cassé": Bob at the table, Ann broke; she breaks again."""
    m = new_match()
    s = play(m, NO_POT, rerack())
    assert (s["breaker"], s["striker"], s["break_shot"]) == (0, 0, True)
    assert s["balls"] == {"red": 7, "yellow": 7, "black": 1}


def test_a_ball_that_teeters_and_falls_counts_as_potted_rule_4n_d() -> None:
    """4n(d): "Si une bille oscille momentanément sur le bord de la poche avant de tomber, elle est
    alors considérée comme empochée": keyed as a pot of the stroke that left it there."""
    s = play(new_match(), NO_POT, pot("yellow"))
    assert (groups(s), s["sides"][1]["balls_left"]) == (("red", "yellow"), 6)


# -- 4p: stalemate ---------------------------------------------------------------------------


def test_a_stalemate_by_choice_goes_to_a_lag_for_the_break_rule_4p_b() -> None:
    """4p(b): "Si le PAT est par choix, un tirage à la bande sera refait pour la casse": Bob wins the
    lag and breaks the replayed frame. Breaks go on by frame number (docs/blackball.md): frame 2 is
    still Bob's, frame 3 Ann's."""
    m = new_match(race_to=3)
    s = play(m, *ann_takes_red(), rerack(breaker=1))
    assert (s["frame"], s["breaker"], s["striker"], s["break_shot"]) == (1, 1, 1, True)
    assert groups(s) == (None, None) and s["balls"] == {"red": 7, "yellow": 7, "black": 1}
    s = play(m, CONCEDE, NEXT_FRAME)
    assert (s["frame"], s["breaker"]) == (2, 1)
    assert play(m, CONCEDE, NEXT_FRAME)["breaker"] == 0


def test_an_accidental_stalemate_keeps_the_breaker_rule_4p_a() -> None:
    """4p(a): "Si le PAT est accidentel, le joueur ayant cassé, casse à nouveau"."""
    s = play(new_match(), *ann_takes_red(), NO_POT, rerack())
    assert (s["breaker"], s["striker"]) == (0, 0)


# -- 4i: touching balls ------------------------------------------------------------------------


def test_two_touching_balls_and_no_legal_stroke_replays_the_frame_rule_4i_4p() -> None:
    """4i: "Si deux billes ou plus sont touchantes. Le coup doit répondre à toutes les exigences
    d'un coup légal. Si c'est impossible, la partie est nulle. Voir 4p." Two called, then re-racked
    with no penalty; the calls end with the frame."""
    m = new_match()
    play(m, *ann_takes_red(), touching("red"), touching("yellow"))
    assert m.position.touching == ("red", "yellow")
    s = play(m, rerack())
    assert (s["breaker"], s["striker"], s["break_shot"]) == (0, 0, True) and m.position.touching == ()


def test_each_ball_is_called_once_as_many_as_are_on_the_table_rule_4i() -> None:
    m = new_match()
    play(m, *ann_takes_red(), *[pot("red")] * 5)  # one red left
    play(m, touching("red"))
    refused(m, touching("red"), "the red was called touching already", "rule 4i")
    play(m, touching("black"))
    refused(m, touching("black"), "the black was called touching already", "rule 4i")
    assert m.position.touching == ("red", "black")
    play(m, NO_POT)
    assert m.position.touching == ()  # until the stroke


# -- holds and touching balls in doubles ---------------------------------------------------------


def test_holds_and_touching_balls_in_doubles_rule_4i_8a() -> None:
    """8a(c): the clock is held while the referee rules on touching balls; the call and the hold
    are the striker's shot, whoever of the four is at the table, and end with his stroke; the next
    in the order of play (A1, B1, A2, B2) gets a clock of his own."""
    m = new_match(PAIRS)
    s = play(m, NO_POT, NO_POT)  # A1 breaks, B1 plays: A2 at the table
    assert s["player"] == "A2"
    play(m, touching("red"), touching("yellow"), HOLD)
    refused(m, TIME, "held", "rule 8a")
    refused(m, HOLD, "held already")
    s = play(m, RESUME, TIME)  # the time runs again and runs out: B2 has a free shot and a visit
    assert (s["player"], s["visits"], s["free_shot"]) == ("B2", 2, True)
    assert m.position.touching == () and m.position.held is None
    s = play(m, {"type": "clock_hold", "reason": "rest"}, pot("red"))  # the stroke ends the hold
    assert (s["player"], m.position.held) == ("B2", None)


# -- amends across frames ---------------------------------------------------------------------


def test_an_amend_across_frames_changes_the_frame_it_corrects() -> None:
    """events.md, Corrections: "a correction that changes a finished frame, or who won it, changes
    the record". Ann's safety (event 4) was never played: it was Ann, not Bob, who conceded frame
    1. The frame moves to Bob; frame 2 goes on as keyed."""
    log = [*ann_takes_red(), NO_POT, CONCEDE, NEXT_FRAME, NO_POT]
    m = new_match(race_to=3)
    s = play(m, *log)
    assert [side["frames"] for side in s["sides"]] == [1, 0]
    s = play(m, {"type": "amend", "seq": 4, "event": None})
    assert [side["frames"] for side in s["sides"]] == [0, 1]
    assert s == keyed_as([*ann_takes_red(), CONCEDE, NEXT_FRAME, NO_POT], race_to=3)


def test_an_amend_that_a_later_frame_no_longer_fits_is_refused() -> None:
    """The frame's last event taken away: the next_frame after it no longer applies; refused,
    naming it (by its number in the log as it stands), and nothing changes."""
    m = new_match(race_to=3)
    play(m, NO_POT, CONCEDE, NEXT_FRAME, NO_POT)
    refused(m, {"type": "amend", "seq": 2, "event": None}, "event 3 (next_frame) no longer applies",
            "the frame is not over")


# -- rule 8a: the call of "30 secondes" ----------------------------------------------------------


@pytest.mark.parametrize(("clock", "call"), [(60, 30), (31, 30), (30, None), (20, None)])
def test_the_30_second_call_needs_a_shot_longer_than_30_seconds_rule_8a(clock: int, call: int | None) -> None:
    """8a: "Lorsque 30 secondes se sont écoulées, l'arbitre annonce « 30 secondes »". With a clock
    of 30 s the 30 seconds are the whole shot: the time is up, a foul, not a call; shorter, no
    call either."""
    s = keyed_as([], shot_clock=clock)
    assert (s["shot_clock"], s["shot_clock_call"]) == (clock, call)
    m = new_match(shot_clock=clock)
    assert m.shot_time() is not None and m.shot_time().call_at == call  # type: ignore[union-attr]


def test_a_call_at_or_after_the_time_is_refused_on_the_match_line_rule_8a() -> None:
    with pytest.raises(Exception, match="must come before the time is up"):
        Match.from_json({"type": "match", "game": "blackball", "sides": ["Ann", "Bob"],
                         "shot_clock": {"seconds": 30, "call": 30}})
