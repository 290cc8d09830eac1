"""The results archive on SQLite and on a real PostgreSQL server: every record stored once,
a newer version of a match replacing the stored one, the standings following, the same
tables from both databases, migrations, and records refused whole."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from cueboard.cli import main
from cueboard.league.database import Database, DatabaseError
from cueboard.league.records import RecordError, checked, parse_payload
from cueboard.league.schema import MIGRATIONS, current_version, migrate
from cueboard.league.standings import Rules, breaks, player_matches, standings, to_csv
from cueboard.league.store import Archive
from tests.helpers.archive import EPOCH, match_log, record, season, write_log

PLAYERS = ["Ann", "Bob", "Cat", "Dan", "Eve"]


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.system)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/archive.db"
    url: str = request.getfixturevalue("postgres_url")
    return url


def test_a_record_is_stored_once_with_its_frames_breaks_and_players(db_url: str) -> None:
    rec = record(match_log("Ann", "Bob", seed=7), venue="club", table="t1")
    with Archive.open(db_url) as archive:
        first = archive.put(checked(rec), source="test")
        again = archive.put(checked(json.loads(json.dumps(rec))), source="test")
        counts = archive.counts()
        stored = archive.record(first.match_id)
    assert (first.outcome, again.outcome) == ("stored", "same")
    assert first.match_id == f"club/t1/{rec['started']}"
    assert counts["matches"] == 1
    assert counts["frames"] == len(rec["frames"]) > 0
    assert counts["breaks"] == sum(len(f["breaks"]) for f in rec["frames"])
    assert counts["match_players"] == 2
    assert stored is not None and stored["frames"] == rec["frames"] and stored["match_id"] == first.match_id


def test_a_later_record_of_the_match_replaces_it_and_the_standings_follow(db_url: str) -> None:
    log = match_log("Ann", "Bob", seed=11, best_of=3)
    final = record(log, venue="club", table="t1", ts="2026-11-18T20:00:00.000Z")
    # The record as published after the first frame: same match, same start, one frame.
    first_frame_end = next(i for i in range(1, len(log)) if record(log[:i + 1])["frames"])
    early = record(log[:first_frame_end + 1], venue="club", table="t1", ts="2026-11-18T19:30:00.000Z")
    with Archive.open(db_url) as archive:
        assert archive.put(checked(early), source="t").outcome == "stored"
        assert standings(archive.records(finished_only=True)) == []  # not finished: no standings yet
        assert archive.put(checked(final), source="t").outcome == "replaced"
        # The earlier one arriving late (a second path) is kept out: its ts is older.
        assert archive.put(checked(early), source="t").outcome == "older"
        assert archive.counts()["frames"] == len(final["frames"])
        rows = standings(archive.records(finished_only=True))
        assert archive.revisions() == {checked(final).match_id: 2}
    winner = final["sides"][final["winner"]]["name"]
    assert rows[0].name == winner and rows[0].won == 1 and rows[1].lost == 1


def test_an_imported_log_does_not_undo_the_tables_own_record(db_url: str) -> None:
    log = match_log("Ann", "Bob", seed=12, best_of=3)
    end_of_first = next(i for i in range(1, len(log)) if record(log[:i + 1])["frames"])
    partial, final = record(log[:end_of_first + 1]), record(log)
    with Archive.open(db_url) as archive:
        def put(rec: dict[str, Any], ts: str | None = None) -> str:
            return archive.put(checked({**rec, **({"ts": ts} if ts else {})}, venue="club", table="t1"),
                               source="t").outcome

        assert put(partial, "2026-11-18T19:30:00.000Z") == "stored"  # the table's, after frame 1
        assert put(final) == "replaced"  # a journal imported: it has the end the archive missed
        assert put(final, "2026-11-18T20:00:00.000Z") == "same"  # the table's own final record
        assert put(partial) == "older"  # a stale copy of the journal imported later: kept out
        assert archive.records(finished_only=True)[0]["frames"] == final["frames"]


def test_a_correction_after_the_match_replaces_the_record_and_the_table_follows(db_url: str) -> None:
    rec = record(match_log("Ann", "Bob", seed=3), venue="club", table="t2", ts="2026-11-18T20:00:00.000Z")
    loser = 1 - rec["winner"]
    # An amend after the match (issue 27) gives the match to the other side: the record
    # republished, same match id, with the correction listed.
    corrected = json.loads(json.dumps(rec))
    corrected["winner"] = loser
    corrected["frames_won"] = list(reversed(rec["frames_won"]))
    corrected["ts"] = "2026-11-18T21:00:00.000Z"
    corrected["corrections"] = [{"at": "2026-11-18T20:55:00Z", "user": "desk", "seq": 14,
                                 "was": {"type": "pot", "balls": ["black"]}, "now": {"type": "no_pot"}}]
    with Archive.open(db_url) as archive:
        archive.put(checked(rec), source="t")
        before = standings(archive.records(finished_only=True))
        assert archive.put(checked(corrected), source="t").outcome == "replaced"
        after = standings(archive.records(finished_only=True))
        assert archive.counts()["corrections"] == 1
        rows = archive.db.query("SELECT user_name, seq, was, now FROM corrections")
    assert before[0].name == rec["sides"][rec["winner"]]["name"]
    assert after[0].name == rec["sides"][loser]["name"] and after[0].won == 1
    assert rows == [("desk", 14, '{"balls": ["black"], "type": "pot"}', '{"type": "no_pot"}')]


def _tables(url: str, records: list[dict[str, Any]]) -> dict[str, Any]:
    with Archive.open(url) as archive:
        for rec in records:
            archive.put(checked(rec), source="t")
        for rec in records[:5]:  # delivered twice
            archive.put(checked(rec), source="t")
        stored = archive.records(finished_only=True)
        counts = archive.counts()
    return {"counts": counts, "standings": to_csv(standings(stored, Rules(win=3, frame=1))),
            "breaks": breaks(stored), "ann": player_matches(stored, "Ann"), "records": stored}


def test_sqlite_and_postgresql_give_the_same_tables(tmp_path: Path, postgres_url: str) -> None:
    records = season(PLAYERS, seed=5)
    lite = _tables(f"sqlite:///{tmp_path}/a.db", records)
    pg = _tables(postgres_url, records)
    assert lite == pg
    assert lite["counts"]["matches"] == len(records) == 10  # 5 players: 10 matches, none twice
    assert len(lite["standings"].splitlines()) == 1 + len(PLAYERS)
    assert lite["standings"].splitlines()[0].startswith("position,name,played,won,lost,frames_for,frames_against")
    assert len(lite["ann"]) == 4


def test_standings_by_the_leagues_rules_and_the_tie_breaker() -> None:
    def result(a: str, b: str, fa: int, fb: int) -> dict[str, Any]:
        return {"sides": [{"name": a, "players": [a]}, {"name": b, "players": [b]}], "frames_won": [fa, fb],
                "winner": 0 if fa > fb else 1, "frames": []}

    # Ann and Bob level on points, frame difference and frames won: Bob beat Ann, so Bob is
    # above (head to head). Cat and Dan level on everything, and never met: they share 3rd.
    records = [result("Ann", "Bob", 1, 2), result("Ann", "Cat", 2, 1), result("Bob", "Dan", 1, 2),
               result("Cat", "Dan", 2, 0), result("Dan", "Ann", 1, 2), result("Cat", "Bob", 0, 2)]
    rows = standings(records)
    table = [(r.position, r.name, r.played, r.won, r.lost, r.frames_for, r.frames_against, r.points) for r in rows]
    assert table == [(1, "Bob", 3, 2, 1, 5, 3, 4), (2, "Ann", 3, 2, 1, 5, 4, 4),
                     (3, "Cat", 3, 1, 2, 3, 4, 2), (4, "Dan", 3, 1, 2, 3, 5, 2)]
    # A league scoring frames too: 1 a frame won, 2 a match won.
    framed = standings(records, Rules(win=2, frame=1))
    assert [(r.name, r.points) for r in framed] == [("Bob", 9), ("Ann", 9), ("Cat", 5), ("Dan", 5)]
    tie = standings([result("Cat", "Dan", 2, 1), result("Dan", "Cat", 2, 1)])
    assert [(r.position, r.name) for r in tie] == [(1, "Cat"), (1, "Dan")]


def test_a_name_a_spreadsheet_would_run_is_quoted_in_the_csv() -> None:
    rec = {"sides": [{"name": "=HYPERLINK(1)", "players": ["x"]}, {"name": "Bob", "players": ["Bob"]}],
           "frames_won": [1, 0], "winner": 0, "frames": []}
    assert "'=HYPERLINK(1)" in to_csv(standings([rec]))


def test_the_break_list_has_fifties_and_centuries_by_player() -> None:
    rec = record(match_log("Ann", "Bob", seed=7), venue="club", table="t1")
    rec["frames"][0]["breaks"] = [{"side": 0, "player": "Ann", "points": 104},
                                 {"side": 1, "player": "Bob", "points": 49}]
    found = breaks([rec])
    assert found[0]["player"] == "Ann" and found[0]["points"] == 104 and found[0]["century"]
    assert all(b["points"] >= 50 for b in found) and not any(b["player"] == "Bob" and b["points"] == 49
                                                             for b in found)


# -- migrations ---------------------------------------------------------------------------


def test_migrations_bring_an_old_database_up_and_refuse_a_newer_one(db_url: str) -> None:
    with Database(db_url) as db:
        assert migrate(db, MIGRATIONS[:1]) == [1]
        assert current_version(db) == 1
        assert migrate(db) == [m.version for m in MIGRATIONS[1:]]
        assert migrate(db) == []
        with db.transaction():
            db.execute("INSERT INTO schema_version (version, description, applied) VALUES (?, ?, ?)",
                       (99, "from the future", "2030-01-01T00:00:00Z"))
        with pytest.raises(DatabaseError, match="schema version 99, newer than this cueboard knows"):
            migrate(db)


def test_an_unusable_database_url_is_refused_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["archive", "standings", "--db", f"sqlite:///{tmp_path}/no/such/dir/a.db"]) == 1
    assert "does not exist" in capsys.readouterr().err
    assert main(["archive", "standings", "--db", "mysql://x@y/z"]) == 1
    assert "not a database URL" in capsys.readouterr().err


# -- refused records ----------------------------------------------------------------------


@pytest.mark.parametrize(("payload", "reason"), [
    (b"\xff\xfe", "not UTF-8 JSON"),
    (b"[1, 2]", "not a JSON object"),
    (b'{"game": "snooker", "sides": [], "frames": [], "frames_won": [0, 0]}', "'sides' must be two"),
    (b" " * (1024 * 1024 + 1), "more than the"),
    (json.dumps({"game": "snooker", "sides": [{"name": "A", "players": ["A"]}, {"name": "B", "players": ["B"]}],
                 "frames": [], "frames_won": [0, 0], "winner": None, "started": None}).encode(), "nothing to archive"),
    (json.dumps({"game": "snooker", "sides": [{"name": "A\u0007", "players": ["A"]},
                                              {"name": "B", "players": ["B"]}],
                 "frames": [], "frames_won": [0, 0]}).encode(), "'sides' must be two"),
])
def test_a_malformed_record_is_refused_with_the_reason(payload: bytes, reason: str) -> None:
    with pytest.raises(RecordError, match=reason):
        parse_payload(payload, venue="club", table="t1")


def test_import_stores_each_log_once_and_refuses_a_bad_log_storing_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path}/a.db"
    logs = [write_log(tmp_path / f"m{k}.jsonl", match_log("Ann", "Bob", seed=k, start=EPOCH + 3600 * k))
            for k in range(3)]
    assert main(["archive", "import", "--db", db, "--venue", "club", "--table", "t1", *map(str, logs)]) == 0
    assert main(["archive", "import", "--db", db, "--venue", "club", "--table", "t1", str(logs[0])]) == 0
    out = capsys.readouterr().out
    assert out.count(": stored club/t1/") == 3 and out.count(": same club/t1/") == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text(logs[0].read_text() + '{"type": "pot", "balls": ["purple"]}\n')
    extra = write_log(tmp_path / "m9.jsonl", match_log("Cat", "Dan", seed=9))
    assert main(["archive", "import", "--db", db, str(extra), str(bad)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "line " in err
    with sqlite3.connect(tmp_path / "a.db") as c:
        assert c.execute("SELECT COUNT(*) FROM matches").fetchone() == (3,)  # m9 not stored either
    assert main(["archive", "standings", "--db", db, "--csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split(",")[:7] == ["position", "name", "played", "won", "lost", "frames_for", "frames_against"]
    assert {line.split(",")[1] for line in lines[1:]} == {"Ann", "Bob"}
    assert sum(int(line.split(",")[2]) for line in lines[1:]) == 6  # 3 matches, 2 sides each


def _rows(archive: Archive) -> dict[str, Any]:
    """Every row the archive holds, but the times it took them (the only thing that differs)."""
    return {"matches": archive.db.query("SELECT match_id, digest, published, revision, finished, record "
                                        "FROM matches ORDER BY match_id"),
            **{t: archive.db.query(f"SELECT * FROM {t} ORDER BY 1, 2, 3") for t in
               ("match_players", "frames", "breaks", "corrections")}}


def test_a_batch_gives_each_record_the_outcome_and_rows_of_putting_them_one_by_one(db_url: str) -> None:
    """put_many writes a batch in a few statements (issue 41); each record's outcome, and the
    rows left, are still those of the records put one at a time in the batch's order: a
    match's two versions in one batch, a stale copy after them, the same record twice, an
    import's record the table's own copy then names."""
    log = match_log("Ann", "Bob", seed=11, best_of=3)
    first_frame_end = next(i for i in range(1, len(log)) if record(log[:i + 1])["frames"])
    early = record(log[:first_frame_end + 1], venue="club", table="t1", ts="2026-11-18T19:30:00.000Z")
    final = record(log, venue="club", table="t1", ts="2026-11-18T20:00:00.000Z")
    other = record(match_log("Cat", "Dan", seed=3), venue="club", table="t2")  # imported: no ts
    other_by_table = {**other, "ts": "2026-11-18T21:00:00.000Z"}
    before = record(match_log("Eve", "Ann", seed=5), venue="club", table="t3", ts="2026-11-18T18:00:00.000Z")
    batch = [early, early, final, early, other, other_by_table, before]
    with Archive.open(db_url) as archive:  # one already stored, then the batch
        archive.put(checked(before), source="t")
        batched = archive.put_many([(checked(r), "t") for r in batch])
        batched_rows = _rows(archive)
    one_by_one_url = db_url.replace("archive.db", "one.db") if db_url.startswith("sqlite") else db_url
    if not db_url.startswith("sqlite"):  # the same server: start again from an empty archive
        with Archive.open(db_url) as archive, archive.db.transaction():
            for t in ("match_players", "frames", "breaks", "corrections", "matches"):
                archive.db.execute(f"DELETE FROM {t}")
    with Archive.open(one_by_one_url) as archive:
        archive.put(checked(before), source="t")
        single = [archive.put(checked(r), source="t") for r in batch]
        single_rows = _rows(archive)
    assert [s.outcome for s in batched] == ["stored", "same", "replaced", "older", "stored", "same", "same"]
    assert batched == single
    assert batched_rows == single_rows
    assert [(m[0], m[2], m[3]) for m in batched_rows["matches"]] == [
        (checked(final).match_id, final["ts"], 2), (checked(other).match_id, other_by_table["ts"], 1),
        (checked(before).match_id, before["ts"], 1)]
