"""No test races a wall clock (the brief's standard): CI runs on a shared 2-core machine.

A test waits for an event, with a timeout of 30 s or more as a safety net, and never
asserts that something took less than some seconds (speed is measured in bench/). This
reads every module of tests/ (its syntax tree, not its text) and refuses:

- a ``timeout`` (or ``*_timeout``) argument, keyword or parameter default, under 30 s;
- a number under 30 given where a known waiting call takes its timeout: ``wait(5)``,
  ``join(5)``, ``wait_for(pred, 3)``, ``take(2, 2.0)``, ``run_until(done, 3)`` ...;
- a name for a timeout, deadline or wait (``TIMEOUT = 15``) set to a number under 30;
- ``time.monotonic() + 5``: a deadline under 30 s away;
- ``time.monotonic() - start < 2`` and ``elapsed < 2`` for an ``elapsed`` measured so: a
  wall-clock limit on how long something took.

What is none of these though it looks like one, a timeout that must lapse for the test
to pass (no host is there to answer, so nothing can come), says so on its line:
``# not a wall-clock limit: <why>``.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
LEAST = 30.0
ALLOW = "# not a wall-clock limit:"

# Calls that wait, and which positional argument is their timeout.
WAITING_CALLS = {
    "wait": 0, "join": 0, "flush": 0, "wait_for_publish": 0, "wait_for": 1, "run_until": 1,
    "wait_health": 1, "wait_healths": 1, "take": 1, "acquire": 1, "wait_for_log": 1, "wait_subscribed": 0,
    "wait_topic": 2, "communicate": 1,
}
CLOCKS = {"monotonic", "time", "perf_counter", "monotonic_ns", "perf_counter_ns"}


def _number(node: ast.AST | None) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return float(node.value)
    return None


def _is_clock(node: ast.AST) -> bool:
    """``time.monotonic()``, ``monotonic()``, ``time.time()`` ..."""
    if not isinstance(node, ast.Call) or node.args:
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in CLOCKS


def _timeout_name(name: str) -> bool:
    lower = name.lower()
    return lower == "timeout" or lower.endswith("_timeout") or lower in ("deadline", "wait")


def _limit_name(name: str) -> bool:
    lower = name.lower()
    return "timeout" in lower or "deadline" in lower or lower in ("wait", "wait_s", "wait_seconds")


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def findings(source: str) -> Iterator[tuple[int, int, str]]:
    """(first line, last line, what) of each wall-clock limit under 30 s in ``source``."""
    tree = ast.parse(source)
    constants = {t.id: value for node in tree.body if isinstance(node, ast.Assign)
                 for value in [_number(node.value)] if value is not None
                 for t in node.targets if isinstance(t, ast.Name)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                value = _number(kw.value)
                if kw.arg and _timeout_name(kw.arg) and value is not None and value < LEAST:
                    yield node.lineno, node.end_lineno or node.lineno, f"{kw.arg}={value:g}"
            position = WAITING_CALLS.get(_call_name(node))
            if position is not None and position < len(node.args):
                value = _number(node.args[position])
                if value is not None and value < LEAST:
                    yield node.lineno, node.end_lineno or node.lineno, f"{_call_name(node)}(... {value:g})"
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            arguments = node.args
            positional = [*arguments.posonlyargs, *arguments.args]
            pairs = list(zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults,
                             strict=True))
            pairs += [(a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d]
            for arg, default in pairs:
                value = _number(default)
                if _timeout_name(arg.arg) and value is not None and value < LEAST:
                    yield node.lineno, node.lineno, f"{node.name}({arg.arg}={value:g})"
            yield from _measured(node, constants)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = _number(node.value)
            for target in targets:
                if isinstance(target, ast.Name) and _limit_name(target.id) and value is not None and value < LEAST:
                    yield node.lineno, node.end_lineno or node.lineno, f"{target.id} = {value:g}"
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            for clock, other in ((node.left, node.right), (node.right, node.left)):
                value = _number(other)
                if _is_clock(clock) and value is not None and value < LEAST:
                    yield node.lineno, node.end_lineno or node.lineno, f"a deadline {value:g} s away"


def _measured(function: ast.FunctionDef | ast.AsyncFunctionDef,
              constants: dict[str, float]) -> Iterator[tuple[int, int, str]]:
    """A time taken (``clock() - start``, or what is made of it: ``elapsed = ...``,
    ``took.append(...)``, ``worst = max(took)``) compared with a limit below it: a number,
    or a constant of the module (``BUDGET = 2.0``)."""
    timed: set[str] = set()

    def made_of_time(node: ast.AST) -> bool:
        return any(_is_elapsed(n) or (isinstance(n, ast.Name) and n.id in timed) for n in ast.walk(node))

    grew = True
    while grew:
        before = len(timed)
        for node in ast.walk(function):
            if isinstance(node, ast.Assign) and made_of_time(node.value):
                timed |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            elif (isinstance(node, ast.Call) and _call_name(node) in ("append", "extend")
                  and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
                  and any(made_of_time(a) for a in node.args)):
                timed.add(node.func.value.id)
        grew = len(timed) > before
    for node in ast.walk(function):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        for (left, right), op in zip(itertools.pairwise(operands), node.ops, strict=True):
            below = isinstance(op, ast.Lt | ast.LtE)
            above = isinstance(op, ast.Gt | ast.GtE)
            measured, bound = (left, right) if below else (right, left) if above else (None, None)
            if measured is None:
                continue
            limit = _number(bound)
            if limit is None and isinstance(bound, ast.Name):
                limit = constants.get(bound.id)
            if limit is not None and made_of_time(measured):
                yield node.lineno, node.end_lineno or node.lineno, "a time taken, compared with a limit"


def _is_elapsed(node: ast.AST) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and _is_clock(node.left)


def _allowed(lines: list[str], first: int, last: int) -> bool:
    for line in lines[first - 1:last]:
        if ALLOW in line:
            return bool(line.split(ALLOW, 1)[1].strip())  # a reason, not just the marker
    return False


def wall_clock_limits(path: Path) -> list[str]:
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    return [f"{path.name}:{first}: {what}" for first, last, what in sorted(set(findings(source)))
            if not _allowed(lines, first, last)]


@pytest.mark.parametrize("path", sorted(TESTS.rglob("*.py")), ids=lambda p: p.relative_to(TESTS).as_posix())
def test_no_test_waits_on_a_wall_clock_limit_under_30_s(path: Path) -> None:
    assert wall_clock_limits(path) == [], (
        "wait for the event with a timeout of 30 s or more (a safety net), and measure speed in bench/; "
        f"what is not a wall-clock limit says so on its line: '{ALLOW} <why>'")


# -- the check catches what it must ------------------------------------------------------------

RACES = '''
import time
TIMEOUT = 15.0
BUDGET = 2.0
def wait_for_it(done, timeout=3.0):
    deadline = time.monotonic() + 5
    started = time.monotonic()
    event.wait(5)
    thread.join(timeout=2)
    sim.wait_for(lambda s: s.ready, 3.0)
    host.take(2, 2.0)
    elapsed = time.monotonic() - started
    assert elapsed < 2.0
    assert time.monotonic() - started <= 1
    assert 2.0 > elapsed
    took.append(time.monotonic() - started)
    worst = max(took)
    assert worst <= BUDGET
    proc.wait(timeout=0.3)  # not a wall-clock limit: no host answers, so it lapses by design
    proc.wait(timeout=0.3)  # not a wall-clock limit:
'''

SAFE = '''
import time
WAIT = 30.0
def wait_for_it(done, timeout=30.0):
    deadline = time.monotonic() + 60
    event.wait(30)
    queue.get(timeout=WAIT)
    values.get("key", 0)
    host.take(2)
    sleep_ms = 5
    elapsed = time.monotonic() - started
    finding(f"{elapsed:.3f} s", seconds=elapsed)
    assert count < 2
'''


def test_the_check_finds_each_kind_of_race() -> None:
    found = sorted(set(findings(RACES)))
    assert [(line, what) for line, _, what in found] == [
        (3, "TIMEOUT = 15"), (5, "wait_for_it(timeout=3)"), (6, "a deadline 5 s away"), (8, "wait(... 5)"),
        (9, "timeout=2"), (10, "wait_for(... 3)"), (11, "take(... 2)"),
        (13, "a time taken, compared with a limit"), (14, "a time taken, compared with a limit"),
        (15, "a time taken, compared with a limit"), (18, "a time taken, compared with a limit"),
        (19, "timeout=0.3"), (20, "timeout=0.3"),
    ]
    lines = RACES.splitlines()
    # Only the exception with a reason is let through; the bare marker is not.
    assert [line for line, last, _ in found if _allowed(lines, line, last)] == [19]


def test_the_check_leaves_safe_waits_alone() -> None:
    assert list(findings(SAFE)) == []
