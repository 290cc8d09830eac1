"""``amend``: a mistake found later corrected without keying everything since (docs/events.md,
Corrections): replace, delete and insert anywhere in the match; the events after it applied
again; refused naming the first that no longer applies, nothing changed; undo and redo; the
record's ``corrections`` and the result sheet."""

from __future__ import annotations

import pytest

from cueboard.engine import IllegalEvent, Match, to_json
from cueboard.engine.record import Recorder, record_of
from cueboard.games.replay import replay
from cueboard.league.result_sheet import result_sheets
from tests.helpers.snooker import NO_POT, RED, REDO, UNDO, concede, foul, new_match, play, pot, refused


def amend(seq: int, event: dict[str, object] | None, **extra: object) -> dict[str, object]:
    return {"type": "amend", "seq": seq, "event": event, **extra}


def insert(seq: int, event: dict[str, object], **extra: object) -> dict[str, object]:
    return {"type": "amend", "seq": seq, "insert": event, **extra}


def scores(state: dict[str, object]) -> list[int]:
    return [side["score"] for side in state["sides"]]  # type: ignore[attr-defined, index]


def ann_builds_a_break() -> Match:
    """Ann: red, black, red, black, red, pink (the marker keyed black), no pot: 1+7+1+7+1+7 keyed."""
    m = new_match()
    play(m, RED, pot("black"), RED, pot("black"), RED, pot("black"), NO_POT)
    return m


def test_replace_mid_frame_the_pink_keyed_as_the_black() -> None:
    m = ann_builds_a_break()
    assert scores(m.state().to_json()) == [24, 0] and m.seq == 7
    s = play(m, amend(6, pot("pink")))
    assert scores(s) == [23, 0]
    assert (s["seq"], s["striker"], s["sides"][0]["high_break"], s["reds"]) == (7, 1, 23, 12)
    assert [e.TYPE for e in m.events] == ["pot"] * 6 + ["no_pot"]
    assert to_json(m.events[5]) == pot("pink")


def test_delete_mid_frame_a_no_pot_keyed_twice() -> None:
    m = new_match()
    play(m, RED, pot("black"), NO_POT, NO_POT, RED, pot("pink"))
    assert scores(m.state().to_json()) == [15, 0]  # as keyed: Bob's turn passed at once, Ann made 7 more
    s = play(m, amend(3, None))  # one no_pot too many: the red and the pink were Bob's
    assert scores(s) == [8, 7] and s["seq"] == 5 and s["striker"] == 1 and s["break"] == 7


def test_insert_mid_frame_a_forgotten_no_pot() -> None:
    m = new_match()
    play(m, RED, pot("black"), RED, pot("pink"))  # Bob's red and pink keyed as Ann's
    s = play(m, insert(3, NO_POT))
    assert scores(s) == [8, 7] and s["seq"] == 5 and s["striker"] == 1
    assert [side["high_break"] for side in s["sides"]] == [8, 7]


def test_a_later_event_made_illegal_is_refused_naming_it_and_nothing_changes() -> None:
    m = new_match(reds=6)
    play(m, RED, pot("black"), RED, pot("black"), NO_POT, RED, pot("blue"))
    message = refused(m, amend(2, None), "amend: event 3 (pot red) no longer applies",
                      "potting a red or two colours is a foul")
    assert "Section 3 Rule" in message
    refused(m, amend(1, pot("black")), "pot black cannot be event 1", "red is on")
    refused(m, amend(8, NO_POT), "there is no event 8: 7 events in effect")
    refused(m, amend(0, NO_POT), "'seq' is the number of the event")
    refused(m, amend(1, {"type": "undo"}), "corrects a game event, not undo")
    refused(m, {"type": "amend", "seq": 1}, "give either 'event'")
    refused(m, {"type": "amend", "seq": 1, "event": NO_POT, "insert": NO_POT}, "give either 'event'")
    refused(m, insert(1, None), "'insert' is an event")  # type: ignore[arg-type]
    refused(m, amend(1, {"type": "pot", "balls": "red"}), "amend: pot: 'balls' must be")
    refused(m, amend(1, {"type": "no_pot", "id": "x"}), "go on the amend line")


def test_undo_takes_an_amend_back_and_redo_puts_it_back() -> None:
    m = ann_builds_a_break()
    before = m.state().to_json()
    after = play(m, amend(6, pot("pink")))
    assert play(m, UNDO) == before
    assert play(m, REDO) == after
    assert play(m, UNDO, UNDO)["seq"] == 6  # then the no_pot, the last event before the amend
    assert play(m, REDO, REDO) == after
    play(m, UNDO)
    play(m, NO_POT)  # a new line: what was taken back can no longer be put back
    refused(m, REDO, "nothing to redo")


def test_seq_counts_the_events_in_effect_as_corrected() -> None:
    m = ann_builds_a_break()
    assert play(m, amend(7, None))["seq"] == 6
    assert play(m, insert(1, NO_POT))["seq"] == 7
    assert play(m, UNDO)["seq"] == 6


