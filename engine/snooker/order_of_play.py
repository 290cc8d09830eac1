"""Who plays when: Section 3 Rule 3(a), 3(b) and, for four-handed snooker, Rule 17."""

from __future__ import annotations

from itertools import pairwise

from ..errors import IllegalEvent
from ..match_setup import MatchSetup
from ..order import Rotation


def default_rotation(setup: MatchSetup, breaker: int) -> Rotation:
    """The breaking side's first player, then the other side's first, and so on
    (for four-handed snooker: b1, o1, b2, o2 until an ``order`` event says otherwise)."""
    other = 1 - breaker
    out: list[tuple[int, str]] = []
    for b, o in zip(setup.players[breaker], setup.players[other], strict=True):
        out += [(breaker, b), (other, o)]
    return tuple(out)


def rotation_from_order(setup: MatchSetup, breaker: int, players: tuple[str, ...]) -> Rotation:
    """Check an ``order`` event's players and make the rotation (Rule 17(a), (b)):
    every player once, the sides alternating, the breaking side first."""
    side_of = {name: side for side in (0, 1) for name in setup.players[side]}
    everyone = sorted(side_of)
    if sorted(players) != everyone:
        raise IllegalEvent(f"order: name every player once: {', '.join(everyone)} (Section 3 Rule 17(a))",
                           short="wrong_order")
    if side_of[players[0]] != breaker:
        raise IllegalEvent(f"order: {setup.names[breaker]} break this frame, so one of them plays first "
                           "(Section 3 Rule 17(a))", short="wrong_order")
    for a, b in pairwise(players):
        if side_of[a] == side_of[b]:
            raise IllegalEvent(f"order: {a} and {b} are partners; the sides play alternately "
                               "(Section 3 Rule 17(a))", short="wrong_order")
    return tuple((side_of[name], name) for name in players)
