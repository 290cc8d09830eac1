"""Wiring one table's daemon together: configuration in, devices opened, the loop run.

Each device is optional and none of them can stop the scoring: a keypad that is not
plugged in is reported ``lost`` and looked for again; a display that fails reports its
health and is retried by its Board; a broker that is down is retried by the Feed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from functools import partial
from typing import Any

from cueboard.boards.board import Board
from cueboard.contract.codes import Reason
from cueboard.contract.lines import USER_MAX, Unreadable, check_user, read_line
from cueboard.contract.topics import MESSAGE, NEXT
from cueboard.hw.clock import Clock
from cueboard.hw.keypad_link import KeypadLink
from cueboard.table.config import Config
from cueboard.table.daemon import ControlServer, Table
from cueboard.table.devices import open_board, open_relay
from cueboard.table.inputs import Command, KeyInput
from cueboard.table.mqtt.desk_links import DeskLinks
from cueboard.table.mqtt.feed import Feed
from cueboard.table.mqtt.paced_link import COMMANDS, SCORES, PacedLink
from cueboard.table.referee_boxes import RefereeBoxes
from cueboard.table.scorers import scorer_refusal
from cueboard.table.seams import Output
from cueboard.table.unarchived import Unarchived

log = logging.getLogger("cueboard")

SWITCH_INTERVAL = 0.001
"""Seconds a Python thread runs before another may take the interpreter lock (Python's default: 0.005)."""


def _command_payload(table: Table, payload: bytes, retained: bool, user: str | None,
                     source: str = "command") -> None:
    """An MQTT line from ``user`` (the last level of ``<prefix>/command/<user>``, ``source``
    ``command``, or of ``<prefix>/score/<user>``, ``source`` ``scorer``; None on the bare topic of
    ``mqtt.unnamed_commands``): one JSON event or match line, answered on event or rejected,
    exactly once whatever it holds (:mod:`cueboard.contract.lines`). A retained line is never
    applied (a restart would apply it again); the network's lines wait behind the table's own
    and within ``[commands]``'s bounds, each user's on its own (:meth:`Table.submit_remote`).
    A line over its user's rate is refused before it is parsed: its answer's ``id`` and ``type``
    are read off its first bytes (:func:`~cueboard.contract.lines.echo`). A scorer's line is taken
    only when a marker keys it (:func:`~cueboard.table.scorers.scorer_refusal`)."""
    limits = table.config.commands
    if user is None and not (table.config.mqtt is not None and table.config.mqtt.unnamed_commands):
        line = read_line(payload, limits.max_bytes)  # for its id and type
        table.refuse_remote(None if isinstance(line, Unreadable) else line, Reason(
            "command: the bare command topic is not taken: publish on <prefix>/command/<user>, under your own login, "
            "so the table knows who changed the score (mqtt.unnamed_commands = true takes it from older tools)",
            "unnamed"), source, raw=payload)
        return
    if user is not None:
        why = check_user(user)
        if why is not None:
            table.refuse_remote(None, Reason(f"command: {why}", "bad_user"), source, user=user[:USER_MAX], raw=payload)
            return
    if retained:
        line = read_line(payload, limits.max_bytes)  # for its id and type
        table.refuse_remote(None if isinstance(line, Unreadable) else line, Reason(
            "command: a retained command is never applied (a restart would apply it again): publish commands "
            "without the retain flag", "retained"), source, user=user, raw=payload)
        return
    # The rate before the line is looked at: one over it is refused unparsed, answered by the id
    # its first bytes carry (echo() reads it, as for a line that is not JSON).
    reason = table.admit(source, user)
    if reason is not None:
        table.refuse_remote(None, reason, source, user=user, raw=payload, limit=True)
        return
    obj = read_line(payload, limits.max_bytes)
    if isinstance(obj, Unreadable):
        table.refuse_remote(None, Reason(f"{source}: {obj.reason}", obj.reason.short), source, user=user, raw=payload)
        return
    if source == "scorer" and user is not None:
        why = scorer_refusal(obj, user)
        if why is not None:  # the role, named: the broker let the login write its score topic only
            table.refuse_remote(obj, Reason(why, "not_a_scorers"), source, user=user)
            return
    table.submit_remote(Command(source, obj, user=user), admitted=True)


VALUES_OF: dict[str, tuple[str, ...]] = {SCORES.name: ("presence", NEXT, MESSAGE), COMMANDS.name: ()}
"""The table's values each paced link takes (by :attr:`LineKind.name`)."""
VALUES = tuple(name for names in VALUES_OF.values() for name in names)


def score_payload(table: Table, payload: bytes, retained: bool, user: str | None) -> None:
    """A line of ``<prefix>/score/<user>`` (a scorer's phone), as a command with the scorer's role."""
    _command_payload(table, payload, retained, user, source="scorer")


@contextlib.contextmanager
def open_table(config: Config, *, pin_factory: Any = None, boards: Sequence[Output] | None = None,
               control: bool = True, button_clock: Clock | None = None,
               wall: Callable[[], float] = time.time) -> Iterator[Table]:
    """The table with its devices open; everything is closed on exit. ``pin_factory`` (a
    gpiozero pin factory) and ``button_clock`` (the clock the referee boxes debounce on) are
    for tests and benches: gpiozero's MockFactory and a ManualClock. ``boards``: outputs of
    the caller's instead of the configured boards (closed on exit all the same). ``wall``: the
    table's clock for the times it stamps and a message's end (tests pass their own)."""
    # The engine thread waits for Python's interpreter lock behind the MQTT client's thread
    # when the network floods the table: hand it over every 1 ms, not every 5 (issue 16).
    sys.setswitchinterval(SWITCH_INTERVAL)
    with ExitStack() as stack:
        feed = None
        if config.mqtt is not None:
            holder: list[Table] = []
            # The commands come on a paced link of their own (cueboard.table.mqtt.paced_link): the feed takes
            # them only if the broker refuses that link's login (an older venue's files).
            feed = Feed(config.mqtt, table=config.table,
                        on_command=lambda payload, retained, user: _command_payload(holder[0], payload, retained,
                                                                                    user),
                        commands_on_link=config.mqtt.command)
        if boards is None:
            opened: list[Board] = [open_board(display) for display in config.displays]
            boards = list(opened)
        keypad = None
        if config.keypad_port is not None:
            keypad = KeypadLink(config.keypad_port, on_press=lambda press: table.submit(KeyInput("keypad", press)),
                                on_health=lambda health: table.health_changed("keypad"))
        boxes = None
        if config.referee_boxes:
            boxes = RefereeBoxes(config.referee_boxes, pin_factory=pin_factory, clock=button_clock,
                                 on_press=lambda p: table.submit(KeyInput(f"referee_box:{p.box}", p)),
                                 on_health=lambda health: table.health_changed("buttons"))
        table = Table(config, feed=feed, boards=boards, keypad=keypad, buttons=boxes, wall=wall)
        if config.light is not None:  # opened by the table's start, at the level its journal says
            table.light.opener = partial(open_relay, config.light, pin_factory=pin_factory)
            stack.callback(table.light.close)
        if feed is not None:
            holder.append(table)
            assert config.mqtt is not None
            # each match's record kept until an archive says it stored it (issue 38)
            table.unarchived = Unarchived(feed, config.mqtt.prefix, config.table, wall)
            feed.on_every_connect(table.unarchived.listen)
            if config.home_assistant is not None and config.mqtt is not None:  # discovery needs [mqtt]
                from cueboard.table.home_assistant import Discovery

                feed.on_every_connect(Discovery(config.home_assistant, venue=config.venue, table=config.table,
                                                topic_prefix=config.mqtt.prefix).on_connect)
            if config.mqtt is not None and config.mqtt.command:
                # next, message and the scorers' presence come on the paced links (their values), unless
                # an older venue's broker refuses them there (docs/mqtt.md)
                table.topics.on_links.update(VALUES)
                feed.on_every_connect(table.topics.listen)
            feed.start()
            stack.callback(feed.stop)
            if config.mqtt is not None and config.mqtt.command:
                # The scorers' lines and the commands, each on a connection of its own, read no faster
                # than answered (cueboard.table.mqtt.paced_link); their health on <prefix>/devices. Each
                # desk login's commands on a link of their own too (cueboard.table.mqtt.desk_links), the
                # shared commands link taking those of a desk without one.
                desks = DeskLinks(config.mqtt, feed, partial(_command_payload, table), desks=config.mqtt.desks)
                table.desk_links = desks
                for kind, on_line, on_refused in ((SCORES, partial(score_payload, table), None),
                                                  (COMMANDS, partial(_command_payload, table), feed.take_commands)):
                    device = f"mqtt_{kind.name}"
                    values = VALUES_OF[kind.name]
                    link = PacedLink(config.mqtt, feed, kind, on_line, on_refused=on_refused,
                                     on_health=partial(_link_health, table, device), on_value=table.topics.on_value,
                                     on_values_refused=partial(table.topics.values_refused, values),
                                     admit=desks.admit_shared if kind is COMMANDS else None)
                    table.links[device] = link
                    link.start()
                    stack.callback(link.stop)
                desks.start()
                stack.callback(desks.stop)
        table.start()
        if keypad is not None:
            keypad.start()
            stack.callback(keypad.stop)
        if boxes is not None:
            boxes.start()  # a GPIO chip that cannot be had is retried; the scoring goes on
            stack.callback(boxes.close)
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
            stack.callback(board.close)
        yield table


def _link_health(table: Table, device: str, health: str) -> None:
    """A paced link's health changed: the devices are published again (not for the quiet
    ``connecting`` of a start, which ``ok`` follows)."""
    if health != "connecting":
        table.health_changed(device)


STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def run(config: Config, *, pin_factory: Any = None) -> int:
    """``cueboard run``: serve the table until SIGTERM or SIGINT.

    The kernel may deliver the signal to any of the process's threads (luma's pool, the
    MQTT client's ...). Python runs its handler in the main thread, but only once that
    thread runs again: asleep on the engine's queue with no deadline (no watchdog, no clock
    running) it would sleep on, and a stop waited for its SIGKILL. So the signal is also
    written to a pipe (``signal.set_wakeup_fd``) whose reader stops the table from its own
    thread, which wakes the engine loop whatever thread took the signal."""
    stop = threading.Event()
    with open_table(config, pin_factory=pin_factory) as table:
        def on_signal(signum: int, frame: Any) -> None:
            stop.set()
            table.stop()

        for number in STOP_SIGNALS:
            signal.signal(number, on_signal)
        with _stop_on_signal(table, stop):
            log.info("cueboard serving %s/%s", config.venue, config.table)
            table.run(stop)
    return 0


@contextlib.contextmanager
def _stop_on_signal(table: Table, stop: threading.Event) -> Iterator[None]:
    """While inside, a stop signal taken by any thread stops ``table`` (see :func:`run`)."""
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    previous = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)

    def relay() -> None:
        while True:
            try:
                got = os.read(read_end, 16)
            except OSError:
                return
            if not got:
                return
            if any(number in STOP_SIGNALS for number in got):
                stop.set()
                table.stop()

    thread = threading.Thread(target=relay, name="signals", daemon=True)
    thread.start()
    try:
        yield
    finally:
        signal.set_wakeup_fd(previous)
        os.close(write_end)  # the reader sees the end of the pipe and returns
        thread.join(5)
        os.close(read_end)
