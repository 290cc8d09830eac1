"""Players' figures from the archive (issue 42), each checked against figures worked out by
hand from the records (the frames' lines in the comments), on SQLite and PostgreSQL alike;
and ``cueboard archive stats`` in its three forms."""

from __future__ import annotations

import argparse
import io
import json
import random
from pathlib import Path
from typing import Any

import pytest

from cueboard.cli import main
from cueboard.common.resources import examples_dir
from cueboard.games.simulate_strength import match_record
from cueboard.league.importer import read_log
from cueboard.league.records import checked
from cueboard.league.stats_command import stats
from cueboard.league.stats_figures import FIELDS, RESTS_ON, player_stats
from cueboard.league.store import Archive


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.system)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/archive.db"
    url: str = request.getfixturevalue("postgres_url")
    return url


def count(side: int, player: str, strokes: int, pots: int, safeties: int | None, fouls: int, misses: int,
          seconds: float, timed: int) -> dict[str, Any]:
    return {"side": side, "player": player, "strokes": strokes, "pots": pots, "safeties": safeties,
            "fouls": fouls, "misses": misses, "seconds": seconds, "timed": timed}


def doubles() -> dict[str, Any]:
    """A four-handed best of 3 written for the purpose: a start of 14 for Eve and Fay, a
    century, a decider, and a frame without times; the counts of docs/record.md in frames 1
    and 2 (safety keyed in frame 2 only), none in frame 3 (as a record made before them)."""
    return {
        "schema": 1, "game": "snooker", "match_id": "club/t2/2026-11-20T19:00:00Z", "competition": "Doubles",
        "sides": [{"name": "Cat & Dan", "players": ["Cat", "Dan"]}, {"name": "Eve & Fay", "players": ["Eve", "Fay"]}],
        "best_of": 3, "race_to": 2, "aggregate": False, "reds": 15, "handicap": [0, 14], "breaks_from": 50,
        "started": "2026-11-20T19:00:00Z", "ended": "2026-11-20T20:30:00Z",
        "frames": [
            {"frame": 1, "breaker": 0, "scores": [60, 70], "winner": 1, "how": "potted", "rule": None,
             "breaks": [{"side": 0, "player": "Cat", "points": 55}], "high_break": [55, 30],
             "started": "2026-11-20T19:00:00Z", "ended": "2026-11-20T19:20:00Z", "strokes": 40,
             "counts": [count(0, "Cat", 12, 8, None, 1, 0, 300.0, 12), count(0, "Dan", 8, 3, None, 0, 0, 200.0, 8),
                        count(1, "Eve", 10, 5, None, 2, 1, 250.0, 10), count(1, "Fay", 10, 4, None, 0, 0, 260.0, 9)]},
            {"frame": 2, "breaker": 1, "scores": [120, 20], "winner": 0, "how": "potted", "rule": None,
             "breaks": [{"side": 0, "player": "Dan", "points": 101}], "high_break": [101, 6],
             "started": "2026-11-20T19:25:00Z", "ended": "2026-11-20T19:45:00Z", "strokes": 30,
             "counts": [count(0, "Cat", 5, 2, 1, 0, 0, 100.0, 5), count(0, "Dan", 10, 8, 2, 0, 0, 240.0, 10),
                        count(1, "Eve", 8, 1, 3, 1, 1, 180.0, 8), count(1, "Fay", 7, 2, 0, 2, 0, 150.0, 6)]},
            {"frame": 3, "breaker": 0, "scores": [40, 61], "winner": 1, "how": "potted", "rule": None,
             "breaks": [], "high_break": [20, 25], "started": None, "ended": None, "strokes": 50},
        ],
        "frames_won": [1, 2], "totals": [220, 151], "high_break": [], "winner": 1, "how": "played",
    }


def fill(url: str) -> None:
    with Archive.open(url) as archive:
        for name in ("snooker-match.jsonl", "snooker-frame.jsonl", "blackball-match.jsonl"):
            archive.put(read_log(str(examples_dir() / name), competition="Div 1"), source=name)
        archive.put(checked(doubles()), source="test")


