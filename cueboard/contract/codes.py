"""The machine codes of refusals: what a table says no with, for boards, pages and logs alike.

A refusal travels as a :class:`Reason`: its words for people (in any language, reworded at
will), its ``short`` form (what exactly: a key of :data:`TABLE_SHORTS`, :data:`NETWORK_SHORTS`
or ``cueboard.engine.errors.SHORTS``) and its ``code`` (:data:`CODES`: what a client does about
it, read off the short form by :func:`code_of`). ``rejected`` carries both beside ``reason``,
and so does every answer a desk or a scorer reads (docs/mqtt.md, "Refusal codes"). Clients
decide on the code, never the words.

>>> reason = Reason("id 'a' was applied already", "applied_already")
>>> reason.code, reason.short, code_of("not_on"), code_of("rate")
('repeat_applied', 'applied_already', 'refused', 'later')
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["CODES", "NETWORK_SHORTS", "TABLE_SHORTS", "Reason", "at_the_table", "code_of"]

TABLE_SHORTS: dict[str, str] = {
    # code: when (the table's own refusals; the engine's are cueboard.engine.errors.SHORTS)
    "wrong_key": "a key the call being keyed in does not take there (the bar says again what it waits for)",
    "nothing_to_finish": "OK or + with no call to finish",
    "wrong_keymap": "a keymap of the other game",
    "lapsed": "a key just after a call lapsed",
    "no_keymap": "a device with no keymap configured",
    "unreadable": "an input its receiver could not read",
    "not_saved": "the journal cannot be written: nothing is applied",
    "no_clock_now": "CLOCK with no shot to time",
    "clock_not_running": "hold with the shot clock not running",
    "clock_not_held": "resume with the shot clock not held",
    "time_up": "the shot clock ran out where the game has no time foul: the referee enters the foul",
    "device_failed": "a device of the table failed (``name``: which)",
}
"""Short forms of the refusals the table makes itself (the key grammar, the daemon)."""


CODES: dict[str, str] = {
    # code: what a client does (the shared contract's codes, /contract/mqtt.md)
    "refused": "the rules or the table said no: show the reason to the person; not sent again",
    "repeat_applied": "an id applied already (a repeat): done, the first answer stands; not sent again",
    "repeat_refused": "an id refused already (a repeat): refused, as the first time; not sent again",
    "later": "not taken now (a rate, a queue, no answer in time): send it again after a wait, same id",
    "malformed": "not a line the table reads (not JSON, a field or an id of the wrong kind): show it; "
                 "sent again only once fixed",
    "too_big": "longer than the table reads (commands.max_bytes): show it; not sent again as it is",
    "forbidden": "this login, its role or this topic may not send it: show it; not sent again",
}
"""What a client does about a refusal, by ``code``: the only field a client decides on."""

NETWORK_SHORTS: dict[str, tuple[str, str]] = {
    # short: (code, when): refusals of lines from the network, answered to their sender, never
    # shown on the boards (so they need no board word)
    "rate": ("later", "a sender over its rate (commands.rate, commands.burst)"),
    "queue_full": ("later", "a sender with commands.queue lines waiting already"),
    "match_too_soon": ("later", "a new match from a sender within commands.new_match_every"),
    "not_taken": ("later", "the summary, once a second, of a sender's lines without an id not taken"),
    "not_read": ("later", "the summary of a user's lines a paced link did not read (mqtt.queue)"),
    "queued_already": ("later", "an id still waiting in the queue: it will be applied or refused once"),
    "not_answered": ("later", "the control socket's answer not given within its time: the line is queued"),
    "busy": ("later", "the control socket is answering as many connections as it takes; nothing read"),
    "applied_already": ("repeat_applied", "an id applied already: not applied again"),
    "refused_already": ("repeat_refused", "an id refused already: refused again, with the first reason"),
    "not_json": ("malformed", "a line that is not one JSON object (not UTF-8, numbers JSON cannot carry)"),
    "bad_id": ("malformed", "an ``id`` that is not 1 to 64 printable characters"),
    "retained": ("malformed", "a command published with the retain flag"),
    "too_long": ("too_big", "a line longer than commands.max_bytes"),
    "unnamed": ("forbidden", "a line on the bare command topic (mqtt.unnamed_commands is off)"),
    "bad_user": ("forbidden", "a topic whose last level cannot name a user"),
    "not_a_scorers": ("forbidden", "a line a scorer's login may not send (its role: strokes only)"),
    "bad_next": ("malformed", "a hand-off on ``next`` the table cannot read"),
    "started_already": ("refused", "a hand-off on ``next`` of a fixture started on this table already"),
    "bad_message": ("malformed", "a desk's ``message`` the table cannot read"),
    "bad_presence": ("malformed", "a scorer's ``presence`` the table cannot read"),
    "too_old": ("refused", "a line whose ``t`` is older than TAP_AGE_S (cueboard.contract.lines)"),
    "too_new": ("refused", "a line whose ``t`` is more than TAP_AHEAD_S ahead of the table's clock"),
    "no_light": ("refused", "a ``light`` line to a table with no ``[light]`` (issue 43)"),
}
"""Short forms of the refusals of lines from the network, with their :data:`CODES`."""

_CODES_OF_SHORTS = {"invalid": "malformed", **{short: code for short, (code, _) in NETWORK_SHORTS.items()}}


def code_of(short: str) -> str:
    """The :data:`CODES` code of a refusal's short form: ``refused`` for the rules' and the
    table's own (the engine's ``invalid`` is ``malformed``)."""
    return _CODES_OF_SHORTS.get(short, "refused")


def at_the_table(source: str) -> bool:
    """Whether an input from ``source`` was made at the table (a referee box, the keypad, the
    table's own shot clock), so that its refusal is shown on the table's boards; a line from
    the desk (the control socket, the MQTT command topic) is answered there and on
    ``rejected``, never on the boards the hall reads."""
    return source == "keypad" or source == "clock" or source.startswith("referee_box")


class Reason(str):
    """A refusal's whole reason (for MQTT, the log and ``keypad-sim``), carrying its short
    form for the boards: ``short``, a code whose words are the board word
    ``refusal.<short>`` (:data:`TABLE_SHORTS`, ``cueboard.engine.errors.SHORTS``), with the
    ``ball`` (a ball's name), ``n`` (a number) or ``name`` it says; and its ``code`` for
    clients (:func:`code_of`). A ``str`` where words are expected, so anything that only reads
    or passes the words is unchanged; where a refusal is answered, the type is ``Reason``, so
    none goes out without its codes."""

    short: str
    ball: str | None
    n: int | None
    name: str | None

    def __new__(cls, text: str, short: str, *, ball: str | None = None, n: int | None = None,
                name: str | None = None) -> Reason:
        reason = super().__new__(cls, text)
        reason.short, reason.ball, reason.n, reason.name = short, ball, n, name
        return reason

    @classmethod
    def of_answer(cls, answer: Mapping[str, object]) -> Reason:
        """The refusal an answer says (its ``reason`` and ``short``: :meth:`codes`), or a line of
        a file that kept one; ``short`` ``refused`` when it has none (kept before the codes)."""
        short = answer.get("short")
        return cls(str(answer.get("reason")), short if isinstance(short, str) else "refused")

    @property
    def code(self) -> str:
        """What a client does about it (:data:`CODES`)."""
        return code_of(self.short)

    def codes(self) -> dict[str, str]:
        """``reason``, ``code`` and ``short``: the fields of an answer that says no."""
        return {"reason": str(self), "code": self.code, "short": self.short}
