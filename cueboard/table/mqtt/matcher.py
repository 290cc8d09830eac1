"""paho's topic matcher without its garbage: paho 2.x's ``MQTTMatcher.iter_match`` builds a
recursive closure for every message it dispatches, a reference cycle (the function and its cell)
that only the garbage collector frees. Under a flood the table's links dispatch thousands of
lines a second, so a collection ran every 150 or so lines, and many inside the referee's presses
(issue 37). The same walk of paho's trie, in the same order, by a plain function: no cycle."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from paho.mqtt.matcher import MQTTMatcher

__all__ = ["TopicMatcher"]


class TopicMatcher(MQTTMatcher):
    """:class:`paho.mqtt.matcher.MQTTMatcher`, its ``iter_match`` making no reference cycle."""

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # paho's matcher is not typed

    def iter_match(self, topic: str) -> Iterator[Any]:
        found: list[Any] = []
        _walk(self._root, topic.split("/"), 0, not topic.startswith("$"), found)
        return iter(found)


def _walk(node: Any, levels: list[str], i: int, normal: bool, found: list[Any]) -> None:
    """paho's ``rec``: the values of the filters under ``node`` that match ``levels[i:]``, into
    ``found`` in paho's order (the level itself, then ``+``, then ``#``); ``$`` topics match no
    wildcard at their first level."""
    children = node._children
    if i == len(levels):
        if node._content is not None:
            found.append(node._content)
    else:
        child = children.get(levels[i])
        if child is not None:
            _walk(child, levels, i + 1, normal, found)
        child = children.get("+")
        if child is not None and (normal or i > 0):
            _walk(child, levels, i + 1, normal, found)
    child = children.get("#")
    if child is not None and (normal or i > 0) and child._content is not None:
        found.append(child._content)
