"""The match record (``docs/record.md``, ``cueboard.engine.record``) on scripted logs of both games.

Each log is played on a match, and its record worked out twice: by a :class:`Recorder` fed
event by event as the daemon feeds it, and by :func:`record_of` from the events in effect
(what ``cueboard report`` does). The two must agree, the frames won must be the state's,
and the record must pass ``schema/record.schema.json``; then each test checks what its log
is about: a re-rack, a concession, a claim, an award, a re-spotted black, a four-handed
frame, an aggregate match, times and no times, undo across a frame's end.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from cueboard.engine import IllegalEvent, Match
from cueboard.engine.record import Recorder, iso, record_of

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = jsonschema.Draft202012Validator(json.loads((ROOT / "schema" / "record.schema.json").read_text()))

Event = dict[str, Any]
COLOURS = ["yellow", "green", "brown", "blue", "pink"]  # the black is the frame's last ball
T0 = 1_795_374_131.0  # 2026-11-22T19:02:11Z


def pot(*balls: str) -> Event:
    return {"type": "pot", "balls": list(balls)}


NO_POT: Event = {"type": "no_pot"}
NEXT: Event = {"type": "next_frame"}
CONCEDE: Event = {"type": "concede"}


def reds_and_blacks(n: int) -> list[Event]:
    return [e for _ in range(n) for e in (pot("red"), pot("black"))]


def colours(upto: str = "pink") -> list[Event]:
    return [pot(c) for c in COLOURS[: COLOURS.index(upto) + 1]]


def timed(events: list[Event], start: float = T0, step: float = 30.0) -> list[Event]:
    return [{**e, "t": start + step * (i + 1)} for i, e in enumerate(events)]


def played(setup: dict[str, Any], events: list[Event], *, breaks_from: int = 50) -> tuple[dict[str, Any], Match]:
    """The record of ``events`` (undo and redo lines allowed) after ``setup``, both ways, and the match."""
    line = {"type": "match", **setup}
    match = Match.from_json(line)
    recorder = Recorder(match.setup, match.state(), breaks_from=breaks_from)
    for obj in events:
        event = match.parse(obj)
        match.apply(event)
        recorder.apply(event, match.state())
    record = recorder.record()
    assert record == record_of(match, breaks_from=breaks_from)
    state = match.state().to_json()
    assert record["frames_won"] == [side["frames"] for side in state["sides"]]
    assert record["winner"] == state["match_winner"]
    SCHEMA.validate(record)
    return record, match


def snooker(sides: list[Any] | None = None, **setup: Any) -> dict[str, Any]:
    return {"game": "snooker", "sides": sides or ["Ann", "Bob"], "reds": 6, **setup}


def blackball(**setup: Any) -> dict[str, Any]:
    return {"game": "blackball", "sides": ["Ann", "Bob"], **setup}


# -- snooker ---------------------------------------------------------------------------


def test_a_frame_played_out_with_its_breaks_and_times() -> None:
    # Ann breaks off; Bob clears the table: 6 reds with 6 blacks, the colours, the black: 75.
    events = timed([NO_POT, *reds_and_blacks(6), *colours(), pot("black")])
    record, _ = played(snooker(), events)
    (frame,) = record["frames"]
    assert frame == {
        "frame": 1, "breaker": 0, "scores": [0, 75], "winner": 1, "how": "potted", "rule": "Section 2 Rule 1(c)",
        "breaks": [{"side": 1, "player": "Bob", "points": 75}], "high_break": [0, 75],
        "started": iso(T0 + 30), "ended": iso(T0 + 30 * 19), "strokes": 19, "reracks": 0,
        # Ann's break-off is the match's first event: nothing before it, so no time; Bob's 18
        # strokes 30 s each. No no_pot said "safety": safeties not known.
        "counts": [{"side": 0, "player": "Ann", "strokes": 1, "pots": 0, "safeties": None, "fouls": 0,
                    "misses": 0, "seconds": 0.0, "timed": 0},
                   {"side": 1, "player": "Bob", "strokes": 18, "pots": 18, "safeties": None, "fouls": 0,
                    "misses": 0, "seconds": 540.0, "timed": 18}],
    }
    assert record["high_break"] == [{"side": 1, "player": "Bob", "points": 75, "frame": 1}]
    assert record["started"] == "2026-11-22T19:02:41Z" and record["ended"] == iso(T0 + 570)
    assert record["winner"] == 1 and record["how"] == "played" and record["totals"] == [0, 75]


def test_a_rerack_drops_the_frame_its_scores_breaks_and_strokes() -> None:
    # Ann makes 57, then stalemate: Section 3 Rule 16 re-racks, scores nullified. In the frame
    # as replayed Ann pots a red and Bob concedes.
    before = [*reds_and_blacks(6), *colours("brown"), NO_POT, NO_POT, {"type": "rerack"}]
    after = [pot("red"), NO_POT, CONCEDE]
    events = timed(before + after)
    record, match = played(snooker(), events)
    assert match.state().to_json()["sides"][0]["high_break"] == 57  # the board keeps what it showed
    (frame,) = record["frames"]
    assert frame["scores"] == [1, 0] and frame["winner"] == 0
    assert frame["how"] == "conceded" and frame["rule"] == "Section 2 Rule 1(a)"
    assert frame["breaks"] == [] and frame["high_break"] == [1, 0]
    assert frame["strokes"] == 2 and frame["reracks"] == 1
    # The frame as replayed starts with its first event after the re-rack.
    assert frame["started"] == iso(events[len(before)]["t"]) and frame["ended"] == iso(events[-1]["t"])
    assert record["high_break"] == [{"side": 0, "player": "Ann", "points": 1, "frame": 1}]
    assert record["started"] == iso(events[0]["t"])  # the match started with the first frame's first event
    assert record["totals"] == [1, 0]


def test_a_claim() -> None:
    # Ann 68 with only the black left and a lead of more than 7: Section 2 Rule 1(b).
    record, _ = played(snooker(best_of=3), [*reds_and_blacks(6), *colours(), {"type": "claim"}])
    (frame,) = record["frames"]
    assert (frame["how"], frame["rule"], frame["winner"], frame["scores"]) == (
        "claimed", "Section 2 Rule 1(b)", 0, [68, 0])
    assert frame["breaks"] == [{"side": 0, "player": "Ann", "points": 68}]
    assert record["winner"] is None and record["ended"] is None and record["how"] is None


def test_an_award_of_a_frame_then_of_the_match() -> None:
    events = [pot("red"), pot("pink"), NO_POT, {"type": "award", "side": 0}, NEXT,
              pot("red"), NO_POT, NO_POT]
    record, _ = played(snooker(best_of=5), events)
    (frame,) = record["frames"]
    assert (frame["how"], frame["rule"], frame["winner"], frame["scores"]) == (
        "awarded", "Section 2 Rule 1(d)", 0, [7, 0])
    assert frame["high_break"] == [7, 0]
    # The match awarded in frame 2 (Section 4 Rule 2(b)): the frame ends, the winner has his three.
    record, _ = played(snooker(best_of=5), [*events, {"type": "award", "side": 1, "match": True}])
    assert [f["how"] for f in record["frames"]] == ["awarded", "awarded"]
    assert record["frames"][1]["winner"] == 1
    assert record["frames_won"] == [1, 3] and record["winner"] == 1 and record["how"] == "awarded"
    # Awarded once the frame is over: no frame more, the match to the other side.
    record, _ = played(snooker(best_of=5), [*events[:4], {"type": "award", "side": 1, "match": True}])
    assert len(record["frames"]) == 1 and record["frames_won"] == [1, 3] and record["how"] == "awarded"


def test_a_match_conceded() -> None:
    events = timed([*reds_and_blacks(2), NO_POT, {"type": "concede", "match": True}])
    record, _ = played(snooker(race_to=3), events)
    (frame,) = record["frames"]
    assert frame["how"] == "conceded" and frame["winner"] == 0 and frame["scores"] == [16, 0]
    assert record["frames_won"] == [3, 0] and record["winner"] == 0 and record["how"] == "conceded"
    assert record["ended"] == iso(events[-1]["t"])


def test_a_re_spotted_black() -> None:
    # Bob starts on 61: Ann clears to the pink (68), misses the black, Bob pots it: 68-68, the
    # black is re-spotted (Section 3 Rule 4(b)); Ann wins the lot and pots it.
    events = [*reds_and_blacks(6), *colours(), NO_POT, pot("black"),
              {"type": "respotted_black", "striker": 0}, pot("black")]
    record, _ = played(snooker(handicap=[0, 61]), events)
    (frame,) = record["frames"]
    assert (frame["how"], frame["rule"], frame["winner"], frame["scores"]) == (
        "respotted_black", "Section 3 Rule 4(b)", 0, [75, 68])
    # Bob's 7 that tied the frame, and Ann's 7 on the re-spotted black, are breaks of their own.
    assert frame["breaks"] == [{"side": 0, "player": "Ann", "points": 68}]
    assert frame["high_break"] == [68, 7]
    record, _ = played(snooker(handicap=[0, 61]), events, breaks_from=7)
    assert [(b["player"], b["points"]) for b in record["frames"][0]["breaks"]] == [
        ("Ann", 68), ("Bob", 7), ("Ann", 7)]


def test_a_four_handed_frame_credits_the_player_at_the_table() -> None:
    # The order of play A2, B1, A1, B2 (Section 3 Rule 17): A2 makes 8, B1 and A1 miss, B2
    # makes 9, A2 clears the last three reds: 51.
    events = [{"type": "order", "players": ["A2", "B1", "A1", "B2"]}, pot("red"), pot("black"), NO_POT,
              NO_POT, NO_POT, pot("red"), pot("blue"), pot("red"), pot("yellow"), NO_POT,
              *reds_and_blacks(3), *colours(), pot("black")]
    record, _ = played(snooker([["A1", "A2"], ["B1", "B2"]]), events, breaks_from=8)
    assert record["sides"] == [{"name": "A1 & A2", "players": ["A1", "A2"]},
                               {"name": "B1 & B2", "players": ["B1", "B2"]}]
    (frame,) = record["frames"]
    assert frame["breaks"] == [{"side": 0, "player": "A2", "points": 8}, {"side": 1, "player": "B2", "points": 9},
                               {"side": 0, "player": "A2", "points": 51}]
    assert frame["scores"] == [59, 9] and frame["high_break"] == [51, 9]
    assert record["high_break"] == [{"side": 0, "player": "A2", "points": 51, "frame": 1}]


def test_an_aggregate_match_with_a_tied_frame() -> None:
    # Best of 2 on aggregate, Bob starting each frame on 61. Frame 1 ends level on the black,
    # not the last frame: no winner (Section 3 Rule 4(c)). Frame 2: Bob 62, Ann concedes, and
    # the balls left go to Bob, reds at eight (Section 4 Rule 5(b)): 62 + 5 * 8 + 27.
    events = [*reds_and_blacks(6), *colours(), NO_POT, pot("black"), NEXT, pot("red"), NO_POT, CONCEDE]
    record, match = played(snooker(best_of=2, aggregate=True, handicap=[0, 61]), events)
    assert record["aggregate"] is True and record["race_to"] is None and record["handicap"] == [0, 61]
    first, second = record["frames"]
    assert (first["winner"], first["how"], first["scores"]) == (None, "potted", [68, 68])
    assert (second["winner"], second["how"], second["scores"], second["breaker"]) == (1, "conceded", [0, 129], 1)
    assert record["totals"] == [68, 197] == [side["total"] for side in match.state().to_json()["sides"]]
    assert record["frames_won"] == [0, 1] and record["winner"] == 1 and record["how"] == "played"


def test_an_aggregate_match_conceded_counts_the_unplayed_frames() -> None:
    # Ann 1, then Bob concedes the match: the balls left to Ann (Section 4 Rule 5(b)), and 147
    # for each frame unplayed (Section 4 Rule 2(b)(iii)).
    events = [pot("red"), NO_POT, {"type": "concede", "match": True}]
    record, match = played(snooker(best_of=3, aggregate=True), events)
    assert record["frames"][0]["scores"] == [1 + 5 * 8 + 27, 0]
    assert record["totals"] == [68 + 2 * 147, 0] == [side["total"] for side in match.state().to_json()["sides"]]
    assert record["how"] == "conceded" and record["winner"] == 0


def test_an_aggregate_award_forfeits_the_offenders_breaks() -> None:
    # Section 4 Rule 2(a)(ii): the offender forfeits all points scored in the frame.
    events = [*reds_and_blacks(1), NO_POT, *reds_and_blacks(1), {"type": "award", "side": 0}]
    record, _ = played(snooker(best_of=2, aggregate=True), events, breaks_from=1)
    (frame,) = record["frames"]
    assert frame["scores"] == [8 + 4 * 8 + 27, 0]
    assert frame["breaks"] == [{"side": 0, "player": "Ann", "points": 8}] and frame["high_break"] == [8, 0]


def test_tied_high_breaks_are_all_listed_in_the_order_made() -> None:
    events = [*reds_and_blacks(1), NO_POT, *reds_and_blacks(1), NO_POT, CONCEDE, NEXT,
              *reds_and_blacks(1), NO_POT, NO_POT, CONCEDE]
    record, _ = played(snooker(best_of=3), events)
    assert record["high_break"] == [{"side": 0, "player": "Ann", "points": 8, "frame": 1},
                                    {"side": 1, "player": "Bob", "points": 8, "frame": 1},
                                    {"side": 1, "player": "Bob", "points": 8, "frame": 2}]


def test_no_times_give_null_times() -> None:
    record, _ = played(snooker(), [*reds_and_blacks(1), NO_POT, CONCEDE])
    assert record["started"] is None and record["ended"] is None
    assert record["frames"][0]["started"] is None and record["frames"][0]["ended"] is None


def test_frame_times_leave_out_the_interval() -> None:
    # next_frame belongs to neither frame: frame 2 starts with its first stroke. Bob concedes
    # both: Ann wins 2-0.
    events = [{**pot("red"), "t": T0}, {**NO_POT, "t": T0 + 40}, {**CONCEDE, "t": T0 + 60},
              {**NEXT, "t": T0 + 100}, {**NO_POT, "t": T0 + 400}, NO_POT, {**CONCEDE, "t": T0 + 900}]
    record, _ = played(snooker(best_of=3), events)
    first, second = record["frames"]
    assert (first["started"], first["ended"]) == (iso(T0), iso(T0 + 60))
    assert (second["started"], second["ended"]) == (iso(T0 + 400), iso(T0 + 900))
    assert second["breaker"] == 1 and second["strokes"] == 2
    assert (record["started"], record["ended"], record["winner"]) == (iso(T0), iso(T0 + 900), 0)


def test_the_break_threshold_is_a_setting() -> None:
    events = [*reds_and_blacks(3), NO_POT, CONCEDE]
    assert played(snooker(), events)[0]["frames"][0]["breaks"] == []
    record, _ = played(snooker(), events, breaks_from=24)
    assert record["breaks_from"] == 24
    assert record["frames"][0]["breaks"] == [{"side": 0, "player": "Ann", "points": 24}]


def test_undo_and_redo_across_a_frames_end() -> None:
    match = Match.from_json({"type": "match", **snooker(best_of=3)})
    recorder = Recorder(match.setup, match.state())
    changes = []
    for obj in [pot("red"), NO_POT, CONCEDE, {"type": "undo"}, {"type": "redo"}, NEXT, {"type": "undo"},
                {"type": "undo"}, {"type": "undo"}, NO_POT, CONCEDE]:
        event = match.parse(obj)
        match.apply(event)
        changes.append(recorder.apply(event, match.state()))
        assert recorder.record() == record_of(match)
        assert recorder.seq == match.seq
    # The record changes with a frame's end, its undo and its redo; not with strokes or next_frame.
    assert changes == [False, False, True, True, True, False, False, True, False, False, True]
    record = recorder.record()
    assert [f["scores"] for f in record["frames"]] == [[1, 0]]
    assert record["frames"][0]["winner"] == 0 and record["frames"][0]["strokes"] == 2


def test_a_recorder_rebuilt_from_a_match_redoes_what_was_undone_before() -> None:
    # After a restart the daemon rebuilds the record from the journal's match; a redo of an
    # event undone before the restart is read from the match.
    match = Match.from_json({"type": "match", **snooker()})
    for obj in [pot("red"), NO_POT, CONCEDE, {"type": "undo"}]:
        match.apply(match.parse(obj))
    recorder = Recorder.of_match(match)
    redo = match.parse({"type": "redo"})
    match.apply(redo)
    with pytest.raises(IllegalEvent, match="pass the match"):
        Recorder.of_match(Match.from_json({"type": "match", **snooker()})).apply(redo, match.state())
    assert recorder.apply(redo, match.state(), match) is True
    assert recorder.record() == record_of(match) and record_of(match)["frames"][0]["how"] == "conceded"


# -- blackball -------------------------------------------------------------------------


def test_blackball_won_on_the_black() -> None:
    # Ann breaks (nothing down); Bob takes yellow, clears his seven and pots the black.
    events = timed([NO_POT, pot("yellow"), pot(*["yellow"] * 6), pot("black")])
    record, _ = played(blackball(race_to=2), events)
    (frame,) = record["frames"]
    assert frame == {"frame": 1, "breaker": 0, "scores": None, "winner": 1, "how": "black", "rule": "rule 3",
                     "breaks": [], "high_break": None, "started": iso(T0 + 30), "ended": iso(T0 + 120),
                     "strokes": 4, "reracks": 0, "reason": None, "balls_left": [7, 0],
                     # Blackball has no miss and no keyed safety: null; a pot stroke counts once.
                     "counts": [{"side": 0, "player": "Ann", "strokes": 1, "pots": 0, "safeties": None, "fouls": 0,
                                 "misses": None, "seconds": 0.0, "timed": 0},
                                {"side": 1, "player": "Bob", "strokes": 3, "pots": 3, "safeties": None, "fouls": 0,
                                 "misses": None, "seconds": 90.0, "timed": 3}]}
    assert record["totals"] is None and record["high_break"] == [] and "breaks_from" not in record


@pytest.mark.parametrize(("events", "rule", "reason", "winner"), [
    # Rule 7b: the black potted on an open table (Ann's break potted nothing; Bob pots it).
    ([NO_POT, pot("black")], "rule 7b", None, 0),
    # Rule 7a: a foul that pots the black.
    ([NO_POT, pot("red"), {"type": "foul", "balls": ["black"], "reason": "in-off"}], "rule 7a", "in-off", 0),
    # Rule 7 for what the engine cannot see: the referee's words kept.
    ([NO_POT, {"type": "loss", "reason": "7d: touched a ball"}], "rule 7", "7d: touched a ball", 0),
])
def test_blackball_frames_lost(events: list[Event], rule: str, reason: str | None, winner: int) -> None:
    record, _ = played(blackball(), events)
    (frame,) = record["frames"]
    assert (frame["how"], frame["rule"], frame["reason"], frame["winner"]) == ("loss", rule, reason, winner)


def test_blackball_reracks_are_dropped() -> None:
    # A stalemate re-rack (rule 4p) with the lag won by Bob, then the black on Bob's break
    # (rule 4d: re-racked, the same breaker), then Ann takes red and concedes.
    events = timed([NO_POT, pot("red"), NO_POT, {"type": "rerack", "breaker": 1}, pot("black"),
                    NO_POT, pot("red"), CONCEDE])
    record, _ = played(blackball(), events)
    (frame,) = record["frames"]
    assert frame["reracks"] == 2 and frame["strokes"] == 2 and frame["breaker"] == 1
    assert frame["how"] == "conceded" and frame["winner"] == 1 and frame["rule"] is None
    assert frame["started"] == iso(events[5]["t"])
    assert frame["balls_left"] == [6, 7]


def test_blackball_award_and_match() -> None:
    events = [NO_POT, {"type": "award", "side": 1}, NEXT, NO_POT, {"type": "concede", "match": True}]
    record, _ = played(blackball(race_to=3), events)
    assert [(f["how"], f["winner"]) for f in record["frames"]] == [("awarded", 1), ("conceded", 1)]
    assert record["frames_won"] == [0, 3] and record["how"] == "conceded" and record["winner"] == 1


def test_the_example_logs() -> None:
    from cueboard.league.report import read_records

    snooker_frame, blackball_match, snooker_match = read_records(
        [str(ROOT / "examples" / f"{name}.jsonl") for name in ("snooker-frame", "blackball-match", "snooker-match")])
    assert [f["how"] for f in snooker_frame["frames"]] == ["respotted_black"]
    assert [(f["how"], f["reracks"]) for f in blackball_match["frames"]] == [("black", 0), ("black", 2), ("loss", 0)]
    first = json.loads((ROOT / "examples" / "snooker-match.jsonl").read_text().splitlines()[1])
    assert snooker_match["frames_won"] == [4, 2] and snooker_match["started"] == iso(first["t"])
    for record in (snooker_frame, blackball_match, snooker_match):
        SCHEMA.validate(record)
