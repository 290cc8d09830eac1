"""``cueboard archive site`` (cueboard/league/site/) and the CueScore-shaped export of a whole
competition (``export --competition``, ``/matches?format=cuescore``): built from a small archive
of real-shaped matches (tests/league/site_data.py). The site in a browser: test_site_browser.py."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from cueboard.cli import main
from cueboard.common.languages import LANGUAGES
from cueboard.league.export import cuescore_match
from cueboard.league.http import archive_app
from cueboard.league.site import paths
from cueboard.league.site.bracket import bracket_of
from cueboard.league.site.words import _catalogues
from tests.helpers.archive import season
from tests.league.site_data import HOSTILE, build_archive, knockout


@pytest.fixture
def archive_url(tmp_path: Path) -> tuple[str, list[dict[str, Any]]]:
    url = f"sqlite:///{tmp_path}/league.db"
    return url, build_archive(url, tmp_path)


def _site(tmp_path: Path, url: str, *more: str, name: str = "site") -> Path:
    out = tmp_path / name
    assert main(["archive", "site", "--db", url, "--out", str(out), *more]) == 0
    return out


def _pages(site: Path) -> dict[str, str]:
    return {str(p.relative_to(site)): p.read_text("utf-8") for p in site.rglob("*") if p.is_file()}


def test_the_site_has_a_page_for_each_competition_match_and_player(
        archive_url: tuple[str, list[dict[str, Any]]], tmp_path: Path) -> None:
    url, records = archive_url
    site = _pages(_site(tmp_path, url))
    players = {p for r in records for s in r["sides"] for p in s["players"]}
    expected = {"index.html", "style.css", ".cueboard-site",
                *(paths.competition_page(c) for c in ("Division 1", "Club Cup", None)),
                *(paths.match_page(r["match_id"]) for r in records), *(paths.player_page(p) for p in players)}
    assert set(site) == expected
    division = site[paths.competition_page("Division 1")]
    assert "to play" in division  # the match day's fixture not yet played
    assert ">112<" in division and 'class="century"' in division  # the century in the break list
    cup = site[paths.competition_page("Club Cup")]
    assert 'id="bracket"' in cup and "Semi-finals" in cup and "Final" in cup and 'class="standings"' not in cup
    for name, text in site.items():
        if name.endswith(".html"):
            assert "<script" not in text.lower(), name  # no script at all, and the hostile name escaped
            assert 'href="/' not in text and "http" not in text, name  # relative links: any host, any folder
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in site[paths.player_page(HOSTILE)]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_site_speaks_the_leagues_language(language: str, archive_url: tuple[str, list[dict[str, Any]]],
                                              tmp_path: Path) -> None:
    url, _ = archive_url
    words = _catalogues()[language]
    assert set(words) == set(_catalogues()["en"])  # every key in every language
    page = (_site(tmp_path, url, "--language", language) / paths.competition_page("Division 1")).read_text()
    assert f'<html lang="{language}">' in page
    assert f">{words['standings']}</h2>" in page and f">{words['fixtures']}</h2>" in page
    if language != "en":
        assert ">Fixtures and results<" not in page


def test_bad_input_is_refused_naming_it_and_changes_nothing(archive_url: tuple[str, list[dict[str, Any]]],
                                                            tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url, _ = archive_url
    out = tmp_path / "site"
    assert main(["archive", "site", "--db", url, "--out", str(out), "--language", "xx"]) == 2
    assert "--language" in capsys.readouterr().err and not out.exists()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    assert main(["archive", "site", "--db", url, "--out", str(mine)]) == 1
    err = capsys.readouterr().err
    assert str(mine) in err and ".cueboard-site" in err
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
    # A site written here before is replaced whole: a page no longer built does not stay.
    site = _site(tmp_path, url)
    (site / "p" / "gone.html").write_text("old")
    _site(tmp_path, url)
    assert not (site / "p" / "gone.html").exists() and (site / "index.html").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".site")] == []  # no temporary left


def test_a_knockout_gets_its_bracket_and_a_round_robin_none() -> None:
    cup = knockout()
    bracket = bracket_of(cup)
    assert bracket is not None and [len(r) for r in bracket.rounds] == [2, 1]
    assert [t.record for t in bracket.rounds[1]] == [cup[2]]
    assert bracket.name_key(0) == ("round.semi", 0) and bracket.name_key(1) == ("round.final", 0)
    assert bracket_of(season(["Ann", "Bob", "Cat", "Dan"])) is None  # fixtures R1-1 ... R3-2: not a knockout
    loser = next(s["name"] for s in cup[0]["sides"] if s["name"] not in [x["name"] for x in cup[2]["sides"]])
    replayed = {**cup[2], "sides": [{"name": loser, "players": [loser]}, cup[2]["sides"][1]]}
    assert bracket_of([cup[0], cup[1], replayed]) is None  # a loser playing on: not a knockout


def test_cuescore_export_of_a_whole_competition(archive_url: tuple[str, list[dict[str, Any]]],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    url, records = archive_url
    division = [r for r in records if r.get("competition") == "Division 1"]
    expected = {"tournamentName": "Division 1", "matches": [cuescore_match(r) for r in division]}
    assert len(expected["matches"]) == 11 and all(m["playerA"]["name"] for m in expected["matches"])
    assert main(["archive", "export", "--db", url, "--format", "cuescore", "--competition", "Division 1"]) == 0
    assert json.loads(capsys.readouterr().out) == expected
    assert main(["archive", "export", "--db", url, "--competition", "Division 1"]) == 0
    assert json.loads(capsys.readouterr().out) == division  # the native shape, as before
    assert main(["archive", "export", "--db", url, "--cuescore", division[0]["match_id"]]) == 0
    assert json.loads(capsys.readouterr().out) == cuescore_match(division[0])
    assert main(["archive", "export", "--db", url]) == 2
    assert "MATCH_ID or --competition" in capsys.readouterr().err
    assert main(["archive", "export", "--db", url, "--competition", "Nowhere"]) == 1
    assert "'Nowhere'" in capsys.readouterr().err
    seen: dict[str, Any] = {}

    async def run() -> None:
        async with TestClient(TestServer(archive_app(url))) as client:
            seen["cuescore"] = await (await client.get("/matches?format=cuescore&competition=Division%201")).json()
            seen["native"] = await (await client.get("/matches?competition=Division%201")).json()

    asyncio.run(run())
    assert seen["cuescore"] == expected and seen["native"] == division


@pytest.mark.system
def test_postgresql_gives_the_same_site_as_sqlite(tmp_path: Path, postgres_url: str) -> None:
    sqlite = f"sqlite:///{tmp_path}/league.db"
    build_archive(sqlite, tmp_path)
    build_archive(postgres_url, tmp_path)
    assert _pages(_site(tmp_path, postgres_url, name="pg")) == _pages(_site(tmp_path, sqlite, name="lite"))


def test_an_empty_archive_makes_a_site_and_no_name_leaves_the_folder(tmp_path: Path) -> None:
    site = _site(tmp_path, f"sqlite:///{tmp_path}/empty.db")
    assert sorted(_pages(site)) == [".cueboard-site", "index.html", "style.css"]
    for name in ("../../etc/passwd", "/root", "..", "C:\\x", "a/b", "赵心童"):
        for page in (paths.player_page(name), paths.match_page(name), paths.competition_page(name)):
            folder, file = page.split("/")
            assert folder in ("p", "m", "c") and ".." not in file and "\\" not in file and file.endswith(".html")