def figures(url: str) -> dict[tuple[str, str], dict[str, Any]]:
    with Archive.open(url) as archive:
        return {(s.competition, s.player): s.as_dict() for s in player_stats(archive.records())}


NOT_ARCHIVED = {"average_shot_seconds": None, "fouls_conceded": None, "misses_conceded": None, "pots": None,
                "safeties": None, "frames_counted": None, "frames_safety_keyed": None}
"""The figures from the frames' counts of a player none of whose frames has them."""


def test_every_figure_against_the_hand_worked_one(db_url: str) -> None:
    fill(db_url)
    got = figures(db_url)
    # examples/snooker-match.jsonl, Ronnie v Judd, best of 7, 4-2 (report's frames):
    #   1 [74, 45] R, break R 52, high [52, 37], 19:02:39-19:20:14 (1055 s)
    #   2 [17, 69] J, high [17, 32], 19:24:11-19:47:20 (1389 s)
    #   3 [117, 9] R, break R 67, high [67, 8], 19:51:32-20:22:11 (1839 s)
    #   4 [17, 113] J, break J 100, high [17, 100], 20:25:32-21:04:12 (2320 s)
    #   5 [89, 16] R, 21:07:51-21:31:52 (1441 s); 6 [91, 30] R, 21:36:57-22:05:13 (1696 s)
    # examples/snooker-frame.jsonl, a best of 1: [50, 43] to Ronnie, no times, not a decider.
    # The frames' counts (report's), Ronnie's then Judd's: strokes, pots, fouls, misses, seconds/timed
    #   1 R 22 19 0 0 580.328/21 (his break-off the match's first event: untimed); J 16 13 0 0 474.424/16
    #   2 R 16 5 0 0 478.273/16; J 32 20 0 0 896.034/32
    #   3 R 45 30 0 0 1279.281/45; J 19 4 0 0 575.395/19
    #   4 R 28 5 3 1 823.863/28; J 49 26 0 0 1496.486/49
    #   5 R 33 22 0 0 950.312/33; J 17 6 2 1 521.148/17
    #   6 R 39 25 1 0 1140.414/39; J 20 6 1 0 576.563/20
    #   snooker-frame: R 12 9 1 0 (no times); J 15 10 2 1
    # checked against the logs' lines (no undo, amend or re-rack in either): 181 + 19 pot lines
    # = 106 + 9 + 75 + 10; 7 + 3 foul lines = 4 + 1 + 3 + 2; 2 + 1 with "miss" = 1 + 2; no no_pot
    # keys "safety": safeties not known.
    ronnie_counts = {"frames_counted": 7, "pots": 115, "fouls_conceded": 5, "misses_conceded": 1,
                     "safeties": None, "frames_safety_keyed": None,
                     "average_shot_seconds": 28.9}  # 5252.471 s / 182 strokes timed = 28.86
    judd_counts = {"frames_counted": 7, "pots": 85, "fouls_conceded": 5, "misses_conceded": 2,
                   "safeties": None, "frames_safety_keyed": None,
                   "average_shot_seconds": 29.7}  # 4540.05 s / 153 = 29.67
    assert got[("Div 1", "Ronnie")] == {
        "competition": "Div 1", "player": "Ronnie", "matches_played": 2, "matches_won": 2,
        "frames_played": 7, "frames_won": 5, "frame_win_rate": round(5 / 7, 4),
        "points_per_frame": 65.0,  # (74 + 17 + 117 + 17 + 89 + 91 + 50) / 7 = 455 / 7
        "high_break": 67, "breaks_50": 2, "breaks_100": 0, "average_break": 59.5,  # (52 + 67) / 2
        "average_frame_seconds": 1623.3,  # 9740 / 6
        "deciding_frames_played": 0, "deciding_frames_won": 0, **ronnie_counts}
    assert got[("Div 1", "Judd")] == {
        "competition": "Div 1", "player": "Judd", "matches_played": 2, "matches_won": 0,
        "frames_played": 7, "frames_won": 2, "frame_win_rate": round(2 / 7, 4),
        "points_per_frame": 46.43,  # (45 + 69 + 9 + 113 + 16 + 30 + 43) / 7 = 325 / 7
        "high_break": 100, "breaks_50": 1, "breaks_100": 1, "average_break": 100.0,
        "average_frame_seconds": 1623.3, "deciding_frames_played": 0, "deciding_frames_won": 0, **judd_counts}
    # examples/blackball-match.jsonl, Ann v Bob, race to 2: Bob, Ann, Ann (the third at 1-1).
    # Its counts by the log's lines (only the match line has a time: no shot time; blackball
    # has no miss or safety: not known):
    #   1 Ann 2-4, 7-10: 7 strokes, 5 pots; Bob 5, 6 (foul), 11, 12, 15, 16 (13 undone): 5 pots, 1 foul
    #   2 Bob's invalid break (18) and Ann's black on the break (20) re-racked: void; Ann 21-24,
    #     26-28: 5 pots; Bob 25, a foul (time)
    #   3 Ann 30, no pot; Bob 31, 32: 2 pots (the black on an open table loses the frame)
    blackball = {"points_per_frame": None, "high_break": None, "breaks_50": 0, "breaks_100": 0,
                 "average_break": None, "average_frame_seconds": None, **NOT_ARCHIVED, "frames_counted": 3}
    assert got[("Div 1", "Ann")] == {
        "competition": "Div 1", "player": "Ann", "matches_played": 1, "matches_won": 1, "frames_played": 3,
        "frames_won": 2, "frame_win_rate": 0.6667, "deciding_frames_played": 1, "deciding_frames_won": 1,
        **blackball, "pots": 10, "fouls_conceded": 0}
    assert got[("Div 1", "Bob")] == {
        "competition": "Div 1", "player": "Bob", "matches_played": 1, "matches_won": 0, "frames_played": 3,
        "frames_won": 1, "frame_win_rate": 0.3333, "deciding_frames_played": 1, "deciding_frames_won": 0,
        **blackball, "pots": 7, "fouls_conceded": 2}
    # doubles(): each player of a pair has the pair's frames and points, his own breaks; a
    # pair's frame high break is nobody's in particular, so a player's high break is his
    # listed breaks'. Eve and Fay's 14 start comes off their scores.
    # Their counts: frames 1 and 2 only (frame 3 has none: not known, not 0); safeties from
    # frame 2, the one keyed. Shot time: seconds over strokes timed, both frames.
    pair = {"competition": "Doubles", "matches_played": 1, "frames_played": 3, "average_frame_seconds": 1200.0,
            "deciding_frames_played": 1, "frames_counted": 2, "frames_safety_keyed": 1}
    cat_dan = {**pair, "matches_won": 0, "frames_won": 1, "frame_win_rate": 0.3333,
               "points_per_frame": 73.33,  # (60 + 120 + 40) / 3
               "deciding_frames_won": 0}
    assert got[("Doubles", "Cat")] == {**cat_dan, "player": "Cat", "high_break": 55, "breaks_50": 1,
                                       "breaks_100": 0, "average_break": 55.0,
                                       "pots": 10, "safeties": 1, "fouls_conceded": 1, "misses_conceded": 0,
                                       "average_shot_seconds": 23.5}  # (300 + 100) / (12 + 5) = 23.53
    assert got[("Doubles", "Dan")] == {**cat_dan, "player": "Dan", "high_break": 101, "breaks_50": 1,
                                       "breaks_100": 1, "average_break": 101.0,
                                       "pots": 11, "safeties": 2, "fouls_conceded": 0, "misses_conceded": 0,
                                       "average_shot_seconds": 24.4}  # (200 + 240) / (8 + 10) = 24.44
    eve_fay = {**pair, "matches_won": 1, "frames_won": 2, "frame_win_rate": 0.6667,
               "points_per_frame": 36.33,  # (70 - 14 + 20 - 14 + 61 - 14) / 3 = 109 / 3
               "deciding_frames_won": 1, "high_break": None, "breaks_50": 0, "breaks_100": 0,
               "average_break": None}
    assert got[("Doubles", "Eve")] == {**eve_fay, "player": "Eve", "pots": 6, "safeties": 3, "fouls_conceded": 3,
                                       "misses_conceded": 2,
                                       "average_shot_seconds": 23.9}  # (250 + 180) / (10 + 8) = 23.89
    assert got[("Doubles", "Fay")] == {**eve_fay, "player": "Fay", "pots": 6, "safeties": 0, "fouls_conceded": 2,
                                       "misses_conceded": 0,
                                       "average_shot_seconds": 27.3}  # (260 + 150) / (9 + 6) = 27.33
    assert len(got) == 8


