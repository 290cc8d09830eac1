"""Shared pytest set-up: the broker and database plugins, the ``system`` marker, the ``club``
fixture, ``--long`` for the soak and fuzz runs, and the reliability findings.

The tests mirror the tree (``tests/engine``, ``tests/table``, ``tests/screen``, ...); their shared
helpers are ``tests/helpers`` (``from tests.helpers.mosquitto import Mosquitto``). The broker's and
PostgreSQL's fixtures (``mosquitto_broker``, ``mosquitto_factory``, ``tls_files``,
``postgres_server``, ``postgres_url``) are plugins registered here, once.

``system`` marks every test that starts processes, brokers, browsers, databases or installs:
the tests that use the fixtures in :data:`SYSTEM_FIXTURES` are marked here, the modules that
start processes themselves say ``pytestmark = pytest.mark.system``. ``pytest -m "not system"``
is the quick check; a test outside ``system`` that starts a process fails, saying so (an audit
hook sees every ``subprocess``, ``fork`` and ``exec``), so the marker cannot drift.

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
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.findings import Finding
from tests.helpers.venue import Venue, running_venue

pytest_plugins = ["tests.helpers.mosquitto", "tests.helpers.postgres"]

SYSTEM_FIXTURES = frozenset({"mosquitto_broker", "mosquitto_factory", "tls_files", "postgres_server", "postgres_url",
                             "club", "hall"})
"""Fixtures that start a broker, a database or openssl: a test that uses one is ``system``."""


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


@pytest.hookimpl(tryfirst=True)  # before -m "not system" deselects
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if SYSTEM_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.system)
    if long_run(config):
        return
    skip = pytest.mark.skip(reason="long run: use --long")
    for item in items:
        if "long" in item.keywords:
            item.add_marker(skip)


# -- the system marker kept honest -----------------------------------------------------------

_SPAWNING = frozenset({"subprocess.Popen", "os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.exec",
                       "os.system", "pty.spawn"})
_QUICK: list[str] = []
"""The node id of the test running now when it is not marked ``system`` (empty otherwise)."""
_SPAWNED: dict[str, str] = {}


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _QUICK and event in _SPAWNING and _QUICK[0] not in _SPAWNED:
        _SPAWNED[_QUICK[0]] = f"{event} {args[:2]!r}"[:300]


sys.addaudithook(_audit)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    quick = item.get_closest_marker("system") is None
    if quick:
        _QUICK[:] = [item.nodeid]
    try:
        return (yield)
    finally:
        _QUICK.clear()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    result = yield
    spawned = _SPAWNED.get(item.nodeid)
    if spawned is not None:
        pytest.fail(f"this test started a process ({spawned}) but is not marked system: mark it "
                    "(pytestmark = pytest.mark.system, or a fixture in tests/conftest.py SYSTEM_FIXTURES), "
                    "so that pytest -m 'not system' stays the quick check", pytrace=False)
    return result


# -- the club: a venue's broker as cueboard venue init writes it ------------------------------


@pytest.fixture
def club(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Venue]:
    """The venue of ``cueboard venue init`` in ``tmp_path/venue`` with its broker running
    (:func:`tests.helpers.venue.running_venue`): two tables and no scorer logins unless the
    test or its module says otherwise with ``@pytest.mark.club(tables=4, scorers=["t1"])``."""
    marker = request.node.get_closest_marker("club")
    options: dict[str, Any] = dict(marker.kwargs) if marker is not None else {}
    with running_venue(tmp_path, **options) as venue:
        yield venue


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
