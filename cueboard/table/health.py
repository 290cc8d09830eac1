"""A device's health as a typed value: what the table reports on ``<prefix>/devices``.

Each device says how it is in a word, with a detail when there is something to do about it
(docs/mqtt.md): ``ok``; ``connecting``; ``silent`` (the keypad answers no ping); ``lost``
(unplugged, or a scorer's phone gone); ``failed: <reason>`` (a board, the buttons, the
journal); ``down: <reason>`` (the MQTT link). The devices speak these strings (their own
modules, below the daemon); the daemon reads them once into :class:`Health` and decides on
the typed value (a failure is flashed on the boards), and :meth:`Health.wire` gives back the
same string for the topic.

>>> Health.of("failed: SPI: No such device").failed, Health.of("ok").state
(True, <HealthState.OK: 'ok'>)
>>> Health.of("lost: /dev/ttyACM0 cannot be opened").wire()
'lost: /dev/ttyACM0 cannot be opened'
>>> Health(HealthState.FAILED, "no space left").wire()
'failed: no space left'
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["OK", "Health", "HealthState"]


class HealthState(enum.StrEnum):
    OK = "ok"
    CONNECTING = "connecting"
    SILENT = "silent"
    LOST = "lost"
    FAILED = "failed"
    DOWN = "down"


@dataclass(frozen=True, slots=True)
class Health:
    """One device's health: its state and, when there is one, what is wrong or what to do."""

    state: HealthState
    detail: str = ""

    @classmethod
    def of(cls, text: str) -> Health:
        """The health a device reports as a string (``"failed: <reason>"``). A word no device
        uses is kept whole as a failure's detail, never taken for ``ok``."""
        word, _, detail = text.partition(":")
        try:
            return cls(HealthState(word.strip()), detail.strip())
        except ValueError:
            return cls(HealthState.FAILED, text)

    @property
    def failed(self) -> bool:
        """The device stopped working (the people at the table are told, on its boards)."""
        return self.state is HealthState.FAILED

    def wire(self) -> str:
        """As ``<prefix>/devices`` carries it: the word, and ``: <detail>`` when there is one."""
        return self.state.value if not self.detail else f"{self.state.value}: {self.detail}"


OK = Health(HealthState.OK)
