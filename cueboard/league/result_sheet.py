"""The printable result sheet: a match record (docs/record.md) as one A4 page of static,
self-contained HTML (every name escaped); what a game adds comes from its kit's ``printed``
hooks (:mod:`cueboard.games.sheet_lines`). What it shows: docs/record.md, "The result sheet".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, tzinfo
from typing import Any

from cueboard.games.kits import kit
from cueboard.games.sheet_lines import PrintedSheet, escaped

__all__ = ["DATE_WORDS", "correction_words", "how_text", "long_date", "result_sheet", "result_sheets"]

Record = Mapping[str, Any]

CSS = """
@page { size: A4; margin: 13mm 14mm 14mm 14mm; }
* { box-sizing: border-box; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { margin: 0; color: #111; font: 10pt/1.35 "Helvetica Neue", Helvetica, Arial, "Liberation Sans",
  "DejaVu Sans", sans-serif; font-variant-numeric: tabular-nums; }
.sheet { break-after: page; }
.sheet:last-child { break-after: auto; }
header { display: flex; justify-content: space-between; align-items: flex-end; gap: 8mm;
  border-bottom: 2pt solid #111; padding-bottom: 2.5mm; }
h1 { font-size: 19pt; line-height: 1.1; margin: 0 0 1mm; letter-spacing: 0.02em; }
.format { margin: 0; color: #333; }
.facts { display: grid; grid-template-columns: auto 52mm; gap: 1.2mm 3mm; margin: 0; font-size: 9.5pt; }
.facts dt { color: #555; text-align: right; }
.facts dd { margin: 0; min-height: 4.6mm; border-bottom: 0.6pt solid #999; padding: 0 1mm; }
.result { display: grid; grid-template-columns: 1fr auto 1fr; align-items: center; gap: 6mm;
  margin: 5mm 0 2mm; }
.side { border: 0.8pt solid #999; border-radius: 2mm; padding: 2.5mm 4mm; min-height: 17mm; }
.side.first { text-align: right; }
.side .label { font-size: 8pt; text-transform: uppercase; letter-spacing: 0.08em; color: #555; }
.side .name { font-size: 15pt; font-weight: 700; overflow-wrap: anywhere; }
.side .players { font-size: 9pt; color: #333; }
.side.winner { border: 1.6pt solid #111; background: #f1f1f1; }
.side.winner .label::after { content: " \\2014  winner"; color: #111; font-weight: 700; }
.frames-won { font-size: 30pt; font-weight: 700; white-space: nowrap; }
.frames-won .dash { color: #777; padding: 0 2mm; }
.verdict { text-align: center; margin: 0 0 4mm; font-size: 10.5pt; }
table { width: 100%; border-collapse: collapse; }
thead { display: table-header-group; }
tr { break-inside: avoid; }
th, td { border: 0.6pt solid #888; padding: 1.2mm 1.6mm; vertical-align: top; text-align: left; }
thead th { background: #e6e6e6; font-size: 8.5pt; text-transform: uppercase; letter-spacing: 0.04em;
  vertical-align: bottom; }
thead th.side-col { text-transform: none; letter-spacing: 0; font-size: 9pt; }
td.num, th.num { text-align: right; }
td.frame { text-align: center; font-weight: 700; }
td.won { font-weight: 700; }
td.how { font-size: 9pt; }
td.how .rule { color: #555; }
td.how .corrected { font-weight: 700; }
.corrections { margin: 2mm 0 0; font-size: 9pt; }
.corrections ul { margin: 0.5mm 0 0; padding-left: 5mm; }
td.breaks { font-size: 9pt; }
td.time { white-space: nowrap; color: #333; }
tfoot th, tfoot td { border-top: 1.4pt solid #111; font-weight: 700; background: #f6f6f6; }
.notes { margin: 3mm 0 0; font-size: 9.5pt; }
.notes b { font-weight: 700; }
.signing { break-inside: avoid; margin-top: 8mm; }
.agreed { margin: 0; font-size: 9.5pt; font-weight: 700; }
.signatures { display: grid; grid-template-columns: repeat(3, 1fr); gap: 8mm; }
.signature .line { border-bottom: 0.8pt solid #111; height: 11mm; }
.signature .line.short { height: 8mm; }
.signature .caption { font-size: 8.5pt; color: #333; margin-top: 0.8mm; }
.signature .caption.who { min-height: 3.5em; }
footer { margin-top: 7mm; font-size: 7.5pt; color: #555; border-top: 0.6pt solid #bbb; padding-top: 1.5mm; }
@media screen {
  body { background: #d8d8d8; }
  .sheet { width: 210mm; min-height: 297mm; margin: 8mm auto; padding: 13mm 14mm; background: #fff;
    box-shadow: 0 1mm 4mm rgba(0, 0, 0, 0.25); }
}
"""

BLACKBALL_RULES = {
    "rule 7a": "black potted on a foul",
    "rule 7b": "black potted too early",
    "rule 7": "loss of frame",
}


SHORT_NAME = 16
"""Longer side names (pairs, mostly) are "Side A" and "Side B" in the frames table, which has
little room; the side boxes above it give the names in full under those labels."""


def short_names(record: Record) -> list[str]:
    """Each side as the frames table names it: its name, or "Side A" / "Side B" when long."""
    names = [side["name"] for side in record["sides"]]
    if any(len(name) > SHORT_NAME for name in names):
        return ["Side A", "Side B"]
    return names


_e = escaped

DATE_WORDS: dict[str, tuple[tuple[str, ...], tuple[str, ...], str]] = {
    # language: (Monday to Sunday, January to December, the order: {weekday} {day} {month} {year})
    "en": (("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
           ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
            "November", "December"), "{weekday} {day} {month} {year}"),
    "fr": (("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"),
           ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre",
            "novembre", "décembre"), "{weekday} {day} {month} {year}"),
    "nl": (("maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag", "zondag"),
           ("januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober",
            "november", "december"), "{weekday} {day} {month} {year}"),
    "sv": (("måndag", "tisdag", "onsdag", "torsdag", "fredag", "lördag", "söndag"),
           ("januari", "februari", "mars", "april", "maj", "juni", "juli", "augusti", "september", "oktober",
            "november", "december"), "{weekday} {day} {month} {year}"),
    "de": (("Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"),
           ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober",
            "November", "Dezember"), "{weekday}, {day}. {month} {year}"),
}
"""A date on the sheet in the venue's language (issue 38: a league reads its own, never a US
date): written out here, not by the machine's locale, so a sheet is the same wherever it is made."""


def long_date(when: datetime, lang: str = "en") -> str:
    """``when``'s date in words, day before month, in ``lang`` (English for one not listed).

    >>> long_date(datetime(2026, 11, 28), "fr"), long_date(datetime(2026, 11, 28), "de")
    ('samedi 28 novembre 2026', 'Samstag, 28. November 2026')
    """
    days, months, order = DATE_WORDS.get(lang, DATE_WORDS["en"])
    return order.format(weekday=days[when.weekday()], day=when.day, month=months[when.month - 1], year=when.year)


def _printed(record: Record) -> PrintedSheet:
    """The record's game's hooks on the sheet; IllegalEvent naming the games there are."""
    return kit(record["game"]).printed


def _when(iso: str | None, tz: tzinfo | None) -> datetime | None:
    if iso is None:
        return None
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone(tz)


def _clock(iso: str | None, tz: tzinfo | None) -> str:
    when = _when(iso, tz)
    return "" if when is None else when.strftime("%H:%M")


def how_text(frame: Record, names: Sequence[str]) -> tuple[str, str | None]:
    """How a frame ended, in words for the sheet, and the rule (or None)."""
    how, winner = frame["how"], frame["winner"]
    won = names[winner] if winner is not None else None
    lost = names[1 - winner] if winner is not None else None
    rule = frame.get("rule")
    if how == "conceded":
        text = f"conceded by {lost}"
    elif how == "claimed":
        text = f"claimed by {won}"
    elif how == "awarded":
        text = f"awarded to {won}"
    elif how == "respotted_black":
        text = "on the re-spotted black"
    elif how == "potted":
        text = "played out" if winner is not None else "level (aggregate)"
    elif how == "black":
        text = "won on the black"
        rule = None
    elif how == "loss":
        text = f"{lost}: {BLACKBALL_RULES.get(rule or '', 'loss of frame')}"
        if frame.get("reason"):
            text += f" ({frame['reason']})"
    else:
        text = str(how)
    if frame.get("reracks"):
        text += " · re-racked" + (f" ×{frame['reracks']}" if frame["reracks"] > 1 else "")
    return text, rule


def _format_line(record: Record) -> str:
    game = record["game"]
    parts = [game.capitalize()]
    doubles = len(record["sides"][0]["players"]) > 1
    frames = record["best_of"]
    if record.get("aggregate"):
        parts.append(f"aggregate points over {frames} frame{'' if frames == 1 else 's'}")
    elif record["race_to"] is not None:
        # "best of 1 frames" read as a slip on a league's sheet: one frame is said so.
        parts.append("one frame" if frames == 1 else f"best of {frames} frames (first to {record['race_to']})")
    parts += _printed(record).format_parts(record, doubles)
    return " · ".join(parts)


def _verdict(record: Record, names: Sequence[str]) -> str:
    won = record["frames_won"]
    score = f"{won[0]}–{won[1]}"
    winner = record["winner"]
    if winner is None:
        played = len(record["frames"])
        return f"Match not finished: {score} after {played} frame{'s' if played != 1 else ''}."
    if record.get("how") == "conceded":
        text = f"{names[winner]} won: {names[1 - winner]} conceded the match"
    elif record.get("how") == "awarded":
        text = f"The match was awarded to {names[winner]}"
    elif record.get("aggregate") and record["totals"] is not None:
        totals = record["totals"]
        return f"{names[winner]} won on aggregate, {totals[winner]}–{totals[1 - winner]} points."
    else:
        return f"{names[winner]} won {won[winner]}–{won[1 - winner]}."
    return f"{text} ({score} in frames)."


def _frame_row(record: Record, frame: Record, names: Sequence[str], tz: tzinfo | None) -> str:
    printed = _printed(record)
    winner = frame["winner"]
    how, rule = how_text(frame, names)
    cells = [f'<td class="frame">{frame["frame"]}</td>', f"<td>{_e(names[frame['breaker']])}</td>"]
    cells += printed.score_cells(frame)
    cells.append(f'<td class="won">{_e(names[winner]) if winner is not None else "—"}</td>')
    rule_html = f' <span class="rule">({_e(rule)})</span>' if rule and printed.shows_rule else ""
    corrected = frame["frame"] in _corrected_frames(record)
    mark = ' <span class="corrected">· corrected</span>' if corrected else ""
    cells.append(f'<td class="how">{_e(how)}{rule_html}{mark}</td>')
    cells += printed.tail_cells(frame)
    cells.append(f'<td class="time">{_clock(frame["started"], tz)}</td>')
    cells.append(f'<td class="time">{_clock(frame["ended"], tz)}</td>')
    return "<tr>" + "".join(cells) + "</tr>"


def _corrected_frames(record: Record) -> set[int]:
    """Frames in which an event was corrected after it was keyed (the record's ``corrections``)."""
    return {int(c["frame"]) for c in record.get("corrections") or () if c.get("frame") is not None}


def _event_words(event: Record | None) -> str:
    """An event of the log in a few words: ``pot black``, ``foul points 4, miss``."""
    if event is None:
        return "nothing"
    fields = [(k, v) for k, v in event.items() if k not in ("type", "t")]
    if event.get("type") == "pot":
        return " ".join(["pot", *map(str, event.get("balls", []))])
    said = ", ".join(k.replace("_", " ") if v is True else f"{k.replace('_', ' ')} {v}" for k, v in fields)
    kind = str(event.get("type")).replace("_", " ")  # no_pot: "no pot", never the raw type
    return f"{kind} {said}" if said else kind


def correction_words(c: Record, tz: tzinfo | None = None) -> str:
    """One correction written out: which frame and stroke, what it was and what it became, who
    made it and when (issue 38: a league reads every correction, not a count).

    >>> correction_words({"frame": 2, "seq": 14, "user": "desk", "at": None,
    ...                   "was": {"type": "pot", "balls": ["pink"]}, "now": {"type": "pot", "balls": ["black"]}})
    'Frame 2, stroke 14: pot pink corrected to pot black (by desk)'
    """
    was, now = c.get("was"), c.get("now")
    if was is None:
        what = f"{_event_words(now)} inserted before stroke {c['seq']}"
    elif now is None:
        what = f"stroke {c['seq']} ({_event_words(was)}) deleted"
    else:
        what = f"stroke {c['seq']}: {_event_words(was)} corrected to {_event_words(now)}"
    by = f"by {c['user']}" if c.get("user") else ""
    at = f"at {_clock(c['at'], tz)}" if c.get("at") else ""
    who = " ".join(x for x in (by, at) if x)
    return f"Frame {c.get('frame')}, {what}{f' ({who})' if who else ''}"


def _corrections(record: Record, tz: tzinfo | None) -> str:
    """Every correction in effect, under the frames: a sheet shows that a score was corrected,
    when, by whom and how (docs/record.md)."""
    items = [f"<li>{_e(correction_words(c, tz))}</li>" for c in record.get("corrections") or ()]
    if not items:
        return ""
    return f'<div class="corrections"><b>Corrections made after the event</b><ul>{"".join(items)}</ul></div>'


def _frames_table(record: Record, tz: tzinfo | None) -> str:
    names = short_names(record)
    printed = _printed(record)
    head = ['<th class="num">Frame</th>', "<th>Broke</th>", *printed.score_head(names), "<th>Winner</th>",
            "<th>How</th>", *printed.tail_head(record, names)]
    head += ["<th>Start</th>", "<th>End</th>"]
    rows = [_frame_row(record, frame, names, tz) for frame in record["frames"]]
    if not rows:
        rows = [f'<tr><td colspan="{len(head)}">No frame finished.</td></tr>']
    won = record["frames_won"]
    totals = printed.totals(record)
    if totals is not None:
        foot = (f'<tr><th colspan="2">Totals</th><td class="num">{totals[0]}</td><td class="num">{totals[1]}</td>'
                f'<td colspan="{len(head) - 4}">Frames won {won[0]}–{won[1]}</td></tr>')
    else:
        foot = f'<tr><th colspan="2">Frames won</th><td colspan="{len(head) - 2}">{won[0]}–{won[1]}</td></tr>'
    return (f'<table class="frames"><thead><tr>{"".join(head)}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody><tfoot>{foot}</tfoot></table>')


def result_sheet(record: Record, *, title: str | None = None, tz: tzinfo | None = None, lang: str = "en",
                 venue: str | None = None, table: str | None = None, round_name: str | None = None) -> str:
    """One record as a sheet: a ``<section>`` of the page :func:`result_sheets` makes. Its
    competition and venue and table are the record's (the feed's), else ``venue`` and ``table``
    (a journal's, named by ``cueboard report --config``); ``round_name`` the competition's round
    when known; the date in ``lang``, the venue's language."""
    names = [side["name"] for side in record["sides"]]
    started = _when(record["started"], tz)
    date = "" if started is None else long_date(started, lang)
    facts = [("Competition", record.get("competition") or ""), ("Round", round_name or ""),
             ("Fixture", record.get("fixture") or ""), ("Date", date),
             ("Started", _clock(record["started"], tz)), ("Finished", _clock(record["ended"], tz)),
             ("Venue", record.get("venue") or venue or ""), ("Table", record.get("table") or table or "")]
    facts = [(k, v) for k, v in facts if v or k not in ("Round", "Fixture")]  # a friendly match has neither
    facts_html = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in facts)
    sides = []
    for side, name in enumerate(names):
        players = record["sides"][side]["players"]
        winner = " winner" if record["winner"] == side else ""
        first = " first" if side == 0 else ""
        pair = f'<div class="players">{_e(" and ".join(players))}</div>' if len(players) > 1 else ""
        sides.append(f'<div class="side{first}{winner}"><div class="label">Side {"AB"[side]}</div>'
                     f'<div class="name">{_e(name)}</div>{pair}</div>')
    won = record["frames_won"]
    result = (f'<div class="result">{sides[0]}<div class="frames-won"><span>{won[0]}</span>'
              f'<span class="dash">–</span><span>{won[1]}</span></div>{sides[1]}</div>')
    printed = _printed(record)
    notes = printed.notes(record)
    agreed = (f"Signed as the correct result: {_e(names[0])} {won[0]}–{won[1]} {_e(names[1])}"
              if record["winner"] is not None else "Signed as the correct record of the frames played")
    zone = started.tzname() if started is not None else None
    signatures = "".join(
        f'<div class="signature"><div class="line"></div><div class="caption who">{_e(who)}</div>'
        f'<div class="line short"></div><div class="caption">Name in capitals</div></div>'
        for who in (f"Signed for {names[0]} (player or captain)", f"Signed for {names[1]} (player or captain)",
                    "Referee"))
    footer = ["Worked out by cueboard from the match log"]
    if zone:
        footer.append(f"times in {zone}")
    footer.append("re-racked frames are not listed")
    footer += printed.footer(record)
    notes_html = f'<p class="notes">{" · ".join(notes)}</p>' if notes else ""
    return (f'<section class="sheet"><header><div class="title"><h1>{_e(title or "Match result")}</h1>'
            f'<p class="format">{_e(_format_line(record))}</p></div><dl class="facts">{facts_html}</dl></header>'
            f'{result}<p class="verdict">{_e(_verdict(record, names))}</p>'
            f"{_frames_table(record, tz)}{_corrections(record, tz)}{notes_html}"
            f'<div class="signing"><p class="agreed">{agreed}.</p><div class="signatures">{signatures}</div></div>'
            f'<footer>{_e("; ".join(footer))}.</footer></section>')


def result_sheets(records: Sequence[Record], *, title: str | None = None, tz: tzinfo | None = None, lang: str = "en",
                  venue: str | None = None, table: str | None = None) -> str:
    """A whole HTML document: a sheet for each record, each starting a new page.

    Times are shown in ``tz`` (the machine's own zone by default), and the sheet says which.

    >>> from cueboard.engine import Match
    >>> from cueboard.engine.record import record_of
    >>> page = result_sheets([record_of(Match.from_json(
    ...     {"type": "match", "game": "snooker", "sides": ["<b>Ann</b>", "Bob"]}))])
    >>> "&lt;b&gt;Ann&lt;/b&gt;" in page, "<b>Ann" in page, "<script" in page
    (True, False, False)
    """
    names = " / ".join(" v ".join(side["name"] for side in r["sides"]) for r in records)
    sheets = "\n".join(result_sheet(record, title=title, tz=tz, lang=lang, venue=venue, table=table)
                        for record in records)
    return (f'<!DOCTYPE html>\n<html lang="{_e(lang)}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{_e(title or 'Match result')}: {_e(names)}</title>"
            f"<style>{CSS}</style></head><body>\n{sheets}\n</body></html>\n")
