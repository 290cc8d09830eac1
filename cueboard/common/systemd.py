"""Tell systemd how the daemon is doing: ``sd_notify`` without libsystemd (:func:`ready`,
:func:`watchdog_ping` from the engine loop itself, :func:`stopping`, :func:`status`); outside
systemd every call does nothing and returns ``False``. The unit: docs/install.md, docs/daemon.md.
"""

from __future__ import annotations

import logging
import os
import socket

log = logging.getLogger(__name__)

__all__ = ["notify", "ready", "status", "stopping", "watchdog_interval", "watchdog_ping"]

# systemd reads the datagram synchronously; this only bounds a wedged PID 1.
_SEND_TIMEOUT = 2.0


def _address(name: str) -> str | bytes | None:
    """The ``sockaddr_un`` address for ``$NOTIFY_SOCKET``, or ``None`` if it is not a unix socket."""
    if name.startswith("/"):
        return name
    if name.startswith("@") and len(name) > 1:
        # Abstract namespace: a leading NUL, then the name; no trailing NUL.
        return b"\0" + name[1:].encode()
    return None


def notify(message: str) -> bool:
    """Send ``message`` (``KEY=value`` lines) to systemd.

    Returns ``True`` when it was handed to systemd, ``False`` when not running under
    systemd or when sending failed (logged; the daemon carries on keeping score).

    The protocol (``sd_notify(3)``): one datagram of newline-separated ``KEY=value`` lines to the
    ``AF_UNIX`` socket named by ``$NOTIFY_SOCKET``, a path, or with a leading ``@`` a name in the
    abstract namespace. systemd learns the sender's PID from the kernel (``SCM_CREDENTIALS``);
    with ``NotifyAccess=main`` it takes messages only from the main process, which any thread
    of the daemon is.
    """
    name = os.environ.get("NOTIFY_SOCKET", "")
    if not name:
        return False
    address = _address(name)
    if address is None:
        log.warning("NOTIFY_SOCKET=%r is not a unix socket; not notifying systemd", name)
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.settimeout(_SEND_TIMEOUT)
            sock.connect(address)
            sock.send(message.encode())
    except OSError as exc:
        log.warning("could not notify systemd (%s) of %r: %s", name, message, exc)
        return False
    return True


def ready() -> bool:
    """Start-up is over (the first frame is shown): ``READY=1``."""
    return notify("READY=1")


def stopping() -> bool:
    """The daemon is shutting down: ``STOPPING=1``."""
    return notify("STOPPING=1")


def status(text: str) -> bool:
    """One line for ``systemctl status`` (``STATUS=...``); line breaks become spaces."""
    return notify("STATUS=" + " ".join(text.splitlines()))


def watchdog_ping() -> bool:
    """The engine loop is alive: ``WATCHDOG=1``. Call it from the loop itself."""
    return notify("WATCHDOG=1")


def watchdog_interval() -> float | None:
    """The watchdog timeout in seconds, or ``None`` if this process has no watchdog.

    From ``$WATCHDOG_USEC`` (microseconds, set by ``WatchdogSec=``). When
    ``$WATCHDOG_PID`` is set and is not this process, the watchdog belongs to another
    process (a parent that passed its environment on): ``None``. Ping at half of it.
    """
    try:
        usec = int(os.environ.get("WATCHDOG_USEC", ""))
    except ValueError:
        return None
    if usec <= 0:
        return None
    pid = os.environ.get("WATCHDOG_PID", "")
    if pid:
        try:
            if int(pid) != os.getpid():
                return None
        except ValueError:
            return None
    return usec / 1_000_000
