"""Layouts: a game and a board size, turning a state (``Match.state()``) into a scene.

Each layout is a subclass of :class:`Layout` for one game and size, listed in
:mod:`.catalogue`, which picks one for a board; :class:`TinyLayout` shows the two numbers
in the 3x5 font on anything from 8x5 up.

Layouts read nothing but the state, the shot clock and their options: no time, no I/O. Each
game's layouts read its own state (:class:`~cueboard.engine.state.SnookerState`,
:class:`~cueboard.engine.state.BlackballState`), narrowed once where a scene begins.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from cueboard.boards.bar import Box
from cueboard.boards.fonts import NARROW, NORMAL, TINY, Font
from cueboard.boards.scene import Align, Colour, Fill, Item, Pages, Shape, Text
from cueboard.boards.shown import ClockShown
from cueboard.boards.smooth import Smooth
from cueboard.boards.words import Words, words_for
from cueboard.engine.state import SnookerState, State

__all__ = ["SIZES", "Layout", "LayoutOptions", "Say", "TinyLayout", "fitting_size", "parse_size"]

Say = Callable[..., list[str]]
"""A layout's :meth:`Layout.words`: a board word's forms, long to short, in the board's language."""


@dataclass(frozen=True)
class LayoutOptions:
    """``page_seconds``: how long each page of an alternating field shows; ``scroll``: names
    too long for their place scroll (else they are cut); ``words``: the board's words, in
    the venue's language (:mod:`.words`)."""

    page_seconds: float = 2.5
    scroll: bool = True
    words: Words = field(default_factory=lambda: words_for("en"))


class Layout:
    """A layout for ``game`` on a ``width`` x ``height`` board (subclasses set all three)."""

    game: ClassVar[str] = ""
    width: ClassVar[int] = 0
    height: ClassVar[int] = 0

    def __init__(self, options: LayoutOptions | None = None) -> None:
        self.options = options or LayoutOptions()

    @property
    def name(self) -> str:
        return f"{self.game} {self.width}x{self.height}"

    def words(self, key: str, *, n: int | str | None = None, name: str | None = None,
              ball: str | None = None) -> list[str]:
        """The forms of a board word in the board's language, this game's own first."""
        return self.options.words(key, game=self.game, n=n, name=name, ball=ball)

    def scene(self, state: State, shot: ClockShown | None, colour: bool) -> tuple[Item, ...]:
        """The items to draw; ``colour``: the board has RGB pixels (else each is on or off)."""
        raise NotImplementedError

    def with_bar(self, state: State, shot: ClockShown | None, colour: bool) -> tuple[tuple[Item, ...], Box]:
        """What stays in view while the conversation bar (:mod:`.bar`) is up, and the bar's box.
        Here: nothing stays, the bar takes the whole board (a board of one line)."""
        return (), (0, 0, self.width, self.height)

    # -- helpers for subclasses ---------------------------------------------------------

    def text(self, x: int, y: int, w: int, text: str, font: Font, colour: Colour = "text",
             align: Align = "left") -> Text:
        return Text(x, y, w, text, font, colour, align, self.options.scroll)

    def pages(self, key: object, pages: Sequence[Sequence[Item]]) -> Item | None:
        """One :class:`Pages` item (``None`` with no page; the page itself when only one)."""
        kept = tuple(tuple(p) for p in pages)
        if not kept:
            return None
        return Pages(key, kept, self.options.page_seconds)


SIZES: tuple[tuple[int, int], ...] = ((32, 8), (64, 16), (128, 32), (64, 32), (128, 64), (192, 96))
"""The board sizes with layouts of their own; others are drawn by the largest that fits."""


def parse_size(text: str) -> tuple[int, int]:
    """``"64x16"`` -> ``(64, 16)``; ValueError naming the text otherwise."""
    try:
        w, h = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"a layout size is WIDTHxHEIGHT, such as 64x16, not {text!r}") from None
    if w <= 0 or h <= 0:
        raise ValueError(f"a layout size is WIDTHxHEIGHT, such as 64x16, not {text!r}")
    return w, h


def fitting_size(width: int, height: int) -> tuple[int, int] | None:
    """The largest size of :data:`SIZES` that fits on a ``width`` x ``height`` board."""
    fitting = [s for s in SIZES if s[0] <= width and s[1] <= height]
    return max(fitting, key=lambda s: s[0] * s[1]) if fitting else None


# -- small pieces the layouts share -----------------------------------------------------


def number(n: int | None) -> str:
    return "-" if n is None else str(n)


def fit(candidates: Sequence[str], fonts: Sequence[Font], width: int) -> tuple[str, Font]:
    """The first candidate text, in the first font, that fits ``width`` (fonts tried in
    turn for each text); else the last text in the last font (it will scroll or be cut)."""
    for text in candidates:
        for font in fonts:
            if font.width(text) <= width:
                return text, font
    return candidates[-1], fonts[-1]


