"""Who plays when: breaks alternate between frames (rule 4), and doubles keep a fixed
order of play for the whole match.

>>> from ..match_setup import parse_setup
>>> pairs = parse_setup({"type": "match", "game": "blackball", "sides": [["A1", "A2"], ["B1", "B2"]]}, {})
>>> order_of_play(pairs)
((0, 'A1'), (1, 'B1'), (0, 'A2'), (1, 'B2'))
>>> [breaker_at(order_of_play(pairs), frame) for frame in (1, 2, 3, 4, 5)]
[0, 1, 2, 3, 0]
"""

from __future__ import annotations

from ..match_setup import MatchSetup
from ..order import Rotation as Order


def order_of_play(setup: MatchSetup) -> Order:
    """The side breaking frame 1 (``first``) and the other alternately, each side's players
    in the order the match line lists them: A1, B1, A2, B2 for doubles."""
    a, b = setup.first, 1 - setup.first
    out: list[tuple[int, str]] = []
    for pa, pb in zip(setup.players[a], setup.players[b], strict=True):
        out += [(a, pa), (b, pb)]
    return tuple(out)


def breaker_at(order: Order, frame: int) -> int:
    """Index in ``order`` of the player who breaks ``frame``: the next in the order each
    frame, so the sides alternate (rule 4: "Les casses sont ensuite alternées") and in
    doubles every player breaks in turn."""
    return (frame - 1) % len(order)