def test_records_without_counts_leave_those_figures_not_known_never_0() -> None:
    # An archive of records made before the counts: the same records, counts taken out.
    old = doubles()
    for frame in old["frames"]:
        frame.pop("counts", None)
    rows = {s.player: s.as_dict() for s in player_stats([old])}
    assert all({k: rows[p][k] for k in NOT_ARCHIVED} == NOT_ARCHIVED for p in ("Cat", "Dan", "Eve", "Fay"))
    # A malformed entry (a negative count, a name not a string) is left out, not miscounted.
    bad = doubles()
    bad["frames"][0]["counts"][0]["pots"] = -1
    bad["frames"][1]["counts"][0]["player"] = 7
    cat = next(s for s in player_stats([bad]) if s.player == "Cat")
    assert (cat.frames_counted, cat.pots, cat.average_shot_seconds) == (None, None, None)


def test_the_record_of_a_log_gives_the_figures_its_counts_say(tmp_path: Path) -> None:
    # A match written for it, the log through the engine into the archive: Ann keys safety.
    # Ann: red 0 (untimed), black 10 (10 s), no_pot safety 25 (15 s); Bob: foul and a miss 45
    # (20 s), replace 50, no_pot missed pot 62 (12 s); Ann red 70 (8 s), concedes 80.
    log = tmp_path / "m.jsonl"
    t0 = 1_795_374_131
    lines = [{"type": "match", "game": "snooker", "sides": ["Ann", "Bob"], "reds": 6, "t": t0 - 60},
             {"type": "pot", "balls": ["red"], "t": t0}, {"type": "pot", "balls": ["black"], "t": t0 + 10},
             {"type": "no_pot", "safety": True, "t": t0 + 25},
             {"type": "foul", "points": 4, "miss": True, "t": t0 + 45}, {"type": "replace", "t": t0 + 50},
             {"type": "no_pot", "safety": False, "t": t0 + 62}, {"type": "pot", "balls": ["red"], "t": t0 + 70},
             {"type": "concede", "t": t0 + 80}]
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    url = f"sqlite:///{tmp_path}/a.db"
    with Archive.open(url) as archive:
        archive.put(read_log(str(log), competition="Div 2"), source="m")
    got = figures(url)
    assert {k: got[("Div 2", "Ann")][k] for k in NOT_ARCHIVED} == {
        "frames_counted": 1, "pots": 3, "safeties": 1, "frames_safety_keyed": 1, "fouls_conceded": 0,
        "misses_conceded": 0, "average_shot_seconds": 11.0}  # (10 + 15 + 8) / 3
    assert {k: got[("Div 2", "Bob")][k] for k in NOT_ARCHIVED} == {
        "frames_counted": 1, "pots": 0, "safeties": 0, "frames_safety_keyed": 1, "fouls_conceded": 1,
        "misses_conceded": 1, "average_shot_seconds": 16.0}  # (20 + 12) / 2


