"""Turns, visits and the free shot: rules 4g, 6a and 6b.

A turn is one visit, or two after the opponent's foul: "l'adversaire bénéficie d'un tir
libre suivi d'une visite" (rule 6a), the free shot being the first stroke of the first
visit. A visit goes on while the striker pots his balls fairly (4g); when it ends, the
striker's second visit begins, or the next player in the order of play comes in.
"""

from __future__ import annotations

from typing import NamedTuple

from .position import Position


class NextStroke(NamedTuple):
    """Who plays the next stroke and how: the fields of the position a stroke hands on."""

    turn: int
    """Index in the order of play of the player at the table."""
    visits: int
    free_shot: bool
    first_of_visit: bool


def play_on(p: Position) -> NextStroke:
    """A fair pot of the striker's own ball (rule 4g): his visit goes on; the free shot, if
    this was it, is used."""
    assert p.turn is not None
    return NextStroke(p.turn, p.visits, free_shot=False, first_of_visit=False)


def end_of_visit(p: Position) -> NextStroke:
    """What changes when the striker's visit ends (rule 4g): his second visit, or the next
    player's turn of one visit."""
    assert p.turn is not None
    if p.visits > 1:
        return NextStroke(p.turn, p.visits - 1, free_shot=False, first_of_visit=True)
    return NextStroke((p.turn + 1) % len(p.order), 1, free_shot=False, first_of_visit=True)


def penalty(p: Position) -> NextStroke:
    """What changes after a foul (rule 6a): the offender loses his visits; the next player
    has a free shot (6b) followed by a visit."""
    assert p.turn is not None
    return NextStroke((p.turn + 1) % len(p.order), 2, free_shot=True, first_of_visit=True)
