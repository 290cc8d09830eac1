"""Typed getters over one table of a TOML configuration (:class:`Section`), in the manner of
Klipper's ``configfile.py``: every refusal has one shape, and unused keys are refused.
A leaf module (the standard library and :mod:`cueboard.common.errors` only), so ``cueboard.hw``
may use it. Docs: docs/config.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, TypeVar, overload

from cueboard.common.errors import ConfigError

__all__ = ["REQUIRED", "Required", "Section", "key_path", "refusal"]

D = TypeVar("D")
C = TypeVar("C")


class Required:
    """The default of a key that must be given; ``hint`` says what to give
    (``Required('e.g. "table-1"')``: ``table.name: required (e.g. "table-1")``)."""

    __slots__ = ("hint",)

    def __init__(self, hint: str = "") -> None:
        self.hint = hint

    def __repr__(self) -> str:
        return f"Required({self.hint!r})" if self.hint else "REQUIRED"


REQUIRED: Final = Required()
"""A required key, without a hint."""


def key_path(path: str, key: str) -> str:
    """The name of ``key`` in the section at ``path``: ``mqtt.port``, ``referee_box[0].pins[1]``;
    a key of the top level is its own name.

    >>> key_path("mqtt.tls", "ca"), key_path("display", "[1]"), key_path("", "table")
    ('mqtt.tls.ca', 'display[1]', 'table')
    """
    if not path:
        return key
    return f"{path}{key}" if key.startswith("[") else f"{path}.{key}"


def refusal(where: str, reason: str, source: str = "") -> str:
    """The one shape of every configuration message: ``[<source>: ][<where>: ]<reason>``.

    >>> refusal("mqtt.port", "must be a whole number from 1 to 65535, not 0", "/etc/cueboard/cueboard.toml")
    '/etc/cueboard/cueboard.toml: mqtt.port: must be a whole number from 1 to 65535, not 0'
    """
    return ": ".join(part for part in (source, where, reason) if part)


class Section:
    """One table of a configuration, named by ``path``; its getters raise ``error``.

    ``kind`` is what the refusal of an unknown key says takes the keys ("a max7219
    board", "journal"; the path by default). ``source`` (a file name) is put in front of
    every message, for a file parsed on its own (a keymap); the daemon's configuration
    file puts its own name in front of its sections' messages instead (cueboard.table.config).

    The getters take the key, a default (``REQUIRED``, or a :class:`Required` with a hint:
    the key must be given; ``None``: the getter returns None when the key is absent) and
    the checks. A default is returned as it is, unchecked.

    A :class:`Section` wraps one table, named by its path in the file (``mqtt``, ``mqtt.tls``,
    ``display[1]``, ``referee_box[0]``). Each getter reads one key, checks its type, range or
    choices, and notes the key as one the section takes. Sub-tables are read through
    :meth:`Section.getsection`, so one section (the file's root) knows every option read in
    the file; :meth:`Section.check_unused`, called once on it at the end as Klipper's
    ``check_unused_options``, refuses any key of the whole file that no getter asked for (a typo
    never passes silently). Every refusal
    has one shape, built by :func:`refusal`::

        [<file>: ]<section>.<key>: <reason>

    and is raised as the section's error class, a :class:`~cueboard.common.errors.ConfigError`
    (docs/config.md). A leaf module: the standard library and :mod:`cueboard.common.errors` only,
    so ``cueboard.hw`` may use it.

    >>> box = Section({"pins": [5, 6], "debounce": 0}, "referee_box[0]", kind="a referee box")
    >>> box.getlist("pins")
    [5, 6]
    >>> box.getfloat("debounce", 0.02, above=0, unit="seconds")
    Traceback (most recent call last):
    ...
    cueboard.common.errors.ConfigError: referee_box[0].debounce: must be a number of seconds above 0, not 0
    >>> Section({"prot": 8883}, "mqtt").getint("port", 1883)
    1883
    >>> Section({"prot": 8883}, "mqtt", kind="mqtt").check_unused()
    Traceback (most recent call last):
    ...
    cueboard.common.errors.ConfigError: mqtt.prot: unknown key (mqtt takes: nothing)
    """

    def __init__(self, table: Any, path: str = "", *, error: type[ConfigError] = ConfigError, kind: str = "",
                 source: str = "") -> None:
        self.path = path
        self.error = error
        self.kind = kind or path or "the file"
        self.source = source
        if not isinstance(table, Mapping):
            raise self.fail(None, f"must be a table, not {table!r}")
        self.raw: Mapping[str, Any] = table
        self._taken: dict[str, None] = {}  # the keys asked for, in order (a dict is an ordered set)
        self._sections: list[Section] = []  # the sub-tables read through getsection, in order

    def __contains__(self, key: str) -> bool:
        """Whether the table gives ``key`` (it is not noted as taken)."""
        return key in self.raw

    def __repr__(self) -> str:
        return f"Section({self.path or self.kind!r})"

    # -- messages ---------------------------------------------------------------------

    def name(self, key: str) -> str:
        """The key's full name, for a message about another key (``mqtt.username``)."""
        return key_path(self.path, key)

    def fail(self, key: str | None, reason: str) -> ConfigError:
        """The section's error for ``key`` (None: the section as a whole), to raise."""
        return self.error(refusal(self.path if key is None else self.name(key), reason, self.source))

    # -- the getters ------------------------------------------------------------------

    def get(self, key: str, default: Any = REQUIRED) -> Any:
        """The value as TOML gave it, unchecked: for a value handed whole to its own parser."""
        if not self._given(key):
            if isinstance(default, Required):
                raise self._missing(key, default)
            return default
        return self.raw[key]

    def getstr(self, key: str, default: str | D | Required = REQUIRED, *, empty: bool = False) -> str | D:
        """A string; one that is empty or only spaces is refused unless ``empty``."""
        if not self._given(key):
            if isinstance(default, Required):
                raise self._missing(key, default)
            return default
        value = self.raw[key]
        if not isinstance(value, str) or not (empty or value.strip()):
            raise self.fail(key, f"must be a {'' if empty else 'non-empty '}string, not {value!r}")
        return value

    def getint(self, key: str, default: int | D | Required = REQUIRED, *, minval: int | None = None,
               maxval: int | None = None) -> int | D:
        """A whole number (not a boolean), from ``minval`` to ``maxval`` (both included)."""
        if not self._given(key):
            if isinstance(default, Required):
                raise self._missing(key, default)
            return default
        value = self.raw[key]
        if isinstance(value, bool) or not isinstance(value, int) or not _within(value, minval, maxval, None):
            raise self.fail(key, f"must be a whole number{_span(minval, maxval, None)}, not {value!r}")
        return value

    def getfloat(self, key: str, default: float | D | Required = REQUIRED, *, minval: float | None = None,
                 maxval: float | None = None, above: float | None = None, unit: str = "") -> float | D:
        """A number (whole or not; not a boolean, not NaN), from ``minval`` to ``maxval`` and
        ``above`` (not included); ``unit`` names it in the message ("seconds")."""
        if not self._given(key):
            if isinstance(default, Required):
                raise self._missing(key, default)
            return default
        value = self.raw[key]
        if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value) \
                or not _within(value, minval, maxval, above):
            what = f"a number of {unit}" if unit else "a number"
            raise self.fail(key, f"must be {what}{_span(minval, maxval, above)}, not {value!r}")
        return float(value)

    def getbool(self, key: str, default: bool | D | Required = REQUIRED) -> bool | D:
        """``true`` or ``false``."""
        if not self._given(key):
            if isinstance(default, Required):
                raise self._missing(key, default)
            return default
        value = self.raw[key]
        if not isinstance(value, bool):
            raise self.fail(key, f"must be true or false, not {value!r}")
        return value

    @overload
    def getchoice(self, key: str, choices: Sequence[C], default: None) -> C | None: ...

    @overload
    def getchoice(self, key: str, choices: Sequence[C], default: C | Required = REQUIRED) -> C: ...

    def getchoice(self, key: str, choices: Sequence[C], default: C | Required | None = REQUIRED) -> C | None:
        """One of ``choices`` (strings or numbers), returned as the choice itself (``90.0``
        chooses ``90``); a boolean never chooses a number, nor a number a string."""
        if not self._given(key):
            if isinstance(default, Required):
                raise self._missing(key, default if default.hint else Required(f"one of {_listing(choices)}"))
            return default
        value = self.raw[key]
        for choice in choices:
            if value == choice and isinstance(value, bool) == isinstance(choice, bool) \
                    and isinstance(value, str) == isinstance(choice, str):
                return choice
        raise self.fail(key, f"must be one of {_listing(choices)}, not {value!r}")

    def getpath(self, key: str, default: str | D | Required = REQUIRED, *, base: Path | None = None) -> Path | D:
        """A file or directory name: ``~`` is expanded, and a relative one is taken from
        ``base`` (the configuration file's directory). A string default is taken the same way."""
        if not self._given(key):
            if isinstance(default, Required):
                raise self._missing(key, default)
            return _path(default, base) if isinstance(default, str) else default
        value = self.raw[key]
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, f"must be a path, not {value!r}")
        return _path(value, base)

    def getlist(self, key: str, default: list[Any] | D | Required = REQUIRED, *, of: str = "") -> list[Any] | D:
        """A list (its items are the caller's to check: name them as ``key[n]``); ``of``
        says what the list holds, for the message ("GPIO pins")."""
        if not self._given(key):
            if isinstance(default, Required):
                raise self._missing(key, default)
            return default
        value = self.raw[key]
        if not isinstance(value, list | tuple):
            raise self.fail(key, f"must be a list{' of ' + of if of else ''}, not {value!r}")
        return list(value)

    def getsection(self, key: str, default: Mapping[str, Any] | D | Required = REQUIRED, *,
                   kind: str = "") -> Section | D:
        """The sub-table ``key`` as a Section named ``<path>.<key>``, with this one's error and
        source; a table given as the default is wrapped the same way (``{}``: an empty one)."""
        if not self._given(key):
            if isinstance(default, Required):
                raise self._missing(key, default)
            if not isinstance(default, Mapping):
                return default
            value: Any = default
        else:
            value = self.raw[key]
        section = Section(value, self.name(key), error=self.error, kind=kind, source=self.source)
        self._sections.append(section)
        return section

    def items(self) -> Iterator[tuple[str, Any]]:
        """Every key and value as given, each noted as taken: for a table whose keys are data
        (a keymap's ``[hold]``), checked by the caller."""
        for key, value in self.raw.items():
            self._taken.setdefault(key, None)
            yield key, value

    # -- the end ----------------------------------------------------------------------

    def check_unused(self, hint: Callable[[str], str] | None = None) -> None:
        """Refuse the first key no getter asked for, naming it and the keys its section takes:
        in the sub-tables read through :meth:`getsection` first (in the order they were read,
        and theirs in turn), then in this one; so once, on the file's root, checks the whole
        file. ``hint(key)`` may add where such a key of this section belongs ("it is a key of
        ws2812 boards")."""
        for section in self._sections:
            section.check_unused()
        for key in self.raw:
            if key not in self._taken:
                more = hint(key) if hint is not None else ""
                takes = ", ".join(self._taken) or "nothing"
                raise self.fail(key, f"unknown key{'; ' + more if more else ''} ({self.kind} takes: {takes})")

    # -- inside ------------------------------------------------------------------------

    def _given(self, key: str) -> bool:
        self._taken.setdefault(key, None)
        return key in self.raw

    def _missing(self, key: str, default: Required) -> ConfigError:
        return self.fail(key, f"required ({default.hint})" if default.hint else "required")


def _path(value: str, base: Path | None) -> Path:
    path = Path(value).expanduser()
    return path if base is None or path.is_absolute() else base / path


def _within(value: float, minval: float | None, maxval: float | None, above: float | None) -> bool:
    return ((minval is None or value >= minval) and (maxval is None or value <= maxval)
            and (above is None or value > above))


def _span(minval: float | None, maxval: float | None, above: float | None) -> str:
    """`` from 1 to 65535``, `` from 0``, `` above 0``, `` up to 9``: the range, for a message."""
    low = f" from {_number(minval)}" if minval is not None else f" above {_number(above)}" if above is not None else ""
    if maxval is None:
        return low
    return f"{low} to {_number(maxval)}" if minval is not None else f"{low} up to {_number(maxval)}"


def _number(value: float | None) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _listing(choices: Sequence[Any]) -> str:
    return ", ".join(repr(c) for c in choices)
