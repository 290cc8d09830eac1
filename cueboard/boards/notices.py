"""What the bar says for a refusal, an undo, a redo or a correction, in the board's words
(a refusal's short form; what an undo took back). Why short forms: docs/boards.md,
"The conversation bar".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from cueboard.boards.shown import Shown
from cueboard.contract.codes import Reason
from cueboard.contract.notices import Notice
from cueboard.engine.blackball.events import Foul as BlackballFoul
from cueboard.engine.events import Amend, Event, Pot
from cueboard.engine.snooker.events import Foul as SnookerFoul

__all__ = ["correction_forms", "event_forms", "notice_words", "refusal_forms", "standing_words"]

Say = Callable[..., list[str]]

BALL_WORDS = frozenset({"colour", "red", "yellow", "green", "brown", "blue", "pink", "black"})


def ball_word(ball: str, say: Say) -> str:
    """A ball's name in the board's words, its shortest form ("COLOUR", not "ANY COLOUR")."""
    return say(f"ball.{ball}")[-1] if ball in BALL_WORDS else ball.upper()


def refusal_forms(reason: Reason, say: Say) -> tuple[str, ...]:
    """The short forms of ``reason``, long to short (empty: no board word for its code, the
    caller then says the whole reason)."""
    ball = ball_word(reason.ball, say) if reason.ball else None
    name = reason.name.upper() if reason.name else None
    try:
        return tuple(say(f"refusal.{reason.short}", n=reason.n, name=name, ball=ball))
    except KeyError:
        return ()


def _balls(balls: Sequence[str], say: Say) -> str:
    """The balls of a stroke: ``BLACK``, ``2 RED``, ``FREE BALL PINK``."""
    counts = Counter(balls)
    out = []
    for ball, count in counts.items():
        word = say("event.free")[0] if ball == "free" else ball_word(ball, say)
        out.append(word if count == 1 else f"{count} {word}")
    return " ".join(out)


def event_forms(event: Event, say: Say) -> tuple[str, ...]:
    """An event of the log in the board's words, long to short."""
    if isinstance(event, Pot):
        return tuple(say("event.pot", ball=_balls(event.balls, say)))
    if isinstance(event, SnookerFoul):
        return tuple(say("event.foul_miss" if event.miss else "event.foul", n=event.points))
    if isinstance(event, BlackballFoul):  # blackball's fouls carry no points (rule 4)
        return tuple(say("event.foul_plain"))
    if isinstance(event, Amend):  # the undo or redo of a correction names it by the event it corrected
        return tuple(say("event.amend", n=event.seq))
    try:
        return tuple(say(f"event.{event.TYPE}"))
    except KeyError:
        return (event.TYPE.replace("_", " ").upper(),)


def correction_forms(amend: Amend, say: Say) -> tuple[str, ...]:
    """What an amend made of the log, long to short: ``EVENT 14: POT PINK``, ``EVENT 14
    DELETED``, ``FOUL 4 BEFORE EVENT 14`` (docs/events.md, Corrections)."""
    n = amend.seq
    now = amend.now
    if amend.delete or now is None:
        return tuple(say("correction.deleted", n=n))
    whats = event_forms(now, say)
    key = "correction.inserted" if amend.insert is not None else "correction.replaced"
    forms = [template.replace("{event}", what) for template in say(key, n=n) for what in whats]
    return tuple(dict.fromkeys(forms))


def notice_words(notice: Notice, say: Say) -> tuple[str, tuple[str, ...]]:
    """The head of a notice (``UNDO``, ``REDO``, ``CORRECTED``) and what it took back, put
    back or corrected.

    >>> from cueboard.boards.words import words_for
    >>> from cueboard.contract.codes import Reason
    >>> from cueboard.contract.notices import Notice
    >>> refusal_forms(Reason("red is on: potting the pink is a foul ...", "not_on", ball="red"), words_for("en"))
    ('RED IS ON: FOUL?', 'RED IS ON', 'RED ON')
    >>> from cueboard.engine.events import Amend, Pot
    >>> from cueboard.engine.snooker.events import Foul
    >>> notice_words(Notice("undo", Foul(points=4, miss=True)), words_for("en"))
    ('UNDO', ('FOUL 4 MISS', 'FOUL 4 M', 'F4M'))
    >>> notice_words(Notice("redo", Pot(balls=("black",))), words_for("sv"))
    ('GÖR OM', ('SVART I HÅL', 'SVART'))
    >>> notice_words(Notice("corrected", Amend(seq=14, event=Pot(balls=("pink",)))), words_for("en"))
    ('CORRECTED', ('EVENT 14: POT PINK', 'EVENT 14: PINK', '14: POT PINK', '14: PINK'))
    >>> notice_words(Notice("undo", Amend(seq=3, delete=True)), words_for("de"))
    ('ZURÜCK', ('KORREKTUR 3', 'KORR 3'))
    """
    head = say(f"notice.{notice.kind}")[0]
    if notice.kind == "corrected" and isinstance(notice.event, Amend):
        return head, correction_forms(notice.event, say)
    return head, event_forms(notice.event, say)


def standing_words(shown: Shown, say: Say) -> tuple[str, tuple[str, ...]] | None:
    """What the bar says while nothing else is said: the desk's message (docs/mqtt.md
    ``<prefix>/message``) as long as it stands, else, while the table is idle, the match the
    desk handed it (``next``): ``NEXT`` and ``Ann v Bob`` (with the competition when there is
    room). None: nothing.

    >>> from cueboard.boards.words import words_for
    >>> from cueboard.engine import Match
    >>> from cueboard.boards.shown import Handed
    >>> fresh = Match.from_json({"type": "match", "game": "snooker", "sides": ["Ronnie", "Judd"]}).state()
    >>> standing_words(Shown(fresh, handed=Handed(("Ann", "Bob"), "Cup")), words_for("de"))
    ('NÄCHSTES', ('ANN GEGEN BOB, CUP', 'ANN GEGEN BOB', 'ANN – BOB'))
    >>> standing_words(Shown(fresh, message="Bar closes at 11"), words_for("en"))
    ('NOTICE', ('BAR CLOSES AT 11',))
    """
    # In capitals, as every word of the bar: its small font on the hall boards has no room for
    # descenders, and the bar's words (UNDO: POT BLACK) are all capitals.
    if shown.message is not None:
        return say("notice.message")[0], (shown.message.upper(),)
    handed = shown.handed
    if handed is None or not shown.idle:
        return None
    names = handed.names
    pairs = [f"{names[0]} {v} {names[1]}".upper() for v in say("notice.versus")]
    competition = handed.competition
    forms = [f"{pairs[0]}, {competition.upper()}"] if competition else []
    return say("notice.next")[0], tuple(dict.fromkeys([*forms, *pairs]))
