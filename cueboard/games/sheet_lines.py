"""What each game's printed result sheet (:mod:`cueboard.league.result_sheet`) shows of it: one class a game,
listed in its entry of :data:`cueboard.games.kits.KITS` (``printed``), so the sheet asks its hooks
instead of the game's name.

A snooker sheet has each frame's points and breaks, the match's high break and totals; a
blackball sheet has the balls each side had left and the rule a frame was lost under. Every
hook gets the match record (``docs/record.md``) and returns cells or words, escaped here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

__all__ = ["BlackballPrinted", "PrintedSheet", "Record", "SnookerPrinted", "escaped"]

Record = Mapping[str, Any]


def escaped(value: Any) -> str:
    """``value`` as text safe in HTML, quotes too."""
    return escape(str(value), quote=True)


class PrintedSheet:
    """A game's hooks on the printed sheet; the defaults print the frames won and nothing more."""

    game = ""

    def format_parts(self, record: Record, doubles: bool) -> list[str]:
        """The format line's words after the game and the match length."""
        return ["doubles"] if doubles else []

    def score_head(self, names: Sequence[str]) -> list[str]:
        """The frames table's columns between "Broke" and "Winner"."""
        return []

    def score_cells(self, frame: Record) -> list[str]:
        return []

    def tail_head(self, record: Record, names: Sequence[str]) -> list[str]:
        """The frames table's columns after "How"."""
        return []

    def tail_cells(self, frame: Record) -> list[str]:
        return []

    shows_rule = False
    """Whether "How" names the rule a frame ended under."""

    def totals(self, record: Record) -> tuple[int, int] | None:
        """The match's points, for the frames table's foot; None where the game has none."""
        return None

    def notes(self, record: Record) -> list[str]:
        """The notes under the frames table, as HTML."""
        return []

    def footer(self, record: Record) -> list[str]:
        """The footer's words about the game."""
        return []


class SnookerPrinted(PrintedSheet):
    game = "snooker"

    def format_parts(self, record: Record, doubles: bool) -> list[str]:
        parts = ["four-handed"] if doubles else []
        if record.get("reds", 15) != 15:
            parts.append(f"{record['reds']} reds")
        handicap = record.get("handicap") or [0, 0]
        if any(handicap):
            parts.append("handicap " + ", ".join(f"{s['name']} {h}" for s, h in zip(record["sides"], handicap,
                                                                                   strict=True)))
        return parts

    def score_head(self, names: Sequence[str]) -> list[str]:
        return [f'<th class="num side-col">{escaped(name)}</th>' for name in names]

    def score_cells(self, frame: Record) -> list[str]:
        return [f'<td class="num{" won" if frame["winner"] == side else ""}">{frame["scores"][side]}</td>'
                for side in (0, 1)]

    def tail_head(self, record: Record, names: Sequence[str]) -> list[str]:
        return [f"<th>Breaks of {record['breaks_from']}+</th>"]

    def tail_cells(self, frame: Record) -> list[str]:
        breaks = ", ".join(f"{b['player']} {b['points']}" for b in frame["breaks"])
        return [f'<td class="breaks">{escaped(breaks)}</td>']

    def totals(self, record: Record) -> tuple[int, int] | None:
        totals = record["totals"]
        return None if totals is None else (totals[0], totals[1])

    def notes(self, record: Record) -> list[str]:
        best = record["high_break"]
        high = "none" if not best else f"{best[0]['points']}: " + ", ".join(
            f"{b['player']} (frame {b['frame']})" for b in best)
        notes = [f"<b>High break</b> {escaped(high)}"]
        if record.get("handicap") and any(record["handicap"]):
            notes.append("Scores include the handicap start.")
        return notes

    def footer(self, record: Record) -> list[str]:
        return ["a break is the points a player scores in one turn (Section 2 Rule 8)"]


class BlackballPrinted(PrintedSheet):
    game = "blackball"
    shows_rule = True

    def tail_head(self, record: Record, names: Sequence[str]) -> list[str]:
        return [f'<th class="num side-col">{escaped(name)}<br>balls left</th>' for name in names]

    def tail_cells(self, frame: Record) -> list[str]:
        left = frame.get("balls_left") or [None, None]
        shown = [("–" if n is None else str(n)) for n in left]
        return [f'<td class="num">{shown[0]}</td><td class="num">{shown[1]}</td>']
