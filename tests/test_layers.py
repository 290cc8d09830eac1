"""The layers point down (docs/layers.md), checked by walking every import of the package.

Every ``import`` counts, a function-level one too (one hidden in a function is how a cycle
hides); only imports under ``if TYPE_CHECKING:`` are left out, as they never run. Importing
``a.b.c`` also runs the ``__init__`` of ``a.b`` (unless the importer is inside it), so that
is an edge too.

Every module of ``cueboard/``, ``engine/`` and ``hw/`` has a layer in :data:`LAYERS` (a new
module is placed there and in docs/layers.md's table, or this test says so), and imports
only from its own layer and those below.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"cueboard": ROOT / "cueboard", "cueboard.engine": ROOT / "engine", "cueboard.hw": ROOT / "hw"}


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


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _walk(node: ast.AST) -> Iterator[ast.AST]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _type_checking(child):
            yield from (n for stmt in child.orelse for n in [stmt, *_walk(stmt)])
            continue
        yield child
        yield from _walk(child)


def imports(name: str) -> set[str]:
    """The package's modules that importing ``name`` runs directly."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in _walk(ast.parse(path.read_text(), str(path))):
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


def cycles() -> list[list[str]]:
    """The import cycles (Tarjan's strongly connected components of more than one module)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(GRAPH[v]):
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

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return found


def test_the_walk_sees_the_whole_package() -> None:
    assert {"cueboard.daemon", "cueboard.engine.match", "cueboard.hw.buttons", "cueboard.boards.board"} <= set(MODULES)
    assert "cueboard.engine.registry" in GRAPH["cueboard.engine.match"]


def test_no_import_cycle() -> None:
    assert cycles() == []


def test_the_cycle_finder_finds_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(GRAPH, "cueboard.engine.errors", {*GRAPH["cueboard.engine.errors"], "cueboard.engine.match"})
    assert any("cueboard.engine.match" in c and "cueboard.engine.errors" in c for c in cycles())


def _reach(name: str) -> set[str]:
    return GRAPH[name]


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("cueboard.engine")))
def test_the_engine_imports_only_itself(name: str) -> None:
    assert {t for t in _reach(name) if not t.startswith("cueboard.engine")} <= {"cueboard"}


def _in(package: str, name: str) -> bool:
    """``name`` is ``package`` or one of its modules (``cueboard.hwtest`` is not in ``cueboard.hw``)."""
    return name == package or name.startswith(package + ".")


HW_MAY_IMPORT = {"cueboard", "cueboard.settings", "cueboard.errors", "cueboard.languages"}
"""Leaf modules with nothing of the game or the daemon in them."""


@pytest.mark.parametrize("name", sorted(n for n in MODULES if _in("cueboard.hw", n)))
def test_hw_imports_no_board_and_no_daemon(name: str) -> None:
    outside = {t for t in _reach(name) if not _in("cueboard.hw", t)}
    assert outside <= HW_MAY_IMPORT, f"{name} imports {sorted(outside - HW_MAY_IMPORT)}"


OPENERS = {"cueboard.devices", "cueboard.referee_boxes", "cueboard.service", "cueboard.demo", "cueboard.cli",
           "cueboard.keypad_sim", "cueboard.hwtest", "cueboard.render_command"}
"""The modules that open hardware (or its stand-ins) above ``cueboard.hw``."""
DEVICE_MODULES = {"cueboard.hw.display_devices", "cueboard.hw.buttons", "cueboard.hw.keypad_link",
                  "cueboard.hw.max7219", "cueboard.hw.ws2812_spi"}


@pytest.mark.parametrize("name", sorted(n for n in MODULES if not _in("cueboard.hw", n) and n not in OPENERS))
def test_only_the_service_layer_opens_hardware(name: str) -> None:
    assert not (_reach(name) & DEVICE_MODULES), f"{name} opens devices: {sorted(_reach(name) & DEVICE_MODULES)}"


BELOW_THE_DAEMON = ("cueboard.boards", "cueboard.keymap", "cueboard.key_sequences", "cueboard.journal",
                    "cueboard.games", "cueboard.seams", "cueboard.inputs")


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith(BELOW_THE_DAEMON)))
def test_nothing_below_the_daemon_imports_it(name: str) -> None:
    above = {"cueboard.daemon", "cueboard.service", "cueboard.cli", "cueboard.demo", "cueboard.devices"}
    assert not (_reach(name) & above)


LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("leaves", ("cueboard", "cueboard.errors", "cueboard.settings", "cueboard.languages", "cueboard.resources",
                "cueboard.times", "cueboard.limits", "cueboard.private_files", "cueboard.remote_lines",
                "cueboard.systemd", "cueboard.local_broker", "cueboard.web_server", "cueboard.seams",
                "cueboard.inputs", "cueboard.health", "cueboard.rate_limiter", "cueboard.inbox",
                "cueboard.match_history", "cueboard.scorers", "cueboard.table_message",
                "cueboard.stop_signals")),
    ("engine", ("cueboard.engine", "cueboard.engine.*")),
    ("hw", ("cueboard.hw", "cueboard.hw.*")),
    ("game parts", ("cueboard.key_sequences", "cueboard.simulate_snooker", "cueboard.simulate_blackball",
                    "cueboard.printed_sheet", "cueboard.answers", "cueboard.replay", "cueboard.boards",
                    "cueboard.boards.*")),
    ("games", ("cueboard.games",)),
    ("table parts", ("cueboard.keymap", "cueboard.key_legend", "cueboard.journal", "cueboard.simulate",
                     "cueboard.sheet", "cueboard.report", "cueboard.feed", "cueboard.feed_config",
                     "cueboard.feed_payloads", "cueboard.home_assistant", "cueboard.config",
                     "cueboard.clock_control", "cueboard.control_server", "cueboard.next_match",
                     "cueboard.paced_link")),
    ("daemon", ("cueboard.daemon", "cueboard.table_topics")),
    ("service", ("cueboard.service", "cueboard.devices", "cueboard.referee_boxes")),
    ("league and venue", ("cueboard.archive", "cueboard.archive.*", "cueboard.fixtures", "cueboard.draw",
                          "cueboard.competition",
                          "cueboard.venue", "cueboard.venue.*")),
    ("commands", ("cueboard.cli", "cueboard.demo", "cueboard.hwtest", "cueboard.keypad_sim",
                  "cueboard.render_command", "cueboard.screen", "cueboard.desk_routes")),
)
"""docs/layers.md's table, bottom up: a module imports from its own layer and those below."""


