"""Redraw docs/img/league-standings.png and league-standings-phone.png: the archive's standings
page (cueboard/league/http.py) for a season of five players, served by ``cueboard archive
serve`` and shot by headless Chromium on a laptop's screen and on a phone's (390 CSS pixels
wide, at twice the pixels, as a phone draws it).

    .venv/bin/python tools/league_standings.py
"""

from __future__ import annotations

import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from result_sheet import CHROMIUM

from cueboard.engine import Match
from cueboard.engine.record import record_of
from cueboard.games.simulate import realistic_log
from cueboard.league.records import checked
from cueboard.league.store import Archive
from cueboard.venue.pairings import round_robin

ROOT = Path(__file__).resolve().parent.parent
PICTURE = ROOT / "docs" / "img" / "league-standings.png"
PHONE = ROOT / "docs" / "img" / "league-standings-phone.png"
SHOTS = ((PICTURE, "1000,820", 1), (PHONE, "390,844", 2))
"""Each picture, the window in CSS pixels, and the device's pixels to each CSS pixel."""
PLAYERS = ["Ann Smith", "Bob Jones", "Cat Lee", "Dan Ross", "Eve Hart"]
START = 1_795_000_000.0


def season(url: str) -> None:
    """A round robin of PLAYERS, best of 3, every match played by the engine."""
    with Archive.open(url) as archive:
        for r, pairs in enumerate(round_robin(PLAYERS)):
            for k, (home, away) in enumerate(pairs):
                setup: dict[str, Any] = {"type": "match", "game": "snooker", "sides": [home, away], "best_of": 3}
                log = realistic_log(setup, random.Random(100 + 10 * r + k))
                match = Match.from_json(setup)
                t = START + 7 * 86_400 * r + 3600 * k
                for i, event in enumerate(log[1:], start=1):
                    match.apply(match.parse({**event, "t": t + 25 * i}))
                record = {**record_of(match), "competition": "Division 1", "fixture": f"W{r + 1}-{k + 1}"}
                archive.put(checked(record, venue="red-lion", table=f"t{k + 1}"), source="tools/league_standings.py")


def main() -> int:
    if CHROMIUM is None:
        print("chromium is not installed: apt-get install chromium", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="cueboard-standings-") as tmp:
        url = f"sqlite:///{tmp}/league.db"
        season(url)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = subprocess.Popen([sys.executable, "-m", "cueboard.cli", "archive", "serve", "--db", url,
                                   "--port", str(port)], cwd=ROOT)
        try:
            page = f"http://127.0.0.1:{port}/?competition=Division%201"
            deadline = time.monotonic() + 60
            while True:
                try:
                    urllib.request.urlopen(page, timeout=5).read()
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)
            for picture, size, scale in SHOTS:
                subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                f"--user-data-dir={tmp}/profile", "--hide-scrollbars", f"--window-size={size}",
                                f"--force-device-scale-factor={scale}", f"--screenshot={picture}", page],
                               check=True, capture_output=True, timeout=120)
        finally:
            server.terminate()
            server.wait(30)
    for picture, _, _ in SHOTS:
        print(picture)
    return 0


if __name__ == "__main__":
    sys.exit(main())
