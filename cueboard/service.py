"""Wiring one table's daemon together: configuration in, devices opened, the loop run.

Each device is optional and none of them can stop the scoring: a keypad that is not
plugged in is reported ``lost`` and looked for again; a display that fails reports its
health and is retried by its Board; a broker that is down is retried by the Feed.
"""

from __future__ import annotations

import contextlib
import json
import logging
import signal
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

from .config import Config
from .daemon import ControlServer, Input, Table

log = logging.getLogger("cueboard")


def _command_payload(table: Table, payload: bytes) -> None:
    """An MQTT command: one JSON event or match line, answered on event or rejected."""
    try:
        obj = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        reason = f"command: not JSON: {exc}"
        table.submit(Input("command", lambda: table._refuse(None, reason, "command")))
        return
    if not isinstance(obj, dict):
        table.submit(Input("command", lambda: table._refuse(None, "command: send one JSON object", "command")))
        return
    table.submit(Input("command", obj))


@contextlib.contextmanager
def open_table(config: Config, *, pin_factory: Any = None, boards: list[Any] | None = None,
               control: bool = True, button_clock: Any = None) -> Iterator[Table]:
    """The table with its devices open; everything is closed on exit. ``pin_factory`` and
    ``button_clock`` (a ``cueboard.hw.clock.Clock`` the referee boxes debounce on) are for
    tests and benches: gpiozero's MockFactory and a ManualClock."""
    with ExitStack() as stack:
        feed = None
        if config.mqtt is not None:
            from .feed import Feed

            holder: list[Table] = []
            feed = Feed(config.mqtt, table=config.table,
                        on_command=lambda payload: _command_payload(holder[0], payload))
        if boards is None:
            boards = []
            if config.displays:
                from .hw.display import open_board

                for display in config.displays:
                    boards.append(open_board(display))
        keypad = None
        if config.keypad_port is not None:
            from .hw.keypad_link import KeypadLink

            keypad = KeypadLink(config.keypad_port, on_press=lambda press: table.submit(Input("keypad", press)),
                                on_health=lambda health: table.submit(Input("keypad", table._publish_devices)))
        table = Table(config, feed=feed, boards=boards, keypad=keypad)
        if feed is not None:
            holder.append(table)
            feed.start()
            stack.callback(feed.stop)
        table.start()
        if keypad is not None:
            keypad.start()
            stack.callback(keypad.stop)
        if config.referee_boxes:
            from .hw.buttons import open_boxes

            boxes = open_boxes(config.referee_boxes, pin_factory=pin_factory, clock=button_clock,
                               on_press=lambda p: table.submit(Input(f"referee_box:{p.box}", p)))
            for box in boxes:
                stack.callback(box.close)
        if control and config.control_socket is not None:
            server = ControlServer(config.control_socket, table)
            try:
                server.start()
                stack.callback(server.stop)
            except OSError as exc:
                log.error("control socket %s: %s (cueboard match new will not reach this daemon)",
                          config.control_socket, exc)
        stack.callback(table.journal.close)
        for board in boards:
            close = getattr(board, "close", None)
            if close is not None:
                stack.callback(close)
        yield table


def run(config: Config, *, pin_factory: Any = None) -> int:
    """``cueboard run``: serve the table until SIGTERM or SIGINT."""
    stop = threading.Event()
    with open_table(config, pin_factory=pin_factory) as table:
        def on_signal(signum: int, frame: Any) -> None:
            stop.set()
            table.stop()

        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
        log.info("cueboard serving %s/%s", config.venue, config.table)
        table.run(stop)
    return 0
