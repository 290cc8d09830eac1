"""What the table's parts beside the engine loop may ask of the table (:class:`TableApi`):
:class:`~cueboard.table.topics.TableTopics` takes a table through this, never its private
members, so the topics and the daemon (:class:`cueboard.table.daemon.Table`, which satisfies
it) do not import each other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from cueboard.contract.codes import Reason
    from cueboard.contract.notices import Prompt
    from cueboard.engine import Match
    from cueboard.engine.json_value import JsonObject
    from cueboard.engine.state import State
    from cueboard.table.answers import Answers
    from cueboard.table.config import Config
    from cueboard.table.inputs import Input, Reply
    from cueboard.table.journal import Journal
    from cueboard.table.seams import Publisher

__all__ = ["TableApi"]


class TableApi(Protocol):
    """One table, as its topics (``next``, ``message``, history, preview, scorers) see it."""

    @property
    def config(self) -> Config: ...

    @property
    def feed(self) -> Publisher | None: ...

    @property
    def match(self) -> Match | None:
        """The match being played (the engine thread's)."""
        ...

    @property
    def latest_state(self) -> State | None:
        """The state last shown and published."""
        ...

    @property
    def answers(self) -> Answers: ...

    @property
    def journal(self) -> Journal: ...

    def wall(self) -> float:
        """The table's wall clock (Unix seconds): the one its events are stamped with."""
        ...

    def monotonic(self) -> float:
        """The engine loop's clock, for its deadlines."""
        ...

    def submit(self, item: Input) -> None:
        """Hand an input to the engine thread (any thread)."""
        ...

    def submit_value(self, key: str, item: Input) -> None:
        """A value from the network (any thread): the newest per ``key`` waits, never queued."""
        ...

    def refuse_line(self, obj: JsonObject | None, reason: Reason, source: str, reply: Reply | None = None) -> None:
        """Refuse a line on the engine thread: counted, answered, on ``rejected``."""
        ...

    def refuse_remote(self, obj: JsonObject | None, reason: Reason, source: str, reply: Reply | None = None,
                      *, limit: bool = False, user: str | None = None, raw: bytes | None = None) -> None:
        """Refuse a network line the engine thread has not seen (any thread)."""
        ...

    def new_match(self, fields: JsonObject, source: str, reply: Reply | None, ident: str | None = None) -> None:
        """Start a new match of ``fields`` (the match line's), journalled first."""
        ...

    def show_and_publish(self) -> None:
        """Show the state on the boards and publish it again (what the topics add changed)."""
        ...

    def publish_devices(self, force: bool = False) -> None:
        """Publish the devices' health when it changed."""
        ...

    def show_call(self, source: str, prompt: Prompt | None, expires: float | None = None) -> None:
        """Show the call being keyed in on ``source`` (None: no call any more)."""
        ...
