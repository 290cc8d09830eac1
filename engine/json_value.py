"""JSON as a type: what ``json.loads`` gives and ``json.dumps`` takes, for the engine's edges."""

from __future__ import annotations

import math
from collections.abc import Collection
from typing import TypeAlias

from .errors import IllegalEvent

Json: TypeAlias = "str | int | float | bool | list[Json] | dict[str, Json] | None"
"""A JSON value."""

JsonObject: TypeAlias = "dict[str, Json]"
"""A JSON object: a line of the log, a state, a record."""


class Fields:
    """The fields of one JSON object, read strictly for a typed value's ``from_json``: a field
    missing or of the wrong type is :class:`~.errors.IllegalEvent` naming it by its path
    (``state: sides[1].score must be a whole number of 0 or more, not '12'``). Fields it is
    not asked for are left alone: the contract may add fields (``docs/state.md``).

    >>> Fields({"frames": 2}, "sides[0]").count("frames")
    2
    >>> Fields({"frames": True}, "sides[0]").count("frames")
    Traceback (most recent call last):
    ...
    cueboard.engine.errors.IllegalEvent: state: sides[0].frames must be a whole number of 0 or more, not True
    """

    __slots__ = ("obj", "path")

    def __init__(self, obj: object, path: str = "") -> None:
        if not isinstance(obj, dict):
            raise IllegalEvent(f"state: {path or 'the state'} must be an object, not {_shown(obj)}", short="invalid")
        self.obj: dict[str, object] = obj
        self.path = path

    def _name(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def wrong(self, key: str, what: str, value: object) -> IllegalEvent:
        return IllegalEvent(f"state: {self._name(key)} must be {what}, not {_shown(value)}", short="invalid")

    def has(self, key: str) -> bool:
        return key in self.obj

    def get(self, key: str) -> object:
        if key not in self.obj:
            raise IllegalEvent(f"state: {self._name(key)} is missing (docs/state.md)", short="invalid")
        return self.obj[key]

    def count(self, key: str, most: int | None = None) -> int:
        """A whole number of 0 or more (at most ``most``)."""
        value = self.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0 or (most is not None and value > most):
            what = "a whole number of 0 or more" if most is None else f"a whole number from 0 to {most}"
            raise self.wrong(key, what, value)
        return value

    def count_or_none(self, key: str, most: int | None = None) -> int | None:
        return None if self.get(key) is None else self.count(key, most)

    def positive(self, key: str) -> int:
        value = self.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self.wrong(key, "a whole number of 1 or more", value)
        return value

    def positive_or_none(self, key: str) -> int | None:
        return None if self.get(key) is None else self.positive(key)

    def side(self, key: str) -> int:
        value = self.get(key)
        if isinstance(value, bool) or value not in (0, 1):
            raise self.wrong(key, "a side, 0 or 1", value)
        assert isinstance(value, int)
        return value

    def side_or_none(self, key: str) -> int | None:
        return None if self.get(key) is None else self.side(key)

    def flag(self, key: str) -> bool:
        value = self.get(key)
        if not isinstance(value, bool):
            raise self.wrong(key, "true or false", value)
        return value

    def seconds_or_none(self, key: str, *, zero: bool = False) -> float | None:
        """Seconds (more than 0; ``zero``: 0 too), kept as given (60 stays an int), or null."""
        value = self.get(key)
        if value is None:
            return None
        if (isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value)
                or value < 0 or (value == 0 and not zero)):
            raise self.wrong(key, "seconds (a number of 0 or more)" if zero else "seconds (a number above 0)", value)
        return value

    def text(self, key: str) -> str:
        value = self.get(key)
        if not isinstance(value, str):
            raise self.wrong(key, "a string", value)
        return value

    def text_or_none(self, key: str) -> str | None:
        return None if self.get(key) is None else self.text(key)

    def word(self, key: str, words: Collection[str]) -> str:
        value = self.get(key)
        if not isinstance(value, str) or value not in words:
            raise self.wrong(key, "one of " + ", ".join(words), value)
        return value

    def word_or_none(self, key: str, words: Collection[str]) -> str | None:
        return None if self.get(key) is None else self.word(key, words)

    def texts(self, key: str, least: int = 0) -> tuple[str, ...]:
        value = self.get(key)
        if not isinstance(value, list) or len(value) < least or not all(isinstance(v, str) for v in value):
            raise self.wrong(key, "a list of strings" + (f" ({least} or more)" if least else ""), value)
        return tuple(str(v) for v in value)

    def words(self, key: str, words: Collection[str]) -> tuple[str, ...]:
        value = self.get(key)
        if not isinstance(value, list) or not all(isinstance(v, str) and v in words for v in value) or (
                len(set(map(str, value))) != len(value)):
            raise self.wrong(key, "a list of distinct words of " + ", ".join(words), value)
        return tuple(str(v) for v in value)

    def pair(self, key: str) -> tuple[Fields, Fields]:
        """Two objects: side 0's, then side 1's."""
        value = self.get(key)
        if not isinstance(value, list) or len(value) != 2:
            raise self.wrong(key, "a list of two objects (side 0, side 1)", value)
        return Fields(value[0], f"{self._name(key)}[0]"), Fields(value[1], f"{self._name(key)}[1]")

    def object(self, key: str) -> Fields:
        return Fields(self.get(key), self._name(key))

    def object_or_none(self, key: str) -> Fields | None:
        return None if self.get(key) is None else self.object(key)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
