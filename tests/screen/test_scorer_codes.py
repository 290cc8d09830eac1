"""The scorer's exactly-once decides on ``rejected``'s machine ``code``, never its words (issue
36): the table's refusals reworded (German words, scrambled, none of the English ones), a phone
that loses its Wi-Fi with a tap in flight and keeps tapping, then comes back over a tight rate:
the table answers the tap in flight "applied already" and the flood "later", in words the page
has never seen; every tap is applied exactly once, in the order it was made.
tests/screen/scorer_codes_e2e.mjs drives the page (Chromium as a phone, as tests/screen/scorer_e2e.mjs).
An outbox that read the English words would take the repeat for a refusal and hold the taps.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from cueboard.contract.codes import Reason
from cueboard.contract.payloads import rejected_payload
from cueboard.table.inputs import Call
from tests.helpers.daemon import table_config
from tests.helpers.mosquitto import TIMEOUT
from tests.helpers.venue import Venue, spki_hash, venue_pages
from tests.screen.node_e2e import run_e2e
from tests.screen.test_scorer import journal
from tests.screen.test_screen import CHROMIUM, _require_browser
from tests.table.test_reliability import KEYMAP, PINS, Daemon

pytestmark = [pytest.mark.system, pytest.mark.club(scorers=["t1", "t2"])]

E2E = Path(__file__).with_name("scorer_codes_e2e.mjs")
ENGLISH = ("applied", "already", "again", "later", "refused", "not taken", "queued", "send")


def german(reason: Reason) -> Reason:
    """The refusal in other words: German, with a scramble of the English so no word of it is left."""
    scrambled = hashlib.sha256(reason.encode()).hexdigest()[:8]
    return Reason(f"Abgelehnt ({scrambled}): das hat der Tisch nicht genommen", reason.short)


def _pages_broker(club: Venue) -> dict[str, str | int | float]:
    """The scorer's broker, as cueboard screen --desk-broker names it: the pages' listener."""
    return {"desk_broker": f"wss://localhost:{club.ports['pages']}"}


def test_exactly_once_whatever_the_refusals_say(tmp_path: Path, club: Venue,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    _require_browser()
    published: list[dict[str, Any]] = []

    def reworded(event: Any, reason: Reason, source: str, **kw: Any) -> dict[str, Any]:
        payload = rejected_payload(event, german(reason), source, **kw)
        published.append(payload)
        return payload

    monkeypatch.setattr("cueboard.table.mqtt.feed.rejected_payload", reworded)
    snooker = {"game": "snooker", "sides": ["Ann", "Bob"], "best_of": 3, "reds": 6}
    mqtt_section = {"host": "localhost", "port": club.ports["tables"], "username": "t1",
                    "password": club.password("t1"), "command": True, "tls": {"ca": str(club.ca)}}
    config = table_config(tmp_path / "t1", table={"venue": "club", "name": "t1"}, match=snooker, mqtt=mqtt_section,
                          commands={"rate": 2.0, "burst": 2},  # the comeback's taps meet the limit: "later"
                          referee_box=[{"pins": PINS[0], "keymap": str(KEYMAP)}])
    gate = threading.Event()
    reports: dict[str, Any] = {}

    def report(line: str) -> None:
        if line.startswith("report "):
            key, _, value = line[len("report "):].partition(" ")
            reports[key] = json.loads(value)

    with venue_pages(club.directory, page=_pages_broker(club)) as pages, Daemon(config, boards=[], control=False,
                                                      pin_factory=MockFactory()) as t1:
        club.broker.wait_for_log(lambda line: line.endswith("cueboard/club/t1/score/+/presence"))
        plan = {"chromium": CHROMIUM, "spki": spki_hash(club.directory / "certs" / "server.crt"),
                "url": f"{pages.base}/score", "broker": f"wss://localhost:{club.ports['pages']}", "venue": "club",
                "login": {"user": "scorer-t1", "pass": club.password("scorer-t1")}}

        def hold(args: list[str]) -> None:
            gate.clear()
            t1.table.submit(Call("test", lambda: gate.wait(TIMEOUT)))

        def release(args: list[str]) -> None:
            """Let the engine go on, and return once it applied the tap in flight: its answer
            goes out while the phone is offline, and is lost (the page's session is clean)."""
            answers = t1.table.answers
            applied = threading.Event()
            remember = answers.remember

            def remembered(ident: str, answer: dict[str, Any]) -> None:
                remember(ident, answer)
                if ident == args[0]:
                    applied.set()

            monkeypatch.setattr(answers, "remember", remembered)
            gate.set()
            assert applied.wait(TIMEOUT) or answers.known(args[0]) is not None
            assert (answers.known(args[0]) or {}).get("ok"), "the tap in flight applied"

        try:
            run_e2e(E2E, plan, tmp_path / "plan.json", timeout=600, on_line=report,
                    handlers={"hold-t1": hold, "release-t1": release})
        finally:
            gate.set()
        lines = journal(t1)
    ids = [line["id"] for line in lines if "id" in line]
    assert len(ids) == len(set(ids)), "an id applied twice"
    made = reports["made"]
    assert ids == made, "each tap applied once, in the order it was made"
    to_phone = [p for p in published if p.get("user") == "scorer-t1"]
    codes = {p["code"] for p in to_phone}
    assert {"repeat_applied", "later"} <= codes, f"the paths under test were taken: {codes}"
    assert not any(word in p["reason"] for p in to_phone for word in ENGLISH), "a refusal said in English"
