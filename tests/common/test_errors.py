"""One root for the errors cueboard raises for what it is given, in one module
(``cueboard.common.errors``, as gpiozero's ``exc.py``), each also the built-in it refines."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

from cueboard.common import errors
from cueboard.engine import IllegalEvent

ROOT = Path(__file__).resolve().parents[2]
ERRORS = [obj for _, obj in inspect.getmembers(errors, inspect.isclass) if obj.__module__ == errors.__name__]


def test_every_error_is_under_the_one_root() -> None:
    assert sorted(e.__name__ for e in ERRORS) == sorted(errors.__all__)
    assert all(issubclass(e, errors.CueboardError) for e in ERRORS)
    assert not issubclass(IllegalEvent, errors.CueboardError)  # the engine stays pure


@pytest.mark.parametrize(("name", "builtin"), [
    ("ConfigFileError", ValueError), ("KeymapError", ValueError), ("RenderError", ValueError),
    ("DaemonRunning", RuntimeError), ("PkiError", RuntimeError), ("UnsupportedDriver", RuntimeError),
    ("MissingLibrary", RuntimeError), ("SpiUnavailable", OSError)])
def test_each_error_is_also_the_builtin_it_refines(name: str, builtin: type[Exception]) -> None:
    assert issubclass(getattr(errors, name), builtin)


def test_no_error_class_is_defined_outside_the_errors_module() -> None:
    """Exception classes elsewhere are programming errors only (IncompleteGame) or private."""
    allowed = {"IncompleteGame", "_NotFinite"}
    found: list[str] = []
    for folder in ("cueboard", "hw"):
        for path in (ROOT / folder).rglob("*.py"):
            if path == ROOT / "cueboard" / "common" / "errors.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.ClassDef) and node.name not in allowed and any(
                        isinstance(b, ast.Name) and (b.id.endswith(("Error", "Exception")) or b.id == "OSError")
                        for b in node.bases):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert found == []


@pytest.mark.parametrize(("module", "name"), [
    ("cueboard.table.config", "ConfigFileError"), ("cueboard.table.mqtt.feed", "MqttConfigError"),
    ("cueboard.table.keymap", "KeymapError"),
    ("cueboard.hw.display_config", "DisplayConfigError"), ("cueboard.hw.buttons", "BoxConfigError"),
    ("cueboard.games.replay", "RejectedLine"), ("cueboard.league.report", "ReportError"),
    ("cueboard.hw.hub75", "MissingLibrary")])
def test_the_modules_that_raise_them_name_the_same_class(module: str, name: str) -> None:
    assert getattr(importlib.import_module(module), name) is getattr(errors, name)
