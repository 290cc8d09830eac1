"""The desk in the club's words (issue 38, rows 6-8; docs/desk.md), in real Chromium
(tests/screen/desk_words_e2e.mjs) against the venue's mosquitto (``cueboard venue init``'s files:
TLS, logins, ACL) with 16 tables: two real daemons on mock pins (t1, t2) and 14 stand-ins
(tests/screen/desk_standin.py, the table's half of the contract) that show a desk's ``message``
on their state as a table does.

What it shows: 16 tables fit a 1366x768 laptop, one line each; a keypad unplugged is a short chip
("Keypad unplugged") with the detail on a press; a scorer's own resend (an id answered already)
is no alarm, a scorer's stroke the rules refuse is; a stroke corrected with the scorer's keys,
its result previewed in words, confirmed in a sentence, and shown once, corrected, in a history
in words; a concession confirmed naming the frame and the player; a message to every table,
each table's answer listed and the message in every row. Pictures: docs/img/desk-16-tables-en.png,
desk-device-detail-en.png, desk-correction-en.png, desk-confirm-amend-en.png, desk-confirm-en.png,
desk-message-all-en.png, desk-correction-tablet-de.png (``CUEBOARD_DESK_SHOTS=docs/img``).
"""

from __future__ import annotations

import json
import shutil
import ssl
import subprocess
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from tests.helpers.venue import Venue
from tests.screen.desk_standin import StandIn, now
from tests.screen.node_e2e import run_e2e
from tests.screen.test_desk import Table, desk_shots, login, started
from tests.screen.test_screen import CHROMIUM, _require_browser

TABLES = [f"t{n}" for n in range(1, 17)]
REAL = ("t1", "t2")
PLAYERS = ["Ann Smith", "Hal Price", "Cat Lee", "Dan Ross", "Eve Hart", "Finn Cole", "Gus Webb", "Ida Moss",
           "Jo Park", "Kit Ames", "Lou Grant", "Mo Dean", "Ned Fox", "Ola Berg", "Pat Quinn", "Ray Hope",
           "Sam Byrd", "Tom Kerr", "Uma Shaw", "Vic Lund", "Wes Rudd", "Xia Chen", "Yan Roth", "Zoe Hale",
           "Abe Voss", "Bo Nyman", "Cy Drake", "Di Wolfe"]

E2E = Path(__file__).with_name("desk_words_e2e.mjs")
UNITS = Path(__file__).with_name("strokes_units.mjs")


class ShowingStandIn(StandIn):
    """A stand-in table that plays a named match and shows the desk's ``message`` on its state
    (docs/mqtt.md ``message``: ``state.message`` until cleared), as a table does."""

    def __init__(self, name: str, venue_dir: Path, port: int, sides: list[str]) -> None:
        self.sides = sides
        self.shown: dict[str, Any] | None = None
        super().__init__(name, venue_dir, port)

    def _connected(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, *args: Any) -> None:
        client.subscribe(f"{self.prefix}/message", 1)
        super()._connected(client, userdata, flags, reason, *args)

    def _line(self) -> dict[str, Any]:
        return {"type": "match", "game": "snooker", "sides": self.sides, "best_of": 3}

    def _pub(self, kind: str, body: Any, retain: bool = False) -> None:
        if kind == "state" and isinstance(body, dict):
            body = {**body, "message": self.shown}
        super()._pub(kind, body, retain)

    def _message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        if message.topic.endswith("/message"):
            with self.lock:
                body = json.loads(message.payload) if message.payload else None
                self.shown = None if body is None else {"text": body["text"], "until": body.get("until")}
                self._state()
            return
        super()._message(client, userdata, message)

    def devices(self, **devices: str) -> None:
        self._pub("devices", {"schema": 1, "journal": "ok", **devices, "ts": now()}, retain=True)


class Phone:
    """A scorer's phone as the table hears it: its login's lines on ``score/<login>`` (docs/mqtt.md)."""

    def __init__(self, venue: Path, port: int, table: str, user: str) -> None:
        self.topic = f"cueboard/club/{table}/score/{user}"
        self.connected = threading.Event()
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"cueboard-{user}-phone", protocol=mqtt.MQTTv5)
        client.username_pw_set(user, (venue / "logins" / f"{user}.password").read_text().strip())
        client.tls_set(ca_certs=str(venue / "ca" / "venue-ca.crt"), cert_reqs=ssl.CERT_REQUIRED)
        self.refused = ""

        def connected(c: mqtt.Client, u: Any, f: Any, reason: Any, *a: Any) -> None:
            self.refused = str(reason) if reason.is_failure else ""
            self.connected.set()

        client.on_connect = connected
        client.connect("localhost", port)
        client.loop_start()
        assert self.connected.wait(30) and not self.refused, f"{user}: no connection to the broker {self.refused}"
        self.client = client

    def send(self, line: dict[str, Any]) -> None:
        self.client.publish(self.topic, json.dumps(line), qos=1).wait_for_publish(30)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@pytest.mark.system
