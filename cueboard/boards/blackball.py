"""Blackball layouts, 32x8, 64x16 and 128x32: what the hall follows during a frame (who is at
the table, the groups, the free shot and visits, the shot clock). What each shows: docs/boards.md,
"The layouts".
"""

from __future__ import annotations

from cueboard.boards.bar import Box
from cueboard.boards.fonts import LARGE, NARROW, NORMAL, TINY
from cueboard.boards.layout import (
    Layout,
    Say,
    clock_text,
    digits_font,
    fit,
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
from cueboard.engine.state import BlackballState, State

__all__ = ["Blackball32x8", "Blackball64x16", "Blackball128x32"]

def blackball_state(state: State) -> BlackballState:
    """``state`` as the blackball state it is (the catalogue picks a layout by the state's game)."""
    if not isinstance(state, BlackballState):
        raise TypeError(f"a blackball layout cannot draw a {state.game} state")
    return state


GROUPS = frozenset({"red", "yellow"})
"""The groups; each one's letter is the board word ``group.<name>`` (R and Y in English)."""


def group_letter(state: BlackballState, side: int, say: Say) -> str:
    """The letter of ``side``'s group in the board's language ("" before the groups are decided)."""
    group = state.sides[side].group
    return say(f"group.{group}")[0] if group in GROUPS else ""


def group_colour(state: BlackballState, side: int, colour: bool, default: Colour = "score") -> Colour:
    group = state.sides[side].group
    return group if colour and group in GROUPS else default


def news(state: BlackballState, say: Say) -> list[tuple[str, list[str], Colour, int | None]]:
    """What the striker should know, most urgent first: (kind, texts long to short, colour,
    the side it belongs to: the striker's, all of it)."""
    out: list[tuple[str, list[str], Colour, int | None]] = []
    if state.frame_over or state.striker is None:
        return out
    side = state.striker
    if state.free_shot:
        out.append(("free", say("free_shot"), "green", side))
    if state.visits is not None and state.visits > 1:
        out.append(("visits", say("visits", n=state.visits), "text", side))
    if state.break_shot:
        out.append(("break", say("break_off"), "text", side))
    if state.black_on:
        out.append(("black", say("black_on"), "text", side))
    return out


def winner_texts(state: BlackballState, side: int, say: Say, *, named: bool = False) -> list[str] | None:
    """What the winner of the frame (or the match) ``side`` is told, long to short, with the
    frames in words, the winner's first ("Ann wins the frame 3-2"; None: the side has not
    won); ``named``: the longest forms say the name."""
    if not (state.frame_over and state.frame_winner == side):
        return None
    return result_texts(state, side, say, named=named)


class Blackball32x8(Layout):
    game = "blackball"
    width = 32
    height = 8

    def scene(self, state: State, shot: ClockShown | None, colour: bool) -> tuple[Item, ...]:
        state = blackball_state(state)
        texts = [number(s.frames) for s in state.sides]
        pages: list[list[Item]] = [self._ends(state, texts, shot, colour)]
        kinds = ["frames"]
        letters = [group_letter(state, side, self.words) for side in (0, 1)]
        if not colour and all(letters) and not state.frame_over:
            # One colour: the groups as R and Y where the frames stand.
            pages.append(self._ends(state, letters, shot, colour))
            kinds.append("groups")
        room, clock = 32, []
        if shot is not None:
            # The clock stays in view on every page, at the right.
            font = NORMAL if shot.seconds < 100 else TINY
            cw = font.width(clock_text(shot)) + (4 if shot.called else 2)
            clock = shot_clock_items(32 - cw, 0, cw, 8, shot, (NORMAL, TINY), self.words("clock_held"))
            room = 32 - cw - 1
        for kind, candidates, tint, side in news(state, self.words):
            text, font = fit(candidates, (NORMAL, TINY), room - 5)
            pages.append([*toward(0, 0, room, text, font, tint, side), *clock])
            kinds.append(kind)
        for side in (0, 1):
            won = winner_texts(state, side, self.words, named=True)
            if won:
                # Who won and the frames in words first, one whole pass of its marquee.
                text, font = fit(won[:2], (NORMAL,), 32)  # the name and "wins" scroll: they are the news
                pages.insert(0, [line(0, 0, 32, text, font, "win", "centre")])
                kinds.insert(0, f"wins{side}")
        item = self.pages(("main", tuple(kinds)), pages)
        return (item,) if item is not None else ()

    def _ends(self, state: BlackballState, texts: list[str], shot: ClockShown | None, colour: bool) -> list[Item]:
        """``texts`` at the two ends (in the groups' colours), the striker's underlined, the
        shot clock between them."""
        clock = clock_text(shot) if shot is not None else ""
        bars = 4 if shot is not None and shot.called else 0
        # The largest digits that fit, the clock's before the frames'.
        font, clock_font = TINY, TINY
        for font, clock_font in ((NORMAL, NORMAL), (NORMAL, NARROW), (NARROW, NORMAL), (NARROW, NARROW),
                                 (NORMAL, TINY), (NARROW, TINY), (TINY, NORMAL), (TINY, NARROW), (TINY, TINY)):
            middle = clock_font.width(clock) + bars + 2 if clock else 0
            if 2 * max(font.width(t) for t in texts) + middle <= 32:
                break
        widths = [font.width(t) for t in texts]
        side_w = max(widths)
        items: list[Item] = [line(0, 0, widths[0], texts[0], font, group_colour(state, 0, colour)),
                             line(32 - widths[1], 0, widths[1], texts[1], font, group_colour(state, 1, colour),
                                  "right")]
        marked = marked_side(state)
        if marked is not None:
            x = 0 if marked == 0 else 32 - widths[1]
            items.append(Fill(x, 7, widths[marked], 1, "win" if state.striker is None else "text"))
        if shot is not None:
            items += shot_clock_items(side_w + 1, 0, 32 - 2 * side_w - 2, 8, shot, (clock_font, TINY),
                                      self.words("clock_held"))
        return items


class Blackball64x16(Layout):
    game = "blackball"
    width = 64
    height = 16

    def with_bar(self, state: State, shot: ClockShown | None, colour: bool) -> tuple[tuple[Item, ...], Box]:
        state = blackball_state(state)
        """The frames stay at the right, and the shot clock while it runs (in 5x7 digits, to
        leave the bar some 40 pixels); the bar takes the rest, both lines, up to a rule."""
        items: list[Item] = []
        right = 64
        if shot is not None:
            text = clock_text(shot)
            font = digits_font([text], 17, (NORMAL, NARROW, TINY))
            cw = font.width(text) + (4 if shot.called else 0)
            right = 64 - cw
            items += shot_clock_items(right, 0, cw, 16, shot, (font,), self.words("clock_held"))
            right -= 2
        frames = [number(s.frames) for s in state.sides]
        font = digits_font(frames, 11, (NORMAL, NARROW, TINY))
        fw = max(font.width(t) for t in frames)
        frames_x = right - fw if shot is not None else right - 1 - fw
        items += [line(frames_x, 8 * side, fw, frames[side], font, group_colour(state, side, colour), "right")
                  for side in (0, 1)]
        return (*items, rule(frames_x - 2)), (0, 0, frames_x - 3, 16)

    def scene(self, state: State, shot: ClockShown | None, colour: bool) -> tuple[Item, ...]:
        state = blackball_state(state)
        items: list[Item] = []
        right = 64
        if shot is not None or state.shot_clock is not None:
            right = 64 - 23  # room for two big digits
            if shot is not None:
                items += shot_clock_items(right + 1, 0, 64 - right - 1, 16, shot, (LARGE, NORMAL, NARROW, TINY),
                                          self.words("clock_held"))
        frames = [number(s.frames) for s in state.sides]
        font = digits_font(frames, 11, (NORMAL, NARROW, TINY))
        fw = max(font.width(t) for t in frames)
        frames_x = right - 1 - fw
        letter_x = frames_x - 5
        name_x, name_w = 4, letter_x - 1 - 4
        for side in (0, 1):
            y = 8 * side
            if state.striker == side:
                items.append(Shape(0, y + 1, "right", group_colour(state, side, colour, "text")))
            elif state.frame_over and state.frame_winner == side:
                items.append(Shape(0, y + 1, "right", "win"))
            items.append(line(frames_x, y, fw, frames[side], font, group_colour(state, side, colour), "right"))
            letter = group_letter(state, side, self.words)
            if letter:
                items.append(Text(letter_x, y + 1, 3, letter, TINY, group_colour(state, side, colour, "label")))
            field = self._field(state, side, colour, name_x, y, name_w)
            if field is not None:
                items.append(field)
        return tuple(items)

    def _field(self, state: BlackballState, side: int, colour: bool, x: int, y: int, w: int) -> Item | None:
        pages: list[list[Item]] = []
        kinds: list[str] = []

        def add(kind: str, texts: list[str], tint: Colour) -> None:
            text, font = fit(texts, (NORMAL, TINY), w)
            pages.append([line(x, y, w, text, font, tint)])
            kinds.append(kind)

        won = winner_texts(state, side, self.words)
        if won:
            add("wins", won, "win")
        pages.append([self.text(x, y, w, side_name(state, side), NORMAL, group_colour(state, side, colour, "text"))])
        kinds.append("name")
        if state.striker == side:
            for kind, texts, tint, _ in news(state, self.words):
                add(kind, texts, tint)
        return self.pages(("field", side, tuple(kinds)), pages)


class Blackball128x32(Layout):
    game = "blackball"
    width = 128
    height = 32

    def scene(self, state: State, shot: ClockShown | None, colour: bool) -> tuple[Item, ...]:
        state = blackball_state(state)
        return (*self._upper(state, shot, colour), *self._status(state, colour))

    def with_bar(self, state: State, shot: ClockShown | None, colour: bool) -> tuple[tuple[Item, ...], Box]:
        state = blackball_state(state)
        """Names, big frames and the clock (or the match's length) stay; the bar takes the
        bottom line (the balls left and the news)."""
        return tuple(self._upper(state, shot, colour)), (0, 25, 128, 7)

    def _upper(self, state: BlackballState, shot: ClockShown | None, colour: bool) -> list[Item]:
        items: list[Item] = []
        frames = [number(s.frames) for s in state.sides]
        font = digits_font(frames, 34, (LARGE, NORMAL, NARROW, TINY))
        widths = [font.width(t) for t in frames]
        for side in (0, 1):
            tint = group_colour(state, side, colour, "text")
            x = 0 if side == 0 else 68
            items.append(self.text(x, 0, 60, side_name(state, side), NORMAL, tint,
                                   "left" if side == 0 else "right"))
        fy = 8 + (14 - font.height) // 2
        items.append(Text(0, fy, widths[0], frames[0], font, group_colour(state, 0, colour), "left", False))
        items.append(Text(128 - widths[1], fy, widths[1], frames[1], font, group_colour(state, 1, colour),
                          "right", False))
        marked = marked_side(state)
        if marked is not None:
            tint = "win" if state.striker is None else group_colour(state, marked, colour, "text")
            x = 0 if marked == 0 else 128 - widths[marked]
            items.append(Fill(x, 23, widths[marked], 1, tint))
        # The middle: the shot clock while it runs, else the match's length.
        cx = max(max(widths), 22) + 4
        cw = 128 - 2 * cx
        if shot is not None:
            items += shot_clock_items(cx, 7, cw, 16, shot, (LARGE, NORMAL, TINY), self.words("clock_held"))
        else:
            frame = fit(self.words("frame_n", n=number(state.frame)), (TINY,), cw)[0]
            length = (fit(self.words("race_to", n=state.race_to), (TINY,), cw)[0] if state.race_to is not None
                      else fit(self.words("best_of", n=state.best_of), (TINY,), cw)[0] if state.best_of is not None
                      else "")
            items.append(Text(cx, 10, cw, frame, TINY, "label", "centre", False))
            items.append(Text(cx, 17, cw, length, TINY, "label", "centre", False))
        return items

    def _status(self, state: BlackballState, colour: bool) -> list[Item]:
        y = 25
        items: list[Item] = []
        for side in (0, 1):
            s = state.sides[side]
            if s.group not in GROUPS or s.balls_left is None:
                continue
            tint = group_colour(state, side, colour, "text")
            count = max(0, min(s.balls_left, 7))
            for i in range(count):
                x = 6 * i if side == 0 else 128 - 5 - 6 * i
                items.append(Shape(x, y + 1, "disc", tint))
        pages: list[list[Item]] = []
        kinds: list[str] = []
        x, w = 44, 40

        def add(kind: str, texts: list[str], tint: Colour, side: int | None = None) -> None:
            text, font = fit(texts, (NORMAL, TINY), w - (5 if side is not None else 0))
            pages.append(toward(x, y, w, text, font, tint, side))
            kinds.append(kind)

        for side in (0, 1):
            texts = winner_texts(state, side, self.words, named=True)
            if texts:
                # The winner's line may use the whole width: no dots once the frame is over.
                items = [i for i in items if not isinstance(i, Shape)]
                x, w = 0, 128
                add(f"wins{side}", texts, "win")
        for kind, texts, tint, whose in news(state, self.words):
            add(kind, texts, tint, whose)
        if state.open_table and not state.frame_over:
            add("open", self.words("open_table"), "label")
        item = self.pages(("status", tuple(kinds)), pages)
        if item is not None:
            items.append(item)
        return items
