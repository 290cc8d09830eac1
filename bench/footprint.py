"""The running daemon's footprint, and the journal's fsync cost (used by bench/run.py).

``daemon_footprint``: ``cueboard run --config <file>`` as a subprocess (the venv's console
script), with one ``[[display]]`` of luma's ``capture`` device (a 64x16 one-colour board
writing a PNG a frame into a temporary directory), the MQTT feed to a loopback mosquitto,
the journal and the control socket; no referee box (no GPIO here) and no keypad.

- ``first_frame_s``: from just before ``Popen`` to the first PNG appearing (the directory
  is looked at every 2 ms, so the figure is up to 2 ms late; the file exists once the
  frame has been handed to the device, a little before it is completely written);
- ``control_socket_s``: from the same start until the control socket answers ``state``;
- ``idle``: after a 3 s settle, utime+stime from ``/proc/<pid>/stat`` over the window,
  as a percentage of one core, and the voluntary context switches (all threads, from
  ``/proc/<pid>/task/*/status``) in the window: a daemon that polls wakes often;
- ``rss_mb`` (``VmRSS``) and ``hwm_mb`` (``VmHWM``, the peak) from ``/proc/<pid>/status``,
  and ``threads``, of a second daemon on luma's ``dummy`` device (the same configuration
  otherwise), 3 s after its control socket answers: the daemon as on a Pi, whose MAX7219,
  WS2812 and HUB75 boards import no pygame. The ``capture`` emulator's base class imports
  pygame, which imports numpy and its OpenBLAS when they are installed (RGBMatrixEmulator,
  in the demo extra, brings them): ``capture_rss_mb`` and ``capture_threads`` are the first
  daemon's, for comparison.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from cueboard.table.daemon import ask_daemon

ROOT = Path(__file__).resolve().parent.parent
CUEBOARD = ROOT / ".venv" / "bin" / "cueboard"


def _proc_cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)


def _status(pid: int) -> dict[str, str]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        out[key] = value.strip()
    return out


def _voluntary_switches(pid: int) -> int:
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(FileNotFoundError):  # a thread that just ended
            total += int(_status_path(task / "status").get("voluntary_ctxt_switches", "0"))
    return total


def _status_path(path: Path) -> dict[str, str]:
    return {k: v.strip() for k, _, v in (line.partition(":") for line in path.read_text().splitlines())}


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop a daemon: SIGTERM, and SIGKILL if it is not gone in 10 s."""
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _config(tmp: Path, host: str, port: int, display: str) -> Path:
    """The daemon's configuration in ``tmp``, its board the ``display`` table's body."""
    config = tmp / "cueboard.toml"
    config.write_text(f"""
[table]
venue = "bench"
name = "idle"

[match]
game = "snooker"
sides = ["Ann", "Bob"]
best_of = 3

[journal]
dir = "{tmp / 'journal'}"

[control]
socket = "{tmp / 'control.sock'}"

[mqtt]
host = "{host}"
port = {port}

[[display]]
{display}
""")
    return config


def _resident(host: str, port: int) -> dict[str, str]:
    """``/proc/<pid>/status`` of a daemon on luma's ``dummy`` device, 3 s after its control
    socket first answers."""
    with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp_name:
        tmp = Path(tmp_name)
        config = _config(tmp, host, port, 'device = "dummy"\nwidth = 64\nheight = 16\nmode = "1"')
        process = subprocess.Popen([str(CUEBOARD), "run", "--config", str(config)], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.perf_counter() + 20
            while time.perf_counter() < deadline:
                if process.poll() is not None:
                    err = process.stderr.read().decode() if process.stderr else ""
                    raise RuntimeError(f"cueboard run exited: {err}")
                with contextlib.suppress(OSError):
                    if ask_daemon(tmp / "control.sock", {"type": "state"}, timeout=1.0).get("ok"):
                        break
                time.sleep(0.01)
            time.sleep(3.0)  # settle, as the first daemon's idle window starts
            return _status(process.pid)
        finally:
            _stop(process)


def daemon_footprint(host: str, port: int, idle_seconds: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp_name:
        tmp = Path(tmp_name)
        frames = tmp / "frames"
        frames.mkdir()
        config = _config(tmp, host, port, f'device = "capture"\nwidth = 64\nheight = 16\nmode = "1"\n'
                                          f'file = "{frames / "board-{0:06}.png"}"')
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        start = time.perf_counter()
        process = subprocess.Popen([str(CUEBOARD), "run", "--config", str(config)], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        try:
            first_frame = control = None
            deadline = start + 20
            while (first_frame is None or control is None) and time.perf_counter() < deadline:
                if process.poll() is not None:
                    err = process.stderr.read().decode() if process.stderr else ""
                    raise RuntimeError(f"cueboard run exited: {err}")
                now = time.perf_counter()
                if first_frame is None and any(frames.iterdir()):
                    first_frame = now - start
                if control is None and (tmp / "control.sock").exists():
                    try:
                        if ask_daemon(tmp / "control.sock", {"type": "state"}, timeout=1.0).get("ok"):
                            control = time.perf_counter() - start
                    except OSError:
                        pass
                time.sleep(0.002)
            time.sleep(3.0)  # settle: imports done, broker connected, first messages out
            pid = process.pid
            hz = os.sysconf("SC_CLK_TCK")
            ticks0, switches0, wall0 = _proc_cpu_ticks(pid), _voluntary_switches(pid), time.perf_counter()
            time.sleep(idle_seconds)
            ticks1, switches1, wall1 = _proc_cpu_ticks(pid), _voluntary_switches(pid), time.perf_counter()
            status = _status(pid)
            frames_written = len(list(frames.iterdir()))
        finally:
            _stop(process)
    window = wall1 - wall0
    resident = _resident(host, port)
    return {
        "command": "cueboard run --config <tmp>/cueboard.toml (capture 64x16 mode 1, MQTT to loopback mosquitto)",
        "first_frame_s": None if first_frame is None else round(first_frame, 3),
        "control_socket_s": None if control is None else round(control, 3),
        "idle": {"seconds": round(window, 1), "cpu_seconds": round((ticks1 - ticks0) / hz, 3),
                 "cpu_percent_of_one_core": round((ticks1 - ticks0) / hz / window * 100, 3),
                 "clock_tick_s": 1 / hz,
                 "voluntary_context_switches": switches1 - switches0,
                 "wakeups_per_second": round((switches1 - switches0) / window, 2)},
        "threads": int(resident["Threads"]),
        "rss_mb": round(int(resident["VmRSS"].split()[0]) / 1024, 1),
        "hwm_mb": round(int(resident["VmHWM"].split()[0]) / 1024, 1),
        "capture_threads": int(status["Threads"]),
        "capture_rss_mb": round(int(status["VmRSS"].split()[0]) / 1024, 1),
        "frames_written": frames_written,
        "targets": {"idle_cpu_percent": 1.0, "rss_mb": 60, "first_frame_s": 1.5},
    }