def test_strokes_in_words_units() -> None:
    """screen/shared/strokes.js under node: words (never a raw type), a corrected stroke once,
    undo and redo of a correction, a scorer's resend told from an alarm."""
    if shutil.which("node") is None:
        pytest.fail("node is not installed: bash scripts/test installs it (Debian's nodejs)")
    run = subprocess.run(["node", str(UNITS)], capture_output=True, text=True, check=False)
    assert run.returncode == 0 and "FAILED" not in run.stdout, run.stdout + run.stderr


def test_every_language_has_the_desks_new_words() -> None:
    """The desk's words (the catalogues' ``desk`` section) in all five languages: none falls back to English."""
    root = Path(__file__).parents[2] / "screen" / "i18n"
    english = json.loads((root / "en.json").read_text(encoding="utf-8"))["desk"]
    for lang in ("nl", "sv", "de", "fr"):
        own = json.loads((root / f"{lang}.json").read_text(encoding="utf-8"))["desk"]
        new = ("confirm.", "chip.", "amend_", "message_", "stroke.")
        missing = sorted(k for k in english if k.startswith(new) and k not in own)
        assert not missing, f"{lang}: {missing}"


@pytest.fixture
def hall(club: Venue, tmp_path: Path) -> Iterator[dict[str, Any]]:
    _require_browser()
    with ExitStack() as stack:
        tables: dict[str, Table] = started(stack, club, tmp_path, REAL)
        standins: dict[str, ShowingStandIn] = {}
        for i, name in enumerate(TABLES):
            if name in REAL:
                continue
            sides = PLAYERS[(2 * i) % 28 : (2 * i) % 28 + 2]
            standins[name] = ShowingStandIn(name, club.directory, club.ports["tables"], sides)
            stack.callback(standins[name].close)
        standins["t5"].devices(keypad="lost", matrix="ok")
        standins["t9"].devices(matrix="failed: SPI bus /dev/spidev0.0 not found")
        phone = Phone(club.directory, club.ports["people"], "t1", "scorer-t1")
        stack.callback(phone.close)
        others = {"desk2": club.add_user("desk-2")}
        pages = stack.enter_context(club.desk_pages())
        yield {"venue": club.directory, "tables": tables, "phone": phone, "url": f"{pages.base}/desk", "others": others}


@pytest.mark.system
@pytest.mark.club(tables=len(TABLES), scorers=["t1"])
def test_the_desk_speaks_the_clubs_words(hall: dict[str, Any], tmp_path: Path) -> None:
    venue: Path = hall["venue"]
    tables: dict[str, Table] = hall["tables"]
    phone: Phone = hall["phone"]
    plan = {"url": hall["url"], "chromium": CHROMIUM, "desk": login(venue, "desk"), "tables": TABLES,
            "screenshots": desk_shots(tmp_path), **hall["others"]}

    def press(args: list[str]) -> None:
        (target,) = args
        name, buttons = target.split(":")
        for button in buttons.split(","):
            tables[name].press(int(button))

    def phone_line(args: list[str]) -> None:
        # "phone resend": a red tapped offline, sent, and sent again on the Wi-Fi catch-up (same id);
        # "phone red": a red where a colour is on, which the rules refuse.
        (what,) = args
        if what == "resend":
            phone.send({"type": "pot", "balls": ["red"], "id": "phone-tap-1"})
            phone.send({"type": "pot", "balls": ["red"], "id": "phone-tap-1"})
        else:
            phone.send({"type": "pot", "balls": ["red"], "id": "phone-tap-2"})

    run_e2e(E2E, plan, tmp_path / "plan.json", timeout=300, handlers={"press": press, "phone": phone_line})
    # The correction is t1's own, in its journal under the desk's name: the black of stroke 2 a pink.
    daemon = tables["t1"].daemon
    assert daemon is not None
    state = daemon.state()
    assert [s["score"] for s in state["sides"]] == [8, 0], state["sides"]
