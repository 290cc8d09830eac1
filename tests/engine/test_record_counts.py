"""Each frame's ``counts`` (docs/record.md, "Counts"): every player's strokes, pots, safeties,
fouls, misses and seconds at the table, worked out by hand from logs written for it: a keyed
safety, a foul and a miss, the non-striker's foul, four-handed pairs, a re-rack, undo and redo,
an amend, events without times; and the incremental recorder equal to ``record_of`` each time."""

from __future__ import annotations

from typing import Any

from cueboard.engine import Match
from cueboard.engine.record import Recorder, record_of

Event = dict[str, Any]
T0 = 1_795_374_131.0


def pot(*balls: str, t: float | None = None) -> Event:
    return _t({"type": "pot", "balls": list(balls)}, t)


def no_pot(t: float | None = None, **kw: Any) -> Event:
    return _t({"type": "no_pot", **kw}, t)


def _t(event: Event, t: float | None) -> Event:
    return event if t is None else {**event, "t": T0 + t}


def counts_of(setup: dict[str, Any], events: list[Event]) -> list[list[dict[str, Any]]]:
    """Each ended frame's counts, the recorder followed event by event (with the match, so an
    amend is followed too) and checked equal to the record worked out from the final log."""
    match = Match.from_json({"type": "match", **setup})
    recorder = Recorder(match.setup, match.state())
    for obj in events:
        event = match.parse(obj)
        match.apply(event)
        recorder.apply(event, match.state(), match)
    record = recorder.record()
    assert record == record_of(match)
    return [frame["counts"] for frame in record["frames"]]


def row(side: int, player: str, strokes: int, *, pots: int = 0, safeties: int | None = None, fouls: int = 0,
        misses: int | None = 0, seconds: float = 0.0, timed: int = 0) -> dict[str, Any]:
    return {"side": side, "player": player, "strokes": strokes, "pots": pots, "safeties": safeties,
            "fouls": fouls, "misses": misses, "seconds": seconds, "timed": timed}


SNOOKER = {"game": "snooker", "sides": ["Ann", "Bob"], "reds": 6}


def test_each_stroke_goes_to_its_player_with_the_time_since_the_event_before() -> None:
    # Times in seconds from T0. Ann: 0 red (the match's first event: nothing before it, so
    # untimed), 12 black (12 s), 30 no_pot keyed safety (18 s)
    # Bob 55 foul 4 and a miss (25 s); 56 replace (not a stroke); 80 foul 4 and a miss (24 s
    # from the replace); 81 replace again; 110 no_pot, a missed pot (29 s)
    # Ann 111 red (1 s), then concedes at 200 (not a stroke).
    events = [pot("red", t=0), pot("black", t=12), no_pot(30, safety=True),
              _t({"type": "foul", "points": 4, "miss": True}, 55), _t({"type": "replace"}, 56),
              _t({"type": "foul", "points": 4, "miss": True}, 80), _t({"type": "replace"}, 81),
              no_pot(110, safety=False), pot("red", t=111), _t({"type": "concede"}, 200)]
    [counts] = counts_of(SNOOKER, events)
    assert counts == [row(0, "Ann", 4, pots=3, safeties=1, seconds=31.0, timed=3),
                      row(1, "Bob", 3, safeties=0, fouls=2, misses=2, seconds=78.0, timed=3)]


def test_safeties_are_not_known_in_a_frame_where_no_no_pot_said_safety() -> None:
    # Frame 1 keyed plain no_pots: safeties null (not 0); frame 2 keyed one: both players' known.
    events = [no_pot(), no_pot(), pot("red"), _t({"type": "concede"}, None), {"type": "next_frame"},
              no_pot(safety=False), no_pot(), _t({"type": "concede"}, None)]
    first, second = counts_of({**SNOOKER, "best_of": 3}, events)
    assert [c["safeties"] for c in first] == [None, None]
    assert [c["safeties"] for c in second] == [0, 0] and [c["strokes"] for c in second] == [1, 1]
    assert first[0]["timed"] == first[1]["timed"] == 0  # no times in the log: none timed, seconds 0


def test_the_next_frames_break_off_is_timed_from_next_frame() -> None:
    events = [pot("red", t=0), _t({"type": "concede"}, 10), _t({"type": "next_frame"}, 100),
              no_pot(140)]
    match = Match.from_json({"type": "match", **SNOOKER, "best_of": 3})
    for obj in events:
        match.apply(match.parse(obj))
    match.apply(match.parse(_t({"type": "concede"}, 150)))
    second = record_of(match)["frames"][1]["counts"]
    # Frame 2's breaker is Bob (the breaks alternate): 40 s from next_frame to his break-off.
    assert second == [row(0, "Ann", 0), row(1, "Bob", 1, seconds=40.0, timed=1)]


