"""The site's words in the league's language (``words.json``: one catalogue a language of
:data:`cueboard.common.languages.LANGUAGES`, each with every key; English is the default)."""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from typing import Any

from cueboard.common.languages import LANGUAGES, plural


class Words:
    """``w("key", name=...)``: a word or sentence, its ``{fields}`` filled; ``n`` picks a plural form."""

    def __init__(self, language: str, entries: dict[str, Any]) -> None:
        self.language = language
        self._entries = entries

    def __call__(self, key: str, **fields: Any) -> str:
        entry = self._entries[key]
        if isinstance(entry, dict):
            entry = entry[plural(self.language, int(fields["n"]))]
        return str(entry).format(**fields)


@cache
def _catalogues() -> dict[str, dict[str, Any]]:
    data: dict[str, dict[str, Any]] = json.loads(files(__package__).joinpath("words.json").read_text("utf-8"))
    return data


def words_for(language: str) -> Words:
    """The words of ``language``; ValueError naming the languages there are for any other."""
    if language not in LANGUAGES:
        raise ValueError(f"--language: the site speaks {', '.join(LANGUAGES)}, not {language!r}")
    return Words(language, _catalogues()[language])