def test_an_amend_that_changes_who_won_a_frame_changes_the_record_and_the_sheet() -> None:
    """Best of 3, six reds: Ann's frame 1 ended when Bob conceded at 8-0 (Section 2 Rule 1(a));
    the referee finds the concession was Ann's (she was at the table: keyed one no_pot short)."""
    m = new_match(best_of=3, reds=6)
    recorder = Recorder(m.setup, m.state())
    lines = [RED, pot("black"), NO_POT, concede(), {"type": "next_frame"}, RED]
    for line in lines:
        event = m.parse(line)
        m.apply(event)
        recorder.apply(event, m.state(), m)
    assert recorder.record()["frames"][0]["winner"] == 0
    fix = m.parse(amend(3, None, user="desk", t=1_764_000_000.5))
    m.check(fix)
    m.apply(fix)
    assert recorder.apply(fix, m.state(), m) is True
    record = recorder.record()
    assert record == record_of(m)
    frame = record["frames"][0]
    assert (frame["winner"], frame["how"], record["frames_won"]) == (1, "conceded", [0, 1])
    assert record["corrections"] == [{"at": "2025-11-24T16:00:00Z", "user": "desk", "seq": 3, "frame": 1,
                                      "was": NO_POT, "now": None}]
    page = result_sheets([record])
    assert "· corrected" in page and "stroke 3 (no pot) deleted (by desk at " in page and "desk" in page
    # Undo: the record as it was, no corrections.
    undo = m.parse(UNDO)
    m.apply(undo)
    recorder.apply(undo, m.state(), m)
    assert recorder.record() == record_of(m)
    assert recorder.record()["corrections"] == [] and recorder.record()["frames"][0]["winner"] == 0
    assert "· corrected" not in result_sheets([recorder.record()])
    redo = m.parse(REDO)
    m.apply(redo)
    recorder.apply(redo, m.state(), m)
    assert recorder.record() == record


def test_a_replaced_event_keeps_the_time_it_was_keyed() -> None:
    m = new_match()
    play(m, {**RED, "t": 100.0}, {**pot("black"), "t": 110.0})
    play(m, amend(2, pot("pink"), t=500.0))
    assert m.events[1].t == 110.0
    assert record_of(m)["corrections"][0]["at"] == "1970-01-01T00:08:20Z"


def test_the_amend_line_round_trips_and_replays() -> None:
    lines = [{"type": "match", "game": "snooker", "sides": ["Ann", "Bob"]}, RED, pot("black"), NO_POT,
             amend(2, pot("pink"), user="desk", t=5.0), insert(1, NO_POT), amend(4, None), UNDO, REDO]
    raw = [__import__("json").dumps(line).encode() for line in lines]
    live = Match.from_json(lines[0])
    for line in lines[1:]:
        event = live.parse(line)
        assert live.parse(to_json(event)) == event
        live.apply(event)
    *_, (replayed, _) = replay(raw)
    assert replayed.state().to_json() == live.state().to_json()
    assert replayed.corrections == live.corrections


def test_blackball_amend() -> None:
    m = Match.from_json({"type": "match", "game": "blackball", "sides": ["Ann", "Bob"]})
    for line in ({"type": "no_pot"}, {"type": "pot", "balls": ["yellow"]}, {"type": "no_pot"}):
        m.apply(m.parse(line))
    assert m.state().to_json()["sides"][1]["group"] == "yellow"
    m.apply(m.parse(amend(2, {"type": "pot", "balls": ["red"]})))
    s = m.state().to_json()
    assert (s["sides"][1]["group"], s["sides"][0]["group"], s["striker"]) == ("red", "yellow", 0)


def test_an_amend_in_a_finished_match_may_reopen_it() -> None:
    m = new_match(reds=6)
    play(m, RED, pot("black"), NO_POT, concede())
    assert m.state().to_json()["match_over"]
    s = play(m, amend(4, NO_POT))
    assert (s["match_over"], s["striker"]) == (False, 0)  # Bob played on and missed: Ann in


@pytest.mark.parametrize("bad", [{"type": "amend", "seq": True, "event": None},
                                 {"type": "amend", "seq": 1, "event": None, "user": ""},
                                 {"type": "amend", "seq": 1, "event": None, "sek": 1},
                                 {"type": "amend", "seq": 1, "event": []}])
def test_a_malformed_amend_is_refused(bad: dict[str, object]) -> None:
    m = ann_builds_a_break()
    with pytest.raises(IllegalEvent, match="amend"):
        m.parse(bad)


def test_foul_keyed_as_a_miss_corrected() -> None:
    m = new_match()
    play(m, foul(4, miss=True))
    assert play(m, amend(1, foul(4)))["misses"] == 0


def test_undo_and_redo_of_an_amend_take_the_record_back_without_working_it_out_again() -> None:
    m = ann_builds_a_break()
    recorder = Recorder.of_match(m)
    worked: list[int] = []
    state_at = m.state_at

    def counting(seq: int) -> dict[str, object]:
        worked.append(seq)
        return state_at(seq)

    m.state_at = counting  # type: ignore[method-assign]
    before = recorder.record()
    for line, again in ((amend(2, pot("pink")), True), (UNDO, False), (REDO, False), (UNDO, False)):
        worked.clear()
        event = m.parse(line)
        m.apply(event)
        recorder.apply(event, m.state(), m)
        assert bool(worked) == again, line
        assert recorder.record() == record_of(m)
    assert recorder.record() == before
