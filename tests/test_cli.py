"""The ``cueboard`` command itself: its help, its version, a closed pipe, and what the demo
tells a newcomer to run beside it."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cueboard import __version__
from cueboard.cli import main, parser
from cueboard.table.daemon import ask_daemon
from tests.helpers.keypad import WAIT
from tests.helpers.mosquitto import Mosquitto

ROOT = Path(__file__).resolve().parent.parent
CUEBOARD = [sys.executable, "-m", "cueboard.cli"]


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"cueboard {__version__}\n"


def test_cueboard_alone_prints_the_help_and_succeeds(capsys: pytest.CaptureFixture[str]) -> None:
    """Asking for nothing is asking what there is: the help of --help, status 0."""
    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: cueboard") and "keypad-sim" in out and "--version" in out
    assert main(["match"]) == 0
    assert "usage: cueboard match" in capsys.readouterr().out


@pytest.mark.parametrize(("command", "says"), [
    (["send"], "as if keyed in: an event of the event log"),
    (["match"], "Talk to the running daemon over its control socket"),
    (["run"], "2  the configuration cannot be used"),
    (["run"], "GPIOZERO_PIN_FACTORY=mock cueboard run --config FILE"),
    (["keypad-sim"], "--broker HOST[:PORT]"),
    (["demo"], "--layout {32x8,64x16,128x32}"),
])
def test_the_help_of_each_command(command: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([*command, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert says in out or says in " ".join(out.split())  # as printed, or as argparse wrapped it


@pytest.mark.system
def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """`cueboard replay --each log | head -1`: the reader goes away; no traceback, the status
    of a tool stopped by SIGPIPE."""
    read, write = os.pipe()
    os.close(read)  # nobody will read: the first write fails
    try:
        proc = subprocess.run([*CUEBOARD, "replay", "--each", str(ROOT / "examples" / "snooker-frame.jsonl")],
                              stdout=write, stderr=subprocess.PIPE, text=True, timeout=WAIT, cwd=ROOT)
    finally:
        os.close(write)
    assert proc.stderr == ""
    assert proc.returncode == 128 + signal.SIGPIPE


@pytest.mark.system
def test_run_without_gpio_on_mock_pins(tmp_path: Path) -> None:
    """What `cueboard run --help` says: GPIOZERO_PIN_FACTORY=mock runs a table with a
    referee box on a machine without GPIO."""
    (tmp_path / "keymaps").symlink_to(ROOT / "examples" / "keymaps")
    config = tmp_path / "cueboard.toml"
    config.write_text(f"""
