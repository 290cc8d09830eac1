"""The errors cueboard raises for bad input it is given, under one root (in gpiozero's manner).

Each error also inherits the built-in it refines, so code that catches ``ValueError``
still catches it::

    CueboardError                      anything cueboard refuses, with a reason
    └── ConfigError (ValueError)       a configuration that cannot be used
        ├── cueboard.config.ConfigError        the daemon's configuration file
        ├── cueboard.keymap.KeymapError        a keymap file
        ├── cueboard.feed.MqttConfigError      the [mqtt] section
        ├── cueboard.hw.display_config.DisplayConfigError   a [[display]] board
        ├── cueboard.boards.words.CatalogueError            a board language's words
        └── cueboard.hw.buttons.BoxConfigError              a [[referee_box]]

The engine's :class:`~cueboard.engine.IllegalEvent` (``ValueError``) is *not* under this
root: the engine is pure and imports nothing of cueboard outside ``engine/``. Catch
``(CueboardError, IllegalEvent)`` for "anything refused"; a bare ``ValueError`` that is
neither is a bug.

>>> from cueboard.hw.buttons import BoxConfigError
>>> issubclass(BoxConfigError, ConfigError) and issubclass(BoxConfigError, ValueError)
True
"""

from __future__ import annotations

__all__ = ["ConfigError", "CueboardError"]


class CueboardError(Exception):
    """The root of the errors cueboard raises for what it is given (not for its bugs)."""


class ConfigError(CueboardError, ValueError):
    """The configuration cannot be used; the message names the key, and once read from a
    file, the file (``/etc/cueboard/cueboard.toml: mqtt.port: must be ...``).

    Raised by the getters of :class:`cueboard.settings.Section` (as the section's own
    subclass) and by the checks built on them; nothing else becomes a ConfigError.
    """
