"""The venue service's systemd unit (``cueboard venue serve``): one unit, the whole venue.
``cueboard venue init`` writes it into the venue's folder, for that folder, and says how to
enable it; ``systemd/cueboard-venue.service`` in the repository is the same unit for the
default folder (tests/venue/test_serve_unit.py checks both and ``systemd-analyze verify``).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["UNIT_NAME", "unit_text", "write_unit"]

UNIT_NAME = "cueboard-venue.service"

_UNIT = """\
# cueboard-venue: the venue's service on the venue broker's machine: the pages (desk, screen,
# scorer, bracket), tonight's competition run from the server (hand-offs go on with no desk
# open), and the results archive (SQLite in the venue's folder). See docs/venue-service.md.
# Written by `cueboard venue init`; enable it with
#
#   sudo systemctl enable --now {directory}/cueboard-venue.service
#
# Checked by tests/venue/test_serve_unit.py (systemd-analyze verify).

[Unit]
Description=cueboard venue service: the pages, tonight's competition and the archive
After=network-online.target mosquitto.service
Wants=network-online.target
# Keep trying for as long as it takes: the night must not stop because the broker was slow.
StartLimitIntervalSec=0

[Service]
# READY=1 once the pages listen and the runner and the archive are started.
Type=notify
NotifyAccess=main
ExecStart=/usr/local/bin/cueboard venue serve --dir {directory}
Restart=on-failure
# Exit status 2: the venue's folder or an option is wrong (the journal says which): retrying cannot fix it.
RestartPreventExitStatus=2
RestartSec=3s
Environment=PYTHONUNBUFFERED=1
# Root for the venue's folder (its key, its logins' passwords: root's, 0600), with no capability.
CapabilityBoundingSet=
AmbientCapabilities=
NoNewPrivileges=yes
# It writes the archive in the venue's folder and nothing else.
ProtectSystem=strict
ReadWritePaths={directory}
ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
RestrictNamespaces=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
LockPersonality=yes
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6
SystemCallArchitectures=native
SystemCallFilter=@system-service
UMask=0077

[Install]
WantedBy=multi-user.target
"""


def unit_text(directory: str) -> str:
    """The unit for the venue's folder ``directory`` (an absolute path)."""
    return _UNIT.format(directory=directory)


def write_unit(directory: Path) -> Path:
    """The unit written into the venue's folder, for that folder: its path."""
    path = directory / UNIT_NAME
    path.write_text(unit_text(str(directory.resolve())), encoding="utf-8")
    path.chmod(0o644)
    return path
