"""The areas point down (docs/layers.md), checked by walking every import of the package.

Every ``import`` counts: a function-level one (one hidden in a function is how a cycle hides)
and one under ``if TYPE_CHECKING:`` (a circle of types is a circle of ideas all the same).
Importing ``a.b.c`` also runs the ``__init__`` of ``a.b`` (unless the importer is inside it),
so that is an edge too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"cueboard": ROOT / "cueboard", "cueboard.engine": ROOT / "engine", "cueboard.hw": ROOT / "hw"}

AREAS: dict[str, frozenset[str]] = {
    "cueboard.engine": frozenset(),
    "cueboard.common": frozenset(),
    "cueboard.hw": frozenset({"cueboard.common"}),
    "cueboard.contract": frozenset({"cueboard.engine", "cueboard.common"}),
    "cueboard.boards": frozenset({"cueboard.engine", "cueboard.common", "cueboard.hw", "cueboard.contract"}),
    "cueboard.games": frozenset({"cueboard.engine", "cueboard.common", "cueboard.contract", "cueboard.boards"}),
    "cueboard.table.mqtt": frozenset({"cueboard.engine", "cueboard.common", "cueboard.contract"}),
    "cueboard.table": frozenset({"cueboard.engine", "cueboard.common", "cueboard.hw", "cueboard.contract",
                                 "cueboard.boards", "cueboard.games", "cueboard.table.mqtt"}),
    "cueboard.league": frozenset({"cueboard.engine", "cueboard.common", "cueboard.contract", "cueboard.games"}),
    "cueboard.venue": frozenset({"cueboard.engine", "cueboard.common", "cueboard.contract", "cueboard.games",
                                 "cueboard.league", "cueboard.table.mqtt"}),
    "cueboard.tools": frozenset({"cueboard.engine", "cueboard.common", "cueboard.hw", "cueboard.contract",
                                 "cueboard.boards", "cueboard.games", "cueboard.table.mqtt", "cueboard.table",
                                 "cueboard.league", "cueboard.venue"}),
    "cueboard.cli": frozenset({"cueboard.engine", "cueboard.common", "cueboard.hw", "cueboard.contract",
                               "cueboard.boards", "cueboard.games", "cueboard.table.mqtt", "cueboard.table",
                               "cueboard.league", "cueboard.venue", "cueboard.tools"}),
}
"""Each area and the areas it may import, bottom up: docs/layers.md's table. ``cueboard`` (the
package's ``__init__``, the version) any module may import."""


def modules() -> dict[str, Path]:
    """Every module of the package by its dotted name (the package-dir mapping applied)."""
    out: dict[str, Path] = {}
    for package, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join([package, *parts])] = path
    return out


MODULES = modules()


