"""Tonight's competition as the desk keeps it (docs/league.md, docs/mqtt.md ``competition``): a
league match day from a fixture file (:mod:`cueboard.league.match_day`), a knockout or a round robin
(:mod:`cueboard.venue.pairings`), made into one list of matches the desk hands to tables.

Every match is a plain object::

    {"fixture": "club-cup-R1-1", "label": "R1-1", "round": 1, "sides": ["Ann", "Bob"],
     "handicap": [0, 7], "bye": [false, false], "winner": null, "next": {"fixture": ..., "side": 0},
     "format": {...} | null, "home_team": ..., "away_team": ...}

``sides`` holds ``null`` while a player is still to come from an earlier match; ``next`` is where
a knockout's winner goes; ``format`` is a fixture's own (else the competition's). A match given
to a player whose opponent withdrew has ``"walkover": true`` (and its ``winner``; ``frames`` stay
``null``: never played, not a 0-0). A ``groups`` competition's group matches carry ``"group": "A"``;
its knockout's first sides come ``"from": [{"group": "A", "place": 1} | null, ...]``. Pure: the draw's
seed comes from the caller (the desk draws it and keeps it), nothing here reads a clock.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from cueboard.common.errors import DrawError
from cueboard.contract.names import NameRefused, distinct, nickname, same_player
from cueboard.league.match_day import Fixture
from cueboard.venue.pairings import Entrant, knockout, round_robin

__all__ = ["MAX_PLAYERS", "advance", "checked", "from_draw", "from_fixtures", "group_table", "slug", "withdraw"]

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
        matches = _pairings([e.name for e in entrants], handicaps, prefix, twice)
        return {"kind": "round_robin", "rounds": max(m["round"] for m in matches), "twice": twice,
                "handicaps": handicaps, "matches": matches}
    if kind == "groups":
        return _groups(request, prefix, entrants)
    raise DrawError(f"kind: {kind!r} is not knockout or round_robin or groups")



MAX_GROUPS = 32
"""Groups in one draw: 256 players in groups of 8."""


def _pairings(names: list[str], handicaps: Mapping[str, int], prefix: str, twice: bool,
              group: str | None = None) -> list[dict[str, Any]]:
    """A round robin's matches (the whole night's, or one group's: ids ``<prefix>-A-1-2``)."""
    matches = []
    head = prefix if group is None else f"{prefix}-{group}"
    for r, pairs in enumerate(round_robin(names, twice=twice), start=1):
        for n, (home, away) in enumerate(pairs, start=1):
            a, b = handicaps[home], handicaps[away]
            label = f"{r}.{n}" if group is None else f"{group} {r}.{n}"
            m: dict[str, Any] = {"fixture": f"{head}-{r}-{n}", "label": label, "round": r,
                                 "sides": [home, away], "handicap": [max(0, a - b), max(0, b - a)],
                                 "bye": [False, False], "winner": None, "next": None, "format": None}
            if group is not None:
                m["group"] = group
            matches.append(m)
    return matches


def _whole_field(request: Mapping[str, Any], key: str, default: int, low: int, high: int, why: str) -> int:
    value = request.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise DrawError(f"{key}: {why}, a whole number from {low} to {high}")
    return value


