"""The pages when another device takes their session (issue 37, one login per device; docs/desk.md,
docs/scorer.md), in real Chromium (tests/screen/page_sessions_e2e.mjs) against the venue's real
mosquitto (TLS, passwords, the ACL ``cueboard venue init`` writes, the client id tied to the login)
and ``cueboard screen`` over HTTPS.

Two desks signed in with one login, then two phones with one scorer card: the second takes the
session (MQTT 5 DISCONNECT 142), the first says so in words with the code ``session-taken`` and
one button to take it back, keeps the card's login (a taken session is no refusal), and neither
connects again by itself: counted by the pages' WebSockets and by the connections the broker
logs. The button takes it back, and the other page then says the same. Screenshots at laptop and
phone sizes (``CUEBOARD_SHOTS``, else the test's folder).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.helpers.venue import Venue
from tests.screen.node_e2e import run_e2e
from tests.screen.test_screen import CHROMIUM, _require_browser

pytestmark = [pytest.mark.system, pytest.mark.club(tables=1, scorers=["t1"])]

E2E = Path(__file__).with_name("page_sessions_e2e.mjs")
DESK_RECONNECT_MS = 3000  # screen/desk/link.js: the desk's Session reconnectMs
SCORER_RECONNECT_MS = 2000  # screen/score/score.js: the scorer's


def connections(club: Venue, login: str) -> int:
    """The connections the broker took in for ``login`` (its log, connection_messages true)."""
    return sum(1 for line in club.broker.log if "New client connected" in line and f" as {login} (" in line)


def test_a_taken_session_is_said_and_not_taken_back_by_itself(club: Venue, tmp_path: Path) -> None:
    _require_browser()
    pages_broker = f"wss://localhost:{club.ports['pages']}"
    exp = (datetime.now(UTC) + timedelta(hours=6)).strftime("%Y-%m-%dT%H:%M:%SZ")
    scorer = {"user": "scorer-t1", "password": club.password("scorer-t1")}
    marks: dict[str, int] = {}
    counted: list[tuple[str, int]] = []
    costs: dict[str, int] = {}

    def mark(args: list[str]) -> None:
        marks[args[0]] = connections(club, args[0])

    def settled(args: list[str]) -> None:
        # A takeover costs the newcomer's connection (or the button's), and where the broker does
        # not name it (mosquitto before 2.0.15: DISCONNECT 142) one more from each side.
        login, what = args[0], args[1]
        cost = connections(club, login) - marks[login]
        costs[what] = cost
        assert 1 <= cost <= 3, f"{what}: {cost} connections of {login} to settle a takeover"
        marks[login] = connections(club, login)

    def count(args: list[str]) -> None:
        login, wanted = args[0], int(args[1])
        # Every connection a page made has had its CONNACK (the page is in or said taken), and the
        # broker logs one when it reads the CONNECT, before answering: all are in the log already.
        new = connections(club, login) - marks[login]
        counted.append((login, new))
        assert new == wanted, f"{login}: {new} connections at the broker since the last mark, {wanted} wanted"
        marks[login] = connections(club, login)

    with club.desk_pages() as pages:
        card_url = (f"{pages.base}/score?venue=club&table=t1#user={scorer['user']}"
                    f"&pass={scorer['password']}&trust=1&exp={exp}")
        plan = {"chromium": CHROMIUM, "url": pages.base, "venue": "club", "table": "t1", "pages_broker": pages_broker,
                "card_url": card_url, "scorer": scorer, "desk": {"user": "desk", "password": club.password("desk")},
                "desk_reconnect_ms": DESK_RECONNECT_MS, "scorer_reconnect_ms": SCORER_RECONNECT_MS,
                "shots": os.environ.get("CUEBOARD_SHOTS") or str(tmp_path / "shots")}
        run_e2e(E2E, plan, tmp_path / "plan.json", timeout=400,
                handlers={"mark": mark, "settled": settled, "count": count})
    print(f"connections to settle each takeover: {costs}")
    assert [login for login, _ in counted] == ["desk", "desk", "scorer-t1", "scorer-t1"], counted
    assert any("already connected, closing old connection" in line for line in club.broker.log), \
        "the broker took the sessions over"


def test_session_units() -> None:
    """The shared session's reading of a taken session under node, mqtt.js stood in for
    (tests/screen/session_units.mjs): DISCONNECT 142, the fight on an older broker, take back."""
    if shutil.which("node") is None:
        if os.environ.get("CUEBOARD_REQUIRE_SCREEN", "") not in ("", "0"):
            pytest.fail("node is not installed: apt-get install nodejs")
        pytest.skip("node is not installed: apt-get install nodejs")
    run = subprocess.run(["node", str(Path(__file__).with_name("session_units.mjs"))], capture_output=True, text=True,
                         timeout=60)
    print(run.stdout)
    assert run.returncode == 0, run.stdout + run.stderr
