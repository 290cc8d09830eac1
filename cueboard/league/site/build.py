"""``cueboard archive site``: read the archive once, render every page, write the folder."""

from __future__ import annotations

from pathlib import Path

from cueboard.league.site import model, render
from cueboard.league.site.words import words_for
from cueboard.league.standings import Rules
from cueboard.league.store import Archive


def build(archive: Archive, out: Path, *, language: str = "en", rules: Rules | None = None, title: str | None = None,
          least: int = 50) -> int:
    """Write the site of ``archive`` into ``out``; how many pages. ValueError for a language
    there are no words for, :class:`~cueboard.common.errors.SiteError` for a folder that cannot be used."""
    words = words_for(language)
    rules = rules or Rules()
    site = model.read(archive, rules, least)
    written = render.pages(site, words, rules, title or words("title"), least)
    render.write(out, written)
    return len(written)
