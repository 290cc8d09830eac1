"""The one error the engine raises for bad input."""

from __future__ import annotations


class IllegalEvent(ValueError):
    """An event (or a match line) that is malformed, unknown or impossible now.

    The message is for the referee and the marker: it says what is wrong and,
    where there is one, names the rule (``"pink is on: a foul is at least 6
    (Section 3 Rule 10)"``). The match it was offered to is unchanged.
    """
