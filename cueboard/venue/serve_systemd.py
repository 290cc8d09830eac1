"""``sd_notify`` for ``cueboard venue serve`` (its unit is ``Type=notify``): ``READY=1`` once the
pages listen and the runner and archive are started, ``STOPPING=1`` on the way out. The table's
:mod:`cueboard.table.systemd` does the same for the daemon; the venue may not import the table
(docs/layers.md), and these few lines are not worth an area of their own. Outside systemd
(no ``$NOTIFY_SOCKET``) nothing is sent.
"""

from __future__ import annotations

import logging
import os
import socket

log = logging.getLogger(__name__)

__all__ = ["notify"]


def notify(message: str) -> bool:
    """Send ``message`` (``READY=1``, ``STOPPING=1``, ``STATUS=...``) to systemd; False outside it."""
    name = os.environ.get("NOTIFY_SOCKET", "")
    if not name.startswith(("/", "@")) or name == "@":
        return False
    address: str | bytes = name if name.startswith("/") else b"\0" + name[1:].encode()
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.settimeout(2.0)  # systemd reads at once; this only bounds a wedged PID 1
            sock.connect(address)
            sock.send(message.encode())
    except OSError as exc:
        log.warning("could not notify systemd (%s) of %r: %s", name, message, exc)
        return False
    return True
