"""A message from the desk to a table (``<prefix>/message``, docs/mqtt.md).

``{"schema": 1, "text": "Table 3: your match starts in 5 minutes", "until": "2026-11-26T20:05:00Z"}``,
retained; an empty payload clears it. The table shows the text on its boards as a notice and
puts it on the state until ``until`` passes (then it drops it and publishes the state again) or
the desk clears it. The text is what a board and a screen card can show: at most
:data:`TEXT_MAX` characters, none of them a control or invisible character.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from datetime import datetime

from cueboard.common.errors import MessageRefused
from cueboard.contract.lines import Unreadable, read_line
from cueboard.contract.names import NameRefused, message_text
from cueboard.contract.times import timestamp
from cueboard.engine.json_value import JsonObject

__all__ = ["TEXT_MAX", "MessageRefused", "TableMessage", "parse_message"]

TEXT_MAX = 120
"""Characters in a message: two lines of a screen card, a few seconds of a board's marquee."""

FIELDS = frozenset({"schema", "text", "until", "ts", "sent_by"})


@dataclass(frozen=True)
class TableMessage:
    text: str
    until: float | None
    """Unix seconds: the message is dropped then; None: until cleared."""

    def state(self) -> JsonObject:
        """The state's ``message`` (docs/state.md)."""
        return {"text": self.text, "until": None if self.until is None else timestamp(self.until)}


def parse_message(payload: bytes) -> TableMessage | None:
    """The message in ``payload`` (None: empty, it clears), or :class:`MessageRefused`.

    >>> parse_message(b'{"schema": 1, "text": "Your match is next", "until": "2026-11-26T20:05:00Z"}').state()
    {'text': 'Your match is next', 'until': '2026-11-26T20:05:00.000Z'}
    >>> parse_message(b'{"schema": 1, "text": "a\\\\u0007b", "until": null}')
    Traceback (most recent call last):
    ...
    cueboard.common.errors.MessageRefused: message: 'text' has a control character (U+0007) at 2: a board cannot show it
    """
    if not payload:
        return None
    obj = read_line(payload, 4096)
    if isinstance(obj, Unreadable):
        raise MessageRefused(f"message: {obj.reason}")
    unknown = sorted(set(obj) - FIELDS)
    if unknown:
        raise MessageRefused(f"message: unknown field {unknown[0]!r} (a message has schema, text and until)")
    if obj.get("schema") != 1:
        raise MessageRefused(f"message: 'schema' must be 1, not {obj.get('schema')!r}")
    text = obj.get("text")
    if not isinstance(text, str):
        raise MessageRefused("message: 'text' is the text to show, a string (an empty payload clears the message)")
    text = " ".join(unicodedata.normalize("NFC", text).split(" ")).strip()
    if not 1 <= len(text) <= TEXT_MAX:
        raise MessageRefused(f"message: 'text' is 1 to {TEXT_MAX} characters, not {len(text)}")
    for i, ch in enumerate(text, 1):
        kind = unicodedata.category(ch)
        if kind in ("Cc", "Zl", "Zp"):
            raise MessageRefused(f"message: 'text' has a control character (U+{ord(ch):04X}) at {i}: a board "
                                 "cannot show it")
    try:  # what people read: nothing invisible (U+FE0F, U+200D ...), as in a name (RFC 8266)
        text = message_text(text)
    except NameRefused as exc:
        raise MessageRefused(f"message: {exc}") from None
    for i, ch in enumerate(text, 1):
        if unicodedata.category(ch) in ("Cf", "Co", "Cn", "Cs"):
            raise MessageRefused(f"message: 'text' has an invisible character (U+{ord(ch):04X}) at {i}: a board "
                                 "cannot show it")
    until = obj.get("until")
    if until is None:
        return TableMessage(text, None)
    if not isinstance(until, str):
        raise MessageRefused(f"message: 'until' is a time, ISO 8601 UTC (\"2026-11-26T20:05:00Z\"), or null, "
                             f"not {until!r}"[:300])
    try:
        when = datetime.fromisoformat(until)
    except ValueError:
        raise MessageRefused(f"message: 'until' is a time, ISO 8601 UTC (\"2026-11-26T20:05:00Z\"), not "
                             f"{until!r}"[:300]) from None
    if when.tzinfo is None:
        raise MessageRefused(f"message: 'until' needs its zone (Z for UTC): {until!r}"[:300])
    return TableMessage(text, when.timestamp())
