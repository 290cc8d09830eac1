"""The examples in the engine's docstrings run as written."""

import doctest
import importlib
import pkgutil

import pytest

import cueboard.engine

MODULES = [
    "cueboard.engine",
    *sorted(name for _, name, _ in pkgutil.walk_packages(cueboard.engine.__path__, "cueboard.engine.")),
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
