"""The archive's player and statistics pages in headless Chromium (tests/league/archive_page_e2e.mjs),
served by ``cueboard archive serve``'s own server with its Content-Security-Policy, at a phone's
and a laptop's size: the policy refuses nothing the pages hold (the charts' styles are applied),
and no page is wider than the window."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from urllib.parse import quote

import pytest

from cueboard.league.http import make_server
from tests.league.site_data import HOSTILE, build_archive
from tests.league.test_site_browser import CHROMIUM, SIZES
from tests.screen.node_e2e import run_e2e

E2E = Path(__file__).with_name("archive_page_e2e.mjs")


@pytest.mark.system
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
def test_the_archives_player_pages_in_chromium_under_its_policy(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/league.db"
    build_archive(url, tmp_path)
    server = make_server(url, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = "http://{}:{}".format(*server.server_address[:2])
        urls = [f"{base}/players/{quote(name, safe='')}" for name in ("Ann Smith", HOSTILE, "Zoë Ångström")]
        urls += [f"{base}/statistics", f"{base}/"]
        out = run_e2e(E2E, {"chromium": CHROMIUM, "sizes": SIZES, "urls": urls}, tmp_path / "plan.json", timeout=600)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=30)
    facts = {(line.split()[1], line.split()[2]): json.loads(line.split(" ", 3)[3])
             for line in out if line.startswith("facts: ")}
    for size in ("phone", "laptop"):
        ann = facts[(size, urls[0])]
        assert ann["charts"] == 2
        assert ann["lineFill"] == "none"  # pygal's own style applied: the policy let it through
        assert ann["barFill"] == "rgb(11, 93, 42)"  # the league's green, from the chart's style
        assert ann["th"] == "rgb(11, 93, 42)"  # the page's style
