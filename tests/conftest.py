"""Shared pytest set-up: ``--long`` for the soak and fuzz runs.

``pytest --long`` (or ``CUEBOARD_LONG=1``) runs the tests marked ``long`` and gives the
property tests many more examples; without it they are skipped and the run stays fast.
"""

from __future__ import annotations

import os

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--long", action="store_true", default=False,
                     help="run the long soak and fuzz tests, and many more property-test examples")


def long_run(config: pytest.Config) -> bool:
    return bool(config.getoption("--long")) or os.environ.get("CUEBOARD_LONG", "") not in ("", "0")


def pytest_configure(config: pytest.Config) -> None:
    if long_run(config):
        # Read by the test modules when they are imported (after this hook).
        os.environ["CUEBOARD_LONG"] = "1"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if long_run(config):
        return
    skip = pytest.mark.skip(reason="long run: use --long")
    for item in items:
        if "long" in item.keywords:
            item.add_marker(skip)
