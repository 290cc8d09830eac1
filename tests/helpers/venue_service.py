"""``cueboard venue serve`` as systemd runs it, in a subprocess: where it serves (its first line
saying so), its log kept, stopped with SIGTERM. tests/venue/test_club_night.py starts it with
the options a club gives (``--db``); tests/venue/test_serve_night.py and the desk's night test too."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path


class VenueService:
    def __init__(self, directory: Path, *options: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "cueboard.cli", "venue", "serve", "--dir", str(directory), "--host", "127.0.0.1",
             "--port", "0", *options], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert self.process.stdout is not None
        self.log: list[str] = []
        for line in self.process.stdout:  # its first lines, up to the one saying where it serves
            self.log.append(line)
            if line.startswith("cueboard venue serve: https://"):
                self.url = line.split()[3]
                break
        else:
            raise AssertionError("venue serve ended: " + "".join(self.log))
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.log.append(line)

    def stop(self) -> int:
        """SIGTERM, and its exit status (0: it stopped cleanly)."""
        if self.process.poll() is None:
            self.process.terminate()
        return self.process.wait(60)
