"""Every error cueboard raises for what it is given, under one root (:class:`CueboardError`,
whose docstring draws the tree), in one module (as gpiozero's ``exc.py``).
"""

from __future__ import annotations

__all__ = [
    "BoxConfigError",
    "CatalogueError",
    "ConfigError",
    "ConfigFileError",
    "CueboardError",
    "DaemonRunning",
    "DatabaseError",
    "DisplayConfigError",
    "DrawError",
    "FixtureError",
    "HandoffRefused",
    "HomeAssistantConfigError",
    "JoinRefused",
    "KeymapError",
    "LogError",
    "MessageRefused",
    "MissingLibrary",
    "MqttConfigError",
    "NameRefused",
    "NotYet",
    "PkiError",
    "PresenceRefused",
    "RecordError",
    "RejectedLine",
    "RenderError",
    "ReportError",
    "SiteError",
    "SpiUnavailable",
    "UnsupportedDriver",
    "VenueError",
]


class CueboardError(Exception):
    """The root of the errors cueboard raises for what it is given (not for its bugs).

    Each error also inherits the built-in it refines, so code that catches ``ValueError`` (or
    ``OSError``, ``RuntimeError``) still catches it; the modules that raise them re-export them
    under the same names (``cueboard.table.mqtt.feed.MqttConfigError`` is this module's)::

        CueboardError                          anything cueboard refuses, with a reason
        ├── ConfigError (ValueError)           a configuration that cannot be used
        │   ├── ConfigFileError                the daemon's configuration file (cueboard.table.config)
        │   ├── KeymapError                    a keymap file (cueboard.table.keymap)
        │   ├── MqttConfigError                the [mqtt] section (cueboard.table.mqtt.feed)
        │   ├── HomeAssistantConfigError       the [home_assistant] section
        │   ├── DisplayConfigError             a [[display]] board (cueboard.hw.display_config)
        │   ├── BoxConfigError                 a [[referee_box]] (cueboard.hw.box_config)
        │   ├── CatalogueError                 a board language's words (cueboard.boards.words)
        │   └── VenueError                     a change the venue's record refuses (cueboard.venue)
        ├── RejectedLine                       a log line the engine refuses on replay
        ├── HandoffRefused (ValueError)        a match the desk hands on (cueboard.table.next_match)
        ├── MessageRefused (ValueError)        the desk's message to a table (cueboard.table.message)
        ├── PresenceRefused (ValueError)       a scorer's presence (cueboard.table.scorers)
        ├── RenderError (ValueError)           what ``cueboard render`` cannot draw
        ├── ReportError                        a log ``cueboard report`` cannot read or replay
        ├── DaemonRunning (RuntimeError)       ``cueboard hwtest``: the daemon has the devices
        ├── PkiError (RuntimeError)            openssl missing or refusing (cueboard.venue.pki)
        ├── UnsupportedDriver (RuntimeError)   a WS2812 board this Pi cannot drive so
        ├── MissingLibrary (RuntimeError)      a HUB75 backend's library not installed
        └── SpiUnavailable (OSError)           a board's SPI bus cannot be had (it retries)

    The engine's :class:`~cueboard.engine.IllegalEvent` (``ValueError``) is *not* under this
    root: the engine is pure and imports nothing of cueboard outside ``engine/``. Catch
    ``(CueboardError, IllegalEvent)`` for "anything refused"; a bare ``ValueError`` that is
    neither is a bug. Programming errors (``cueboard.games.kits.IncompleteGame``) are not here either.
    """


# -- configuration --------------------------------------------------------------------------


class ConfigError(CueboardError, ValueError):
    """The configuration cannot be used; the message names the key, and once read from a
    file, the file (``/etc/cueboard/cueboard.toml: mqtt.port: must be ...``).

    Raised by the getters of :class:`cueboard.common.settings.Section` (as the section's own
    subclass) and by the checks built on them; nothing else becomes a ConfigError.

    >>> from cueboard.hw.buttons import BoxConfigError
    >>> issubclass(BoxConfigError, ConfigError) and issubclass(BoxConfigError, ValueError)
    True
    """