def digits_font(texts: Sequence[str], width: int, fonts: Sequence[Font] = (NORMAL, NARROW, TINY)) -> Font:
    """The first font in which every one of ``texts`` fits ``width``."""
    for font in fonts:
        if all(font.width(t) <= width for t in texts):
            return font
    return fonts[-1]


def side_name(state: State, side: int) -> str:
    """What to call a side: in doubles, the player at the table for the striker's side."""
    s = state.sides[side]
    if state.striker == side and state.player and len(s.players) > 1:
        return state.player
    return s.name


BALLS = frozenset({"colour", "red", "yellow", "green", "brown", "blue", "pink", "black"})
"""The balls on a board knows (``colour``: any colour); each has a word, ``ball.<name>``."""


def scores(state: State) -> tuple[int, int]:
    """The two numbers a board shows biggest: the frame's points (snooker), else the frames."""
    if isinstance(state, SnookerState):
        return state.sides[0].score, state.sides[1].score
    return state.sides[0].frames, state.sides[1].frames


def ball_colour(ball: str | None) -> Colour:
    """The colour name a ball is drawn in ("colours": any colour, a striped disc)."""
    if ball == "colour":
        return "colours"
    return ball if ball in BALLS else "text"


def clock_text(shot: ClockShown) -> str:
    return str(shot.seconds)


def result_texts(state: State, side: int, say: Say, *, named: bool) -> list[str]:
    """What the frame's (or the match's) winner ``side`` is told, long to short, with the score
    in words, the winner's first: the frame's points ("Ronnie wins the frame 72-45"), the
    match's frames ("Ronnie wins the match 4-2"), the frames in a game scored in frames;
    ``named``: the longest forms say the name (where the board has no name beside it)."""
    match = state.match_over and state.match_winner == side
    what = "match" if match else "frame"
    a, b = (state.sides[side].frames, state.sides[1 - side].frames)
    if not match and isinstance(state, SnookerState):
        a, b = state.sides[side].score, state.sides[1 - side].score
    score = f"{a}-{b}"
    texts = say(f"name_wins_{what}_score", name=state.sides[side].name, n=score) if named else []
    # Where even "WINS 72-45" does not fit, "WINS" beside the winner's own score says enough.
    return texts + say(f"wins_{what}_score", n=score) + say(f"wins_{what}")


def marked_side(state: State) -> int | None:
    """The side to mark: the striker, or once the frame is over, its winner."""
    if state.striker is not None:
        return state.striker
    return state.frame_winner if state.frame_over else None


def toward(x: int, y: int, w: int, text: str, font: Font, tint: Colour, side: int | None,
           align: Align = "centre") -> list[Item]:
    """``text`` on a 7-pixel line with an arrow toward ``side``'s end of the board (before it
    for the left side's, after it for the right side's), as one unit aligned in its box: a
    word of one side's (a miss count, a free ball) never reads as the other's. No room for
    the arrow, or no side: the text alone, pushed to the side's end."""
    tw = font.width(text)
    if side is None:
        return [line(x, y, w, text, font, tint, align)]
    if isinstance(font, Smooth):
        # The big boards' anti-aliased text: the arrow is a glyph of the typeface, as large.
        text = f"\u25c0 {text}" if side == 0 else f"{text} \u25b6"
        if font.width(text) <= w:
            return [line(x, y, w, text, font, tint, align)]
        return [line(x, y, w, text.strip("\u25c0\u25b6 "), font, tint, "left" if side == 0 else "right")]
    total = tw + 5
    if total > w:
        return [line(x, y, w, text, font, tint, "left" if side == 0 else "right")]
    x0 = x + (w - total) // 2 if align == "centre" else x if align == "left" else x + w - total
    ay = y + 1 if font.height >= 7 else y + (7 - font.height) // 2
    if side == 0:
        return [Shape(x0, ay, "left", tint), line(x0 + 5, y, tw, text, font, tint, "left", False)]
    return [line(x0, y, tw, text, font, tint, "left", False), Shape(x0 + tw + 2, ay, "right", tint)]


HELD_SECONDS = 1.5
"""A held clock shows its word and its seconds in turn, each this long."""


