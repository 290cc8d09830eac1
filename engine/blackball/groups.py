"""Groups on an open table: rules 4e and 4f.

>>> claimed(1, 0)
'red'
>>> claimed(2, 1) is None, claimed(0, 0) is None
(True, True)
>>> assign(1, "red")
('yellow', 'red')
"""

from __future__ import annotations

from .balls import GROUPS


def claimed(reds: int, yellows: int) -> str | None:
    """The group a fair pot of these balls on an open table gives the striker (rule 4e):
    the one group potted; None when both are potted (4e(d)) or neither."""
    if reds and not yellows:
        return GROUPS[0]
    if yellows and not reds:
        return GROUPS[1]
    return None


def assign(striker: int, group: str) -> tuple[str, str]:
    """Each side's group once ``group`` is the striker's: the other group is his opponent's."""
    other = GROUPS[1] if group == GROUPS[0] else GROUPS[0]
    return (group, other) if striker == 0 else (other, group)


def other(group: str) -> str:
    return GROUPS[1] if group == GROUPS[0] else GROUPS[0]
