"""The limits of the project's web server (:mod:`cueboard.common.web_server`): what it allows
each connection and client, and the two reckonings it makes of them: how many connections the
open-files limit holds, and whose a connection is. docs/security.md, "The servers".
"""

from __future__ import annotations

import ipaddress
import resource
from dataclasses import dataclass
from typing import Any

__all__ = ["BACKLOG", "FD_RESERVE", "Limits", "client_key", "connection_cap"]

BACKLOG = 128
"""The listening socket's queue of connections the kernel has made and the server not yet taken."""
FD_RESERVE = 2 * BACKLOG + 64
"""File descriptors kept free of connections: a burst of accepted sockets not yet closed (up to
two backlogs: asyncio accepts a backlog's worth per turn of the loop, and an aborted socket's
descriptor is freed a turn later), the listening socket, the database, logs, the TLS files."""


@dataclass(frozen=True)
class Limits:
    connections: int = 256
    """Open connections at most, all clients together (a venue's screens and phones: tens);
    lowered to what the process's file descriptor limit allows (:func:`connection_cap`)."""
    per_client: int = 32
    """Open connections at most from one address (an IPv6 client: from its /64). A browser
    opens at most 6 to a host; one slow client cannot take the others' places."""
    header_timeout: float = 10.0
    """Seconds a request's head may take to arrive (TLS handshake included)."""
    header_bytes: int = 32768
    """Bytes a request's head may take (a browser sends 1-2 KiB)."""
    body_bytes: int = 1024 * 1024
    """Bytes a request's body may declare (Content-Length) or a handler read with ``request.read()``."""
    keepalive: float = 15.0
    """Seconds an idle kept-alive connection stays open."""
    send_timeout: float = 30.0
    """Seconds an answer may wait, its buffer full, for the client to read some of it: one that
    stops reading (a slow-read attack holding its places for ever) is closed."""
    handler_timeout: float = 30.0
    """Seconds an answer may take to be made (a body trickling in included)."""


def connection_cap(wanted: int, soft: int | None = None) -> int:
    """``wanted``, or fewer if the soft limit on open files (``soft``; by default the process's:
    systemd's default is 1024) would not hold that many connections beside :data:`FD_RESERVE`
    (or half the limit, if that is less): past the cap a connection is closed at once, where
    past the limit the server could accept none (EMFILE)."""
    if soft is None:
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(1, min(wanted, soft - min(FD_RESERVE, soft // 2)))


def client_key(peer: Any) -> str:
    """Whose connection this is, for the per-client cap: the remote address; an IPv6 one by its
    /64 (one host may take any address of its network's /64)."""
    host = peer[0] if isinstance(peer, tuple) and peer else str(peer or "")
    try:
        address = ipaddress.ip_address(str(host).split("%", 1)[0])
    except ValueError:
        return str(host)
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)