def shot_clock_items(x: int, y: int, w: int, h: int, shot: ClockShown, fonts: Sequence[Font],
                     held: Sequence[str] = ("HOLD", "HLD"), word_fonts: Sequence[Font] = (NORMAL, TINY)) -> list[Item]:
    """The shot clock's seconds in the middle of a box. Once the call is made (rule 8a) the
    digits are marked, on one colour or many, and not in red (a blackball group): big
    digits are cut out of a lit box when it has room; thin ones, which would not read cut
    out of light from across a hall, stand between two bars (beside them, else above and
    below). A clock the referee holds (rule 8a) shows ``held`` (the board word ``clock_held``,
    in the longest form and font of ``word_fonts`` that fits; a pause sign where none does)
    and its seconds in turn, so that it never looks like a clock running."""
    if shot.held:
        still = shot_clock_items(x, y, w, h, ClockShown(shot.seconds, shot.called), fonts)
        word, font = fit(held, word_fonts, w)
        if font.width(word) <= w:
            sign: Item = Text(x, y + max(0, (h - font.height) // 2), w, word, font, "call", "centre", False)
        else:
            sign = Shape(x + (w - 3) // 2, y + max(0, (h - 5) // 2), "pause", "call")
        return [Pages(("held", x, y), ((sign,), tuple(still)), HELD_SECONDS)]
    text = clock_text(shot)
    font = digits_font([text], w, fonts)
    tw = min(font.width(text), w)
    tx = x + (w - tw) // 2
    ty = y + max(0, (h - font.height) // 2)
    digits = Text(tx, ty, tw, text, font, "text", "left", False)
    if not shot.called:
        return [digits]
    side_room, top_room = w - tw >= 4, h - font.height >= 2
    if font.height >= 14 and side_room and top_room:
        bw = min(w, tw + 6)
        return [Fill(x + (w - bw) // 2, y, bw, h, "text"), Text(tx, ty, tw, text, font, "off", "left", False)]
    if side_room:
        return [Fill(tx - 2, y, 1, h, "text"), Fill(tx + tw + 1, y, 1, h, "text"), digits]
    if top_room:
        return [Fill(tx, ty - 1, tw, 1, "text"), Fill(tx, ty + font.height, tw, 1, "text"), digits]
    return [Fill(x, y, w, h, "text"), Text(tx, ty, tw, text, font, "off", "left", False)]


def rule(x: int, height: int = 16) -> Fill:
    """A dim column at ``x``: the edge of the conversation bar beside the scores, so that its
    text never reads as part of a score (and a score never as the end of a word)."""
    return Fill(x, 0, 1, height, "label")


def underline(x: int, y: int, text: str, font: Font, align: str, w: int, colour: Colour) -> Fill:
    """A bar under ``text`` as a :class:`Text` of the same arguments places it."""
    tw = min(font.width(text), w)
    if align == "right":
        x = x + w - tw
    elif align == "centre":
        x = x + (w - tw) // 2
    return Fill(x, y, tw, 1, colour)


def line(x: int, y: int, w: int, text: str, font: Font, colour: Colour = "text", align: Align = "left",
         scroll: bool = True) -> Text:
    """``text`` on a 7-pixel line at ``y``: the 3x5 font sits one pixel lower, in the middle."""
    return Text(x, y + (7 - font.height) // 2 if font.height < 7 else y, w, text, font, colour,
                align, scroll)


def labelled(x: int, y: int, w: int, labels: str | Sequence[str], value: str, colour: Colour,
             label_colour: Colour = "label", align: str = "left", value_first: bool = False) -> list[Item]:
    """A tiny label and a 5x7 value (``BREAK 24``, or ``2 SNOOKERS`` with ``value_first``) as
    one unit on a 7-pixel line, aligned in its box; the first label that fits is used."""
    choices = [labels] if isinstance(labels, str) else list(labels)
    vw = NORMAL.width(value)
    label = next((lb for lb in choices if TINY.width(lb) + 2 + vw <= w), None)
    if label is None:
        return [Text(x, y, w, value, NORMAL, colour, "left", False)]
    lw = TINY.width(label)
    total = lw + 2 + vw
    if align == "right":
        x0 = x + w - total
    elif align == "centre":
        x0 = x + (w - total) // 2
    else:
        x0 = x
    lx, vx = (x0 + vw + 2, x0) if value_first else (x0, x0 + lw + 2)
    return [Text(lx, y + 1, lw, label, TINY, label_colour, "left", False),
            Text(vx, y, vw, value, NORMAL, colour, "left", False)]


class TinyLayout(Layout):
    """A board smaller than 32x8: the two numbers (scores, else frames) in the 3x5 font,
    the striker's underlined, cut to fit. It never fails, whatever the size."""

    game = "any"

    def __init__(self, width: int, height: int, options: LayoutOptions | None = None) -> None:
        super().__init__(options)
        self._w, self._h = width, height

    @property
    def name(self) -> str:
        return f"tiny {self._w}x{self._h}"

    def with_bar(self, state: State, shot: ClockShown | None, colour: bool) -> tuple[tuple[Item, ...], Box]:
        return (), (0, 0, self._w, self._h)

    def scene(self, state: State, shot: ClockShown | None, colour: bool) -> tuple[Item, ...]:
        w = self._w
        values = scores(state)
        texts = [number(v) for v in values]
        half = max(0, (w - 1) // 2)
        items: list[Item] = [Text(0, 0, half, texts[0], TINY, "score", "left", False),
                             Text(w - half, 0, half, texts[1], TINY, "score", "right", False)]
        marked = state.striker if state.striker is not None else state.frame_winner
        if marked is not None and self._h >= 7:
            x = 0 if marked == 0 else w - half
            items.append(underline(x, 6, texts[marked], TINY, "left" if marked == 0 else "right", half,
                                   "text"))
        return tuple(items)