def layer_of(name: str) -> int | None:
    """The rank of ``name``'s layer in :data:`LAYERS` (0 the bottom), None if it has none."""
    found = [rank for rank, (_, names) in enumerate(LAYERS) for pattern in names
             if name == pattern or (pattern.endswith(".*") and name.startswith(pattern[:-1]))]
    assert len(found) <= 1, f"{name} is in two layers"
    return found[0] if found else None


def test_every_module_has_a_layer() -> None:
    unplaced = sorted(n for n in MODULES if layer_of(n) is None)
    assert not unplaced, f"place {unplaced} in a layer: LAYERS in tests/test_layers.py and docs/layers.md's table"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_module_imports_from_its_layer_and_below(name: str) -> None:
    rank = layer_of(name)
    assert rank is not None
    above = {t: LAYERS[r][0] for t in GRAPH[name] if (r := layer_of(t)) is not None and r > rank}
    assert not above, f"{name} ({LAYERS[rank][0]}) imports from layers above it: {above}"


def test_docs_layers_table_is_the_tests() -> None:
    """docs/layers.md lists every layer with its modules, as :data:`LAYERS` has them (the
    ``cueboard.`` left out, a package as ``archive/``)."""
    text = (ROOT / "docs" / "layers.md").read_text()
    rows = {line.split("|")[1].strip().strip("*"): line.split("|")[2] for line in text.splitlines()
            if line.startswith("| ") and not line.startswith("| layer") and not line.startswith("|--")}
    assert list(rows) == [layer for layer, _ in reversed(LAYERS)]
    for layer, names in LAYERS:
        shown = {w.strip("`, ") for w in rows[layer].split() if w.startswith("`")}
        wanted = set()
        for pattern in names:
            short = pattern.removeprefix("cueboard.").removeprefix("cueboard")
            if pattern.endswith(".*"):
                continue  # the package's line stands for its modules
            package = pattern in ("cueboard.engine", "cueboard.hw", "cueboard.boards", "cueboard.archive",
                                  "cueboard.venue")
            wanted.add(f"{short}/" if package else (short or "cueboard/__init__"))
        assert shown == wanted, f"{layer}: docs/layers.md says {sorted(shown)}, the test {sorted(wanted)}"


def test_the_layer_check_finds_an_upward_import(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(GRAPH, "cueboard.boards.shown", {*GRAPH["cueboard.boards.shown"], "cueboard.daemon"})
    with pytest.raises(AssertionError, match=r"cueboard.boards.shown \(game parts\) imports .*'cueboard.daemon'"):
        test_a_module_imports_from_its_layer_and_below("cueboard.boards.shown")
