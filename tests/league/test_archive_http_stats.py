"""The archive's player and statistics pages (cueboard/league/http.py, ``/players/{name}``,
``/statistics``) through aiohttp's test client: the figures are the archive's, both charts are
drawn with no script, every style the page holds is one the Content-Security-Policy names, a
record stored again shows at once, and a bad name gets a clear answer."""

from __future__ import annotations

import base64
import copy
import hashlib
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

from aiohttp.test_utils import TestClient

from cueboard.league.http import CONTENT_SECURITY_POLICY
from cueboard.league.records import checked
from cueboard.league.site.figures import cell
from cueboard.league.standings import breaks
from cueboard.league.stats_figures import player_stats
from cueboard.league.store import Archive
from tests.helpers.archive import season
from tests.league.test_archive_http import with_client

PLAYERS = ["Ann", "Bob", "<b>Cat</b>", "Dan"]


def _store(url: str, records: list[dict[str, Any]]) -> None:
    with Archive.open(url) as archive:
        for rec in records:
            archive.put(checked(rec), source="test")


def _cells(page: str, label: str) -> list[str]:
    row = re.search(rf'<tr><td class="name">{re.escape(label)}(?:<br>.*?)?</td>(.*?)</tr>', page, re.S)
    assert row is not None, label
    return re.findall(r'<td class="fig">(.*?)</td>', row.group(1))


def test_a_players_page_and_the_statistics_page(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/a.db"
    records = season(PLAYERS, seed=4)
    records[0]["frames"][0]["breaks"] = [{"side": 0, "player": records[0]["sides"][0]["name"], "points": 112}]
    _store(url, records)
    ann = next(s for s in player_stats(records) if s.player == records[0]["sides"][0]["name"])
    got: dict[str, Any] = {}

    async def body(client: TestClient[Any, Any]) -> None:
        for key, path in (("player", "/players/" + quote(ann.player)), ("stats", "/statistics"),
                          ("one", "/statistics?competition=Division%201"), ("none", "/players/Nobody"),
                          ("bad", "/players/" + quote("a\u0007b")),
                          ("hostile", "/players/" + quote("<b>Cat</b>", safe=""))):
            answer = await client.get(path)
            got[key] = (answer.status, await answer.text(), answer.content_type)
        # A record stored again (a correction: a break added) shows on the next page.
        again = copy.deepcopy(records[0])
        again["frames"][0]["breaks"].append({"side": 0, "player": ann.player, "points": 77})
        _store(url, [again])
        got["after"] = await (await client.get("/players/" + quote(ann.player))).text()

    with_client(url, body)
    status, page, kind = got["player"]
    assert status == 200 and kind == "text/html" and "<script" not in page
    assert _cells(page, "Frames played") == [str(ann.frames_played)]
    assert _cells(page, "Frames won %") == [cell("frame_win_rate", ann.frame_win_rate)]
    assert _cells(page, "High break") == [str(ann.high_break)] and ann.high_break == 112
    # From the frames' counts (docs/record.md "Counts"); each figure says what it rests on.
    assert ann.average_shot_seconds is not None
    assert _cells(page, "Average shot (min:s)") == [cell("average_shot_seconds", ann.average_shot_seconds)]
    assert "Rests on" in page
    assert page.count("<svg ") == 2 and 'aria-label="Rating after each frame"' in page
    listed = [b for b in breaks(records) if b["player"] == ann.player]
    assert page.count('class="rect reactive') == len(listed) > 0  # a bar a listed break
    assert got["after"].count('class="rect reactive') == len(listed) + 1
    # Every <style> on the page (its own, the charts') is one the policy lets through.
    policy = next(d for d in CONTENT_SECURITY_POLICY.split("; ") if d.startswith("style-src"))
    for style in re.findall(r"<style[^>]*>(.*?)</style>", page, re.S):
        digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in policy
    assert "script-src" not in CONTENT_SECURITY_POLICY and "default-src 'none'" in CONTENT_SECURITY_POLICY
    # The statistics: every player a row, a link to his page; one competition's alone.
    status, stats, _ = got["stats"]
    assert status == 200 and "<h2>Division 1</h2>" in stats
    for name in PLAYERS:
        assert f'href="./players/{quote(name, safe="")}"' in stats
    assert "&lt;b&gt;Cat&lt;/b&gt;" in stats and "<b>Cat</b>" not in stats
    assert got["one"][0] == 200 and got["one"][1].count("<tr><td class=\"name\">") == len(PLAYERS)
    assert got["none"][0] == 404 and "no player 'Nobody'" in got["none"][1]
    assert got["bad"][0] == 400 and "printable" in got["bad"][1]
    assert got["hostile"][0] == 200 and "<h1>&lt;b&gt;Cat&lt;/b&gt;</h1>" in got["hostile"][1]
