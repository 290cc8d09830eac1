"""The table's light (issue 43) on gpiozero's mock pins: on when a match begins, off
``off_after`` seconds after it ends (a manual clock), the desk's line, the wall switch, a restart
mid-match that never drives the pin off, and the pins check (docs/hardware.md, "The table's light")."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]  # no type hints

from cueboard.common.errors import ConfigFileError
from cueboard.contract.times import timestamp
from cueboard.engine import Match
from cueboard.table.config import Config, load_config
from cueboard.table.daemon import Table
from cueboard.table.devices import open_relay
from cueboard.table.inputs import Command
from cueboard.table.journal import read_lines
from tests.helpers.daemon import StillOutput, table_config
from tests.table.test_reliability import Daemon

RELAY, SWITCH = 17, 27
BESTOF3 = {"game": "snooker", "sides": ["Ann", "Bob"], "best_of": 3}


class Clock:
    """The table's monotonic clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def lit(factory: Any, active_high: bool = True) -> bool:
    """Whether the relay is on, read off the mock pin (active low: on is a low pin)."""
    return bool(factory.pin(RELAY).state) == active_high


def light_lines(table: Table) -> list[dict[str, Any]]:
    assert table.journal.path is not None
    return [obj for obj in map(json.loads, read_lines(table.journal.path)) if obj["type"] == "light"]


def light_config(tmp_path: Path, **light: Any) -> Config:
    return table_config(tmp_path, match=BESTOF3, light={"pin": RELAY, "off_after": 120, **light})


def make_table(config: Config, factory: Any, mono: Clock, wall: float = 1_800_000_000.0) -> Table:
    table = Table(config, monotonic=mono, wall=lambda: wall + mono.now)
    assert config.light is not None
    table.light.opener = partial(open_relay, config.light, pin_factory=factory)
    return table


def test_the_desks_new_match_turns_the_light_on_and_the_journal_says_who(tmp_path: Path) -> None:
    """Through the daemon's engine thread, as ``cueboard run`` has it: the answer to the
    new match is awaited (no time limit on the light), then the pin is read."""
    factory = MockFactory()
    config = light_config(tmp_path, active_high=False)  # a relay module switched by a low pin
    with Daemon(config, pin_factory=factory, boards=[], control=False) as daemon:
        assert not lit(factory, active_high=False)  # a table's first start: the light is off
        assert factory.pin(RELAY).state is True
        answers: list[dict[str, Any]] = []
        # as a line on <prefix>/command/desk-1 comes: the broker's login names the sender
        daemon.table.submit(Command("mqtt", {"type": "new_match"}, answers.append, user="desk-1"))
        daemon.on_engine(lambda: None)  # taken after the command: the command has been answered
        assert answers[-1]["ok"] and lit(factory, active_high=False)
        lines = daemon.on_engine(lambda: light_lines(daemon.table))
        assert [(line["on"], line["cause"], line.get("user")) for line in lines] == [(True, "match", "desk-1")]
        state = daemon.send({"type": "state"})["state"]
        assert state["light"] == {"on": True, "cause": "match", "user": "desk-1", "off_at": None}


def test_a_matchs_first_stroke_turns_the_light_on(tmp_path: Path) -> None:
    """A table on its own (``start = "match"``): its default match begins with its first stroke."""
    factory, mono = MockFactory(), Clock()
    table = make_table(light_config(tmp_path), factory, mono)
    table.start()
    try:
        assert not lit(factory)
        table.command({"type": "pot", "balls": ["red"]}, "referee_box:0")
        assert lit(factory) and [line["cause"] for line in light_lines(table)] == ["match"]
        table.command({"type": "no_pot"}, "referee_box:0")
        assert len(light_lines(table)) == 1  # once: later strokes change nothing
    finally:
        table.light.close()
        table.journal.close()


def test_the_light_goes_off_off_after_seconds_after_the_match_ends_and_an_undo_keeps_it_on(tmp_path: Path) -> None:
    factory, mono = MockFactory(), Clock()
    table = make_table(light_config(tmp_path), factory, mono)
    table.start()
    try:
        table.new_match({}, "desk", None)
        table.command({"type": "concede", "match": True}, "desk")
        assert table.match is not None and table.match.state().match_over
        assert lit(factory) and table._next_wake(None) == pytest.approx(120)
        answer = table.state_answer()
        assert answer is not None and answer["light"]["off_at"] == timestamp(1_800_000_000.0 + mono.now + 120)  # type: ignore[index]
        mono.now += 60
        table.command({"type": "undo"}, "desk")  # the match goes on: no wait
        assert table._next_wake(None) is None
        mono.now += 600
        table._timers(None)
        assert lit(factory)
        table.command({"type": "concede", "match": True}, "desk")
        mono.now += 119.9
        table._timers(None)
        assert lit(factory)
        mono.now += 0.1
        table._timers(None)
        assert not lit(factory)
        assert [(line["on"], line["cause"]) for line in light_lines(table)] == [(True, "match"), (False, "match_over")]
        assert table.state_answer() is not None and table.state_answer()["light"]["on"] is False  # type: ignore[index]
    finally:
        table.light.close()
        table.journal.close()


