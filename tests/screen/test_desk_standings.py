"""The desk's table of a round robin in real Chromium (tests/screen/desk_standings_e2e.mjs): the night of
tests/league/test_one_ranking.py, which only head to head separates (Zoe beat Amy; level on points,
frame difference and frames won), retained on ``cueboard/<venue>/competition`` as a desk keeps
it, is shown by the desk and by the hall's bracket page in the order the league's archive gives
it (Zoe above Amy; ranked by name, Amy would be first), as ``POST /desk/api/standings`` answers
it. Screenshots with ``CUEBOARD_DESK_SHOTS=docs/img``."""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from tests.helpers.venue import Pages, Venue, running_venue
from tests.league.test_one_ranking import NIGHT, ORDER
from tests.screen.node_e2e import run_e2e
from tests.screen.test_desk import desk_shots, login
from tests.screen.test_screen import CHROMIUM, _require_browser

pytestmark = pytest.mark.system

E2E = Path(__file__).with_name("desk_standings_e2e.mjs")


def competition() -> dict[str, Any]:
    """The night as a desk keeps it (screen/desk/competition.js), every match played."""
    now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    matches = [{"fixture": f"friday-{n}", "label": f"{(n + 1) // 2}.{2 - n % 2}", "round": (n + 1) // 2,
                "sides": [home, away], "handicap": [0, 0], "bye": [False, False], "winner": winner,
                "frames": list(frames), "next": None, "format": None, "table": f"t{2 - n % 2}", "started": True}
               for n, (home, away, winner, frames) in enumerate(NIGHT, start=1)]
    return {"schema": 1, "id": "friday-round-robin", "name": "Friday Round Robin", "kind": "round_robin",
            "format": {"game": "snooker", "best_of": 3}, "rounds": 3, "twice": False, "handicaps": {},
            "matches": matches, "rev": 1, "by": "desk", "ts": now, "created": now}


def publish_retained(venue: Venue, topic: str, body: Any) -> None:
    """``body`` retained on ``topic`` with the desk's login, as a desk publishes tonight's competition."""
    user = login(venue.directory, "desk")
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="cueboard-test-desk", protocol=mqtt.MQTTv5)
    client.username_pw_set(user["user"], user["password"])
    client.tls_set(ca_certs=str(venue.ca), cert_reqs=ssl.CERT_REQUIRED)
    connected, published = threading.Event(), threading.Event()
    client.on_connect = lambda c, u, f, reason, p: connected.set() if not reason.is_failure else None
    client.on_publish = lambda c, u, mid, reason, p: published.set()
    client.connect("localhost", venue.ports["people"])
    client.loop_start()
    try:
        assert connected.wait(30), "the desk's login: no connection to the broker"
        client.publish(topic, json.dumps(body), qos=1, retain=True)
        assert published.wait(30), f"{topic}: not acknowledged by the broker"
    finally:
        client.disconnect()
        client.loop_stop()


@pytest.fixture
def night(tmp_path: Path) -> Iterator[tuple[Venue, Pages]]:
    _require_browser()
    with running_venue(tmp_path, tables=2) as venue, venue.desk_pages() as pages:
        publish_retained(venue, "cueboard/club/competition", competition())
        yield venue, pages


def test_the_desk_shows_the_night_in_the_archives_order(night: tuple[Venue, Pages], tmp_path: Path) -> None:
    venue, pages = night
    plan = {"base": pages.base, "chromium": CHROMIUM, "desk": login(venue.directory, "desk"),
            "screenshots": desk_shots(tmp_path), "order": ORDER}
    out = run_e2e(E2E, plan, tmp_path / "plan.json", timeout=300)
    assert any(line.startswith("ok: the bracket page") for line in out)
