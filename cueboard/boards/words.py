"""The words on the LED boards, in the venue's language: the ``board`` section of the catalogues
the venue screen reads too (``screen/i18n/<lang>.json``), each word its forms from the longest to
the shortest. docs/boards.md, "The board's language".
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path

from cueboard.common.errors import CatalogueError
from cueboard.common.languages import LANGUAGES, plural
from cueboard.common.resources import screen_dir

__all__ = ["LANGUAGES", "CatalogueError", "Words", "catalogue_path", "words_for"]

GAMES = ("snooker", "blackball")

Forms = tuple[str, ...]
Entry = Forms | Mapping[str, Forms]


class Words:
    """One language's board words; call it with a key to get the forms, long to short."""

    def __init__(self, language: str, entries: Mapping[str, Entry], fallback: Words | None = None) -> None:
        self.language = language
        self._entries = dict(entries)
        self._fallback = fallback

    def __repr__(self) -> str:
        return f"<Words {self.language}>"

    def _entry(self, key: str, game: str) -> tuple[Entry, str]:
        for words in (self, self._fallback):
            if words is None:
                continue
            for k in (f"{game}.{key}", key) if game else (key,):
                if k in words._entries:
                    return words._entries[k], words.language
        raise KeyError(f"no board word {key!r} in the {self.language} catalogue nor the English one")

    def __call__(self, key: str, *, game: str = "", n: int | str | None = None, name: str | None = None,
                 ball: str | None = None) -> list[str]:
        """The forms of ``key`` (``game``'s own first), ``{n}``, ``{name}`` and ``{ball}`` filled in."""
        entry, language = self._entry(key, game)
        if isinstance(entry, tuple):
            forms = entry
        else:
            count = n if isinstance(n, int) else 2
            forms = entry[plural(language, count)]
        out = []
        for form in forms:
            if n is not None:
                form = form.replace("{n}", str(n))
            if name is not None:
                form = form.replace("{name}", name)
            if ball is not None:
                form = form.replace("{ball}", ball)
            out.append(form)
        return out


def catalogue_path(language: str) -> Path:
    return screen_dir() / "i18n" / f"{language}.json"


def _forms(where: str, value: object) -> Forms:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise CatalogueError(f"{where}: a list of forms from the longest to the shortest, each a "
                             f"non-empty string, not {value!r}")
    return tuple(value)


def parse_board_section(source: str, section: object) -> dict[str, Entry]:
    """The ``board`` section of a catalogue, checked: ``{key: [forms]}`` or
    ``{key: {"one": [forms], "other": [forms]}}``."""
    if not isinstance(section, dict):
        raise CatalogueError(f"{source}: \"board\" must be an object of words")
    entries: dict[str, Entry] = {}
    for key, value in section.items():
        where = f"{source}: board.{key}"
        if isinstance(value, dict):
            if set(value) != {"one", "other"}:
                raise CatalogueError(f"{where}: plural forms are \"one\" and \"other\", not {sorted(value)}")
            entries[key] = {form: _forms(f"{where}.{form}", value[form]) for form in ("one", "other")}
        else:
            entries[key] = _forms(where, value)
    return entries


@cache
def words_for(language: str) -> Words:
    """The board words of ``language`` (one of :data:`LANGUAGES`), English filling any gap.

    A word a catalogue lacks is said in English, as on the page.

    >>> words = words_for("sv")
    >>> words("snookers", n=2)
    ['MASKER', 'MSK', 'M']
    >>> words("frame_n", n=3)[:2]
    ['FRAME 3', 'FR 3']
    >>> words_for("fr")("frames", game="blackball")[0]
    'PARTIES'
    >>> words_for("de")("name_wins_frame", name="Judd")[0]
    'Judd gewinnt den Frame'
    """
    if language not in LANGUAGES:
        raise ValueError(f"the boards speak {', '.join(LANGUAGES)}, not {language!r}")
    path = catalogue_path(language)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CatalogueError(f"{path}: {exc}") from None
    if not isinstance(data, dict):
        raise CatalogueError(f"{path}: a catalogue is a JSON object")
    entries = parse_board_section(str(path), data.get("board"))
    return Words(language, entries, None if language == "en" else words_for("en"))
