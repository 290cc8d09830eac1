"""A mosquitto broker on loopback for the demo: Debian's own, started and stopped with it.

mosquitto follows the MQTT specification (a subscription receives only what its topic
filter matches, retained messages included), which the demo's former embedded broker did
not. It listens on a free loopback port for MQTT and another for WebSockets (the venue
screen), anonymous, for as long as the demo runs.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import threading
from collections import deque
from collections.abc import Iterator
from pathlib import Path

__all__ = ["free_port", "mosquitto_binary", "mosquitto_broker"]

START_TIMEOUT = 30.0


def mosquitto_binary() -> str | None:
    """Debian installs the broker in /usr/sbin, which is not on every user's PATH."""
    return shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if os.access(p, os.X_OK)), None)


def free_port(preferred: int) -> int:
    """``preferred`` if it is free on loopback, else one the system picks."""
    for port in (preferred, 0):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return int(s.getsockname()[1])
    raise OSError("no free port on 127.0.0.1")


@contextlib.contextmanager
def mosquitto_broker(folder: Path, port: int, ws_port: int) -> Iterator[subprocess.Popen[str]]:
    """mosquitto listening on 127.0.0.1:``port`` (MQTT) and ``ws_port`` (WebSockets), its
    configuration in ``folder``; stopped on exit. RuntimeError with its log if it fails."""
    binary = mosquitto_binary()
    if binary is None:
        raise FileNotFoundError("mosquitto is not installed (Debian: apt-get install mosquitto)")
    config = folder / "mosquitto.conf"
    config.write_text("\n".join([
        "# cueboard demo: loopback only, anonymous, nothing kept on disk",
        "persistence false",
        "log_dest stderr",
        "log_type error",
        "log_type warning",
        "log_type notice",
        "log_type information",  # its "running" line, which the demo waits for
        "message_size_limit 1048576",  # as the shipped brokers (examples/mosquitto/venue.conf)
        f"listener {port} 127.0.0.1",
        f"listener {ws_port} 127.0.0.1",
        "protocol websockets",
        # mosquitto 2.0.11 binds a WebSockets listener to every address whatever the listener
        # line says, unless the socket's domain is given: loopback only, as documented.
        "socket_domain ipv4",
        "allow_anonymous true",
    ]) + "\n")
    process = subprocess.Popen([binary, "-c", str(config)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    log: deque[str] = deque(maxlen=50)  # the last lines, for a failure's message
    running = threading.Event()

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            log.append(line.rstrip("\n"))
            if " running" in line:
                running.set()
        running.set()  # exited: the caller looks at the process

    threading.Thread(target=read, name="mosquitto-log", daemon=True).start()
    try:
        if not running.wait(START_TIMEOUT) or process.poll() is not None:
            raise RuntimeError("mosquitto did not start:\n" + "\n".join(log))
        yield process
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