class ConfigFileError(ConfigError):
    """The daemon's configuration file cannot be used; the message names the key, and from
    :func:`cueboard.table.config.load_config` the file first
    (``/etc/cueboard/cueboard.toml: journal.dri: ...``).

    The errors of the sections' own parsers (:class:`MqttConfigError`, ...: every
    :class:`ConfigError`) are raised again as this one; nothing else is (a ``ValueError``
    from a bug stays what it is)."""


class KeymapError(ConfigError):
    """A keymap file that cannot be used; the message names the file and the key
    (``keymaps/referee-box-12.toml: hold.FOUL: ...``)."""


class MqttConfigError(ConfigError):
    """A bad ``[mqtt]`` setting; the message starts with the key (``mqtt.port: ...``)."""


class HomeAssistantConfigError(ConfigError):
    """``[home_assistant]`` cannot be used; the message names the key."""


class DisplayConfigError(ConfigError):
    """A board's configuration is wrong; the message names the key (``display[1].width: ...``)."""


class BoxConfigError(ConfigError):
    """A referee box's configuration is wrong; the message names the key (``referee_box[0].pins: ...``)."""


class CatalogueError(ConfigError):
    """A catalogue's ``board`` section is not what the boards read (names the file and key):
    a board in that language cannot start, so the daemon's configuration is refused."""


class VenueError(ConfigError):
    """A change the venue's record refuses; the message names the option and the rule."""


class JoinRefused(VenueError):
    """A bundle ``cueboard join`` does not apply; ``short``: the machine's code."""

    def __init__(self, message: str, short: str) -> None:
        super().__init__(message)
        self.short = short


# -- logs and the commands that read them ---------------------------------------------------


class RejectedLine(CueboardError):
    """A line of the log the engine refused: ``line`` is 1-based, the match line being 1."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


class RenderError(CueboardError, ValueError):
    """The input is not a state or a log ``cueboard render`` can draw."""


class ReportError(CueboardError):
    """A log that cannot be read (exit status 1) or has a refused line (exit status 2)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class DaemonRunning(CueboardError, RuntimeError):
    """The daemon has the devices (its control socket answers, or a device is busy)."""


class PkiError(CueboardError, RuntimeError):
    """openssl is missing or refused: the message says which and why."""


# -- hardware -------------------------------------------------------------------------------


class UnsupportedDriver(CueboardError, RuntimeError):
    """This Pi cannot drive the board the way its configuration says; the message says what to do."""


class MissingLibrary(CueboardError, RuntimeError):
    """The library this Pi drives a HUB75 panel with is not installed; the message says how."""


class SpiUnavailable(CueboardError, OSError):
    """A board's SPI bus cannot be had; the message says what to do (the board retries)."""


# -- what the desk and the scorers say to a table besides commands (docs/mqtt.md) -----------


class HandoffRefused(CueboardError, ValueError):
    """A ``<prefix>/next`` payload the table does not take: the reason names the field and the rule."""


class MessageRefused(CueboardError, ValueError):
    """A ``<prefix>/message`` payload the table does not take: the reason names the field and the rule."""


class PresenceRefused(CueboardError, ValueError):
    """A scorer's ``presence`` payload the table does not take."""


class NameRefused(CueboardError, ValueError):
    """A name or a message refused under RFC 8266's nickname rules (``cueboard.contract.names``);
    the words say where, which character and why."""

    short = "nickname"


# -- the league's side (fixtures, draws, the results archive) --------------------------------


class FixtureError(CueboardError, ValueError):
    """A fixture file refused: the file, the line (1: the header) and the reason."""

    def __init__(self, where: str, line: int | None, reason: str) -> None:
        at = f" line {line}" if line is not None else ""
        super().__init__(f"{where}{at}: {reason}")
        self.line = line
        self.reason = reason


class DrawError(CueboardError, ValueError):
    """A draw that cannot be made: the reason."""


class RecordError(CueboardError, ValueError):
    """A record the archive refuses: which one and why."""


class NotYet(RecordError):
    """A match just begun: no frame ended and no first event's time. Not an error: the table
    publishes its current match's record when a match begins (record.md, "On the feed"); there
    is nothing to archive until it is played."""


class LogError(CueboardError):
    """A log that cannot be read (status 1) or has a refused line (status 2), named."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class SiteError(CueboardError):
    """The league site's output folder cannot be used (its path named): ``cueboard archive site``."""


class DatabaseError(CueboardError):
    """A database that cannot be opened or used: the URL and the reason."""
