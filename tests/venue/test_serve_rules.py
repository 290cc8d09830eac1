"""The venue service's runner's rules (cueboard/venue/runner_rules.py), pure: the desk's rules
(screen/desk/competition.js) in Python, a reserved table, and what the service refuses to start
on (a venue folder without its login), with no broker."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from cueboard.cli import parser
from cueboard.venue.competition import from_draw
from cueboard.venue.runner_rules import Seen, free_tables, hand, observe, plan_hand, ready_matches, won
from cueboard.venue.serve import run as serve
from tests.helpers.venue import venue_cli


def knockout(*players: str) -> dict[str, Any]:
    made = from_draw({"kind": "knockout", "name": "Club Cup", "seeded": True,
                      "players": [{"name": n, "handicap": 0} for n in players]})
    return {"name": "Club Cup", "created": "2026-11-28T19:00:00Z", "format": {"game": "snooker", "best_of": 1},
            "handicaps": made["handicaps"], "matches": made["matches"], "rev": 1}


def idle(*names: str) -> list[Seen]:
    return [Seen(n, status="online") for n in names]


def test_round_one_goes_to_the_free_tables_in_the_draws_order() -> None:
    c = knockout("Ann", "Bob", "Cat", "Dan")
    assert plan_hand(c, idle("t1", "t2")) == [("club-cup-R1-1", "t1"), ("club-cup-R1-2", "t2")]
    # An offline table, or one playing a match, is not free.
    playing = Seen("t2", status="online", state={"sides": [{"name": "X"}, {"name": "Y"}], "seq": 4})
    assert free_tables(c, [Seen("t1", status="offline"), playing]) == []


def test_a_winner_moves_on_once_and_a_changed_winner_only_before_the_next_match_began() -> None:
    c = knockout("Ann", "Bob", "Cat", "Dan")
    first = c["matches"][0]
    c2, changed = won(c, first["fixture"], 0, [1, 0])
    assert changed and c2["matches"][-1]["sides"][0] == first["sides"][0]
    assert won(c2, first["fixture"], 0, [1, 0]) == (c2, False)  # the same record again: nothing
    begun = copy.deepcopy(c2)
    begun["matches"][-1]["started"], begun["matches"][-1]["table"] = True, "t1"
    assert won(begun, first["fixture"], 1, [0, 1]) == (begun, False)


def test_a_record_of_last_weeks_cup_is_not_tonights() -> None:
    c = knockout("Ann", "Bob", "Cat", "Dan")
    old = Seen("t1", status="online", record={"fixture": "club-cup-R1-1", "winner": 0, "frames_won": [1, 0],
                                               "started": "2026-11-21T19:00:00Z"})
    assert observe(c, [old]) == (c, False)
    new = Seen("t1", status="online", record={**(old.record or {}), "started": "2026-11-28T19:30:00Z"})
    c2, changed = observe(c, [new])
    assert changed and c2["matches"][0]["winner"] == 0 and c2["matches"][0]["frames"] == [1, 0]


def test_a_reserved_match_goes_to_its_table_only_and_keeps_it_once_ready() -> None:
    c = knockout("Ann", "Bob", "Cat", "Dan")
    final = c["matches"][-1]
    final["reserved"] = "t2"
    # Before the final is ready, round 1 may play on t2.
    assert plan_hand(c, idle("t1", "t2")) == [("club-cup-R1-1", "t1"), ("club-cup-R1-2", "t2")]
    for m in c["matches"][:2]:
        c, _ = won(c, m["fixture"], 0, [1, 0])
    assert [m["fixture"] for m in ready_matches(c)] == [final["fixture"]]
    assert plan_hand(c, idle("t1", "t2")) == [(final["fixture"], "t2")]
    assert plan_hand(c, idle("t1", "t3")) == []  # t2 busy or gone: the final waits for it
    _, refused, _ = hand(c, final["fixture"], "t1", "desk")
    assert refused == "F: reserved for t2" or refused.endswith("reserved for t2"), refused


@pytest.mark.system  # cueboard venue init runs openssl
def test_serve_refuses_a_venue_without_its_login_naming_the_file(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    directory = tmp_path / "venue"
    venue_cli("init", "--dir", str(directory), "--venue", "club", "--tables", "1", "--host", "localhost")
    status = serve(parser().parse_args(["venue", "serve", "--dir", str(directory)]))
    err = capsys.readouterr().err
    assert status == 2  # init wrote the service's own login, not the archive's
    assert "--archive-login: no password for the login 'archive'" in err
    assert str(directory / "logins" / "archive.password") in err and "add-user archive --role archive" in err
    (directory / "logins" / "venue.password").unlink()
    status = serve(parser().parse_args(["venue", "serve", "--dir", str(directory)]))
    err = capsys.readouterr().err
    assert status == 2
    assert "--login: no password for the login 'venue'" in err and str(directory / "logins" / "venue.password") in err
    assert "cueboard venue add-user venue --role desk" in err
    status = serve(parser().parse_args(["venue", "serve", "--dir", str(tmp_path / "nowhere")]))
    assert status == 2 and "has no venue (venue.json)" in capsys.readouterr().err