def group_letter(n: int) -> str:
    """The n-th group's name (0-based): A..Z, then AA, AB, ..."""
    return chr(65 + n) if n < 26 else chr(64 + n // 26) + chr(65 + n % 26)


def _groups(request: Mapping[str, Any], prefix: str, entrants: list[Entrant]) -> dict[str, Any]:
    """``kind: "groups"``: ``groups`` round robins (players snaked in by seeding order: A B C C B A ...),
    the top ``advance`` of each into a cross-seeded knockout (docs/desk.md, "Groups into a knockout")."""
    count = _whole_field(request, "groups", 2, 1, MAX_GROUPS, "the number of groups")
    if len(entrants) < 2 * count:
        raise DrawError(f"groups: {count} groups of {len(entrants)} players; a group needs at least 2")
    smallest = len(entrants) // count
    top = _whole_field(request, "advance", 2, 1, max(1, smallest - 1), "the players each group sends on "
                       f"(fewer than the smallest group's {smallest})")
    if count * top < 2:
        raise DrawError("advance: one group sending one player makes no knockout; send 2 or more")
    twice = request.get("twice", False)
    if not isinstance(twice, bool):
        raise DrawError("twice: true or false")
    names = [group_letter(g) for g in range(count)]
    members: list[list[Entrant]] = [[] for _ in range(count)]
    for n, e in enumerate(entrants):  # snake: seed 1 in A, 2 in B, ..., then back from the last group
        lap, at = divmod(n, count)
        members[at if lap % 2 == 0 else count - 1 - at].append(e)
    handicaps = {e.name: e.handicap for e in entrants}
    matches: list[dict[str, Any]] = []
    for g, group in enumerate(members):
        matches += _pairings([e.name for e in group], handicaps, prefix, twice, names[g])
    # The knockout is drawn on place-holders ("A1" = group A's winner) in the seeding order
    # _qualifier_order gives; their sides are filled by advance() once a group is over.
    order = _qualifier_order(count, top)
    holders = {f"\0{names[g]}{place}": {"group": names[g], "place": place} for place, g in order}
    bracket = knockout([Entrant(h) for h in holders], seeded=True)
    first = max((m["round"] for m in matches), default=0)
    for tie in bracket.ties:
        d = tie.as_dict()
        sides: list[str | None] = [None, None]
        came: list[dict[str, Any] | None] = [None, None]
        for i, side in enumerate(d["sides"]):
            if side is not None:
                came[i] = dict(holders[side])
        m = {"fixture": f"{prefix}-{tie.id}", "label": tie.id, "round": first + tie.round, "sides": sides,
             "handicap": [0, 0], "bye": d["bye"], "winner": d["winner"],
             "next": None if tie.next is None else {"fixture": f"{prefix}-{tie.next[0]}", "side": tie.next[1]},
             "format": None}
        if any(c is not None for c in came):
            m["from"] = came
        matches.append(m)
    return {"kind": "groups", "rounds": first + bracket.rounds, "groups": {names[g]: [e.name for e in members[g]]
                                                                          for g in range(count)},
            "advance": top, "twice": twice, "handicaps": handicaps, "matches": matches}


def _qualifier_order(count: int, top: int) -> list[tuple[int, int]]:
    """(place, group index) in seeding order: the winners in group order; the runners-up so that,
    in a full draw, group A's winner meets group B's runner-up and B's winner A's (C with D, ...;
    a last group without a partner crosses with none); lower places, groups in reverse."""
    order = [(1, g) for g in range(count)]
    for place in range(2, top + 1):
        if place == 2:
            def partner(g: int) -> int:
                return g ^ 1 if (g ^ 1) < count else g
            # seed 2N - i meets seed i + 1 in a ladder of 2N: runner-up block position j is i = N - 1 - j
            order += [(2, partner(count - 1 - j)) for j in range(count)]
        else:
            order += [(place, g) for g in reversed(range(count))]
    return order


def _done(m: Mapping[str, Any]) -> bool:
    return m.get("winner") is not None or m.get("walkover") is True


def group_table(competition: Mapping[str, Any], group: str) -> list[dict[str, Any]]:
    """A group's places: most matches won (a walkover is a win), then most frames won, then the
    matches won between the players still level (head-to-head), then the draw's order. A
    withdrawn player is placed below everyone. Each row: name, played, won, lost, frames_for,
    frames_against, withdrawn."""
    members: list[str] = list(competition.get("groups", {}).get(group, []))
    out = set(competition.get("withdrawn", []))
    rows: dict[str, dict[str, Any]] = {
        n: {"name": n, "played": 0, "won": 0, "lost": 0, "frames_for": 0, "frames_against": 0, "withdrawn": n in out}
        for n in members}
    mine = [m for m in competition.get("matches", []) if m.get("group") == group and _done(m)]
    for m in mine:
        for i, side in enumerate(m["sides"]):
            row = rows.get(side) if isinstance(side, str) else None
            if row is None:
                continue
            row["played"] += 1
            if m.get("winner") == i:
                row["won"] += 1
            elif m.get("winner") is not None:
                row["lost"] += 1
            frames = m.get("frames")
            if isinstance(frames, list) and len(frames) == 2:
                row["frames_for"] += frames[i]
                row["frames_against"] += frames[1 - i]

    def h2h(level: list[str]) -> dict[str, int]:
        wins = dict.fromkeys(level, 0)
        for m in mine:
            a, b = m["sides"]
            if isinstance(a, str) and isinstance(b, str) and a in wins and b in wins and m.get("winner") is not None:
                wins[m["sides"][m["winner"]]] += 1
        return wins

    ordered = sorted(members, key=lambda n: (rows[n]["withdrawn"], -rows[n]["won"], -rows[n]["frames_for"]))
    placed: list[str] = []
    i = 0
    while i < len(ordered):  # a run of players level on the first three keys, ordered by head-to-head
        j = i
        key = (rows[ordered[i]]["withdrawn"], rows[ordered[i]]["won"], rows[ordered[i]]["frames_for"])
        while j < len(ordered) and (rows[ordered[j]]["withdrawn"], rows[ordered[j]]["won"],
                                    rows[ordered[j]]["frames_for"]) == key:
            j += 1
        level = ordered[i:j]
        wins = h2h(level) if len(level) > 1 else {}
        placed += sorted(level, key=lambda n: -wins.get(n, 0))  # stable: the draw's order last
        i = j
    return [rows[n] for n in placed]


def _handicap(competition: Mapping[str, Any], sides: list[Any]) -> list[int]:
    hc = competition.get("handicaps", {})
    a, b = (hc.get(s, 0) if isinstance(s, str) else 0 for s in sides)
    return [max(0, a - b), max(0, b - a)]


def advance(competition: Mapping[str, Any]) -> dict[str, Any]:
    """The competition with everything its results decide filled in, as the runner and the desk
    both need it: a finished group's places into the knockout's sides (``from``), a knockout's
    winners into their ``next`` match, and a walkover for every match not started whose player
    has withdrawn. Pure and idempotent (a second call changes nothing); a side already filled is
    never overwritten (a correction is the desk's, by hand)."""
    c = dict(competition)
    matches = [dict(m, sides=list(m["sides"])) for m in c.get("matches", [])]
    c["matches"] = matches
    out = set(c.get("withdrawn", []))
    by_id = {m["fixture"]: m for m in matches}
    places: dict[str, list[str]] = {}
    for g in c.get("groups", {}) if c.get("kind") == "groups" else ():
        if all(_done(m) for m in matches if m.get("group") == g):
            places[g] = [row["name"] for row in group_table(c, g)]
    changed = True
    while changed:
        changed = False
        for m in matches:
            for i, came in enumerate(m.get("from") or ()):
                if came is not None and m["sides"][i] is None and came["group"] in places:
                    ranked = places[came["group"]]
                    if came["place"] <= len(ranked):
                        m["sides"][i] = ranked[came["place"] - 1]
                        m["handicap"] = _handicap(c, m["sides"])
                        changed = True
            nxt = m.get("next")
            if m.get("winner") is not None and nxt is not None and m["sides"][m["winner"]] is not None:
                target = by_id.get(nxt["fixture"])
                if target is not None and target["sides"][nxt["side"]] is None:
                    target["sides"][nxt["side"]] = m["sides"][m["winner"]]
                    target["handicap"] = _handicap(c, target["sides"])
                    changed = True
            if (not _done(m) and not m.get("started") and None not in m["sides"]
                    and any(isinstance(s, str) and s in out for s in m["sides"])):
                gone = [isinstance(s, str) and s in out for s in m["sides"]]
                m["walkover"] = True
                m["frames"] = None
                if gone[0] and gone[1]:
                    # Both withdrawn: in a knockout one must go on (and give the next a walkover);
                    # a group's match counts for neither.
                    m["winner"] = 0 if m.get("next") is not None else None
                else:
                    m["winner"] = 1 if gone[0] else 0
                changed = True
    return c


def withdraw(competition: Mapping[str, Any], player: str) -> dict[str, Any]:
    """The competition with ``player`` withdrawn: each of their matches not yet started becomes
    a walkover for the opponent (in a knockout, their next one, once the opponent is known; in a
    round robin or a group, all the rest). A match a table has started is left to the table (the
    desk concedes it there). The name is matched as a player is (RFC 8266, case folded). Raises
    :class:`DrawError` for a name not in the competition."""
    names = {s for m in competition.get("matches", []) for s in m.get("sides", []) if isinstance(s, str)}
    names |= set(competition.get("handicaps", {}))
    found = next((n for n in sorted(names) if same_player(n, player)), None)  # "hal" is Hal
    if found is None:
        raise DrawError(f"withdraw: {player!r} is not a player of this competition")
    player = found
    withdrawn = list(competition.get("withdrawn", []))
    if player not in withdrawn:
        withdrawn.append(player)
    return advance({**competition, "withdrawn": withdrawn})


def checked(competition: Any) -> dict[str, Any]:
    """A competition sent back by a page, checked for the fields :func:`advance` reads (a page's
    own payload may be anything). Raises :class:`DrawError` naming the field."""
    if not isinstance(competition, dict) or not isinstance(competition.get("matches"), list):
        raise DrawError("competition: an object with its \"matches\", as the draw made it")
    if not isinstance(competition.get("withdrawn", []), list) or not all(
            isinstance(n, str) for n in competition.get("withdrawn", [])):
        raise DrawError("competition: withdrawn: a list of names")
    groups = competition.get("groups", {})
    if not isinstance(groups, dict) or not all(isinstance(v, list) and all(isinstance(n, str) for n in v)
                                               for v in groups.values()):
        raise DrawError("competition: groups: {\"A\": [names], ...}")
    handicaps = competition.get("handicaps", {})
    if not isinstance(handicaps, dict) or not all(isinstance(v, int) and not isinstance(v, bool) and -200 <= v <= 200
                                                  for v in handicaps.values()):
        raise DrawError("competition: handicaps: {name: whole points from -200 to 200}")
    for n, m in enumerate(competition["matches"], start=1):
        where = f"competition: match {n}"
        if not isinstance(m, dict) or not isinstance(m.get("fixture"), str):
            raise DrawError(f"{where}: an object with its \"fixture\"")
        sides = m.get("sides")
        if not isinstance(sides, list) or len(sides) != 2 or not all(
                s is None or isinstance(s, str) or (isinstance(s, list) and all(isinstance(p, str) for p in s))
                for s in sides):
            raise DrawError(f"{where}: sides: two sides (a name, a pair of names, or null while to come)")
        if not isinstance(m.get("group", ""), str):
            raise DrawError(f"{where}: group: the group's name")
        if m.get("winner") not in (None, 0, 1) or isinstance(m.get("winner"), bool):
            raise DrawError(f"{where}: winner: 0, 1 or null")
        frames = m.get("frames")
        if frames is not None and not (isinstance(frames, list) and len(frames) == 2 and all(
                isinstance(f, int) and not isinstance(f, bool) and 0 <= f <= 1000 for f in frames)):
            raise DrawError(f"{where}: frames: two whole numbers from 0 to 1000, or null")
        nxt = m.get("next")
        if nxt is not None and not (isinstance(nxt, dict) and isinstance(nxt.get("fixture"), str)
                                    and nxt.get("side") in (0, 1)):
            raise DrawError(f"{where}: next: {{\"fixture\", \"side\": 0 | 1}} or null")
        came = m.get("from")
        if came is not None and not (isinstance(came, list) and len(came) == 2 and all(
                c is None or (isinstance(c, dict) and isinstance(c.get("group"), str)
                              and isinstance(c.get("place"), int) and c["place"] >= 1) for c in came)):
            raise DrawError(f"{where}: from: two of {{\"group\", \"place\"}} or null")
    return competition
