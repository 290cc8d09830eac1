"""File names for the site's pages: plain ASCII (any static host, any file system), with a
short hash of the full name so that two names spelt alike (``Zoë``, ``Zoe``) never share a page."""

from __future__ import annotations

import hashlib
import re
import unicodedata


def slug(name: str) -> str:
    """``"Ann Smith"`` -> ``"ann-smith-<8 hex>"``; a name with no ASCII letter keeps only the hash.

    >>> slug("<script>")[:7]
    'script-'
    """
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    words = re.sub(r"[^a-z0-9]+", "-", plain).strip("-")[:40].strip("-")
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
    return f"{words}-{digest}" if words else digest


def competition_page(name: str | None) -> str:
    return f"c/{slug(name) if name is not None else 'other'}.html"


def match_page(match_id: str) -> str:
    return f"m/{slug(match_id)}.html"


def player_page(name: str) -> str:
    return f"p/{slug(name)}.html"