def test_a_non_strikers_foul_is_charged_to_him() -> None:
    # Ann at the table; Bob touches a ball (Section 3 Rule 2(b)(ii)): his foul, Ann's turn goes on.
    events = [pot("red"), _t({"type": "foul", "points": 4, "non_striker": "Bob"}, None), pot("black")]
    match = Match.from_json({"type": "match", **SNOOKER})
    recorder = Recorder(match.setup, match.state())
    for obj in [*events, {"type": "concede"}]:
        event = match.parse(obj)
        match.apply(event)
        recorder.apply(event, match.state(), match)
    [frame] = recorder.record()["frames"]
    assert [(c["player"], c["strokes"], c["fouls"]) for c in frame["counts"]] == [("Ann", 2, 0), ("Bob", 1, 1)]


def test_four_handed_pairs_are_counted_player_by_player() -> None:
    # Order A2, B1, A1, B2: A2 red black no_pot; B1 no_pot; A1 foul 4; B2 red, no_pot; A2 concedes.
    events = [{"type": "order", "players": ["A2", "B1", "A1", "B2"]}, pot("red", t=0), pot("black", t=10),
              no_pot(20), no_pot(35, safety=True), _t({"type": "foul", "points": 4}, 50), pot("red", t=58),
              no_pot(70), _t({"type": "concede"}, 90)]
    [counts] = counts_of({**SNOOKER, "sides": [["A1", "A2"], ["B1", "B2"]]}, events)
    # A2's red comes after the order line at no time: untimed. Side 0 lists A1, A2; side 1 B1, B2.
    assert counts == [row(0, "A1", 1, safeties=0, fouls=1, seconds=15.0, timed=1),
                      row(0, "A2", 3, pots=2, safeties=0, seconds=20.0, timed=2),
                      row(1, "B1", 1, safeties=1, seconds=15.0, timed=1),
                      row(1, "B2", 2, pots=1, safeties=0, seconds=20.0, timed=2)]


def test_a_rerack_voids_the_counts_of_the_rack_it_ends() -> None:
    # Ann and Bob play three strokes, the frame is re-racked (Section 3 Rule 16) at 60 and Ann
    # breaks again at 90 (30 s from the re-rack), Bob pots a red at 100 and Ann concedes.
    events = [no_pot(0), no_pot(10), _t({"type": "foul", "points": 4}, 20), _t({"type": "rerack"}, 60),
              no_pot(90), pot("red", t=100), _t({"type": "concede"}, 110)]
    [counts] = counts_of(SNOOKER, events)
    assert counts == [row(0, "Ann", 1, seconds=30.0, timed=1), row(1, "Bob", 1, pots=1, seconds=10.0, timed=1)]


def test_undo_and_redo_count_the_final_log_only() -> None:
    # Ann's no_pot at 0 (the match's first event: untimed); Bob's red at 5 undone at 8; Bob's
    # no_pot at 20 is timed from the event before it in the final log, Ann's at 0 (20 s, not
    # 12 s from the undo); Ann's red at 30 from it (10 s); an undo and redo of it change nothing.
    events = [no_pot(0), pot("red", t=5), {"type": "undo", "t": T0 + 8}, no_pot(20), pot("red", t=30),
              {"type": "undo"}, {"type": "redo"}, _t({"type": "concede"}, 40)]
    [counts] = counts_of(SNOOKER, events)
    assert counts == [row(0, "Ann", 2, pots=1, seconds=10.0, timed=1), row(1, "Bob", 1, seconds=20.0, timed=1)]


def test_an_amend_recounts_the_frame_as_if_keyed_right() -> None:
    # Keyed: Ann red (0), black (10), red (20) - the last was Bob's: an inserted no_pot before it.
    events = [pot("red", t=0), pot("black", t=10), pot("red", t=20),
              {"type": "amend", "seq": 3, "insert": no_pot()}, _t({"type": "concede"}, 30)]
    [counts] = counts_of(SNOOKER, events)
    # The inserted no_pot has no time: it is untimed, and so is Bob's red after it.
    assert counts == [row(0, "Ann", 3, pots=2, seconds=10.0, timed=1), row(1, "Bob", 1, pots=1)]


def test_blackball_counts_pots_and_fouls_and_has_no_miss_or_safety() -> None:
    # Ann breaks illegally (4b: a foul), Bob pots a red (his group), fouls, Ann concedes.
    events = [no_pot(0, legal=False), pot("red", t=20), _t({"type": "foul"}, 45), _t({"type": "concede"}, 50)]
    [counts] = counts_of({"game": "blackball", "sides": ["Ann", "Bob"]}, events)
    assert counts == [row(0, "Ann", 1, fouls=1, misses=None),
                      row(1, "Bob", 2, pots=1, fouls=1, misses=None, seconds=45.0, timed=2)]