def test_the_desk_switches_the_light_and_a_wrong_line_changes_nothing(tmp_path: Path) -> None:
    factory, mono = MockFactory(), Clock()
    table = make_table(light_config(tmp_path), factory, mono)
    table.start()
    answers: list[dict[str, Any]] = []
    try:
        table._user = "desk-1"  # as the engine thread sets it for a line on command/desk-1
        table.command({"type": "light", "on": True}, "mqtt", answers.append)
        assert answers[-1]["ok"] and lit(factory)
        for wrong, short in (({"type": "light", "on": "yes"}, "invalid"),
                             ({"type": "light", "on": False, "dim": 3}, "invalid")):
            table.command(wrong, "mqtt", answers.append)
            assert answers[-1]["ok"] is False and answers[-1]["short"] == short and "light" in answers[-1]["reason"]
            assert lit(factory)
        table.command({"type": "light", "on": False}, "mqtt", answers.append)
        assert answers[-1]["ok"] and not lit(factory)
        assert [(line["on"], line["cause"], line["user"]) for line in light_lines(table)] == [
            (True, "desk", "desk-1"), (False, "desk", "desk-1")]
        assert table.match is not None and table.match.seq == 0  # bookkeeping: no event number taken
    finally:
        table.light.close()
        table.journal.close()


def test_a_table_without_a_light_refuses_the_line_saying_so(tmp_path: Path) -> None:
    table = Table(table_config(tmp_path), monotonic=Clock())
    table.start()
    answers: list[dict[str, Any]] = []
    try:
        table.command({"type": "light", "on": True}, "mqtt", answers.append)
        assert answers[-1]["ok"] is False and answers[-1]["short"] == "no_light"
        assert "[light] pin" in answers[-1]["reason"]
    finally:
        table.journal.close()


def test_the_wall_switch_overrides_both_ways(tmp_path: Path) -> None:
    """A latching switch to ground: each flick is an order, as the desk's is (last one wins)."""
    factory = MockFactory()
    config = light_config(tmp_path, switch=SWITCH)
    with Daemon(config, pin_factory=factory, boards=[], control=False) as daemon:
        assert daemon.send({"type": "new_match"})["ok"] and lit(factory)
        factory.pin(SWITCH).drive_low()  # switched on: already on, nothing to do
        factory.pin(SWITCH).drive_high()  # switched off
        daemon.on_engine(lambda: None)  # the switch's edges are taken on the engine thread
        assert not lit(factory)
        assert daemon.send({"type": "light", "on": True})["ok"] and lit(factory)
        causes = daemon.on_engine(lambda: [(line["on"], line["cause"]) for line in light_lines(daemon.table)])
        assert causes == [(True, "match"), (False, "switch"), (True, "desk")]


def test_a_restart_mid_match_drives_the_pin_on_from_the_start(tmp_path: Path) -> None:
    """What a SIGKILL and systemd's restart leave: the journal. On mock pins the pin dies with
    its process (a new factory, the pin an input); the new daemon opens the relay on, before
    its first frame, and never drives it off (docs/hardware.md says what a real Pi does)."""
    config = light_config(tmp_path)
    first, mono = MockFactory(), Clock()
    table = make_table(config, first, mono)
    table.start()
    table.new_match({}, "desk", None)
    table.command({"type": "pot", "balls": ["red"]}, "referee_box:0")
    assert lit(first)
    table.journal.close()  # killed: the relay is never closed, nothing says goodbye

    second = MockFactory()
    seen: list[bool] = []

    class FirstFrame(StillOutput):
        def show(self, shown: Any, clock: float | None = None) -> None:
            seen.append(lit(second))

    again = make_table(config, second, Clock())
    again.boards.append(FirstFrame())
    again.start()
    try:
        assert seen and seen[0] is True
        states = [state for _, state in second.pin(RELAY).states]
        assert states[states.index(True):] == [True]  # on from its opening, never off since
        assert again.match is not None and again.match.state().sides[0].score == 1  # the same match
    finally:
        again.light.close()
        again.journal.close()


