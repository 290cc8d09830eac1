"""Refusing an input (:class:`Refusals`): counted, logged, answered, on ``rejected`` and, when it
was made at the table, on the boards; a flood's refusals summed up once a second per sender.
How a reason is worded is the refuser's (:class:`~cueboard.contract.codes.Reason`); here it is
only said.
"""

from __future__ import annotations

import logging
from functools import partial

from cueboard.contract.codes import Reason, at_the_table
from cueboard.contract.lines import peek_id
from cueboard.engine import IllegalEvent
from cueboard.engine.json_value import JsonObject
from cueboard.table.guard import guard
from cueboard.table.inputs import Reply
from cueboard.table.rate_limiter import sender
from cueboard.table.showing import Showing

log = logging.getLogger("cueboard")

__all__ = ["Refusals", "engine_reason"]


class Refusals(Showing):
    """The table's refusals (see the module's documentation)."""

    def _answer_again(self, obj: JsonObject, known: JsonObject, source: str, reply: Reply | None,
                      user: str | None) -> None:
        """A line whose id was answered (or is queued) already: not applied again, and its first
        answer given again; to a sender without a reply (the command topic) on ``rejected``,
        whose reason says it was applied (``"applied": true`` in the event echo's place is not
        the contract's: the reason says it), since this line changed nothing."""
        if reply:
            reply(known)
            return
        if self.feed is None:
            return
        ident = obj.get("id")
        if known.get("ok"):
            why = Reason(f"id {ident!r} was applied already: not applied again (a repeat)", "applied_already")
        elif known.get("queued"):
            why = Reason(str(known.get("reason")), "queued_already")
        else:
            why = Reason(f"id {ident!r} was refused already: {known.get('reason')}", "refused_already")
        guard(partial(self.feed.publish_rejected, obj, why, source, user=user))

    def _refuse(self, obj: JsonObject | None, reason: Reason, source: str, reply: Reply | None = None,
                *, show: bool = True) -> None:
        """Refuse an input: counted, logged, answered and published on ``rejected`` with the
        whole ``reason``; on the boards (a blink and the short form, :class:`~cueboard.contract.codes.Reason`)
        only when it was made at the table (:func:`~.seams.at_the_table`): a desk's mistake is
        answered at the desk, not shown to the hall."""
        with self._counting:
            self.refused += 1
        log.info("refused from %s: %s", source, reason)
        if show and at_the_table(source):
            for board in self.boards:
                guard(board.flash, None, reason)
        if self.feed is not None:
            guard(partial(self.feed.publish_rejected, obj, reason, source, user=self._user))
        if source == "keypad" and self.keypad is not None:
            self.keypad.feedback(False)
        if reply:
            reply({"ok": False, **reason.codes()})

    def refuse_line(self, obj: JsonObject | None, reason: Reason, source: str, reply: Reply | None = None) -> None:
        """:meth:`_refuse`, for the table's topics (:class:`~cueboard.table.table_api.TableApi`)."""
        self._refuse(obj, reason, source, reply)

    def refuse_remote(self, obj: JsonObject | None, reason: Reason, source: str, reply: Reply | None = None,
                      *, limit: bool = False, user: str | None = None, raw: bytes | None = None) -> None:
        """A network line refused before the engine thread saw it (any thread): answered,
        counted, published on ``rejected`` (with ``user``, and at most 1 KiB of ``raw``, the
        bytes of a line that is not an object); the boards do not blink for the network's load.
        ``limit``: refused by a bound (a flood): a line with an ``id`` always gets its own
        answer (in its user's lane of the feed, which only that user's flood can fill); past a
        few a second the refusals of lines without one are counted and published as one summary
        a second per sender (:meth:`_publish_not_taken`); none goes unsaid."""
        with self._counting:
            self.refused += 1
        # A limit's refusal of a line without an id past a few a second: counted for the summary.
        has_id = isinstance(obj.get("id"), str) if obj is not None else raw is not None and peek_id(raw) is not None
        publish = not limit or self.limiter.said_alone(sender(source, user), reason, user, has_id=has_id)
        if reply:
            reply({"ok": False, **reason.codes()})
        if publish and self.feed is not None:
            guard(partial(self.feed.publish_rejected, obj, reason, source, user=user, raw=raw))

    def _publish_not_taken(self) -> None:
        """One ``rejected`` a second for each source whose limit refusals were counted, not
        published one by one (:meth:`refuse_remote`)."""
        for counted in self.limiter.summaries():
            log.warning("%d more lines from %s not taken: %s", counted.count, counted.sender, counted.reason)
            if self.feed is not None:
                guard(partial(self.feed.publish_rejected, None, Reason(
                    f"{counted.count} more lines from {counted.sender} not taken in the last second, not answered "
                    f"one by one (lines without an id): {counted.reason}", "not_taken"), counted.sender.split("/")[0],
                    user=counted.user))


def engine_reason(text: str, exc: IllegalEvent) -> Reason:
    """The engine's refusal ``exc`` (its reason put as ``text``), with its short form."""
    return Reason(text, exc.short, ball=exc.ball, n=exc.n)
