"""The venue's player list with handicaps and a groups night with a withdrawal, at the desk in
real Chromium (tests/screen/desk_players_e2e.mjs) against the venue broker of ``cueboard venue
init`` (TLS, the ACL: the desk's login writes ``desk/players`` and ``competition``). The list
retained from an earlier night (78 names, some with handicaps) is offered in the draw form, a
page of it at a time narrowed by typing; the players ticked come with their kept handicaps, a
new one typed with his; "Groups, then a knockout" is drawn by the server; a player withdrawn
(confirmed in a sentence) gives his group matches as walkovers (his group has 5: four). Read
back from the broker: the competition as the desk published it (walkovers, frames null) and the
list with every handicap kept for the next night."""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from tests.helpers.venue import Pages, Venue, running_venue
from tests.screen.node_e2e import run_e2e
from tests.screen.test_desk import desk_shots, login
from tests.screen.test_desk_standings import publish_retained
from tests.screen.test_screen import CHROMIUM, _require_browser

pytestmark = pytest.mark.system

E2E = Path(__file__).with_name("desk_players_e2e.mjs")
TONIGHT = ["Ann Smith", "Bob Jones", "Cat Lee", "Dan Ross", "Eve Hart", "Fay Moss", "Gus Park", "Hal Wood"]
KEPT = {"schema": 1, "names": sorted([*TONIGHT, *(f"Zed Member {n:02}" for n in range(70))]),
        "handicaps": {"Bob Jones": 7, "Dan Ross": 14, "Gus Park": 21}}


def read_retained(venue: Venue, topics: list[str]) -> dict[str, Any]:
    """The retained payloads of ``topics``, read with the desk's login as a desk reads them."""
    user = login(venue.directory, "desk")
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="cueboard-test-desk-read", protocol=mqtt.MQTTv5)
    client.username_pw_set(user["user"], user["password"])
    client.tls_set(ca_certs=str(venue.ca), cert_reqs=ssl.CERT_REQUIRED)
    got: dict[str, Any] = {}
    done = threading.Event()

    def on_message(c: mqtt.Client, u: object, msg: mqtt.MQTTMessage) -> None:
        got[msg.topic] = json.loads(msg.payload) if msg.payload else None
        if set(got) >= set(topics):
            done.set()

    client.on_connect = lambda c, u, f, reason, p: [c.subscribe(t, qos=1) for t in topics]
    client.on_message = on_message
    client.connect("localhost", venue.ports["people"])
    client.loop_start()
    try:
        assert done.wait(30), f"retained: only {sorted(got)} of {topics}"
    finally:
        client.disconnect()
        client.loop_stop()
    return got


@pytest.fixture
def desk(tmp_path: Path) -> Iterator[tuple[Venue, Pages]]:
    _require_browser()
    with running_venue(tmp_path, tables=2) as venue, venue.desk_pages() as pages:
        publish_retained(venue, "cueboard/club/desk/players", KEPT)
        yield venue, pages


def test_the_player_list_feeds_a_groups_draw_and_a_withdrawal_gives_walkovers(
        desk: tuple[Venue, Pages], tmp_path: Path) -> None:
    venue, pages = desk
    plan = {"base": pages.base, "chromium": CHROMIUM, "desk": login(venue.directory, "desk"),
            "screenshots": desk_shots(tmp_path), "tonight": TONIGHT, "listed": len(KEPT["names"])}
    out = run_e2e(E2E, plan, tmp_path / "plan.json", timeout=300)
    assert any(line.startswith("ok: the withdrawal is said") for line in out)
    got = read_retained(venue, ["cueboard/club/competition", "cueboard/club/desk/players"])
    c, players = got["cueboard/club/competition"], got["cueboard/club/desk/players"]
    assert c["kind"] == "groups" and sorted(c["groups"]) == ["A", "B"] and c["advance"] == 2
    assert c["handicaps"] == {"Ann Smith": 0, "Bob Jones": 7, "Cat Lee": 0, "Dan Ross": 14, "Eve Hart": 0,
                              "Fay Moss": 0, "Gus Park": 21, "Hal Wood": 0, "Ivy Chen": 5}
    assert c["withdrawn"] == ["Hal Wood"]
    hal = [m for m in c["matches"] if "Hal Wood" in m["sides"]]
    assert len(hal) == 4 and all(m["walkover"] is True and m["frames"] is None and m["sides"][m["winner"]] != "Hal Wood"
                       for m in hal)
    assert not any(m.get("walkover") for m in c["matches"] if "Hal Wood" not in m["sides"])
    assert players["names"] == sorted([*KEPT["names"], "Ivy Chen"])
    assert players["handicaps"] == c["handicaps"]  # every drawn player's, scratch (0) too, for the next night
