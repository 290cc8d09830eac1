"""JSON as a type: what ``json.loads`` gives and ``json.dumps`` takes, for the engine's edges."""

from __future__ import annotations

from typing import TypeAlias

Json: TypeAlias = "str | int | float | bool | list[Json] | dict[str, Json] | None"
"""A JSON value."""

JsonObject: TypeAlias = "dict[str, Json]"
"""A JSON object: a line of the log, a state, a record."""
