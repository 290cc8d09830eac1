"""A bench's worker processes: the bench's own file run again with a worker's arguments,
spoken to by lines on its standard input and output (``bench/league.py``,
``bench/archive.py``)."""

from __future__ import annotations

import os
import selectors
import subprocess
import sys
from pathlib import Path
from typing import IO

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


class Worker:
    """``script`` run with ``args`` in a process of its own; ``wait``: how long :meth:`expect`
    and :meth:`finish` wait unless told (a safety net: the steps take seconds)."""

    def __init__(self, script: Path, args: list[str], name: str, *, wait: float = 60.0) -> None:
        self.name = name
        self.wait = wait
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), str(ROOT)])}
        self.process = subprocess.Popen([sys.executable, str(script), *args], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)

    def expect(self, word: str, timeout: float | None = None) -> None:
        """The worker's next line is ``word``; else why not (its error output, if it ended)."""
        timeout = self.wait if timeout is None else timeout
        stdout = self.process.stdout
        assert stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(stdout, selectors.EVENT_READ)
            if not sel.select(timeout):
                raise TimeoutError(f"{self.name}: no {word!r} within {timeout} s")
        line = stdout.readline().strip()
        if line != word:
            err = self.process.stderr.read() if self.process.poll() is not None and self.process.stderr else ""
            raise RuntimeError(f"{self.name}: {line or 'exited'} (expected {word!r}) {err[-2000:]}")

    def send(self, line: str) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(line + "\n")
        stdin.flush()

    @property
    def pid(self) -> int:
        return self.process.pid

    def finish(self, timeout: float | None = None) -> None:
        """Wait for the worker to end (killed past ``timeout``); RuntimeError if it failed."""
        try:
            self.process.wait(self.wait if timeout is None else timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.returncode:
            stderr: IO[str] | None = self.process.stderr
            raise RuntimeError(f"{self.name} failed: {stderr.read()[-2000:] if stderr else ''}")

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
