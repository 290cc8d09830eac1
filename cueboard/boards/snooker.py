"""Snooker layouts, 32x8, 64x16 and 128x32: the scores, the striker, and in turn the break,
free ball, misses, re-spotted black, points remaining and snookers required. What each shows:
docs/boards.md, "The layouts".
"""

from __future__ import annotations

from collections.abc import Sequence

from cueboard.boards.bar import Box
from cueboard.boards.fonts import LARGE, NARROW, NORMAL, TINY
from cueboard.boards.layout import (
    BALLS,
    Layout,
    Say,
    ball_colour,
    clock_text,
    digits_font,
    fit,
    labelled,
    line,
    marked_side,
    number,
    result_texts,
    rule,
    shot_clock_items,
    side_name,
    toward,
)
from cueboard.boards.scene import Colour, Fill, Item, Shape, Text
from cueboard.boards.shown import ClockShown
from cueboard.engine.state import SnookerState, State

__all__ = ["Snooker32x8", "Snooker64x16", "Snooker128x32"]


def snooker_state(state: State) -> SnookerState:
    """``state`` as the snooker state it is (the catalogue picks a layout by the state's game)."""
    if not isinstance(state, SnookerState):
        raise TypeError(f"a snooker layout cannot draw a {state.game} state")
    return state


News = tuple[str, list[str], Colour, int | None]
"""(kind, texts from long to short, colour, the side it belongs to or None)."""


def flags(state: SnookerState, say: Say) -> list[News]:
    """The news at the table, most urgent first, each with its side: a free ball and a
    re-spotted black are the striker's; a miss count is the offender's (``missed_by``: after
    B's FOUL AND A MISS it is B's, while A decides)."""
    out: list[News] = []
    if state.striker is None:
        return out
    if state.free_ball:
        out.append(("free", say("free_ball"), "green", state.striker))
    if state.misses:
        side = state.missed_by if state.missed_by is not None else state.striker
        out.append(("miss", say("miss", n=state.misses), "alert", side))
    if state.respotted_black:
        out.append(("respot", say("respotted_black"), "text", state.striker))
    return out


def snookers_needed(state: SnookerState, side: int) -> str | None:
    """How many snookers ``side`` needs, as a number, or None (none needed, or none can help)."""
    s = state.snookers_required
    if s is None or s.side != side or s.count is None:
        return None
    return str(s.count)


def snookers_word(count: str, say: Say) -> list[str]:
    """``SNOOKER`` or ``SNOOKERS`` (and shorter), as ``count`` asks in the board's language."""
    return say("snookers", n=int(count))


def wins_texts(state: SnookerState, side: int, say: Say, *, named: bool) -> list[str]:
    """What the frame's (or the match's) winner ``side`` is told, long to short, with the score
    in words, the winner's first ("Ronnie wins the frame 72-45"; the match: its frames);
    ``named``: the longest forms say the name (where the board has no name beside it)."""
    return result_texts(state, side, say, named=named)