[table]
name = "t1"
[journal]
dir = "{tmp_path / 'journal'}"
[control]
socket = "{tmp_path / 'control.sock'}"
[[referee_box]]
pins = [5, 6, 13, 19, 26, 12, 16, 20, 21, 4, 17, 27]
keymap = "keymaps/referee-box-12.toml"
""")
    env = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock"}
    proc = subprocess.Popen([*CUEBOARD, "run", "--config", str(config)], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        for line in proc.stdout:  # the daemon logs once it serves
            if "cueboard serving" in line:
                break
        answer = ask_daemon(tmp_path / "control.sock", {"type": "state"}, timeout=WAIT)
        assert answer["ok"] and answer["state"]["game"] == "snooker"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=WAIT) == 0
    finally:
        proc.kill()
        proc.wait()


def test_a_bad_configuration_is_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "cueboard.toml"
    config.write_text("[table]\nname = 't1'\n[jornal]\n")
    with pytest.raises(SystemExit) as info:
        main(["run", "--config", str(config)])
    assert info.value.code == 2
    assert f"{config}: jornal: unknown key" in capsys.readouterr().err


# -- the demo ---------------------------------------------------------------------------------


def test_the_demo_says_what_to_run_beside_it_and_keeps_its_journal(tmp_path: Path,
                                                                   mosquitto_broker: Mosquitto) -> None:
    broker = f"{mosquitto_broker.host}:{mosquitto_broker.port}"
    work = tmp_path / "demo"
    proc = subprocess.Popen([*CUEBOARD, "demo", "--autoplay", "--broker", broker, "--journal", str(work),
                             "--layout", "32x8", "--game", "blackball"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT)
    lines: list[str] = []
    try:
        assert proc.stderr is not None
        for line in proc.stderr:  # the status lines come first (the keypad's keys last), then it plays
            lines.append(line.rstrip("\n"))
            legend = "\n".join(lines)
            if " 8 SIDE 1" in legend and "shift HOLD CLOCK" in legend:
                break  # read here: what this loop has read ahead, communicate() below would not see
        text = "\n".join(lines)
        found = re.search(r"^send: +(cueboard send --socket (\S+) '(.*)')$", text, re.M)
        assert found, text
        socket = Path(found[2])
        assert socket == work / "control.sock"
        # The printed command works: the demo's daemon answers on that socket.
        answer = subprocess.run([*CUEBOARD, "match", "state", "--socket", str(socket)], capture_output=True,
                                text=True, timeout=WAIT, cwd=ROOT)
        assert answer.returncode == 0, answer.stderr
        assert json.loads(answer.stdout)["game"] == "blackball"
        assert f"journal: {work / 'journal'}   (kept after the demo" in text
        assert f"--keymap keypad-4x5-blackball.toml --broker {broker} --topic cueboard/demo/table-1" in text
        assert "screen:  cueboard screen --broker-ws" in text
        rest = proc.communicate(timeout=WAIT) if proc.poll() is not None else None
        assert rest is None  # still playing
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=WAIT)
    legend = "\n".join(lines) + err
    assert " 8 SIDE 1" in legend and "shift HOLD CLOCK" in legend  # the keypad's keys
    assert "referee box" not in legend  # the keyboard's keys only when it is the referee box
    assert list((work / "journal").glob("match-*.jsonl"))


def _children(pid: int) -> set[int]:
    return {int(c) for task in Path(f"/proc/{pid}/task").iterdir() for c in (task / "children").read_text().split()}


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.system
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_demo_killed_or_hung_up_stops_its_broker(tmp_path: Path, signum: int) -> None:
    """A kill or a closed terminal ends ``cueboard demo`` as Ctrl-C does: the mosquitto it started
    for itself is stopped, not left running on the ports (the next demo would take others)."""
    from tests.helpers.mosquitto import require_mosquitto

    require_mosquitto()
    proc = subprocess.Popen([*CUEBOARD, "demo", "--autoplay", "--journal", str(tmp_path / "demo"), "--layout", "32x8"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT)
    try:
        assert proc.stderr is not None
        for line in proc.stderr:  # the status lines come once the broker and the table are up
            if "cueboard screen --broker-ws" in line:
                break
        brokers = {pid for pid in _children(proc.pid) if "mosquitto" in Path(f"/proc/{pid}/cmdline").read_text()}
        assert len(brokers) == 1, f"the demo runs its own mosquitto: {brokers}"
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "demo: the journal is kept in" in err
    assert not [pid for pid in brokers if _running(pid)], "the demo's mosquitto outlived it"


def test_the_demo_board_takes_the_layout_asked_for(tmp_path: Path) -> None:
    from cueboard.tools.demo import demo_config

    for layout, size in (("32x8", (32, 8)), ("64x16", (64, 16)), ("128x32", (128, 32))):
        display = demo_config(tmp_path, "snooker", "127.0.0.1", 1883, layout).displays[0]
        assert (display.width, display.height) == size


def test_the_demo_speaks_the_language_asked_for(tmp_path: Path) -> None:
    """``cueboard demo --lang sv``: the board's words in Swedish, and the screen line it prints
    opens the page in Swedish too."""
    from cueboard.tools.demo import demo_config, status_lines

    config = demo_config(tmp_path, "snooker", "127.0.0.1", 1883, language="sv")
    assert config.displays[0].language == "sv"
    lines = status_lines(config, work=tmp_path, host="127.0.0.1", port=1883, ws=9001, game="snooker",
                         interactive=False, language="sv")
    assert any("cueboard screen --broker-ws ws://127.0.0.1:9001 --venue demo --lang sv" in line for line in lines)
    assert parser().parse_args(["demo", "--lang", "fr"]).lang == "fr"
    assert demo_config(tmp_path, "snooker", "127.0.0.1", 1883).displays[0].language == "en"


def test_the_demo_draws_a_hub75_board_through_the_emulator_in_the_terminal(tmp_path: Path) -> None:
    import io

    from PIL import Image

    from cueboard.hw.display_devices import open_device
    from cueboard.hw.hub75 import last_frame
    from cueboard.tools.demo import TerminalDevice, demo_config

    display = demo_config(tmp_path, "snooker", "127.0.0.1", 1883, board="hub75-128x64").displays[0]
    assert (display.device, display.width, display.height, display.backend, display.emulator) == (
        "hub75", 128, 64, "emulator", "headless")
    assert demo_config(tmp_path, "blackball", "127.0.0.1", 1883, board="hub75-192x96",
                       window=True).displays[0].emulator == "window"
    out = io.StringIO()
    device = open_device(display)
    screen = TerminalDevice(device, out)
    assert screen.size == (128, 64)
    screen.display(Image.new("RGB", (128, 64), (0, 200, 40)))
    assert last_frame(device).getpixel((5, 5)) == (0, 200, 40)  # the emulated panel got the frame
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 + 32 and lines[1].count("▀") == 128  # and the terminal shows it, 2 rows a line
