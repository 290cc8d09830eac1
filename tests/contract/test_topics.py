"""Every topic is built in one place (cueboard/contract/topics.py), and that place is the doc:
the builders give exactly docs/mqtt.md's topic tables, and no other module of the product or
its benches writes a topic by hand."""

from __future__ import annotations

import ast
import inspect
import itertools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from cueboard.contract import topics
from cueboard.contract.topics import ANY, TableTopics, VenueTopics

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "mqtt.md"

NOT_IN_THE_TABLES = {
    # Builders, not topics.
    "of", "under", "prefix", "table",
    # A topic the doc names in its text, not in a table: the bare command of older tools.
    "unnamed_command",
    # An ACL's pattern, not a topic anyone publishes on.
    "everything",
}


def built(topics_of: object) -> set[str]:
    """Each topic of a builder, with ``<name>`` for each argument as the doc writes it."""
    out = set()
    for name, member in inspect.getmembers(type(topics_of)):
        if name.startswith("_") or name in NOT_IN_THE_TABLES:
            continue
        if isinstance(member, property):
            out.add(getattr(topics_of, name))
        elif callable(member):
            method = getattr(topics_of, name)
            out.add(method(*(f"<{p}>" for p in inspect.signature(method).parameters)))
    return out


def documented() -> set[str]:
    """The first column of the tables of docs/mqtt.md's "Topics" section whose header is ``topic``."""
    section = DOC.read_text().split("\n## Topics\n", 1)[1].split("\n## ", 1)[0]
    found: set[str] = set()
    in_topics = False
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if not cells:
            in_topics = False
        elif cells[0] == "topic":
            in_topics = True
        elif in_topics and not set(cells[0]) <= set("-: "):
            found.add(cells[0].strip("`"))
    return found


def test_the_builders_are_the_docs_topic_tables() -> None:
    doc = documented()
    assert len(doc) > 15, f"docs/mqtt.md's topic tables not found: {doc}"
    code = built(TableTopics("<prefix>")) | built(VenueTopics("<venue>"))
    assert code == doc, f"only in the code: {sorted(code - doc)}; only in docs/mqtt.md: {sorted(doc - code)}"


def test_the_bare_command_topic_is_in_the_docs_text() -> None:
    assert f"`{TableTopics('<prefix>').unnamed_command}`" in DOC.read_text()


def test_the_builders_write_the_topics_the_doc_names() -> None:
    """The bytes of a few, as a broker sees them: a change here is a change of the contract."""
    table = TableTopics.of("club", "t1")
    assert table.state == "cueboard/club/t1/state"
    assert table.command("desk") == "cueboard/club/t1/command/desk"
    assert table.presence(ANY) == "cueboard/club/t1/score/+/presence"
    assert table.history_slot(63) == "cueboard/club/t1/history/63"
    assert VenueTopics("club").results == "cueboard/club/desk/results"
    assert VenueTopics("club").table(ANY).record == "cueboard/club/+/record"
    assert topics.RECORDS == "cueboard/+/+/record"
    assert topics.ha_config(topics.HA_PREFIX, "cueboard_club_t1") == "homeassistant/device/cueboard_club_t1/config"


# -- nothing else builds one ----------------------------------------------------------------

NAMES = ("state", "event", "rejected", "status", "devices", "input", "record", "next", "message", "history",
         "preview", "command", "score", "presence", "competition", "presets", "players", "results")
A_TOPIC = re.compile(r"(^|/)(" + "|".join(NAMES) + r")(/|$)")
A_FILE = re.compile(r"\.(py|md|js|mjs|json|toml|txt|html|css|png|svg|db|sql|pem|crt|key|conf|service|sh)$")
SCANNED = [*sorted((ROOT / "cueboard").rglob("*.py")), *sorted((ROOT / "bench").glob("*.py"))]
THE_CONTRACT = ROOT / "cueboard" / "contract" / "topics.py"


def looks_built(token: str) -> bool:
    """A word of a string that is a topic (or an ACL's pattern): a level of ours joined by '/',
    the root, a wildcard level, Home Assistant's or mosquitto's. Prose placeholders
    (``<prefix>/state``), file names and paths (``docs/state.md``, ``/proc/1/status``) are not."""
    token = token.strip("\"'`(),:;[]")
    if "<" in token or "*" in token or token.startswith("/") or A_FILE.search(token) or "/" not in token:
        return token == "homeassistant"
    levels = token.split("/")
    wildcard = any(level in ("+", "#") for level in levels) and any(re.search(r"\w|\{\}", lv) for lv in levels)
    return bool(A_TOPIC.search(token) or token.startswith(("cueboard/", "$SYS/", "homeassistant/")) or wildcard)


def strings(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Each string the code builds (an f-string with ``{}`` for its fields), but docstrings."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    # A string after a constant is a constant's docstring (the attribute docstrings used here).
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            for first, second in itertools.pairwise(body):
                if isinstance(first, ast.Assign | ast.AnnAssign) and isinstance(second, ast.Expr) \
                        and isinstance(second.value, ast.Constant):
                    docstrings.add(id(second.value))
    parts = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = ""
            for value in node.values:
                parts.add(id(value))
                text += value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else "{}"
            yield node.lineno, text
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings | parts:
            yield node.lineno, node.value


def hand_built(path: Path) -> list[str]:
    return [f"{path.relative_to(ROOT)}:{line}: {text!r}" for line, text in strings(ast.parse(path.read_text()))
            if any(looks_built(token) for token in text.split())]


def test_the_check_finds_a_topic_built_by_hand() -> None:
    """It would fail: each way a topic was written by hand before the contract module."""
    for text in ('f"{prefix}/state"', '"cueboard/+/+/record"', 'f"topic read cueboard/{v}/+/{t}"', '"score/+"',
                 'f"history/{n}"', '"homeassistant"', 'f"{prefix}/#"', 'f"$SYS/broker/connection/{name}/state"'):
        assert any(looks_built(t) for _, s in strings(ast.parse(f"x = {text}")) for t in s.split()), text
    for text in ('"docs/state.md"', 'f"/proc/{pid}/status"', '"<prefix>/command/<user>"', '"state"',
                 '"cueboard/table/mqtt/feed.py"', '"next: unknown field"', '"+/-"', '"score/*.png"'):
        assert not any(looks_built(t) for _, s in strings(ast.parse(f"x = {text}")) for t in s.split()), text


@pytest.mark.parametrize("path", [p for p in SCANNED if p != THE_CONTRACT], ids=lambda p: str(p.relative_to(ROOT)))
def test_no_topic_is_built_by_hand(path: Path) -> None:
    assert hand_built(path) == [], "build it with cueboard.contract.topics"