class Snooker32x8(Layout):
    game = "snooker"
    width = 32
    height = 8

    def scene(self, state: State, shot: ClockShown | None, colour: bool) -> tuple[Item, ...]:
        state = snooker_state(state)
        pages: list[list[Item]] = [self._scores(state, shot)]
        kinds: list[str] = ["scores"]
        brk = state.brk
        # Once the frame is over the state does not say whose the last break was (a frame
        # conceded ends on the loser's): no break then, rather than one on the wrong side.
        if brk and state.striker is not None:
            pages.append(self._break(state, brk))
            kinds.append("break")
        for kind, texts, tint, side in flags(state, self.words):
            text, font = fit(texts, (NORMAL, TINY), 32 - 5)
            pages.append(toward(0, 0, 32, text, font, tint, side))
            kinds.append(kind)
        for side in (0, 1):
            count = snookers_needed(state, side)
            if count:
                pages.append(self._snookers(side, count))
                kinds.append(f"snookers{side}")
        fresh = all(s.score in (0, None) for s in state.sides) and (state.best_of or 0) > 1
        if state.frame_over or fresh:
            pages.append(self._frames(state))
            kinds.append("frames")
        if state.frame_over and state.frame_winner is not None:
            # Who won and the score in words first, one whole pass of its marquee.
            # "Ronnie wins 72-45" scrolls rather than a bare "72-45": the name and "wins" are the news.
            text, font = fit(wins_texts(state, state.frame_winner, self.words, named=True)[:2], (NORMAL,), 32)
            pages.insert(0, [line(0, 0, 32, text, font, "win", "centre")])
            kinds.insert(0, "wins")
        item = self.pages(("main", tuple(kinds)), pages)
        return (item,) if item is not None else ()

    def _scores(self, state: SnookerState, shot: ClockShown | None) -> list[Item]:
        """The scores at the ends; the striker's marked by an arrow beside it when there is
        room, else underlined; the shot clock, when it runs, between them."""
        texts = [number(s.score) for s in state.sides]
        marked = marked_side(state)
        middle = TINY.width(clock_text(shot)) + 4 if shot is not None else 0
        font = digits_font(texts, (32 - max(middle, 2)) // 2)
        widths = [font.width(t) for t in texts]
        arrows = shot is None and sum(widths) + 5 + 2 <= 32
        tint: Colour = "win" if state.striker is None else "text"
        items: list[Item] = [line(0, 0, widths[0], texts[0], font, "score"),
                             line(32 - widths[1], 0, widths[1], texts[1], font, "score", "right")]
        if marked is not None:
            if arrows:
                x = widths[0] + 2 if marked == 0 else 32 - widths[1] - 5
                items.append(Shape(x, 1, "left" if marked == 0 else "right", tint))
            else:
                x = 0 if marked == 0 else 32 - widths[1]
                items.append(Fill(x, 7, widths[marked], 1, tint))
        if shot is not None:
            x0 = max(widths[0], (32 - middle) // 2)
            items += shot_clock_items(x0, 0, 32 - 2 * x0, 8, shot, (TINY,), self.words("clock_held"))
        return items

    def _break(self, state: SnookerState, brk: int) -> list[Item]:
        """The break on the striker's side, marked like the score, with its label."""
        side = marked_side(state)
        value = str(brk)
        # The widest digits that leave room for the arrow and a label of more than a letter
        # ("BRK") when the language has one.
        labels = self.words("break")
        least = min((TINY.width(t) for t in labels if len(t) > 1), default=TINY.width(labels[-1]))
        font = digits_font([value], 32 - 7 - least, (NORMAL, NARROW, TINY))
        vw = font.width(value)
        label, label_font = fit(labels, (TINY,), 32 - vw - 7)
        if side == 1:
            return [line(0, 0, 32 - vw - 7, label, label_font, "label", "left", False),
                    Shape(32 - vw - 5, 1, "right", "text"),
                    line(32 - vw, 0, vw, value, font, "score", "right", False)]
        items: list[Item] = [line(0, 0, vw, value, font, "score", "left", False),
                             line(vw + 7, 0, 32 - vw - 7, label, label_font, "label", "right", False)]
        if side == 0:
            items.append(Shape(vw + 2, 1, "left", "text"))
        return items

    def _snookers(self, side: int, count: str) -> list[Item]:
        """``2 SNOOKERS`` at the side that needs them."""
        return labelled(0, 0, 32, snookers_word(count, self.words), count, "alert", "alert",
                        "left" if side == 0 else "right", value_first=True)

    def _frames(self, state: SnookerState) -> list[Item]:
        texts = [number(s.frames) for s in state.sides]
        font = digits_font(texts, 12)
        w0, w1 = (font.width(t) for t in texts)
        label, label_font = fit([*self.words("frames"), ""], (TINY,), 32 - w0 - w1 - 4)
        items: list[Item] = [line(0, 0, w0, texts[0], font, "frames"),
                             line(32 - w1, 0, w1, texts[1], font, "frames", "right"),
                             line(w0 + 2, 0, 32 - w0 - w1 - 4, label, label_font, "label", "centre", False)]
        if state.match_over and state.match_winner is not None:
            x, w = (0, w0) if state.match_winner == 0 else (32 - w1, w1)
            items.append(Fill(x, 7, w, 1, "win"))
        return items


class Snooker64x16(Layout):
    game = "snooker"
    width = 64
    height = 16

    def with_bar(self, state: State, shot: ClockShown | None, colour: bool) -> tuple[tuple[Item, ...], Box]:
        state = snooker_state(state)
        """The scores stay at the right; the bar takes the rest, both lines, up to a rule."""
        score_w, items = self._scores(state)
        return (*items, rule(64 - score_w - 2)), (0, 0, 64 - score_w - 3, 16)

    def _scores(self, state: SnookerState) -> tuple[int, list[Item]]:
        """The scores' width, and the scores right-aligned, a line a side."""
        scores = [number(s.score) for s in state.sides]
        score_font = digits_font(scores, 17, (NORMAL, NARROW, TINY))
        score_w = max(score_font.width(t) for t in scores)
        return score_w, [line(64 - score_w, 8 * side, score_w, scores[side], score_font, "score", "right", False)
                         for side in (0, 1)]

    def scene(self, state: State, shot: ClockShown | None, colour: bool) -> tuple[Item, ...]:
        state = snooker_state(state)
        score_w, score_items = self._scores(state)
        frames = [number(s.frames) for s in state.sides]
        frames_w = max(TINY.width(t) for t in frames)
        frames_x = 64 - score_w - 2 - frames_w
        name_x, name_w = 4, frames_x - 2 - 4
        items: list[Item] = []
        for side in (0, 1):
            y = 8 * side
            if state.striker == side:
                tint = ball_colour(state.ball_on) if colour else "text"
                items.append(Shape(0, y + 1, "right", tint))
            elif state.frame_over and state.frame_winner == side:
                items.append(Shape(0, y + 1, "right", "win"))
            items.append(score_items[side])
            items.append(line(frames_x, y, frames_w, frames[side], TINY, "frames", "right", False))
            field = self._field(state, side, shot, name_x, y, name_w)
            if field is not None:
                items.append(field)
        return tuple(items)

    def _field(self, state: SnookerState, side: int, shot: ClockShown | None, x: int, y: int,
               w: int) -> Item | None:
        """The name's place: the name, and in turn what concerns this side now."""
        if shot is not None and state.striker is not None and state.striker != side:
            # A shot clock runs: it takes the other side's place for the length of the shot.
            word, _ = fit(self.words("clock"), (TINY,), 20)
            label = line(x, y, 20, word, TINY, "label", "left", False)
            clock = shot_clock_items(x + 21, y, w - 21, 8, shot, (NORMAL, NARROW, TINY), self.words("clock_held"))
            return self.pages(("clock", side), [[label, *clock]])
        pages: list[list[Item]] = []
        kinds: list[str] = []

        def add(kind: str, items: Sequence[Item]) -> None:
            pages.append(list(items))
            kinds.append(kind)

        def say(kind: str, texts: list[str], tint: Colour) -> None:
            text, font = fit(texts, (NORMAL, TINY), w)
            add(kind, [line(x, y, w, text, font, tint)])

        name = [self.text(x, y, w, side_name(state, side), NORMAL)]
        mine = [(kind, texts, tint) for kind, texts, tint, whose in flags(state, self.words) if whose == side]
        if state.striker == side:
            if state.brk:
                add("break", labelled(x, y, w, self.words("break"), str(state.brk), "score"))
            add("name", name)
            for kind, texts, tint in mine:
                say(kind, texts, tint)
            if state.remaining is not None:
                # The points still available to the striker (state.md: remaining).
                add("remaining", labelled(x, y, w, self.words("remaining"), str(state.remaining), "text"))
        else:
            if state.frame_over and state.frame_winner == side:
                say("wins", wins_texts(state, side, self.words, named=False), "win")
            add("name", name)
            for kind, texts, tint in mine:
                say(kind, texts, tint)  # the offender's miss count, while the other side decides
        count = snookers_needed(state, side)
        if count:
            add("snookers", labelled(x, y, w, snookers_word(count, self.words), count, "alert", "alert",
                                     value_first=True))
        return self.pages(("field", side, tuple(kinds)), pages)


class Snooker128x32(Layout):
    game = "snooker"
    width = 128
    height = 32

    def scene(self, state: State, shot: ClockShown | None, colour: bool) -> tuple[Item, ...]:
        state = snooker_state(state)
        return (*self._upper(state, shot, colour), *self._status(state, colour))

    def with_bar(self, state: State, shot: ClockShown | None, colour: bool) -> tuple[tuple[Item, ...], Box]:
        state = snooker_state(state)
        """Names, scores, frames and the clock stay; the bar takes the bottom line."""
        return tuple(self._upper(state, shot, colour)), (0, 25, 128, 7)

    def _upper(self, state: SnookerState, shot: ClockShown | None, colour: bool) -> list[Item]:
        """All but the bottom line: names, big scores, frames, the match's length or the clock."""
        items: list[Item] = []
        scores = [number(s.score) for s in state.sides]
        score_font = digits_font(scores, 46, (LARGE, NORMAL, NARROW, TINY))
        widths = [score_font.width(t) for t in scores]
        marked = marked_side(state)
        # Names on top, each over its score.
        for side in (0, 1):
            tint: Colour = "win" if state.frame_over and state.frame_winner == side else "text"
            items.append(self.text(0 if side == 0 else 68, 0, 60, side_name(state, side), NORMAL, tint,
                                   "left" if side == 0 else "right"))
        # Big scores, the striker's underlined in the colour of the ball on.
        sy = 8 + (14 - score_font.height) // 2
        items.append(Text(0, sy, widths[0], scores[0], score_font, "score", "left", False))
        items.append(Text(128 - widths[1], sy, widths[1], scores[1], score_font, "score", "right", False))
        if marked is not None:
            tint = "win" if state.striker is None else (ball_colour(state.ball_on) if colour else "text")
            if tint == "colours":
                tint = "text"
            x = 0 if marked == 0 else 128 - widths[marked]
            items.append(Fill(x, 23, widths[marked], 1, tint))
        # Between the scores: frames, and the match's length (or the shot clock).
        side_w = max(max(widths), 34) + 2
        cx, cw = side_w, 128 - 2 * side_w
        frames = f"{number(state.sides[0].frames)}-{number(state.sides[1].frames)}"
        items.append(Text(cx, 8, cw, frames, NORMAL, "frames", "centre", False))
        if shot is not None:
            items += shot_clock_items(cx, 16, cw, 9, shot, (NORMAL, NARROW, TINY), self.words("clock_held"))
        else:
            lengths = [[Text(cx, 17, cw, text, TINY, "label", "centre", False)] for text in self._length(state, cw)]
            length = self.pages(("length",), lengths)
            if length is not None:
                items.append(length)
        return items

    def _length(self, state: SnookerState, w: int) -> list[str]:
        """The frame being played and the match's length, each as short as it must be."""
        out = []
        if state.frame is not None:
            out.append(fit(self.words("frame_n", n=state.frame), (TINY,), w)[0])
        if state.best_of is not None and state.best_of > 1:
            out.append(fit(self.words("best_of", n=state.best_of), (TINY,), w)[0])
        return out

    def _status(self, state: SnookerState, colour: bool) -> list[Item]:
        """The bottom line: break | news in turn | ball on."""
        y = 25
        items: list[Item] = []
        left = 0
        if state.brk and state.striker is not None:
            # Once the frame is over the line is the result's, in words, the whole width.
            items += labelled(0, y, 44, self.words("break"), str(state.brk), "score")
            left = 44
        right = 128
        if state.ball_on is not None and state.striker is not None:
            tint = ball_colour(state.ball_on)
            word = fit(self.words(f"ball.{state.ball_on}") if state.ball_on in BALLS else [state.ball_on.upper()],
                       (TINY,), 40)[0]
            shape = "ring7" if state.ball_on == "black" and not colour else "disc7"
            items.append(Shape(121, y, shape, tint if colour else "text"))
            ww = TINY.width(word)
            items.append(Text(119 - ww, y + 1, ww, word, TINY,
                              tint if colour and tint != "colours" else "label", "left", False))
            right = 119 - ww - 3
        pages: list[list[Item]] = []
        kinds: list[str] = []
        x, w = left, right - left

        def add(kind: str, page: Sequence[Item]) -> None:
            pages.append(list(page))
            kinds.append(kind)

        def say(kind: str, texts: list[str], tint: Colour, side: int | None = None) -> None:
            text, font = fit(texts, (NORMAL, TINY), w - (5 if side is not None else 0))
            add(kind, toward(x, y, w, text, font, tint, side))

        if state.frame_over and state.frame_winner is not None:
            say("wins", wins_texts(state, state.frame_winner, self.words, named=True), "win")
        for kind, texts, tint, side in flags(state, self.words):
            say(kind, texts, tint, side)
        for side in (0, 1):
            count = snookers_needed(state, side)
            if count:
                # An arrow to the side that needs them.
                unit = labelled(x + 5, y, w - 10, snookers_word(count, self.words), count, "alert", "alert", "centre",
                                value_first=True)
                left_x = min(i.x for i in unit if isinstance(i, Text))
                right_x = max(i.x + i.w for i in unit if isinstance(i, Text))
                arrow = Shape(left_x - 5, y + 1, "left", "alert") if side == 0 else Shape(
                    right_x + 2, y + 1, "right", "alert")
                add(f"snookers{side}", [arrow, *unit])
        if state.striker is not None and state.remaining is not None:
            add("remaining", labelled(x, y, w, self.words("remaining"), str(state.remaining), "text",
                                      align="centre"))
        item = self.pages(("status", tuple(kinds)), pages)
        if item is not None:
            items.append(item)
        return items
