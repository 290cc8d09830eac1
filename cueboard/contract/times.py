"""Times as the feed and the record write them."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["timestamp"]


def timestamp(seconds: float) -> str:
    """ISO 8601 UTC to the millisecond: ``2023-11-14T22:13:20.250Z``.

    >>> timestamp(1_700_000_000.25)
    '2023-11-14T22:13:20.250Z'
    """
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
