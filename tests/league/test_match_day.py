"""A league match day from the secretary's file (cueboard/league/match_day.py): read from CSV and JSON,
played, archived with its fixture and competition, tabled by player and by team; a hostile
file refused whole with the line and the reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cueboard.cli import main
from cueboard.league.match_day import MAX_BYTES, FixtureError, parse, read
from cueboard.league.records import checked
from cueboard.league.standings import standings, team_sides
from cueboard.league.store import Archive
from tests.helpers.archive import EPOCH, match_log, record

MATCH_DAY = """competition,day,fixture,home_team,away_team,home,away,game,best_of
Division 1,2026-12-03,D1-05-1,Red Lion,Crown,Ann Smith,Bob Jones,snooker,3
Division 1,2026-12-03,D1-05-2,Red Lion,Crown,Cat Lee,Dan Ross,snooker,3
Division 1,2026-12-03,D1-05-3,Red Lion,Crown,Eve Hart & Fay Moss,Gus Bell & Hal Ward,snooker,1
Division 1,2026-12-03,D1-06-1,Anchor,Bell,Ivy Cole,Jon Dee,snooker,3
"""


def test_a_match_day_from_csv_is_played_archived_and_tabled(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "day.csv"
    path.write_text(MATCH_DAY)
    fixtures = read(str(path))
    assert [f.fixture for f in fixtures] == ["D1-05-1", "D1-05-2", "D1-05-3", "D1-06-1"]
    assert fixtures[2].match_line() == {"type": "match", "game": "snooker", "best_of": 1,
                                        "sides": [["Eve Hart", "Fay Moss"], ["Gus Bell", "Hal Ward"]]}
    db = f"sqlite:///{tmp_path}/league.db"
    assert main(["archive", "fixtures", "--db", db, str(path)]) == 0
    assert "4 fixtures stored" in capsys.readouterr().out
    with Archive.open(db) as archive:
        assert [f["fixture"] for f in archive.fixtures("Division 1")] == [f.fixture for f in fixtures]
        # Each fixture played on a table: its match line as the desk hands it, and the record
        # carrying the fixture and the competition (record.md).
        for k, f in enumerate(fixtures):
            line = f.match_line()
            log = match_log(line["sides"][0], line["sides"][1], seed=40 + k, best_of=line["best_of"],
                            start=EPOCH + 3600 * k)
            rec = record(log, fixture=f.fixture, competition=f.competition)
            archive.put(checked(rec, venue="red-lion", table=f"t{k % 2 + 1}"), source="test")
        stored = archive.records(competition="Division 1", finished_only=True)
        teams = standings(stored, teams=team_sides(archive.fixtures("Division 1")))
        rows = archive.db.query("SELECT fixture, competition FROM matches ORDER BY fixture")
    assert rows == [(f.fixture, "Division 1") for f in fixtures]
    assert {r.name for r in teams} == {"Red Lion", "Crown", "Anchor", "Bell"}
    assert sum(r.played for r in teams) == 2 * len(fixtures)
    red_lion = next(r for r in teams if r.name == "Red Lion")
    assert red_lion.played == 3
    assert main(["archive", "standings", "--db", db, "--teams", "--csv"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("position,name,played,won,lost,frames_for,frames_against")
    assert len(out) == 5


def test_json_fixtures_read_the_same_as_csv() -> None:
    data = {"fixtures": [{"fixture": "K1", "competition": "Cup", "home": "Ann", "away": "Bob", "race_to": 2,
                          "game": "blackball"},
                         {"fixture": "K2", "competition": "Cup", "home": ["Cat", "Dan"], "away": ["Eve", "Fay"]}]}
    fixtures = parse(json.dumps(data).encode())
    assert fixtures[0].match_line() == {"type": "match", "game": "blackball", "race_to": 2, "sides": ["Ann", "Bob"]}
    assert fixtures[1].home == ("Cat", "Dan")


HEADER = "competition,fixture,home,away\n"


@pytest.mark.parametrize(("data", "line", "reason"), [
    (HEADER + 'L,F1,"Ann,Bob\n', 2, "not valid CSV"),
    (HEADER + "L,F1,Ann\x07,Bob\n", 2, "control character (U+0007)"),
    (HEADER + "L,F1,Ann,\u202eBob\n", 2, "bidirectional control character (U+202E)"),
    (HEADER + "L,F1,Ann,Bob\nL,F2,Cat\n", 3, "3 cells; the header has 4"),
    (HEADER + "L,F1,Ann,Bob\nL,F1,Cat,Dan\n", 3, "listed twice (line 2 too)"),
    (HEADER + "L,F1,Ann,Bob\nL,F2,Cat," + "D" * 41 + "\n", 3, "41 characters"),
    ("fixture,home,away,colour\nF1,A,B,red\n", 1, "unknown column 'colour'"),
    ("fixture,home\nF1,A\n", 1, "no 'away' column"),
    (HEADER + "L,F1,Ann,Bob\n\x00\x00", 3, "NUL byte"),
    ("competition,fixture,home,away,best_of\nL,F1,Ann,Bob,4\n", 2, "odd"),
    ("competition,fixture,home,away,best_of\nL,F1,Ann,Bob,three\n", 2, "'best_of' must be a whole number"),
])
def test_a_hostile_fixture_file_is_refused_with_the_line_and_reason(data: str, line: int, reason: str) -> None:
    with pytest.raises(FixtureError) as caught:
        parse(data.encode(), name="day.csv")
    assert caught.value.line == line, str(caught.value)
    assert reason in str(caught.value) and str(caught.value).startswith(f"day.csv line {line}: ")


def test_a_ten_megabyte_file_is_refused_before_it_is_read_whole(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "huge.csv"
    with open(path, "wb") as f:
        f.write(HEADER.encode())
        f.write(b"L,F,Ann,Bob\n" * (10 * 1024 * 1024 // 12))
    with pytest.raises(FixtureError, match=f"more than {MAX_BYTES:,} bytes"):
        read(str(path))
    db = f"sqlite:///{tmp_path}/a.db"
    assert main(["archive", "fixtures", "--db", db, str(path)]) == 2
    assert "huge.csv: more than" in capsys.readouterr().err
    assert not (tmp_path / "a.db").exists()  # refused before the database was even opened


def test_a_file_that_is_not_utf8_is_refused_naming_the_line() -> None:
    with pytest.raises(FixtureError, match=r"line 3: not UTF-8"):
        parse(HEADER.encode() + b"L,F1,Ann,Bob\nL,F2,Ann,B\xe9b\n")
