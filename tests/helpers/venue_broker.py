"""The example venue broker (``examples/mosquitto/venue.conf`` and ``acl``) as shipped, for tests:
only its ports, certificates, password file and ACL's path are the test's own, and, when
asked, its league bridge turned on as its comment says (the '#' removed, the league's
address and CA put in)."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.mosquitto import Mosquitto, TlsFiles

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "mosquitto"
VENUE_CONF = EXAMPLE / "venue.conf"
ACL = EXAMPLE / "acl"

BRIDGE = ["connection league", "address mqtt.league.example:8883", "bridge_cafile /etc/mosquitto/certs/league-ca.crt",
          "remote_clientid cueboard-bridge-venue-club", "remote_username venue-club",
          "remote_password THE-LEAGUES-PASSWORD-FOR-THIS-VENUE",
          "notification_topic $SYS/broker/connection/venue-club/state", "cleansession false",
          "topic cueboard/# out 1"]
"""The bridge's lines, commented out in venue.conf as shipped."""


def _replace(text: str, old: str, new: str, count: int = 1) -> str:
    assert text.count(old) == count, f"{old!r} is not in venue.conf {count} time(s)"
    return text.replace(old, new)


def venue_config(port: int, ws_port: int, tls: TlsFiles, passwords: Path, league: Mosquitto | None = None) -> str:
    """venue.conf with this test's ports, certificates, password file and the ACL's path; with
    ``league``, its bridge on, to that broker (its CA: ``tls.ca``)."""
    text = VENUE_CONF.read_text()
    for old, new, count in [
        ("listener 8883\n", f"listener {port} 127.0.0.1\n", 1),
        ("listener 9001\n", f"listener {ws_port} 127.0.0.1\n", 1),
        ("/etc/mosquitto/certs/venue-ca.crt", str(tls.ca), 1),
        ("/etc/mosquitto/certs/broker.crt", str(tls.server_cert), 1),
        ("/etc/mosquitto/certs/broker.key", str(tls.server_key), 1),
        ("password_file /etc/mosquitto/passwords", f"password_file {passwords}", 1),
        ("acl_file /etc/mosquitto/acl", f"acl_file {ACL}", 2),
    ]:
        text = _replace(text, old, new, count)
    if league is not None:
        for line in BRIDGE:
            text = _replace(text, f"\n#{line}\n", f"\n{line}\n")
        text = _replace(text, "mqtt.league.example:8883", f"127.0.0.1:{league.port}")
        text = _replace(text, "/etc/mosquitto/certs/league-ca.crt", str(tls.ca))
    return text
