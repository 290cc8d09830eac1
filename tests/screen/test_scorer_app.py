"""The scorer as an app and its card (issue 29, docs/scorer.md): ``cueboard venue card`` prints a
table's card; its QR codes, read back from the printed picture by zbarimg (Debian's zbar-tools),
carry the scorer page's address with a login of that table in the fragment and the venue CA's
address; the login works against the venue's real mosquitto until it is revoked; and in real
Chromium (tests/screen/scorer_app_e2e.mjs) the page opened from the card signs in, is installable over
the venue's HTTPS, and loads with no server once installed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import ssl
import subprocess
import threading
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from cueboard.cli import parser
from cueboard.common.errors import VenueError
from cueboard.venue.card import card_for, write_card
from cueboard.venue.command import run as venue_command
from tests.helpers.mosquitto import TIMEOUT
from tests.helpers.venue import Venue, spki_hash, venue_cli, venue_pages
from tests.screen.node_e2e import run_e2e
from tests.screen.test_screen import CHROMIUM, _require_browser

# The club fixture (tests/conftest.py): tables t1 and t2, a scorer each.
pytestmark = [pytest.mark.system, pytest.mark.club(scorers=["t1", "t2"])]

E2E = Path(__file__).with_name("scorer_app_e2e.mjs")
SHOTS = Path(os.environ.get("CUEBOARD_SCORER_SHOTS", ""))


def read_qr_codes(picture: Path) -> list[str]:
    """Every QR code in ``picture`` as zbarimg reads it (a phone's camera app reads the same)."""
    if shutil.which("zbarimg") is None:
        if os.environ.get("CI"):
            pytest.fail("zbarimg is not installed: apt-get install zbar-tools (scripts/lib.sh does)")
        pytest.skip("zbarimg is not installed: apt-get install zbar-tools")
    done = subprocess.run(["zbarimg", "--quiet", "--raw", "-Sqrcode.enable", str(picture)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def mqtt_login(url: str, ca: Path) -> str:
    """Sign in to the broker as the page would, with the login in ``url``'s fragment: the
    CONNACK's reason ("Success", or the broker's refusal)."""
    split = urlsplit(url)
    login = parse_qs(split.fragment)
    broker = urlsplit(parse_qs(split.query)["broker"][0])
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"cueboard-{login['user'][0]}-cardtest",
                         protocol=MQTTProtocolVersion.MQTTv5, transport="websockets")
    client.tls_set(ca_certs=str(ca))
    client.username_pw_set(login["user"][0], login["pass"][0])
    answer: list[str] = []
    got = threading.Event()

    def on_connect(c: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        answer.append(str(reason))
        got.set()

    client.on_connect = on_connect
    client.connect(broker.hostname or "", broker.port or 443)
    client.loop_start()
    try:
        assert got.wait(TIMEOUT), "no CONNACK"
    finally:
        client.disconnect()
        client.loop_stop()
    return answer[0]


def test_the_card_carries_a_login_for_its_table_until_it_is_revoked(club: Venue, tmp_path: Path) -> None:
    picture = tmp_path / "card-t1.png"
    # ``venue card`` makes the card a login of its own (card-t1-<n>: one login per device) and
    # reloads the broker, as Venue.change does.
    made = club.change("card", "--table", "t1", "--page", "https://localhost:1",
                       "--broker", f"wss://localhost:{club.ports['pages']}", "--out", str(picture))
    assert picture.stat().st_mode & 0o077 == 0, "the card carries a password: its owner's only"
    codes = read_qr_codes(picture)
    scorer = next(c for c in codes if "/score?" in c)
    ca_url = next(c for c in codes if c.endswith("/venue-ca.crt"))
    split = urlsplit(scorer)
    assert parse_qs(split.query) == {"broker": [f"wss://localhost:{club.ports['pages']}"], "venue": ["club"],
                                     "table": ["t1"]}
    fragment = parse_qs(split.fragment)
    user = fragment["user"][0]
    assert re.fullmatch(r"card-t1-\d+", user) and f"signs in as {user}" in made, (user, made)
    assert "pass" not in split.query and user not in split.query, "the login is never in the query"
    assert fragment == {"user": [user], "pass": [club.password(user)], "trust": ["1"]}
    assert ca_url == "https://localhost:1/venue-ca.crt"
    assert mqtt_login(scorer, club.ca) == "Success"
    club.change("revoke", user)
    assert mqtt_login(scorer, club.ca) in ("Not authorized", "Bad user name or password")


def test_a_card_is_refused_what_it_cannot_carry(club: Venue, tmp_path: Path) -> None:
    with pytest.raises(VenueError, match="no table t9"):
        card_for(club.directory, "t9")
    with pytest.raises(VenueError, match="not a scorer of t1"):
        card_for(club.directory, "t1", "scorer-t2")
    with pytest.raises(VenueError, match="https://host"):
        card_for(club.directory, "t1", page="http://localhost:8080")
    with pytest.raises(VenueError, match=r"\.pdf or a \.png"):
        write_card(card_for(club.directory, "t1"), tmp_path / "card.jpg")
    # add-user --card refuses a card it cannot write before it makes the login: nothing changes.
    args = parser().parse_args(["venue", "add-user", "marker-t2", "--role", "scorer", "--table", "t2", "--dir",
                                str(club.directory), "--no-reload", "--card", str(tmp_path / "card.jpg")])
    assert venue_command(args) == 2
    assert "marker-t2" not in (club.directory / "venue.json").read_text()
    venue_cli("revoke", "scorer-t1", "--dir", str(club.directory), "--no-reload")
    with pytest.raises(VenueError, match="t1 has no scorer login: cueboard venue add-user scorer-t1"):
        card_for(club.directory, "t1")
    # add-user --card writes the new login's card at once, A5 as a PDF page of that size.
    venue_cli("add-user", "marker-t1", "--role", "scorer", "--table", "t1", "--dir", str(club.directory),
              "--no-reload", "--paper", "a5", "--card", str(tmp_path / "marker.pdf"))
    info = subprocess.run(["pdfinfo", str(tmp_path / "marker.pdf")], capture_output=True, text=True)
    if info.returncode == 0:
        assert "419.52 x 595.2 pts" in info.stdout, info.stdout  # A5: 148 x 210 mm
    assert len(read_qr_codes(write_card(card_for(club.directory, "t1"), tmp_path / "again.png"))) == 2


def test_cueboard_venue_card_says_what_is_wrong() -> None:
    args = parser().parse_args(["venue", "card", "--table", "t1", "--dir", "/nonexistent/venue"])
    assert venue_command(args) == 2


def _expiring(url: str) -> str:
    """A card's link with its expiry (``exp``, as cueboard venue card writes it): six hours on."""
    if "exp=" in url:
        return url
    exp = (datetime.now(UTC) + timedelta(hours=6)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"{url}&exp={exp}"


def test_the_scorer_installs_from_its_card_and_loads_offline(club: Venue, tmp_path: Path) -> None:
    _require_browser()
    with venue_pages(club.directory, venue_ca=club.ca,
                     page={"desk_broker": f"wss://localhost:{club.ports['pages']}"}) as pages:
        # The CA, as the card's second code fetches it.
        context = ssl.create_default_context(cafile=str(club.ca))
        with urllib.request.urlopen(f"{pages.base}/venue-ca.crt", context=context) as answer:
            assert answer.headers["Content-Type"] == "application/x-x509-ca-cert"
            assert answer.read() == club.ca.read_bytes()
        card = card_for(club.directory, "t1", page=pages.base, broker=f"wss://localhost:{club.ports['pages']}")
        plan = {"chromium": CHROMIUM, "spki": spki_hash(club.directory / "certs" / "server.crt"),
                "card_url": _expiring(card.url), "table": "t1", "user": "scorer-t1",
                "shot": str((SHOTS if str(SHOTS) != "." else tmp_path) / "scorer-app-t1.png")}
        out = run_e2e(E2E, plan, tmp_path / "plan.json", timeout=240,
                      handlers={"stop-server": lambda args: pages.stop()})
        assert "all ok" in "".join(out)


def test_the_icons_are_the_favicon_at_the_manifests_sizes() -> None:
    """tools/scorer_icons.py's PNGs: the manifest's sizes; a maskable icon full-bleed (its corners
    felt, so a launcher's mask cuts only felt), an "any" icon with the favicon's rounded corners;
    the ball red in the middle of both."""
    from PIL import Image

    from cueboard.venue.pages import SCREEN_DIR

    manifest = json.loads((SCREEN_DIR / "score" / "manifest.json").read_text())
    pngs = [icon for icon in manifest["icons"] if icon["type"] == "image/png"]
    wanted = {(f"{n}x{n}", purpose) for n in (192, 512) for purpose in ("any", "maskable")}
    assert {(i["sizes"], i["purpose"]) for i in pngs} == wanted
    for icon in pngs:
        with Image.open(SCREEN_DIR / icon["src"].lstrip("/")) as image:
            rgba = image.convert("RGBA")
            n = int(icon["sizes"].split("x")[0])
            assert rgba.size == (n, n), icon["src"]
            corner, middle = rgba.getpixel((0, 0)), rgba.getpixel((n // 2, n // 2))
            assert isinstance(corner, tuple) and isinstance(middle, tuple)
            assert middle[:3] == (0xD3, 0x2F, 0x2F), f"{icon['src']}: the ball's red in the middle"
            if icon["purpose"] == "maskable":
                assert corner == (0x12, 0x35, 0x24, 255), f"{icon['src']}: full-bleed felt"
            else:
                assert corner[3] == 0, f"{icon['src']}: rounded, its corner transparent"
