"""``cueboard archive stats``: the records in, one of four tables out (docs/league.md,
"Statistics, ratings and handicaps"). Exit status 0, or 2 with a message and a code: a player
asked for who was never rated, or has no scored frame for a start, or too few frames."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from cueboard.league.handicap import MIN_FRAMES, fit, suggest
from cueboard.league.ratings import Ratings, frame_results
from cueboard.league.stats_figures import FIELDS, RESTS_ON, player_stats
from cueboard.league.stats_show import stats_text, table_text, to_csv

RATING_FIELDS = ("rank", "player", "mu", "sigma", "ordinal", "frames")
HISTORY_FIELDS = ("match_id", "frame", "date", "mu", "sigma", "ordinal")
HANDICAP_FIELDS = ("stronger", "weaker", "level_chance", "start", "reason")


def stats(records: Sequence[Mapping[str, Any]], args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    records = [r for r in records if _in_season(r, args.since, args.until)]
    if not (args.ratings or args.history is not None or args.handicaps is not None):
        found = player_stats(records)
        rows = [s.as_dict() for s in found]
        return _emit(out, args, rows, FIELDS, {"rests_on": RESTS_ON, "players": rows}, stats_text(found))
    ratings = Ratings(frame_results(records))
    if args.ratings:
        rows = ratings.table()
        return _emit(out, args, rows, RATING_FIELDS, rows, table_text(rows, RATING_FIELDS))
    if args.history is not None:
        if args.history not in ratings.history:
            return _refuse(err, "unrated_player", f"no frame rated for {args.history!r} in the matches chosen")
        rows = [{"match_id": p.match_id, "frame": p.frame, "date": p.date, "mu": round(p.mu, 3),
                 "sigma": round(p.sigma, 3), "ordinal": round(p.ordinal, 3)} for p in ratings.history[args.history]]
        return _emit(out, args, rows, HISTORY_FIELDS, rows, table_text(rows, HISTORY_FIELDS))
    league_fit = fit(ratings)
    if not league_fit.figures:
        return _refuse(err, "too_few_frames", f"{league_fit.frames} scored frames in the matches chosen; "
                       f"a handicap needs {MIN_FRAMES} (handicap.MIN_FRAMES)")
    players = list(args.handicaps) or [r["player"] for r in ratings.table() if r["player"] in league_fit.figures]
    missing = [p for p in players if p not in league_fit.figures]
    if missing:
        return _refuse(err, "no_scored_frames", f"no snooker frame with scores for {', '.join(map(repr, missing))} "
                       "in the matches chosen: a start is in points")
    rows = [s.as_dict() for s in suggest(ratings, players, league_fit)]
    text = "".join(f"{r['weaker']} receives {r['start']} from {r['stronger']}\n  {r['reason']}\n" for r in rows)
    return _emit(out, args, rows, HANDICAP_FIELDS, rows, text)


def _emit(out: TextIO, args: argparse.Namespace, rows: Sequence[Mapping[str, Any]], fields: Sequence[str],
          as_json: object, text: str) -> int:
    if args.csv:
        out.write(to_csv(rows, fields))
    elif args.json:
        out.write(json.dumps(as_json, ensure_ascii=False) + "\n")
    else:
        out.write(text)
    return 0


def _refuse(err: TextIO, code: str, message: str) -> int:
    err.write(f"cueboard archive stats: {message} [{code}]\n")
    return 2


def _in_season(record: Mapping[str, Any], since: str | None, until: str | None) -> bool:
    day = str(record.get("started") or "")[:10]
    return not ((since and day < since) or (until and day > until))
