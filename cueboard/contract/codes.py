"""The machine codes of refusals: what a table says no with, for boards, pages and logs alike.

A refusal travels as a :class:`Reason`: its words for people and its ``short`` code for
machines (``rejected``'s ``code``, docs/mqtt.md). Clients decide on the code, never the words.
"""

from __future__ import annotations

__all__ = ["TABLE_SHORTS", "Reason", "at_the_table"]

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
    ``ball`` (a ball's name), ``n`` (a number) or ``name`` it says. A plain ``str`` where
    a reason is expected, so anything that only reads or passes the reason is unchanged."""

    short: str
    ball: str | None
    n: int | None
    name: str | None

    def __new__(cls, text: str, short: str, *, ball: str | None = None, n: int | None = None,
                name: str | None = None) -> Reason:
        reason = super().__new__(cls, text)
        reason.short, reason.ball, reason.n, reason.name = short, ball, n, name
        return reason
