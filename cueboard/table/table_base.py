"""What one table holds (:class:`TableBase`): its match, journal, inputs' bookkeeping and outputs,
the keymaps its devices are read with, and its clocks. The engine thread's work on them is
in the classes built on it: :mod:`~cueboard.table.showing`, :mod:`~cueboard.table.refusals`,
:mod:`~cueboard.table.match_start` and :class:`cueboard.table.daemon.Table`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from cueboard.contract.notices import Prompt
from cueboard.engine import Match
from cueboard.engine.record import Recorder
from cueboard.engine.shot_clock import ShotClock
from cueboard.engine.state import State
from cueboard.table.answers import Answers
from cueboard.table.clock_control import ClockControl
from cueboard.table.config import Config
from cueboard.table.health import OK
from cueboard.table.inbox import Inbox
from cueboard.table.journal import Journal
from cueboard.table.keymap import Entry, Keymap, load_keymap
from cueboard.table.light import TableLight
from cueboard.table.rate_limiter import RateLimiter
from cueboard.table.seams import Healthy, KeypadLike, Output, Publisher
from cueboard.table.unarchived import Unarchived

if TYPE_CHECKING:
    from cueboard.table.mqtt.desk_links import DeskLinks
    from cueboard.table.topics import TableTopics

__all__ = ["TableBase"]


class TableBase:
    """One table's parts (see the module's documentation)."""

    topics: TableTopics
    """next, message, history, preview and the scorers (docs/mqtt.md): made by the daemon's
    :class:`~cueboard.table.daemon.Table`, which is what they take (:class:`~cueboard.table.table_api.TableApi`)."""

    def __init__(self, config: Config, *, feed: Publisher | None = None, boards: Iterable[Output] = (),
                 keypad: KeypadLike | None = None, buttons: Healthy | None = None,
                 wall: Callable[[], float] = time.time, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.buttons = buttons
        self.feed = feed
        self.boards = list(boards)
        self.keypad = keypad
        self._wall = wall
        self._mono = monotonic
        self.journal = Journal(config.journal_dir)
        self.match: Match | None = None
        self.recorder: Recorder | None = None
        """The match record (docs/record.md), kept up to date event by event."""
        self.unarchived: Unarchived | None = None
        """Each match's record kept for an archive (set by the service with the feed)."""
        self.latest_state: State | None = None
        """The state last shown, published and answered (read by any thread: never changed)."""
        self.inbox = Inbox()  # the table's own inputs first, then a lane per network sender
        self._counting = threading.Lock()  # accepted and refused, counted from any thread
        self._user: str | None = None  # who sent the input the engine thread is handling
        self.limiter = RateLimiter(config.commands, monotonic)
        self.answers = Answers()
        self._entries: dict[str, Entry] = {}
        self._keymaps: dict[str, Keymap] = {}
        self._prompts: dict[str, Prompt | None] = {}
        self.clocks = ClockControl()
        self.devices: dict[str, str] = {}
        self._journal_health = OK
        self._last_ping = 0.0
        self.started = threading.Event()
        self.accepted = 0
        self.refused = 0
        self.dropped_values = 0  # network values not kept (too many keys waiting): counted, logged
        self.light = TableLight(config.light, journal=self.journal, match=lambda: self.match, wall=wall,
                                mono=monotonic, submit=self.inbox.put, changed=self._light_changed)
        """The table's light (issue 43; docs/hardware.md): its relay opened by the service."""
        self.links: dict[str, Healthy] = {}
        """The paced links' health by device name (``mqtt_commands``: cueboard.table.mqtt.paced_link), read
        when the devices are published; a link calls :meth:`health_changed` when it changes."""
        self.desk_links: DeskLinks | None = None
        """The desk logins' own commands links (cueboard.table.mqtt.desk_links), with ``[mqtt]`` commands."""


    @property
    def clock(self) -> ShotClock | None:
        """The shot clock running or held now (:class:`~cueboard.table.clock_control.ClockControl`)."""
        return self.clocks.clock

    def wall(self) -> float:
        """The table's wall clock (Unix seconds): events are stamped with it."""
        return self._wall()

    def monotonic(self) -> float:
        """The engine loop's clock, for its deadlines."""
        return self._mono()

    # -- keymaps ---------------------------------------------------------------------------

    def _light_changed(self) -> None:
        """The light changed or its wait did: the table publishes its state (``MatchStart``)."""

    def _load_keymaps(self) -> None:
        for name, path in (("referee_box", self.config.referee_keymap), ("keypad", self.config.keypad_keymap)):
            if path is not None and name not in self._keymaps:
                self._keymaps[name] = load_keymap(path)

    def _entry(self, source: str) -> Entry | None:
        """The key sequence in progress on one device: each referee box (``referee_box:N``)
        and the keypad has its own, so a call begun on one is not finished on another. A
        keymap of the other game refuses its keys, saying so, until a match of its game."""
        entry = self._entries.get(source)
        if entry is None:
            keymap = self._keymaps.get(source.split(":")[0])
            if keymap is None:
                return None
            entry = self._entries[source] = Entry(keymap)
        return entry