def test_a_restart_while_waiting_to_switch_off_keeps_the_wait(tmp_path: Path) -> None:
    config = light_config(tmp_path)
    factory, mono = MockFactory(), Clock()
    table = make_table(config, factory, mono)
    table.start()
    table.new_match({}, "desk", None)
    table.command({"type": "concede", "match": True}, "desk")
    table.journal.close()
    mono.now += 100  # the daemon is down 100 s of the 120
    again = make_table(config, MockFactory(), mono)
    again.start()
    try:
        assert again.light.on and again._next_wake(None) == pytest.approx(20, abs=0.01)
    finally:
        again.light.close()
        again.journal.close()


def test_the_pins_check_refuses_the_light_on_a_pin_another_device_holds(tmp_path: Path) -> None:
    keymap = Path(__file__).parents[2] / "examples" / "keymaps" / "referee-box-12.toml"
    box = {"pins": [5, 6, 13, 19, 26, 12, 16, 20, 21, 4, 17, 27], "keymap": str(keymap)}
    file = tmp_path / "cueboard.toml"
    file.write_text(f'[table]\nname = "t1"\n[journal]\ndir = "{tmp_path}"\n[light]\npin = "GPIO17"\n'
                    f'[[referee_box]]\npins = {box["pins"]}\nkeymap = "{keymap}"\n')
    with pytest.raises(ConfigFileError) as caught:
        load_config(file)
    said = str(caught.value)
    assert "GPIO 17" in said and "cueboard.toml" in said and "referee_box[0].pins[10]" in said and "light.pin" in said
    with pytest.raises(ConfigFileError) as caught:
        table_config(tmp_path, keypad={"port": "/dev/ttyAMA0", "keymap": str(keymap)}, light={"pin": 8, "switch": 15})
    assert "light.switch" in str(caught.value) and "keypad.port" in str(caught.value)
    for light, key in (({"pin": 17, "switch": 17}, "light.switch"), ({"pin": 40}, "light.pin"),
                       ({"pin": 17, "off_after": -1}, "light.off_after"), ({"pin": 17, "colour": 1}, "colour"),
                       ({"active_high": False}, "light.pin")):
        with pytest.raises(ConfigFileError, match=key.replace(".", r"\.")) as caught:
            table_config(tmp_path, light=light)


def test_light_lines_replay_to_the_same_score_and_undo_passes_over_them() -> None:
    """The contract: a log with light lines gives the state the same log without them gives."""
    setup = {"type": "match", **BESTOF3}
    plain = [{"type": "pot", "balls": ["red"]}, {"type": "pot", "balls": ["black"]}, {"type": "undo"}]
    lit_log = [plain[0], {"type": "light", "on": True, "cause": "desk", "user": "desk-1"}, plain[1],
               {"type": "light", "on": False, "cause": "switch"}, plain[2]]
    states = []
    for log in (plain, lit_log):
        match = Match.from_json(setup)
        for obj in log:
            match.apply(match.parse(obj))
        states.append(match.state().to_json())
    assert states[0] == states[1] and states[0]["sides"][0]["score"] == 1


@pytest.mark.system
def test_a_sigkilled_daemon_comes_back_with_the_light_on(tmp_path: Path) -> None:
    """``cueboard run`` (on mock pins) killed mid-match and started again: the new daemon opened
    the relay on, as its state says. The pin itself dies with a mock process: the test above
    watches it; docs/hardware.md says what a real Pi's pin does meanwhile."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from cueboard.table.daemon import ask_daemon
    from tests.table.test_crash import _wait_ready

    config = tmp_path / "cueboard.toml"
    config.write_text(f'[table]\nvenue = "v"\nname = "t1"\n[journal]\ndir = "{tmp_path}/journal"\n'
                      f'[control]\nsocket = "{tmp_path}/control.sock"\n[light]\npin = {RELAY}\n', encoding="utf-8")
    sock = tmp_path / "control.sock"
    env = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock"}

    def start() -> subprocess.Popen[bytes]:
        return subprocess.Popen([sys.executable, "-m", "cueboard.cli", "run", "--config", str(config)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)

    proc = start()
    try:
        assert _wait_ready(sock, proc, time.monotonic() + 120)["light"]["on"] is False
        assert ask_daemon(sock, {"type": "new_match"}, timeout=30)["ok"]
        assert ask_daemon(sock, {"type": "pot", "balls": ["red"]}, timeout=30)["ok"]
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        sock.unlink(missing_ok=True)
        proc = start()
        state = _wait_ready(sock, proc, time.monotonic() + 120)
        assert state["light"]["on"] is True and state["light"]["cause"] == "match"
        assert state["sides"][0]["score"] == 1
    finally:
        proc.kill()
        proc.wait()
