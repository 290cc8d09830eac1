"""The league's static site in headless Chromium (tests/league/site_e2e.mjs), opened from the
folder with no server, at a phone's (390x844) and a laptop's (1366x768) size: every page reached
by links from index.html, none scrolling sideways, none with a script, the hostile name shown as
text, and every number of each competition's table the archive's own (``rank``). The pictures
in docs/img/league-site-*.png come from this test (``CUEBOARD_SITE_SHOTS=DIR`` keeps them)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from cueboard.league.ratings import Ratings, frame_results
from cueboard.league.site import paths
from cueboard.league.site.build import build
from cueboard.league.site.figures import SHOWN, cell
from cueboard.league.site.words import words_for
from cueboard.league.standings import Rules, breaks, rank, results_of
from cueboard.league.stats_figures import player_stats
from cueboard.league.store import Archive
from tests.league.site_data import HOSTILE, build_archive
from tests.screen.node_e2e import run_e2e

CHROMIUM = next((p for p in (shutil.which("chromium"), "/usr/bin/chromium") if p and os.access(p, os.X_OK)), None)
E2E = Path(__file__).with_name("site_e2e.mjs")
SIZES = [{"name": "phone", "width": 390, "height": 844, "scale": 2},
         {"name": "laptop", "width": 1366, "height": 768, "scale": 1}]
RULES = Rules(3, 1, 0)  # not the default, so a table drawn with the default rules would fail


def _lines(out: list[str], prefix: str) -> dict[str, Any]:
    return {line.split()[1]: json.loads(line.split(" ", 2)[2]) for line in out if line.startswith(prefix)}


@pytest.mark.system
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
def test_the_site_in_chromium_at_phone_and_laptop_sizes(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/league.db"
    records = build_archive(url, tmp_path)
    site = tmp_path / "site"
    with Archive.open(url) as archive:
        build(archive, site, rules=RULES)
        finished = {r["match_id"] for r in archive.records(finished_only=True)}
    written = sorted(str(p.relative_to(site)) for p in site.rglob("*.html"))
    shots = Path(os.environ.get("CUEBOARD_SITE_SHOTS") or tmp_path / "shots")
    division, cup = paths.competition_page("Division 1"), paths.competition_page("Club Cup")
    century = next(r for r in records if any(b["points"] >= 100 for f in r["frames"] for b in f["breaks"]))
    pictures = [{"name": "league-site-standings", "path": division}, {"name": "league-site-bracket", "path": cup},
                {"name": "league-site-match", "path": paths.match_page(century["match_id"])},
                {"name": "league-site-player", "path": paths.player_page("Ann Smith")},
                {"name": "league-site-index", "path": "index.html"},
                {"name": "league-player", "path": paths.player_page("Ann Smith")}]
    plan = {"root": str(site), "chromium": CHROMIUM, "sizes": SIZES, "shots": str(shots), "hostile": HOSTILE,
            "pictures": pictures}
    out = run_e2e(E2E, plan, tmp_path / "plan.json", timeout=600)

    # Every page written is reached by following links (and nothing links to a page not written).
    for size in ("phone", "laptop"):
        assert _lines(out, "pages:")[size] == written
    # The hostile name is shown, as text, on its player's page and in the division's pages.
    hostile_pages = {line.split()[2] for line in out if line.startswith("hostile-as-text:")}
    assert {paths.player_page(HOSTILE), division} <= hostile_pages
    # Each competition's table, cell by cell, is the archive's ranking by the site's rules.
    for size, tables in _lines(out, "tables:").items():
        for name in ("Division 1", None):
            recs = [r for r in records if r.get("competition") == name and r["match_id"] in finished]
            expected = [[str(r.position), r.name, str(r.played), str(r.won), str(r.lost), str(r.frames_for),
                         str(r.frames_against), f"{r.frame_difference:+d}", str(r.points)]
                        for r in rank(results_of(recs), RULES)]
            assert tables.get(paths.competition_page(name), []) == expected, (size, name)
        assert HOSTILE in [row[1] for row in tables[division]] and tables.get(cup) is None  # a knockout: its bracket
    _check_player_pages(out, records)
    for picture in pictures:
        for size in ("phone", "laptop"):
            assert (shots / f"{picture['name']}-{size}.png").stat().st_size > 10_000


def _check_player_pages(out: list[str], records: list[dict[str, Any]]) -> None:
    """Every player's page at both sizes: the statistics table, figure by figure, is the
    archive's (stats_figures), the rating chart is drawn with one point a frame rated and its
    table of figures is the rating history, the breaks chart has a bar a listed break."""
    words = words_for("en")
    stats = player_stats(records)
    ratings = Ratings(frame_results(records))
    seen = {}
    for line in out:
        if not line.startswith("player: "):
            continue
        _, size, path, body = line.split(" ", 3)
        seen[(size, path)] = json.loads(body)
    for size in ("phone", "laptop"):
        for name in ("Ann Smith", HOSTILE, "Zoë Ångström", "Dan Ross"):
            page = seen[(size, paths.player_page(name))]
            mine = [s.as_dict() for s in stats if s.player == name]
            expected = [[words(f"stat.{k}"), *(cell(k, s[k]) for s in mine)] for k in SHOWN]
            assert page["figures"] == expected, (size, name)
            charts = {c["kind"]: c for c in page["charts"]}
            history = ratings.history[name]
            assert charts["rating"]["lines"] == 1 and charts["rating"]["label"] == words("rating_chart")
            assert [float(r[3]) for r in charts["rating"]["rows"]] == [round(p.ordinal, 2) for p in history]
            assert [r[1] for r in charts["rating"]["rows"]] == [p.match_id for p in history]
            listed = [b for b in breaks(records) if b["player"] == name]
            assert charts.get("breaks", {}).get("bars", 0) == len(listed), (size, name)
    # The century's maker has the breaks chart; every page with a chart keeps it in view (the
    # script fails the run otherwise).
    assert any("breaks" in {c["kind"] for c in page["charts"]} for page in seen.values())
