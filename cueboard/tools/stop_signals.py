"""A command a person runs in a terminal ends on SIGTERM (a kill) and SIGHUP (an SSH session
closed) as it does on Ctrl-C, so that what it started is closed by its own ``finally`` and
context managers: ``cueboard demo``'s embedded mosquitto is stopped, ``cueboard hwtest``'s
devices are let go (a MAX7219 left in display test stays lit until the daemon starts).

``cueboard run`` is not such a command: systemd stops it, and cueboard/table/service.py wakes its
engine loop instead.
"""

from __future__ import annotations

import signal
import threading

__all__ = ["end_as_ctrl_c"]


def end_as_ctrl_c() -> None:
    """From now on SIGTERM and SIGHUP raise ``KeyboardInterrupt`` in the main thread, and Ctrl-C
    does too even when the command was started with SIGINT ignored (a shell's background job, or
    a parent that ignores it: the disposition is inherited, and Python then leaves it ignored).
    Only the main thread may set handlers: elsewhere (a test calling the command) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _interrupt)
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
