"""``cueboard keypad-sim``: the simulated keypad from a terminal, end to end against the
host's link."""

from __future__ import annotations

import io
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from keypad_helpers import ROOT, HostRecorder

from cueboard.cli import main
from cueboard.hw.keys import KeyPress
from cueboard.keypad_sim import parse_key, run_terminal


@pytest.mark.parametrize(("text", "key"), [
    ("7", (7, False)), ("7h", (7, True)), (" 7 H ", (7, True)), ("2,1", (9, False)), ("4,3h", (19, True)),
    ("0", (0, False)), ("20", None), ("-1", None), ("5,0", None), ("1,4", None), ("x", None), ("", None),
    ("h", None), ("1,2,3", None),
])
def test_parse_key(text: str, key: tuple[int, bool] | None) -> None:
    assert parse_key(text, rows=5, columns=4) == key


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
            line = lines.get(timeout=5.0)
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
            assert proc.wait(timeout=5.0) == 0
            assert host.take(1) == [KeyPress(1)]
        assert not path.exists() and not path.is_symlink()
    finally:
        proc.kill()
        proc.wait()


def test_end_of_input_with_no_host_reports_what_is_left(tmp_path: Path) -> None:
    out = io.StringIO()
    code = run_terminal(str(tmp_path / "kp"), create=True, rows=5, columns=4, stdin=io.StringIO("5\n6\n"),
                        stdout=out, drain_timeout=0.3)
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
