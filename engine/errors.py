"""The one error the engine raises for bad input, and the short forms of its reasons."""

from __future__ import annotations

__all__ = ["SHORTS", "IllegalEvent"]

SHORTS: dict[str, str] = {
    # code: when (each code is a board word, ``refusal.<code>``, in every board language)
    "match_over": "the match is over: nothing more can be entered",
    "frame_over": "the frame is over: next_frame (or the match's end) comes first",
    "frame_not_over": "next_frame before the frame has ended",
    "respot_first": "a re-spotted black: who plays it is entered first",
    "respot_not_now": "respotted_black with no re-spotted black",
    "not_on": "the ball ``ball`` is on: potting another one is a foul (enter a foul)",
    "one_colour": "after a red one colour only is on",
    "not_on_table": "more balls than are on the table",
    "no_free_ball": "no free ball can be had now",
    "one_free_ball": "only one ball is the free ball",
    "foul_points": "a snooker foul is 4 to 7 points",
    "foul_at_least": "a foul on ``ball`` is at least ``n`` points",
    "no_miss": "no miss can be called now",
    "after_replace_only": "a foul before a stroke follows a replace",
    "after_foul_only": "play_again follows a foul",
    "after_miss_only": "replace follows a foul and a miss",
    "no_claim": "no claim in aggregate play",
    "claim_black_only": "a frame is claimed only on the last black",
    "claim_lead": "a claim needs a lead over 7 (the lead is ``n``)",
    "wrong_player": "that player does not play for that side",
    "doubles_only": "the order of play is four-handed snooker's",
    "order_set": "the order of play is set already",
    "wrong_order": "an order of play the rules do not allow",
    "nothing_to_undo": "undo with nothing to take back",
    "nothing_to_redo": "redo with nothing to put back",
    "not_your_group": "blackball: a ball of the other group (``ball``) potted: a foul",
    "enter_foul": "a stroke that is not legal is entered as a foul",
    "no_clock": "no shot clock in this match",
    "time_no_balls": "a foul for time pots nothing",
    "is_striker": "a foul by another player (non_striker, out_of_turn) names the striker",
    "started_by_first": "started_by after the frame's first stroke (amend inserts it there)",
    "breaks_already": "started_by names the side that breaks this frame already",
    "miss_frame_only": "an award for a third miss gives the frame, not the match",
    "no_miss_warning": "an award for a miss other than right after the third failure (after the warning)",
    "award_to_opponent": "an award for misses goes to the opponent of the side that missed",
    "touching_called": "blackball: the same touching ball called twice for one stroke",
    "clock_held": "the shot clock is held: no second clock_hold, no foul for time",
    "clock_not_held": "clock_resume while the shot clock runs (the daemon says it too: TABLE_SHORTS)",
    "amend_no_event": "an amend of event ``n``, beyond the events in effect",
    "amend_illegal": "an amend whose event cannot be event ``n`` (the whole reason says why)",
    "amend_later": "an amend after which event ``n`` no longer applies",
    "match_setup": "a match line the rules do not allow (best_of, sides, names ...)",
    "invalid": "an input that is not an event the table takes (a field, a type, not JSON)",
}
"""Every refusal the engine makes has one of these short forms, for the boards (the
referee reads them at a glance; the whole reason, with the rule, goes to MQTT and the log).
``tests/boards/test_refusals.py`` checks that every ``IllegalEvent`` names one, and that every
board language has each."""


class IllegalEvent(ValueError):
    """An event (or a match line) that is malformed, unknown or impossible now.

    The message is for the referee and the marker: it says what is wrong and,
    where there is one, names the rule (``"pink is on: a foul is at least 6
    (Section 3 Rule 10)"``). The match it was offered to is unchanged.

    ``short`` is the same in a few words (a code of :data:`SHORTS`, which the boards
    say in their language), with its ``ball`` and number ``n`` where it has them.
    """

    def __init__(self, message: str, *, short: str, ball: str | None = None, n: int | None = None) -> None:
        super().__init__(message)
        self.short = short
        self.ball = ball
        self.n = n

    def __reduce__(self) -> tuple[object, ...]:  # pickled with its short form (multiprocessing, copy)
        return (_rebuild, (str(self), self.short, self.ball, self.n))


def _rebuild(message: str, short: str, ball: str | None, n: int | None) -> IllegalEvent:
    return IllegalEvent(message, short=short, ball=ball, n=n)
