"""Shared pytest set-up: ``--long`` for the soak and fuzz runs, and the reliability findings.

``pytest --long`` (or ``CUEBOARD_LONG=1``) runs the tests marked ``long`` and gives the
property tests many more examples; without it they are skipped and the run stays fast.

Reliability tests say what they did and what they found with the ``finding`` fixture::

    def test_crash(finding):
        ...
        finding(f"{kills} kills ({early} during start-up), {acked} events acknowledged, {lost} lost",
                kills=kills, lost=lost)
        assert lost == 0

The sentence is built from what the test measured, and recorded *before* the asserts, so a
failing test still says what it found. At the end of the run a "reliability findings"
section lists each test and its sentences; ``--findings-json PATH`` also writes them as a
JSON list of ``{"test": nodeid, "finding": sentence, "figures": {...}, "outcome": ...}``,
where the outcome is the test's: ``"passed"``, ``"failed"`` (any phase failed) or
``"skipped"`` (it skipped after recording).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

Finding = Callable[..., None]
"""The ``finding`` fixture's type: ``finding(sentence, **figures)``."""

_FINDINGS = pytest.StashKey[list[dict[str, Any]]]()
_OUTCOMES = pytest.StashKey[dict[str, str]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--long", action="store_true", default=False,
                     help="run the long soak and fuzz tests, and many more property-test examples")
    parser.addoption("--findings-json", metavar="PATH", default=None,
                     help="write the reliability tests' findings to PATH as a JSON list of "
                          '{"test", "finding", "figures", "outcome"}')


def long_run(config: pytest.Config) -> bool:
    return bool(config.getoption("--long")) or os.environ.get("CUEBOARD_LONG", "") not in ("", "0")


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_FINDINGS] = []
    config.stash[_OUTCOMES] = {}
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


# -- reliability findings -------------------------------------------------------------------


@pytest.fixture
def finding(request: pytest.FixtureRequest) -> Finding:
    """``finding(sentence, **figures)``: record what this test did and found, in a sentence
    built from its measurements and the figures behind it (numbers, strings, lists: JSON).

    For example ``finding(f"{kills} kills, {acked} events acknowledged, {lost} lost", kills=kills,
    acknowledged=acked, lost=lost)``.
    """
    findings = request.config.stash[_FINDINGS]
    nodeid = request.node.nodeid

    def record(sentence: str, **figures: Any) -> None:
        if not isinstance(sentence, str) or not sentence.strip():
            raise ValueError("a finding is a sentence saying what the test did and found")
        if not figures:
            raise ValueError(f"a finding gives the figures it was computed from: {sentence!r}")
        json.dumps(figures, allow_nan=False)  # TypeError/ValueError now, not at the end of the run
        findings.append({"test": nodeid, "finding": sentence.strip(), "figures": dict(figures)})

    return record


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """The outcome of each test, for its findings: failed if any phase failed."""
    report: pytest.TestReport = yield
    outcomes = item.config.stash[_OUTCOMES]
    if report.failed:
        outcomes[item.nodeid] = "failed"
    elif outcomes.get(item.nodeid) != "failed" and (report.when == "call" or report.skipped):
        outcomes[item.nodeid] = "skipped" if report.skipped else "passed"
    return report


def _collected(config: pytest.Config) -> list[dict[str, Any]]:
    outcomes = config.stash.get(_OUTCOMES, {})
    return [{**f, "outcome": outcomes.get(f["test"], "failed")} for f in config.stash.get(_FINDINGS, [])]


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    findings = _collected(config)
    if not findings:
        return
    terminalreporter.section("reliability findings")
    last = None
    for f in findings:
        if f["test"] != last:
            mark = "" if f["outcome"] == "passed" else f" ({f['outcome'].upper()})"
            terminalreporter.write_line(f"{f['test']}{mark}")
            last = f["test"]
        terminalreporter.write_line(f"    {f['finding']}")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    path = session.config.getoption("--findings-json")
    if not path:
        return
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(_collected(session.config), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
