"""The languages the audience reads: the venue screen's and the LED boards' (a leaf module, so
that the board's configuration in ``hw`` can check a ``language`` key against it).

The words themselves are in the catalogues ``screen/i18n/<lang>.json`` (``docs/screen.md``).
"""

from __future__ import annotations

__all__ = ["LANGUAGES", "plural"]

LANGUAGES = ("en", "nl", "sv", "de", "fr")
"""English, Dutch, Swedish, German and French (ISO 639-1 codes), English first."""


def plural(language: str, n: int) -> str:
    """The CLDR plural category of a whole number ``n`` in ``language``: French counts 0 and
    1 as ``one``, the others 1 alone (what the page gets from ``Intl.PluralRules``).

    >>> plural("fr", 0), plural("en", 0), plural("sv", 1)
    ('one', 'other', 'one')
    """
    if language == "fr":
        return "one" if n in (0, 1) else "other"
    return "one" if n == 1 else "other"
