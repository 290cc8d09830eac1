"""When a login stops working (``--expires``): read from hours or a time, kept and compared in
UTC, written as the card's link carries it (``exp=2026-11-29T03:00:00Z``, docs/security.md,
"Scorer cards").

>>> now = parse_time("--now", "2026-11-29T00:00:00Z")
>>> expires_at("6", now), expires_at("2026-11-29T03:00:00+01:00", now)
('2026-11-29T06:00:00Z', '2026-11-29T02:00:00Z')
>>> expired("2026-11-29T06:00:00Z", now), expired("2026-11-28T23:59:59Z", now)
(False, True)
>>> expires_at("2026-11-28T23:00:00Z", now)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
cueboard.common.errors.VenueError: --expires: 2026-11-28T23:00:00Z is past (now 2026-11-29T00:00:00Z): ...
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from cueboard.common.errors import VenueError

__all__ = ["LONGEST", "expired", "expires_at", "parse_time", "stamp"]

LONGEST = timedelta(days=400)
"""No login expires later than this from now: a typo (``--expires 8000``) is refused, not kept
for years. A card meant to last is made without ``--expires`` (it lasts until revoked)."""


def stamp(when: datetime) -> str:
    """``when`` in UTC to the second, ``Z``-suffixed: what the plan keeps and the link carries."""
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(option: str, text: str) -> datetime:
    """An ISO 8601 time; one without a zone is this machine's local time (the clock the
    manager reads), one with ``Z`` or an offset is that."""
    try:
        when = datetime.fromisoformat(text.strip().replace("z", "Z"))
    except ValueError:
        raise VenueError(f"{option}: {text!r} is not a time: give one as 2026-11-29T03:00:00Z (UTC) or "
                         "2026-11-29T03:00 (this machine's local time)") from None
    return when.astimezone(UTC) if when.tzinfo is not None else when.astimezone().astimezone(UTC)


def expires_at(text: str, now: datetime) -> str:
    """``--expires``: a number of hours from ``now`` (``6``, ``1.5``) or a time; in UTC."""
    try:
        hours = float(text)
    except ValueError:
        when = parse_time("--expires", text)
    else:
        if not hours > 0:  # NaN too
            raise VenueError(f"--expires: {text!r}: a number of hours is more than 0")
        if hours > LONGEST.total_seconds() / 3600:
            raise VenueError(f"--expires: {text} hours is more than {LONGEST.days} days: leave --expires out for a "
                             "login that lasts until it is revoked")
        when = now + timedelta(hours=hours)
    if when <= now:
        raise VenueError(f"--expires: {text} is past (now {stamp(now)}): a login that expires must work for a "
                         "while first")
    if when - now > LONGEST:
        raise VenueError(f"--expires: {text} is more than {LONGEST.days} days away: leave --expires out for a "
                         "login that lasts until it is revoked")
    return stamp(when)


def expired(expires: str | None, now: datetime) -> bool:
    """Whether a login that ``expires`` (``None``: never) has expired at ``now``."""
    return expires is not None and parse_time("expires", expires) <= now
