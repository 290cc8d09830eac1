"""A small archive of real-shaped matches for the league site's tests (tests/league/test_site*.py):
a round robin of five played by the engine (one player with a hostile name, one with accents, a
century), a knockout of four (the semi-finals, then the final between their winners), the
examples' snooker and blackball logs imported as ``cueboard archive import`` would, and a match
day's fixtures of which one is still to play."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cueboard.league.importer import read_log
from cueboard.league.match_day import read
from cueboard.league.records import checked
from cueboard.league.store import Archive
from tests.helpers.archive import EPOCH, match_log, record, season

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = "<script>window.pwned=1</script>"
PLAYERS = ["Ann Smith", "Bob Jones", "Cat Lee", HOSTILE, "Zoë Ångström"]
CUP = ["Dan Ross", "Eve Hart", "Fay Moss", "Gus Park"]
FIXTURES = """competition,day,fixture,home_team,away_team,home,away,game,best_of
Division 1,2026-12-03,D1-X-1,Red Lion,Crown,Ann Smith,Zoë Ångström,snooker,3
"""


def knockout(seed: int = 7) -> list[dict[str, Any]]:
    """Club Cup: R1-1 and R1-2 played, then R2-1 (the final) between their winners."""
    out = []

    def play(home: str, away: str, tie: str, start: float) -> dict[str, Any]:
        rec = record(match_log(home, away, seed=seed + len(out), start=start),
                     competition="Club Cup", fixture=f"club-cup-{tie}", venue="club", table="t3")
        rec["match_id"] = f"club/t3/{rec['started']}"
        out.append(rec)
        return rec

    start = EPOCH + 10 * 86_400
    semis = [play(CUP[0], CUP[3], "R1-1", start), play(CUP[1], CUP[2], "R1-2", start + 3600)]
    finalists = [s["sides"][s["winner"]]["name"] for s in semis]
    play(finalists[0], finalists[1], "R2-1", start + 7200)
    return out


def build_archive(url: str, tmp: Path) -> list[dict[str, Any]]:
    """The archive at ``url``; the records stored (the imported logs' as stored)."""
    records = season(PLAYERS, seed=5)
    records[0]["frames"][0]["breaks"] = [{"side": 0, "player": records[0]["sides"][0]["name"], "points": 112}]
    records[1]["frames"][0]["breaks"] = [{"side": 1, "player": records[1]["sides"][1]["name"], "points": 64}]
    records += knockout()
    (tmp / "day.csv").write_text(FIXTURES, encoding="utf-8")
    with Archive.open(url) as archive:
        for rec in records:
            archive.put(checked(rec), source="test")
        for log, table, competition in (("snooker-match.jsonl", "t1", "Division 1"),
                                        ("blackball-match.jsonl", "t2", None)):
            archive.put(read_log(str(ROOT / "examples" / log), venue="club", table=table,
                                 competition=competition), source=log)
        archive.put_fixtures([f.as_dict() for f in read(str(tmp / "day.csv"))])
        return archive.records()
