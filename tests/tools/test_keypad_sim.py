"""``cueboard keypad-sim``: the simulated keypad from a terminal, end to end against the
host's link."""

from __future__ import annotations

import io
import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from cueboard.cli import main
from cueboard.hw.keys import KeyPress
from cueboard.tools.keypad_sim import host_messages, parse_key, run_terminal, watch_host
from tests.helpers.keypad import ROOT, WAIT, HostRecorder
from tests.helpers.mosquitto import Mosquitto


@pytest.mark.parametrize(("text", "key"), [
    ("7", (7, False)), ("7h", (7, True)), (" 7 H ", (7, True)), ("2,1", (9, False)), ("4,3h", (19, True)),
    ("0", (0, False)), ("20", None), ("-1", None), ("5,0", None), ("1,4", None), ("x", None), ("", None),
    ("h", None), ("1,2,3", None),
])
def test_parse_key(text: str, key: tuple[int, bool] | None) -> None:
    assert parse_key(text, rows=5, columns=4) == key


@pytest.mark.system
def test_the_command_talks_to_the_host(tmp_path: Path) -> None:
    path = tmp_path / "keypad"
    proc = subprocess.Popen([sys.executable, "-m", "cueboard.cli", "keypad-sim", "--create", str(path)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stdin is not None and proc.stdout is not None
    lines: queue.Queue[str] = queue.Queue()

    def read_lines() -> None:
        for line in proc.stdout or ():
            lines.put(line)

    threading.Thread(target=read_lines, daemon=True).start()

    def wait_line(text: str) -> str:
        while True:
            line = lines.get(timeout=WAIT)
            if text in line:
                return line

    try:
        assert "keypad 5 x 4 on" in wait_line("keypad")
        host = HostRecorder(path)
        with host.link:
            proc.stdin.write("3\n7h\n2,1\nbogus\n")
            proc.stdin.flush()
            assert host.take(4) == [KeyPress(3), KeyPress(7), KeyPress(7, True), KeyPress(9)]
            wait_line("host connected")
            host.link.feedback(True)
            wait_line("host: accepted")
            proc.stdin.write("dup\n1\nstatus\n")
            proc.stdin.close()  # end of input: the simulator waits for the host, then quits
            assert proc.wait(timeout=WAIT) == 0
            assert host.take(1) == [KeyPress(1)]
        assert not path.exists() and not path.is_symlink()
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.system
def test_a_key_is_typed_by_its_label_and_the_number_still_works(tmp_path: Path) -> None:
    """Issue 24: ``black`` is the black's key (12 on keypad-4x5.toml), not key 7 (NO POT); a
    label is the legend's, any case (``FOUL``, ``free ball``); a shifted action presses SHIFT,
    then its key (``award``: SHIFT FOUL); a number is a key's index, as before."""
    path = tmp_path / "keypad"
    proc = subprocess.Popen([sys.executable, "-m", "cueboard.cli", "keypad-sim", "--create", str(path)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        first = proc.stdout.readline()  # printed once the pseudo-terminal is there
        assert "keypad 5 x 4 on" in first
        host = HostRecorder(path)
        with host.link:
            proc.stdin.write("black\nFOUL\nfree ball\naward\n7\nno_pot\nblak\n")
            proc.stdin.close()
            assert host.take(7) == [KeyPress(12), KeyPress(1), KeyPress(11), KeyPress(0), KeyPress(1), KeyPress(7),
                                    KeyPress(7)]
            assert proc.wait(timeout=WAIT) == 0
        out = proc.stdout.read()
        assert "key 12 7 black (row 3, column 0) pressed" in out
        assert "key 0 SHIFT (row 0, column 0) pressed\nkey 1 FOUL (row 0, column 1) pressed" in out
        assert "? 'blak': not a key's label" in out
    finally:
        proc.kill()
        proc.wait()


def test_end_of_input_with_no_host_reports_what_is_left(tmp_path: Path) -> None:
    out = io.StringIO()
    code = run_terminal(str(tmp_path / "kp"), create=True, rows=5, columns=4, stdin=io.StringIO("5\n6\n"),
                        stdout=out, drain_timeout=0.3)  # not a wall-clock limit: no host, so it must lapse
    assert code == 1
    assert "2 presses not acknowledged by the host" in out.getvalue()


def test_commands_and_help(tmp_path: Path) -> None:
    out = io.StringIO()
    commands = "help\nnoise\ncorrupt\ndrop\nreboot\nstatus\nwhat\nquit\n9\n"
    assert run_terminal(str(tmp_path / "kp"), create=True, rows=5, columns=4, stdin=io.StringIO(commands),
                        stdout=out) == 0
    text = out.getvalue()
    assert "add h to hold it down" in text and "rebooted: epoch" in text and "? 'what'" in text
    assert "key 9" not in text  # after quit


def test_a_port_that_cannot_be_opened(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["keypad-sim", str(tmp_path / "missing")]) == 1
    assert "cannot open" in capsys.readouterr().out


def test_an_existing_terminal_is_used_as_it_is(tmp_path: Path) -> None:
    master, slave = os.openpty()
    try:
        out = io.StringIO()
        assert run_terminal(os.ttyname(slave), create=False, rows=5, columns=4, stdin=io.StringIO("quit\n"),
                            stdout=out) == 0
        assert f"on {os.ttyname(slave)};" in out.getvalue()
    finally:
        os.close(master)
        os.close(slave)


# -- the legend, and the host's reasons -------------------------------------------------------


def test_the_legend_says_which_number_is_which_action(tmp_path: Path) -> None:
    out = io.StringIO()
    keymap = ROOT / "examples" / "keymaps" / "keypad-4x5.toml"
    assert run_terminal(str(tmp_path / "kp"), create=True, rows=5, columns=4, keymap=keymap,
                        stdin=io.StringIO("1\nlegend\nquit\n"), stdout=out) == 0
    text = out.getvalue()
    assert "keys of keypad-4x5.toml (Marker keypad, 4 x 5 keys, snooker):" in text
    assert " 0 SHIFT " in text and " 4 1 red " in text and "shift RE-SPOT BLACK" in text
    assert text.count("shift BEFORE STROKE") == 2  # printed at the start, and again by 'legend'
    assert "key 1 FOUL (row 0, column 1) pressed" in text
    assert "--broker HOST[:PORT]" in text  # where the reasons come from


def test_a_keymap_that_does_not_fit_the_keypad(tmp_path: Path) -> None:
    out = io.StringIO()
    keymap = ROOT / "examples" / "keymaps" / "referee-box-12.toml"
    assert run_terminal(str(tmp_path / "kp"), create=True, rows=5, columns=4, keymap=keymap,
                        stdin=io.StringIO(""), stdout=out) == 2
    assert "a keymap of 3 x 4 keys for a keypad of 5 x 4" in out.getvalue()


def test_the_cli_finds_a_shipped_keymap_by_name(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["keypad-sim", "--create", str(tmp_path / "kp"), "--keymap", "keypad-4x5-blackball.toml"]) == 0
    assert "16 AWARD" in capsys.readouterr().out


@pytest.mark.parametrize(("topic", "payload", "said"), [
    ("cueboard/v/t/rejected", {"event": None, "reason": "FOUL NO POT: a foul ends with the ball",
                               "source": "keypad"}, "host refused: FOUL NO POT: a foul ends with the ball"),
    ("cueboard/v/t/rejected", {"reason": "no", "source": "referee_box:0"}, None),
    ("cueboard/v/t/input", {"source": "keypad", "keys": ["FOUL", "MISS"], "next": "the ball"},
     "host reads: FOUL MISS; next: the ball"),
    ("cueboard/v/t/input", {"source": "keypad", "keys": [], "expired": True}, "host: lapsed (not finished in time)"),
    ("cueboard/v/t/input", {"source": "keypad", "keys": []}, None),
])
def test_what_the_host_says_of_the_keypad(topic: str, payload: dict[str, object], said: str | None) -> None:
    assert host_messages(json.dumps(payload).encode(), topic) == said
    assert host_messages(b"not json", topic) is None


def test_the_hosts_reasons_come_from_its_rejected_topic(mosquitto_broker: Mosquitto) -> None:
    """The keypad protocol says only refused; the reason is on the daemon's MQTT topic."""
    said: queue.Queue[str] = queue.Queue()
    prefix = "cueboard/demo/table-1"
    with watch_host(f"{mosquitto_broker.host}:{mosquitto_broker.port}", prefix, said.put):
        assert said.get(timeout=WAIT).startswith("MQTT ")  # subscribed (the broker's acknowledgement)
        publish = mqtt.Client(CallbackAPIVersion.VERSION2)
        publish.connect(mosquitto_broker.host, mosquitto_broker.port)
        publish.loop_start()
        try:
            for source in ("referee_box:0", "keypad"):
                message = {"schema": 1, "event": {"type": "pot", "balls": ["pink"]}, "source": source,
                           "reason": f"red is on ({source})", "ts": 1.0}
                publish.publish(f"{prefix}/rejected", json.dumps(message), qos=1).wait_for_publish(WAIT)
            assert said.get(timeout=WAIT) == "host refused: red is on (keypad)"
        finally:
            publish.disconnect()
            publish.loop_stop()
