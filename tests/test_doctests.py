"""Every docstring example in the package runs as written (the engine, hw and the rest).

Each module is imported by its installed name (``cueboard.engine.match`` is ``engine/match.py``)
and its examples run with ``doctest``; a module without examples still imports. The test
fails on a module with an example that does not run, and counts the examples, so that a
walk that finds none fails too.
"""

import doctest
import importlib
import pkgutil

import pytest

import cueboard
import cueboard.engine
import cueboard.hw

# cueboard.engine and cueboard.hw live in engine/ and hw/ (the package-dir mapping): walked too.
MODULES = sorted({package.__name__ for package in (cueboard, cueboard.engine, cueboard.hw)} | {
    name for package in (cueboard, cueboard.engine, cueboard.hw)
    for _, name, _ in pkgutil.walk_packages(package.__path__, package.__name__ + ".")})
# What only a Pi, the demo extra or a terminal has is imported where it is used, not here.
SKIP = {"cueboard.__main__"}


@pytest.mark.parametrize("name", [m for m in MODULES if m not in SKIP])
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_the_walk_finds_the_examples() -> None:
    found = {m for m in MODULES if doctest.DocTestFinder().find(importlib.import_module(m))
             and any(t.examples for t in doctest.DocTestFinder().find(importlib.import_module(m)))}
    # The engine, the hardware and the rest all have examples.
    assert {"cueboard.engine.match", "cueboard.hw.keys", "cueboard.table.keymap", "cueboard.games.kits"} <= found
