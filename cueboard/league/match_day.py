"""A league's match day from the secretary's file, CSV or JSON, checked line by line (each
fixture's match line by the engine itself) and refused whole at its first bad line
(:class:`FixtureError`). The columns and the refusals: docs/league.md, "Fixtures".
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any

from cueboard.common.errors import FixtureError
from cueboard.contract.names import distinct, nickname
from cueboard.engine import IllegalEvent, Match

MAX_BYTES = 1024 * 1024
"""A match day's file is some kilobytes; a megabyte is a whole season. A bigger file is no
fixture list (10 MB of anything is refused before it is read)."""
MAX_FIXTURES = 2000
MAX_FIELD = 200
COLUMNS = ("competition", "day", "fixture", "home_team", "away_team", "home", "away", "game", "best_of", "race_to",
           "reds", "handicap_home", "handicap_away")
REQUIRED = ("fixture", "home", "away")
PAIR = " & "


@dataclass(frozen=True)
class Fixture:
    fixture: str
    competition: str
    home: str | tuple[str, ...]
    away: str | tuple[str, ...]
    format: dict[str, Any]
    day: str | None = None
    home_team: str | None = None
    away_team: str | None = None

    def match_line(self) -> dict[str, Any]:
        """The match line a table starts this fixture with (events.md), home breaking first."""
        return {"type": "match", **self.format, "sides": [_json_side(self.home), _json_side(self.away)]}

    def as_dict(self) -> dict[str, Any]:
        return {"fixture": self.fixture, "competition": self.competition, "day": self.day,
                "home_team": self.home_team, "away_team": self.away_team, "home": _json_side(self.home),
                "away": _json_side(self.away), "format": dict(self.format)}


def _json_side(side: str | tuple[str, ...]) -> str | list[str]:
    return side if isinstance(side, str) else list(side)


def parse(data: bytes, *, name: str = "fixtures", competition: str | None = None) -> list[Fixture]:
    """The fixtures of a CSV or JSON file's bytes (JSON when it starts with ``{`` or ``[``)."""
    if len(data) > MAX_BYTES:
        raise FixtureError(name, None, f"{len(data):,} bytes; a fixture file may have at most {MAX_BYTES:,}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise FixtureError(name, line, f"not UTF-8 (byte {exc.start}: {exc.reason})") from None
    if "\0" in text:
        raise FixtureError(name, text[:text.index("\0")].count("\n") + 1, "a NUL byte: this is no text file")
    if text.lstrip()[:1] in ("{", "["):
        return _from_json(text, name, competition)
    return _from_csv(text, name, competition)


def read(path: str, *, competition: str | None = None) -> list[Fixture]:
    """The fixtures of a file, read no further than :data:`MAX_BYTES` + 1 bytes."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise FixtureError(path, None, f"cannot read it: {exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise FixtureError(path, None, f"more than {MAX_BYTES:,} bytes; a fixture file may have at most that")
    return parse(data, name=path, competition=competition)


def _from_csv(text: str, name: str, competition: str | None) -> list[Fixture]:
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
        if header is None:
            raise FixtureError(name, 1, f"empty: the first line names the columns ({', '.join(REQUIRED)} at least)")
        columns = [h.strip().lower() for h in header]
        unknown = [c for c in columns if c not in COLUMNS]
        if unknown:
            raise FixtureError(name, 1, f"unknown column {unknown[0]!r} (columns: {', '.join(COLUMNS)})")
        missing = [c for c in REQUIRED if c not in columns]
        if missing:
            raise FixtureError(name, 1, f"no {missing[0]!r} column (required: {', '.join(REQUIRED)})")
        if len(set(columns)) != len(columns):
            raise FixtureError(name, 1, "a column named twice")
        rows: list[tuple[int, dict[str, Any]]] = []
        for cells in reader:
            line = reader.line_num
            if not any(c.strip() for c in cells):
                continue
            if len(cells) != len(columns):
                raise FixtureError(name, line, f"{len(cells)} cells; the header has {len(columns)}")
            row: dict[str, Any] = dict(zip(columns, cells, strict=True))
            for side in ("home", "away"):
                parts = row[side].split(PAIR)
                row[side] = parts[0] if len(parts) == 1 else parts
            rows.append((line, row))
            if len(rows) > MAX_FIXTURES:
                raise FixtureError(name, line, f"more than {MAX_FIXTURES} fixtures in one file")
    except csv.Error as exc:
        raise FixtureError(name, reader.line_num, f"not valid CSV: {exc}") from None
    return _fixtures(rows, name, competition)


def _from_json(text: str, name: str, competition: str | None) -> list[Fixture]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FixtureError(name, exc.lineno, f"not valid JSON: {exc.msg}") from None
    if isinstance(data, dict):
        data = data.get("fixtures")
    if not isinstance(data, list):
        raise FixtureError(name, 1, "JSON fixtures are a list of objects, or {\"fixtures\": [...]}")
    if len(data) > MAX_FIXTURES:
        raise FixtureError(name, None, f"{len(data)} fixtures; at most {MAX_FIXTURES} in one file")
    rows = []
    for index, entry in enumerate(data, start=1):
        if not isinstance(entry, dict):
            raise FixtureError(name, None, f"fixture {index} is not an object")
        unknown = [k for k in entry if k not in COLUMNS]
        if unknown:
            raise FixtureError(name, None, f"fixture {index}: unknown field {unknown[0]!r}"[:300])
        rows.append((index, dict(entry)))
    return _fixtures(rows, name, competition, unit="fixture")


def _fixtures(rows: list[tuple[int, dict[str, Any]]], name: str, competition: str | None,
              unit: str = "line") -> list[Fixture]:
    out: list[Fixture] = []
    seen: dict[str, int] = {}
    for number, row in rows:
        def refuse(reason: str, number: int = number) -> FixtureError:
            if unit == "line":
                return FixtureError(name, number, reason)
            return FixtureError(name, None, f"fixture {number}: {reason}")

        try:
            fixture = _fixture(row, competition)
        except (ValueError, IllegalEvent) as exc:
            raise refuse(str(exc)) from exc
        if fixture.fixture in seen:
            raise refuse(f"fixture {fixture.fixture!r} is listed twice ({unit} {seen[fixture.fixture]} too)")
        seen[fixture.fixture] = number
        out.append(fixture)
    return out


def _fixture(row: dict[str, Any], competition: str | None) -> Fixture:
    texts = {}
    for key in ("fixture", "competition", "day", "home_team", "away_team", "game"):
        value = row.get(key)
        if value is None or value == "":
            continue
        texts[key] = _text(value, key)
    for key in REQUIRED[:1]:
        if key not in texts:
            raise ValueError(f"no {key!r}")
    league = texts.get("competition") or competition
    if not league:
        raise ValueError("no 'competition' (a column, or the command's --competition)")
    fmt: dict[str, Any] = {"game": texts.get("game", "snooker")}
    for key in ("best_of", "race_to", "reds"):
        if row.get(key) not in (None, ""):
            fmt[key] = _number(row[key], key)
    if "best_of" in fmt and "race_to" in fmt:
        raise ValueError("both 'best_of' and 'race_to': give one")
    handicap = [row.get("handicap_home"), row.get("handicap_away")]
    if any(h not in (None, "") for h in handicap):
        fmt["handicap"] = [0 if h in (None, "") else _number(h, "handicap") for h in handicap]
    home, away = _side(row.get("home"), "home"), _side(row.get("away"), "away")
    distinct([(f"the {key} side", n) for key, side in (("home", home), ("away", away))
              for n in ((side,) if isinstance(side, str) else side)], "one fixture")
    # The engine decides what a table would accept: names a board can show, a legal format.
    Match.from_json({"type": "match", **fmt, "sides": [_json_side(home), _json_side(away)]})
    return Fixture(fixture=texts["fixture"], competition=league, home=home, away=away, format=fmt,
                   day=texts.get("day"), home_team=texts.get("home_team"), away_team=texts.get("away_team"))


def _text(value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{key!r} must be text")
    text = value.strip()
    if len(text) > MAX_FIELD:
        raise ValueError(f"{key!r} is {len(text)} characters; at most {MAX_FIELD}")
    bad = next((ch for ch in text if not ch.isprintable()), None)
    if bad is not None:
        raise ValueError(f"{key!r} has a control character (U+{ord(bad):04X})")
    return text


def _number(value: Any, key: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 4:
        return int(value.strip())
    raise ValueError(f"{key!r} must be a whole number, not {str(value)[:40]!r}")


def _side(value: Any, key: str) -> str | tuple[str, ...]:
    # A person's name as the table keeps it (RFC 8266 nickname), so the fixture's names are the record's.
    if isinstance(value, str) and value.strip():
        return nickname(value, f"the {key} side")
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) and v.strip() for v in value):
        return tuple(nickname(v, f"the {key} side player {k}") for k, v in enumerate(value, start=1))
    raise ValueError(f"{key!r} must be a name, or a pair ('A{PAIR}B')")
