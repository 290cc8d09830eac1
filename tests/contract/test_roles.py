"""Roles written down once (``cueboard/contract/roles.py``): docs/security.md's table is the
module's, every line a table takes has a role, the venue tool's ACL gives each role the topics
the module says, and the scorer's check at the table is the module's. (The same, tried on a
real table behind real mosquitto: ``tests/table/test_roles.py``.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cueboard.contract.roles import CHANNELS, LINES, ROLES, WRITES, kind_of, markdown, may_send, refusal
from cueboard.contract.topics import VenueTopics
from cueboard.engine.registry import GAMES
from cueboard.table.scorers import MARKER_LINES, scorer_refusal
from cueboard.venue.broker_files import acl
from cueboard.venue.plan import Venue

ROOT = Path(__file__).resolve().parents[2]

DAEMON_LINES = {"match", "new_match", "start_next", "clock", "state", "call", "light"}
"""What the table takes besides the games' events (cueboard/table/daemon.py, topics.py)."""


def test_docs_security_has_the_modules_table() -> None:
    assert markdown() in (ROOT / "docs" / "security.md").read_text(encoding="utf-8")


def test_every_line_a_table_takes_has_its_roles() -> None:
    events = {kind for game in GAMES.values() for kind in game.events}
    assert events | DAEMON_LINES <= set(LINES), sorted(events | DAEMON_LINES - set(LINES))
    assert all(roles <= set(ROLES) and roles for roles, _ in LINES.values())


@pytest.mark.parametrize(("line", "kind"), [
    ({"type": "concede"}, "concede"), ({"type": "concede", "match": True}, "concede_match"),
    ({"type": "concede", "match": False}, "concede"), ({"type": "clock"}, "clock"),
    ({"type": "clock", "action": "hold"}, "clock"), ({"type": "clock", "action": "stop"}, "clock_stop"),
    ({"type": "amend", "seq": 1}, "amend"), ({"type": "amend", "preview": True}, "amend_preview"),
    ({"type": 7}, ""),
])
def test_a_lines_kind(line: dict[str, object], kind: str) -> None:
    assert kind_of(line) == kind  # type: ignore[arg-type]


def test_the_scorers_check_at_the_table_is_the_modules() -> None:
    assert {kind for kind in LINES if may_send("scorer", kind)} == MARKER_LINES
    for kind in LINES:
        line = {"type": kind}
        assert (scorer_refusal(line, "s") is None) == (refusal("scorer", line, "s") is None)
    assert scorer_refusal({"type": "concede", "match": True}, "scorer-t1") is not None
    assert scorer_refusal({"type": "concede"}, "scorer-t1") is None
    assert "the desk concedes a match" in str(scorer_refusal({"type": "concede", "match": True}, "scorer-t1"))
    assert refusal("desk", {"type": "anything"}, "desk") is None  # the rules answer what no role sends


def test_the_venue_tools_acl_gives_each_role_the_topics_the_module_says() -> None:
    venue = Venue("club", ["localhost"])
    venue.add_table("t1")
    venue.add_user("desk", "desk")
    venue.add_user("scorer-t1", "scorer", "t1")
    text = acl(venue)
    t1 = VenueTopics("club").table("t1")
    topics = {"command": t1.command("{login}"), "score": t1.score("{login}"), "presence": t1.presence("{login}"),
              "next": t1.next, "message": t1.message}
    for role, login in (("table", "t1"), ("desk", "desk"), ("scorer", "scorer-t1")):
        block = re.search(rf"^user {re.escape(login)}\n(.*?)(?:\n\n|\Z)", text, re.S | re.M)
        assert block is not None, login
        writes = [line.split(" ", 2)[2] for line in block.group(1).splitlines() if line.startswith("topic write ")]
        for channel in CHANNELS:
            wanted = topics[channel].replace("{login}", login)
            given = any(_matches(pattern, wanted) for pattern in writes)
            assert given == (channel in WRITES[role]), (role, channel, writes)


def _matches(pattern: str, topic: str) -> bool:
    """Whether the ACL's ``pattern`` (with + and #) covers ``topic``."""
    p, t = pattern.split("/"), topic.split("/")
    for i, level in enumerate(p):
        if level == "#":
            return True
        if i >= len(t) or (level != "+" and level != t[i]):
            return False
    return len(p) == len(t)
