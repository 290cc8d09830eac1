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


def doubles() -> dict[str, Any]:
    """A four-handed best of 3 written for the purpose: a start of 14 for Eve and Fay, a
    century, a decider, and a frame without times."""
    return {
        "schema": 1, "game": "snooker", "match_id": "club/t2/2026-11-20T19:00:00Z", "competition": "Doubles",
        "sides": [{"name": "Cat & Dan", "players": ["Cat", "Dan"]}, {"name": "Eve & Fay", "players": ["Eve", "Fay"]}],
        "best_of": 3, "race_to": 2, "aggregate": False, "reds": 15, "handicap": [0, 14], "breaks_from": 50,
        "started": "2026-11-20T19:00:00Z", "ended": "2026-11-20T20:30:00Z",
        "frames": [
            {"frame": 1, "breaker": 0, "scores": [60, 70], "winner": 1, "how": "potted", "rule": None,
             "breaks": [{"side": 0, "player": "Cat", "points": 55}], "high_break": [55, 30],
             "started": "2026-11-20T19:00:00Z", "ended": "2026-11-20T19:20:00Z", "strokes": 40},
            {"frame": 2, "breaker": 1, "scores": [120, 20], "winner": 0, "how": "potted", "rule": None,
             "breaks": [{"side": 0, "player": "Dan", "points": 101}], "high_break": [101, 6],
             "started": "2026-11-20T19:25:00Z", "ended": "2026-11-20T19:45:00Z", "strokes": 30},
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
                "safeties": None}


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
    assert got[("Div 1", "Ronnie")] == {
        "competition": "Div 1", "player": "Ronnie", "matches_played": 2, "matches_won": 2,
        "frames_played": 7, "frames_won": 5, "frame_win_rate": round(5 / 7, 4),
        "points_per_frame": 65.0,  # (74 + 17 + 117 + 17 + 89 + 91 + 50) / 7 = 455 / 7
        "high_break": 67, "breaks_50": 2, "breaks_100": 0, "average_break": 59.5,  # (52 + 67) / 2
        "average_frame_seconds": 1623.3,  # 9740 / 6
        "deciding_frames_played": 0, "deciding_frames_won": 0, **NOT_ARCHIVED}
    assert got[("Div 1", "Judd")] == {
        "competition": "Div 1", "player": "Judd", "matches_played": 2, "matches_won": 0,
        "frames_played": 7, "frames_won": 2, "frame_win_rate": round(2 / 7, 4),
        "points_per_frame": 46.43,  # (45 + 69 + 9 + 113 + 16 + 30 + 43) / 7 = 325 / 7
        "high_break": 100, "breaks_50": 1, "breaks_100": 1, "average_break": 100.0,
        "average_frame_seconds": 1623.3, "deciding_frames_played": 0, "deciding_frames_won": 0, **NOT_ARCHIVED}
    # examples/blackball-match.jsonl, Ann v Bob, race to 2: Bob, Ann, Ann (the third at 1-1).
    blackball = {"points_per_frame": None, "high_break": None, "breaks_50": 0, "breaks_100": 0,
                 "average_break": None, "average_frame_seconds": None, **NOT_ARCHIVED}
    assert got[("Div 1", "Ann")] == {
        "competition": "Div 1", "player": "Ann", "matches_played": 1, "matches_won": 1, "frames_played": 3,
        "frames_won": 2, "frame_win_rate": 0.6667, "deciding_frames_played": 1, "deciding_frames_won": 1,
        **blackball}
    assert got[("Div 1", "Bob")] == {
        "competition": "Div 1", "player": "Bob", "matches_played": 1, "matches_won": 0, "frames_played": 3,
        "frames_won": 1, "frame_win_rate": 0.3333, "deciding_frames_played": 1, "deciding_frames_won": 0,
        **blackball}
    # doubles(): each player of a pair has the pair's frames and points, his own breaks; a
    # pair's frame high break is nobody's in particular, so a player's high break is his
    # listed breaks'. Eve and Fay's 14 start comes off their scores.
    pair = {"competition": "Doubles", "matches_played": 1, "frames_played": 3, "average_frame_seconds": 1200.0,
            "deciding_frames_played": 1, **NOT_ARCHIVED}
    cat_dan = {**pair, "matches_won": 0, "frames_won": 1, "frame_win_rate": 0.3333,
               "points_per_frame": 73.33,  # (60 + 120 + 40) / 3
               "deciding_frames_won": 0}
    assert got[("Doubles", "Cat")] == {**cat_dan, "player": "Cat", "high_break": 55, "breaks_50": 1,
                                       "breaks_100": 0, "average_break": 55.0}
    assert got[("Doubles", "Dan")] == {**cat_dan, "player": "Dan", "high_break": 101, "breaks_50": 1,
                                       "breaks_100": 1, "average_break": 101.0}
    eve_fay = {**pair, "matches_won": 1, "frames_won": 2, "frame_win_rate": 0.6667,
               "points_per_frame": 36.33,  # (70 - 14 + 20 - 14 + 61 - 14) / 3 = 109 / 3
               "deciding_frames_won": 1, "high_break": None, "breaks_50": 0, "breaks_100": 0,
               "average_break": None}
    assert got[("Doubles", "Eve")] == {**eve_fay, "player": "Eve"}
    assert got[("Doubles", "Fay")] == {**eve_fay, "player": "Fay"}
    assert len(got) == 8


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
