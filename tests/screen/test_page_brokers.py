"""Pages connect only where the venue says (issue 37, row 1 and the page side of row 9;
docs/security.md, docs/scorer.md, docs/desk.md, docs/screen.md), in real Chromium
(tests/screen/page_brokers_e2e.mjs) against the venue's real mosquitto (TLS, passwords, the ACL
``cueboard venue init`` writes) and ``cueboard screen`` over HTTPS with the venue's certificate.

Another broker is a listener on loopback that counts every connection it is offered: a link
naming it (the scorer's card, the scorer's, the desk's, the screen's and the bracket's address)
must give it none, show the refusal in words with its code (``other-broker``) and open no
WebSocket at all; a script on the page cannot open one there either (connect-src). A scorer's
card login is kept bound to the broker it was made for and until its ``exp``: one kept for another
broker is never offered, an expired card is refused with words and forgotten, a login the broker
refuses is forgotten and the scorer told to scan a new card. The desk's "Trust this device" keeps
no password in localStorage or sessionStorage. Screenshots of each refusal at phone, tablet and
laptop sizes (``CUEBOARD_SHOTS``, else the test's folder).
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from cueboard.venue.card import card_for
from tests.helpers.venue import Venue
from tests.screen.node_e2e import run_e2e
from tests.screen.test_screen import CHROMIUM, _require_browser

pytestmark = [pytest.mark.system, pytest.mark.club(tables=1, scorers=["t1"])]

E2E = Path(__file__).with_name("page_brokers_e2e.mjs")


class Listener:
    """Another broker: a TCP listener on loopback that accepts and counts every connection
    (a WebSocket's, TLS or not, begins with one), and closes it."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.sock.getsockname()[1])
        self.connections = 0
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:  # closed: the test is over
                return
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self.sock.close()
        self.thread.join(timeout=30)


@pytest.fixture
def other_broker() -> Iterator[Listener]:
    listener = Listener()
    try:
        yield listener
    finally:
        listener.close()


def _exp(hours: float) -> str:
    return (datetime.now(UTC) + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_pages_connect_only_to_the_servers_broker(club: Venue, other_broker: Listener, tmp_path: Path) -> None:
    _require_browser()
    with club.desk_pages() as pages:
        card = card_for(club.directory, "t1", page=pages.base, broker=f"wss://localhost:{club.ports['pages']}")
        card_url = card.url if "exp=" in card.url else f"{card.url}&exp={_exp(6)}"
        plan = {"chromium": CHROMIUM, "url": pages.base, "card_url": card_url, "venue": "club", "table": "t1",
                "pages_broker": f"wss://localhost:{club.ports['pages']}",
                "screens_broker": f"wss://localhost:{club.ports['screens']}",
                "other": f"wss://127.0.0.1:{other_broker.port}", "other_ws": f"ws://127.0.0.1:{other_broker.port}",
                "scorer": {"user": "scorer-t1", "password": club.password("scorer-t1")},
                "desk": {"user": "desk", "password": club.password("desk")},
                "past": _exp(-1), "future": _exp(6),
                "shots": os.environ.get("CUEBOARD_SHOTS") or str(tmp_path / "shots")}
        checked: list[int] = []
        run_e2e(E2E, plan, tmp_path / "plan.json", timeout=300,
                handlers={"count-other": lambda args: checked.append(other_broker.connections)})
    assert checked and checked[-1] == 0, f"the other broker was offered {checked} connections"
    assert other_broker.connections == 0
