"""The league's tables over HTTP (cueboard/league/http.py), through aiohttp's test client, and
the standings page drawn by Chromium."""

from __future__ import annotations

import asyncio
import csv
import io
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from cueboard.league.records import checked
from cueboard.league.standings import standings
from cueboard.league.store import Archive
from tests.helpers.archive import season

PLAYERS = ["Ann", "Bob", "Cat", "Dan"]


def with_client(url: str, body: Callable[[TestClient[Any, Any]], Awaitable[None]], *, mount: str = "") -> None:
    """Run ``body`` with a test client of the archive app, alone or mounted under ``mount``
    in a parent application (as issue 26's server would mount it)."""
    from cueboard.league.http import archive_app

    async def main() -> None:
        app = archive_app(url)
        if mount:
            parent = web.Application()
            parent.add_subapp(mount, app)
            app = parent
        async with TestClient(TestServer(app)) as client:
            await body(client)

    asyncio.run(main())


@pytest.fixture
def league_db(tmp_path: Path) -> tuple[str, list[dict[str, Any]]]:
    url = f"sqlite:///{tmp_path}/a.db"
    records = season(PLAYERS, seed=2)
    records[0]["frames"][0]["breaks"] = [{"side": 0, "player": records[0]["sides"][0]["name"], "points": 112}]
    with Archive.open(url) as archive:
        for rec in records:
            archive.put(checked(rec), source="test")
    return url, records


def test_standings_breaks_and_matches_as_json_and_csv(league_db: tuple[str, list[dict[str, Any]]]) -> None:
    url, records = league_db
    expected = [r.as_dict() for r in standings(records)]
    seen: dict[str, Any] = {}

    async def body(client: TestClient[Any, Any]) -> None:
        response = await client.get("/league/standings")
        assert response.status == 200 and response.content_type == "application/json"
        seen["standings"] = await response.json()
        response = await client.get("/league/standings.csv")
        assert response.content_type == "text/csv"
        seen["csv"] = list(csv.DictReader(io.StringIO(await response.text())))
        seen["breaks"] = await (await client.get("/league/breaks?least=100")).json()
        seen["ann"] = await (await client.get("/league/players/Ann/matches")).json()
        match_id = records[0]["match_id"]
        seen["one"] = await (await client.get(f"/league/matches/{match_id}")).json()
        seen["cuescore"] = await (await client.get(f"/league/matches/{match_id}?format=cuescore")).json()
        seen["missing"] = (await client.get("/league/matches/club/t9/nothing")).status
        bad = await client.get("/league/standings?win=lots")
        seen["bad"] = (bad.status, await bad.text())
        seen["worse"] = [(await client.get(f"/league/standings?win={v}")).status for v in ("--5", "1e3", "99999")]
        page = await client.get("/league/?competition=Division%201")
        seen["page"] = await page.text()

    with_client(url, body, mount="/league/")
    assert seen["standings"] == expected
    assert [row["name"] for row in seen["csv"]] == [row["name"] for row in expected]
    assert {"name", "played", "won", "lost", "frames_for", "frames_against", "points"} <= set(seen["csv"][0])
    assert seen["breaks"][0]["points"] == 112 and seen["breaks"][0]["century"]
    assert len(seen["ann"]) == 3 and {m["result"] for m in seen["ann"]} <= {"won", "lost"}
    assert seen["one"]["match_id"] == records[0]["match_id"] and seen["one"]["frames"] == records[0]["frames"]
    assert seen["cuescore"]["playerA"]["name"] == records[0]["sides"][0]["name"]
    assert seen["cuescore"]["matchstatus"] == "finished"
    assert seen["missing"] == 404
    assert seen["bad"][0] == 400 and "?win=" in seen["bad"][1]
    assert seen["worse"] == [400, 400, 400]
    assert "<h1>Division 1</h1>" in seen["page"] and "<script" not in seen["page"]


def test_a_name_is_escaped_on_the_page(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/a.db"
    rec = season(["<b>Ann</b>", "Bob"], seed=3)[0]
    with Archive.open(url) as archive:
        archive.put(checked(rec), source="test")
    got: list[str] = []

    async def body(client: TestClient[Any, Any]) -> None:
        got.append(await (await client.get("/")).text())

    with_client(url, body)
    assert "&lt;b&gt;Ann&lt;/b&gt;" in got[0] and "<b>Ann</b>" not in got[0]
