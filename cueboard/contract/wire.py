"""JSON as cueboard writes it everywhere: compact UTF-8, no NaN (the journal, the feed, the
history and the record all use this one encoder, so a line reads the same wherever it is seen)."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["encode"]


def encode(obj: Any) -> bytes:
    """``obj`` as compact UTF-8 JSON; a NaN or an infinity is a ``ValueError`` (JSON has none).

    >>> encode({"a": "é", "b": [1, 2.5]})
    b'{"a":"\\xc3\\xa9","b":[1,2.5]}'
    """
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
