"""Tonight's competition as the desk keeps it (docs/league.md, docs/mqtt.md ``competition``): a
league match day from a fixture file (:mod:`cueboard.league.match_day`), a knockout or a round robin
(:mod:`cueboard.venue.pairings`), made into one list of matches the desk hands to tables.

Every match is a plain object::

    {"fixture": "club-cup-R1-1", "label": "R1-1", "round": 1, "sides": ["Ann", "Bob"],
     "handicap": [0, 7], "bye": [false, false], "winner": null, "next": {"fixture": ..., "side": 0},
     "format": {...} | null, "home_team": ..., "away_team": ...}

``sides`` holds ``null`` while a player is still to come from an earlier match; ``next`` is where
a knockout's winner goes; ``format`` is a fixture's own (else the competition's). Pure: the draw's
seed comes from the caller (the desk draws it and keeps it), nothing here reads a clock.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from cueboard.common.errors import DrawError
from cueboard.contract.names import NameRefused, distinct, nickname
from cueboard.league.match_day import Fixture
from cueboard.venue.pairings import Entrant, knockout, round_robin

__all__ = ["MAX_PLAYERS", "from_draw", "from_fixtures", "slug"]

MAX_PLAYERS = 256
"""A night's draw: a club's knockout is 8 to 64; 256 is a big open."""


def slug(name: str) -> str:
    """A fixture id's start from a competition's name: ``"Club Cup 2026"`` -> ``"club-cup-2026"``.

    >>> slug("Coupe d'Été")
    'coupe-d-ete'
    """
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "-", plain).strip("-")[:32] or "night"


def from_fixtures(fixtures: list[Fixture]) -> list[dict[str, Any]]:
    """A match day's fixtures, in the file's order: each is its own match (its own format)."""
    return [{"fixture": f.fixture, "label": f.fixture, "round": 1, "sides": list(f.match_line()["sides"]),
             "handicap": list(f.format.get("handicap", [0, 0])),
             "bye": [False, False], "winner": None, "next": None,
             "format": {k: v for k, v in f.format.items() if k != "handicap"}, "competition": f.competition,
             "day": f.day, "home_team": f.home_team, "away_team": f.away_team} for f in fixtures]


def _entrants(players: Any) -> list[Entrant]:
    if not isinstance(players, list) or not players:
        raise DrawError("players: a list of {\"name\", \"handicap\"}, one a player")
    if len(players) > MAX_PLAYERS:
        raise DrawError(f"players: {len(players)}; at most {MAX_PLAYERS} in one draw")
    out = []
    for n, p in enumerate(players, start=1):
        if not isinstance(p, Mapping) or not isinstance(p.get("name"), str) or not p["name"].strip():
            raise DrawError(f"player {n}: a name is needed")
        try:  # a person's name (RFC 8266 nickname): nothing invisible, spaces made one
            name = nickname(p["name"], f"player {n}")
        except NameRefused as exc:
            raise DrawError(str(exc)) from exc
        if len(name) > 40:
            raise DrawError(f"player {n}: the name is {len(name)} characters; a board shows at most 40")
        handicap = p.get("handicap", 0)
        if not isinstance(handicap, int) or isinstance(handicap, bool) or not -200 <= handicap <= 200:
            raise DrawError(f"player {n} ({name}): the handicap is whole points from -200 to 200")
        out.append(Entrant(name, handicap))
    try:  # "Ann" and "ANN" are one player: a draw cannot have both
        distinct(((f"player {n}", e.name) for n, e in enumerate(out, start=1)), "a draw")
    except NameRefused as exc:
        raise DrawError(str(exc)) from exc
    return out


def from_draw(request: Mapping[str, Any]) -> dict[str, Any]:
    """The matches of a knockout or a round robin from the desk's request: ``kind``
    (``knockout`` | ``round_robin``), ``name``, ``players`` ([{name, handicap}]), ``seeded``
    (the list is in seeding order) or the draw's ``seed``, ``twice`` (a round robin home and
    away). Raises :class:`DrawError` naming the field."""
    kind = request.get("kind")
    name = request.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 80:
        raise DrawError("name: the competition's name, 1 to 80 characters")
    prefix = slug(name)
    entrants = _entrants(request.get("players"))
    if kind == "knockout":
        seeded = request.get("seeded", True)
        seed = request.get("seed")
        if not isinstance(seeded, bool):
            raise DrawError("seeded: true or false")
        if not seeded and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise DrawError("seed: a drawn knockout needs the draw's seed, a whole number")
        bracket = knockout(entrants, seeded=seeded, seed=seed if isinstance(seed, int) else None)
        matches = []
        for tie in bracket.ties:
            d = tie.as_dict()
            matches.append({"fixture": f"{prefix}-{tie.id}", "label": tie.id, "round": tie.round,
                            "sides": d["sides"], "handicap": d["handicap"], "bye": d["bye"], "winner": d["winner"],
                            "next": None if tie.next is None else {"fixture": f"{prefix}-{tie.next[0]}",
                                                                   "side": tie.next[1]},
                            "format": None})
        handicaps = {e.name: e.handicap for e in entrants}
        return {"kind": "knockout", "rounds": bracket.rounds, "seeded": seeded, "seed": seed,
                "handicaps": handicaps, "matches": matches}
    if kind == "round_robin":
        twice = request.get("twice", False)
        if not isinstance(twice, bool):
            raise DrawError("twice: true or false")
        handicaps = {e.name: e.handicap for e in entrants}
        rounds = round_robin([e.name for e in entrants], twice=twice)
        matches = []
        for r, pairs in enumerate(rounds, start=1):
            for n, (home, away) in enumerate(pairs, start=1):
                a, b = handicaps[home], handicaps[away]
                matches.append({"fixture": f"{prefix}-{r}-{n}", "label": f"{r}.{n}", "round": r,
                                "sides": [home, away], "handicap": [max(0, a - b), max(0, b - a)],
                                "bye": [False, False], "winner": None, "next": None, "format": None})
        return {"kind": "round_robin", "rounds": len(rounds), "twice": twice, "handicaps": handicaps,
                "matches": matches}
    raise DrawError(f"kind: {kind!r} is not knockout or round_robin")