def imports(name: str) -> set[str]:
    """The package's modules that importing ``name`` names, type-only imports included."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module or ""
            targets.add(source)
            targets.update(f"{source}.{alias.name}" for alias in node.names)
    edges: set[str] = set()
    for target in targets:
        if target not in MODULES or name.startswith(target + "."):
            continue  # not ours, or a package the importer is in (``from . import x``): running already
        edges.add(target)
        parent = target.rpartition(".")[0]
        while parent:
            if not (name == parent or name.startswith(parent + ".")):
                edges.add(parent)  # its __init__ runs first
            parent = parent.rpartition(".")[0]
    edges.discard(name)
    return edges


GRAPH = {name: imports(name) for name in MODULES}


BARE_PACKAGES = {n for n, path in MODULES.items() if path.name == "__init__.py" and not GRAPH[n]}
"""Packages whose ``__init__`` imports nothing of ours (``cueboard``, ``cueboard.table``): running
one on the way to a module below it brings nothing along."""


def area_of(name: str) -> str | None:
    """The longest prefix of :data:`AREAS` that holds ``name``; None for ``cueboard`` itself."""
    found = [a for a in AREAS if name == a or name.startswith(a + ".")]
    return max(found, key=len) if found else None


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The cycles of ``graph`` (Tarjan's strongly connected components of more than one node)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_walk_sees_the_whole_package() -> None:
    assert {"cueboard.table.daemon", "cueboard.engine.match", "cueboard.hw.buttons", "cueboard.boards.board"} <= set(
        MODULES)
    assert "cueboard.engine.registry" in GRAPH["cueboard.engine.match"]


def test_no_import_cycle_type_only_imports_included() -> None:
    assert cycles(GRAPH) == []


def test_the_cycle_finder_finds_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(GRAPH, "cueboard.engine.errors", {*GRAPH["cueboard.engine.errors"], "cueboard.engine.match"})
    assert any("cueboard.engine.match" in c and "cueboard.engine.errors" in c for c in cycles(GRAPH))


def test_the_areas_themselves_point_down() -> None:
    assert cycles({a: set(may) for a, may in AREAS.items()}) == []


def test_every_module_is_in_an_area() -> None:
    assert sorted(n for n in MODULES if n != "cueboard" and area_of(n) is None) == []


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n != "cueboard"))
def test_a_module_imports_its_own_area_and_those_it_may(name: str) -> None:
    area = area_of(name)
    assert area is not None
    wrong = sorted(t for t in GRAPH[name]
                   if t not in BARE_PACKAGES and (ta := area_of(t)) != area and ta not in AREAS[area])
    assert not wrong, f"{name} ({area}) may not import {wrong}: docs/layers.md"


def test_the_area_check_finds_an_upward_import(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(GRAPH, "cueboard.boards.shown", {*GRAPH["cueboard.boards.shown"], "cueboard.table.daemon"})
    with pytest.raises(AssertionError, match=r"cueboard.boards.shown \(cueboard.boards\) may not import .*daemon"):
        test_a_module_imports_its_own_area_and_those_it_may("cueboard.boards.shown")


def test_docs_layers_table_is_the_tests() -> None:
    """docs/layers.md's table lists each area and what it may import, as :data:`AREAS` does."""
    text = (ROOT / "docs" / "layers.md").read_text()
    rows: dict[str, set[str]] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 3 and (m := re.fullmatch(r"`([\w.]+)`", cells[1])):
            rows[f"cueboard.{m.group(1)}"] = {f"cueboard.{w}" for w in re.findall(r"`([\w.]+)`", cells[2])}
    assert rows == {a: set(may) for a, may in AREAS.items()}


OPENERS = {"cueboard.table.devices", "cueboard.table.referee_boxes", "cueboard.table.service", "cueboard.tools.demo",
           "cueboard.cli", "cueboard.tools.keypad_sim", "cueboard.tools.hwtest", "cueboard.tools.render"}
"""The modules that open hardware (or its stand-ins) above ``cueboard.hw``."""
DEVICE_MODULES = {"cueboard.hw.display_devices", "cueboard.hw.buttons", "cueboard.hw.keypad_link",
                  "cueboard.hw.max7219", "cueboard.hw.ws2812_spi", "cueboard.hw.relay"}


@pytest.mark.parametrize("name", sorted(n for n in MODULES if area_of(n) != "cueboard.hw" and n not in OPENERS))
def test_only_the_service_and_the_tools_open_hardware(name: str) -> None:
    assert not (GRAPH[name] & DEVICE_MODULES), f"{name} opens devices: {sorted(GRAPH[name] & DEVICE_MODULES)}"


TABLE_DAEMON_LINES = 500


@pytest.mark.parametrize("name", sorted(n for n in MODULES if area_of(n) in ("cueboard.table", "cueboard.table.mqtt")))
def test_no_module_of_the_table_is_over_500_lines(name: str) -> None:
    lines = len(MODULES[name].read_text().splitlines())
    assert lines <= TABLE_DAEMON_LINES, f"{MODULES[name].relative_to(ROOT)} has {lines} lines: split it by idea"
