"""Turns, visits and the free shot: rules 4g, 6a and 6b.

A turn is one visit, or two after the opponent's foul: "l'adversaire bénéficie d'un tir
libre suivi d'une visite" (rule 6a), the free shot being the first stroke of the first
visit. A visit goes on while the striker pots his balls fairly (4g); when it ends, the
striker's second visit begins, or the next player in the order of play comes in.
"""

from __future__ import annotations

from typing import Any

from .position import Position


def end_of_visit(p: Position) -> dict[str, Any]:
    """What changes when the striker's visit ends (rule 4g): his second visit, or the next
    player's turn of one visit."""
    assert p.turn is not None
    if p.visits > 1:
        return {"visits": p.visits - 1, "first_of_visit": True}
    return {"turn": (p.turn + 1) % len(p.order), "visits": 1, "first_of_visit": True}


def penalty(p: Position) -> dict[str, Any]:
    """What changes after a foul (rule 6a): the offender loses his visits; the next player
    has a free shot (6b) followed by a visit."""
    assert p.turn is not None
    return {"turn": (p.turn + 1) % len(p.order), "visits": 2, "free_shot": True, "first_of_visit": True}