def test_an_unfinished_match_counts_its_frames_but_no_match(tmp_path: Path) -> None:
    rec = doubles()
    rec.update(frames=rec["frames"][:2], frames_won=[1, 1], winner=None, how=None, ended=None)
    [cat] = [s for s in player_stats([rec]) if s.player == "Cat"]
    assert (cat.matches_played, cat.frames_played, cat.frames_won, cat.deciding_frames_played) == (0, 2, 1, 0)


def _args(**kw: Any) -> argparse.Namespace:
    base = {"csv": False, "json": False, "since": None, "until": None, "ratings": False, "history": None,
            "handicaps": None}
    return argparse.Namespace(**{**base, **kw})


def _run(url: str, **kw: Any) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with Archive.open(url) as archive:
        status = stats(archive.records(), _args(**kw), out, err)
    return status, out.getvalue(), err.getvalue()


def test_the_command_prints_a_table_csv_and_json_with_what_each_figure_rests_on(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/a.db"
    fill(url)
    status, text, _ = _run(url)
    assert status == 0
    assert text.splitlines()[1].split()[2] == "Ronnie" and "71.4%" in text and "What each figure rests on" in text
    _, as_csv, _ = _run(url, csv=True)
    lines = as_csv.splitlines()
    assert lines[0] == ",".join(FIELDS) and len(lines) == 9
    _, as_json, _ = _run(url, json=True)
    data = json.loads(as_json)
    assert data["rests_on"] == RESTS_ON and len(data["players"]) == 8
    _, season, _ = _run(url, json=True, since="2026-11-21")  # the doubles (20 November) left out
    assert {p["competition"] for p in json.loads(season)["players"]} == {"Div 1"}


def test_a_player_never_rated_or_too_few_frames_is_a_clear_refusal(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/a.db"
    fill(url)
    status, out, err = _run(url, history="Nobody")
    assert (status, out) == (2, "") and "'Nobody'" in err and "[unrated_player]" in err
    status, out, err = _run(url, handicaps=["Ronnie", "Judd"])
    assert (status, out) == (2, "") and "needs 20" in err and "[too_few_frames]" in err


def test_cueboard_archive_stats_runs_from_the_command_line(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path}/a.db"
    fill(url)
    assert main(["archive", "stats", "--db", url, "--competition", "Doubles", "--json"]) == 0
    assert {p["player"] for p in json.loads(capsys.readouterr().out)["players"]} == {"Cat", "Dan", "Eve", "Fay"}
    assert main(["archive", "stats", "--db", url, "--ratings", "--csv"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "rank,player,mu,sigma,ordinal,frames" and len(rows) == 9
    assert main(["archive", "stats", "--db", url, "--history", "Judd"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1 + 7  # the header, a line a frame he played
    with pytest.raises(SystemExit) as exit_:
        main(["archive", "stats", "--db", url, "--until", "yesterday"])
    assert exit_.value.code == 2 and "'yesterday' is not a day (YYYY-MM-DD)" in capsys.readouterr().err


def test_handicaps_from_the_command_and_a_player_with_no_points_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/a.db"
    fill(url)
    with Archive.open(url) as archive:
        archive.put_many([(checked(match_record(random.Random(i), ("Ron", "Jim"), (0.75, 0.6), best_of=5,
                                                start=1_795_000_000 + 9000 * i, match_id=f"m{i}")), "sim")
                          for i in range(10)])
    status, out, _ = _run(url, handicaps=["Ron", "Jim"], json=True)
    [row] = json.loads(out)
    assert status == 0 and (row["stronger"], row["weaker"]) == ("Ron", "Jim") and row["start"] > 0
    assert f"a start of {row['start']} for Jim makes the frame even" in row["reason"]
    status, out, err = _run(url, handicaps=["Ron", "Ann"])  # Ann has played blackball only
    assert (status, out) == (2, "") and "'Ann'" in err and "[no_scored_frames]" in err
