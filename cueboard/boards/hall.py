"""Hall layouts: the big RGB boards of HUB75 panels, 64x32, 128x64 and 192x96, both games:
one geometry at three scales (names, big numbers, a bottom line).
What goes where: docs/boards.md, "Hall boards: HUB75 panels".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from cueboard.boards.bar import Box
from cueboard.boards.blackball import GROUPS, blackball_state, group_colour, news, winner_texts
from cueboard.boards.fonts import NORMAL, TINY, Font
from cueboard.boards.layout import (
    BALLS,
    Layout,
    ball_colour,
    fit,
    number,
    shot_clock_items,
    side_name,
    toward,
)
from cueboard.boards.scene import Colour, Disc, Item, Text
from cueboard.boards.shown import ClockShown
from cueboard.boards.smooth import caps_at, digits_at, text_at
from cueboard.boards.snooker import flags, snooker_state, snookers_needed, snookers_word, wins_texts
from cueboard.engine.state import State

__all__ = ["HallBlackball", "HallSnooker"]


class Hall(Layout):
    """What both games' hall layouts share: the scale, the fonts, names, numbers, the bar."""

    u: ClassVar[int] = 1

    # -- fonts ---------------------------------------------------------------------------

    @property
    def line_fonts(self) -> tuple[Font, ...]:
        """Names and news, on a line ``7u`` high: the 5x7 pixel font on 64x32."""
        u = self.u
        return (NORMAL, TINY) if u == 1 else (text_at(7 * u), text_at(6 * u), text_at(5 * u))

    @property
    def small_fonts(self) -> tuple[Font, ...]:
        """Labels (BREAK, BEST OF 7, RÖD): the 3x5 pixel font on 64x32, capitals with their
        diacritics inside the line from 128x64 up."""
        u = self.u
        return (TINY,) if u == 1 else (caps_at(5 * u), caps_at(4 * u))

    def number_fonts(self, top: int, bottom: int) -> tuple[Font, ...]:
        """Digits from ``top`` down to ``bottom`` times ``u`` pixels high, each size in turn."""
        u = self.u
        return tuple(digits_at(h) for h in range(top * u, bottom * u - 1, -max(1, u // 2)))

    # -- geometry --------------------------------------------------------------------------

    @property
    def middle(self) -> tuple[int, int]:
        """The column between the big numbers: x and width."""
        cw = 16 * self.u
        return (self.width - cw) // 2, cw

    @property
    def number_w(self) -> int:
        return self.middle[0] - self.u

    def with_bar(self, state: State, shot: ClockShown | None, colour: bool) -> tuple[tuple[Item, ...], Box]:
        """Names, numbers and the clock stay; the bar takes the bottom line."""
        u = self.u
        box = (0, 25, self.width, 7) if u == 1 else (0, 25 * u - 1, self.width, 7 * u + 1)
        return tuple(self._upper(state, shot, colour)), box

    def scene(self, state: State, shot: ClockShown | None, colour: bool) -> tuple[Item, ...]:
        return (*self._upper(state, shot, colour), *self._bottom(state, colour))

    def _upper(self, state: State, shot: ClockShown | None, colour: bool) -> list[Item]:
        raise NotImplementedError

    def _bottom(self, state: State, colour: bool) -> list[Item]:
        raise NotImplementedError

    # -- pieces ----------------------------------------------------------------------------

    def _names(self, state: State, marks: Sequence[Colour | None], tints: Sequence[Colour],
               letters: Sequence[str] = ("", "")) -> list[Item]:
        """Each side's name at its end, ``marks[side]``: the colour of the ball drawn beside it,
        ``letters[side]`` cut out of it (the ball on's or the group's initial, in the board's
        language: never colour alone)."""
        u, w = self.u, self.width
        d = 7 * u
        half = w // 2 - 2 * u
        items: list[Item] = []
        for side in (0, 1):
            name = side_name(state, side)
            mark = marks[side]
            inset = d + 2 * u if mark is not None else 0
            font = self._name_font(name, half - inset)
            y = (7 * u - font.height) // 2
            if mark is not None:
                letter = letters[side]
                items.append(Disc(0 if side == 0 else w - d, 0, d, mark, letter, self._letter_font(letter, d)))
            x = inset if side == 0 else w - half
            items.append(self.text(x, y, half - inset, name, font, tints[side], "left" if side == 0 else "right"))
        return items

    def _letter_font(self, letter: str, d: int) -> Font | None:
        """The largest font whose ``letter`` fits inside a disc ``d`` across (None: none does)."""
        fonts = (NORMAL, TINY) if self.u == 1 else (caps_at(d - 2 * self.u), caps_at(d - 3 * self.u), NORMAL, TINY)
        for font in fonts:
            glyph = font.render(letter)
            if glyph.height <= d - 2 and glyph.width <= d - 2:
                return font
        return None

    def _name_font(self, name: str, w: int) -> Font:
        fonts = self.line_fonts if self.u == 1 else self.line_fonts[:-1]
        for font in fonts:
            if font.width(name) <= w:
                return font
        return fonts[0]  # a long name scrolls in the largest font rather than shrink past reading

    def _numbers(self, texts: Sequence[str], tints: Sequence[Colour]) -> list[Item]:
        """The big numbers at the ends, in the largest size both fit."""
        u, w = self.u, self.width
        fonts = self.number_fonts(16, 8)
        font = next((f for f in fonts if all(f.width(t) <= self.number_w for t in texts)), fonts[-1])
        y = 8 * u + (16 * u - font.height) // 2
        return [Text(0, y, self.number_w, texts[0], font, tints[0], "left", False),
                Text(w - self.number_w, y, self.number_w, texts[1], font, tints[1], "right", False)]

    def _clock(self, shot: ClockShown, y: int, h: int) -> list[Item]:
        x, cw = self.middle
        return shot_clock_items(x, y, cw, h, shot, self.number_fonts(h // self.u, 5) if self.u > 1 else
                                (digits_at(h), digits_at(h - 2), NORMAL, TINY), self.words("clock_held"),
                                (*self.line_fonts, *self.small_fonts))

    def _labels(self, texts: Sequence[Sequence[str]], y: int, key: object) -> Item | None:
        """Small words in the middle column, one page each (each the longest that fits)."""
        x, cw = self.middle
        pages = []
        for candidates in texts:
            text, font = fit(candidates, self.small_fonts, cw)
            pages.append([Text(x, y, cw, text, font, "label", "centre", False)])
        return self.pages(key, pages)

    def _news(self, items: list[tuple[str, list[str], Colour, int | None]], x: int, w: int,
              key: str) -> Item | None:
        """News in turn on the bottom line, between ``x`` and ``x + w``, each with an arrow
        toward the side it belongs to (a miss count to the offender's end)."""
        u = self.u
        pages: list[list[Item]] = []
        kinds: list[str] = []
        for kind, texts, tint, side in items:
            arrow = 0 if side is None else 5 if u == 1 else 7 * u
            text, font = fit(texts, self.line_fonts, w - arrow)
            y = 25 * u + (7 * u - font.height + (1 if font is TINY else 0)) // 2
            if side is None:
                pages.append([Text(x, y, w, text, font, tint, "centre")])
            else:
                # toward() puts pixel fonts on a 7-pixel line itself; anti-aliased ones where asked.
                pages.append(toward(x, 25 if u == 1 else y, w, text, font, tint, side))
            kinds.append(kind)
        return self.pages((key, tuple(kinds)), pages)


class HallSnooker(Hall):
    game = "snooker"

    def _upper(self, state: State, shot: ClockShown | None, colour: bool) -> list[Item]:
        state = snooker_state(state)
        u = self.u
        marks: list[Colour | None] = [None, None]
        letters = ["", ""]
        if state.striker is not None:
            marks[state.striker] = ball_colour(state.ball_on) if state.ball_on else "text"
            if state.ball_on is not None:
                letters[state.striker] = self.words(f"ball.{state.ball_on}")[-1][:1]
        tints: list[Colour] = ["win" if state.frame_over and state.frame_winner == s else "text" for s in (0, 1)]
        items = self._names(state, marks, tints, letters)
        items += self._numbers([number(s.score) for s in state.sides], ["score", "score"])
        # The middle: the frames, then the shot clock (or the frame and the match's length).
        x, cw = self.middle
        frames = f"{number(state.sides[0].frames)}-{number(state.sides[1].frames)}"
        font = next((f for f in self.line_fonts if f.width(frames) <= cw), self.line_fonts[-1])
        items.append(Text(x, 8 * u, cw, frames, font, "frames", "centre", False))
        if shot is not None:
            items += self._clock(shot, 16 * u, 8 * u)
        else:
            texts: list[list[str]] = []
            if state.frame is not None:
                texts.append(self.words("frame_n", n=state.frame))
            if state.best_of is not None and state.best_of > 1:
                texts.append(self.words("best_of", n=state.best_of))
            label = self._labels(texts, 18 * u, ("length",))
            if label is not None:
                items.append(label)
        return items

    def _bottom(self, state: State, colour: bool) -> list[Item]:
        state = snooker_state(state)
        u, w = self.u, self.width
        items: list[Item] = []
        left, right = 0, w
        if state.brk and state.striker is not None:
            # The break at the striker's end (once the frame is over, the line is the result's).
            side = state.striker
            value = str(state.brk)
            vfont = self.line_fonts[0]
            label, lfont = fit(self.words("break"), self.small_fonts, w // 4)
            vw, lw = vfont.width(value), lfont.width(label)
            y = 25 * u + (7 * u - vfont.height) // 2
            ly = 25 * u + (7 * u - lfont.height) // 2 + (0 if u == 1 else u)
            if side == 1:
                items += [Text(w - vw, y, vw, value, vfont, "score", "left", False),
                          Text(w - vw - 2 * u - lw, ly, lw, label, lfont, "label", "left", False)]
                right = w - vw - lw - 4 * u
            else:
                items += [Text(0, ly, lw, label, lfont, "label", "left", False),
                          Text(lw + 2 * u, y, vw, value, vfont, "score", "left", False)]
                left = lw + vw + 4 * u
        if state.ball_on is not None and state.striker is not None and state.ball_on in BALLS:
            # The ball on in words too, in its colour, at the other end from the break.
            word = self.words(f"ball.{state.ball_on}")[0]
            tint = ball_colour(state.ball_on)
            font = self.small_fonts[0]
            ww = font.width(word)
            y = 25 * u + (7 * u - font.height) // 2 + (0 if u == 1 else u)
            room = right - left
            if ww + 8 * u <= room // 3:
                at_right = state.striker != 1 or not state.brk
                x = right - ww if at_right else left
                items.append(Text(x, y, ww, word, font, tint if tint != "colours" else "label", "left", False))
                if at_right:
                    right -= ww + 3 * u
                else:
                    left += ww + 3 * u
        news: list[tuple[str, list[str], Colour, int | None]] = []
        if state.frame_over and state.frame_winner is not None:
            news.append(("wins", wins_texts(state, state.frame_winner, self.words, named=True), "win", None))
        news += flags(state, self.words)
        for side in (0, 1):
            count = snookers_needed(state, side)
            if count:
                words = snookers_word(count, self.words)
                news.append((f"snookers{side}", [*(f"{count} {word}" for word in words[:2]), count], "alert", side))
        if state.striker is not None and state.remaining is not None and not state.frame_over:
            rem = self.words("remaining")
            news.append(("remaining", [f"{state.remaining} {rem[0]}", f"{state.remaining} {rem[-1]}",
                                       str(state.remaining)], "text", None))
        item = self._news(news, left, right - left, "status")
        if item is not None:
            items.append(item)
        return items


class HallBlackball(Hall):
    game = "blackball"

    def _upper(self, state: State, shot: ClockShown | None, colour: bool) -> list[Item]:
        state = blackball_state(state)
        u = self.u
        marks: list[Colour | None] = [None, None]
        letters = ["", ""]
        if state.striker is not None:
            marks[state.striker] = group_colour(state, state.striker, colour, "text")
            group = state.sides[state.striker].group
            if group in GROUPS:
                letters[state.striker] = self.words(f"group.{group}")[0][:1]
        tints: list[Colour] = ["win" if state.frame_over and state.frame_winner == s
                               else group_colour(state, s, colour, "text") for s in (0, 1)]
        items = self._names(state, marks, tints, letters)
        items += self._numbers([number(s.frames) for s in state.sides],
                               [group_colour(state, s, colour) for s in (0, 1)])
        if shot is not None:
            items += self._clock(shot, 8 * u, 16 * u)
        else:
            texts: list[list[str]] = [self.words("frame_n", n=number(state.frame))]
            if state.race_to is not None:
                texts.append(self.words("race_to", n=state.race_to))
            elif state.best_of is not None:
                texts.append(self.words("best_of", n=state.best_of))
            x, cw = self.middle
            for k, candidates in enumerate(texts):
                text, font = fit(candidates, self.small_fonts, cw)
                items.append(Text(x, 10 * u + 7 * u * k, cw, text, font, "label", "centre", False))
        return items

    def _bottom(self, state: State, colour: bool) -> list[Item]:
        state = blackball_state(state)
        u, w = self.u, self.width
        items: list[Item] = []
        # Up to 7 balls a side in at most two fifths of the width each, the news between.
        step = min(6 * u, w * 2 // 5 // 7)
        d = max(2, step - 1)
        left, right = 0, w
        winners = [s for s in (0, 1) if state.frame_over and state.frame_winner == s]
        if not winners:
            for side in (0, 1):
                s = state.sides[side]
                if s.group not in GROUPS or s.balls_left is None:
                    continue
                count = max(0, min(s.balls_left, 7))
                tint = group_colour(state, side, colour, "text")
                y = 25 * u + (7 * u - d) // 2
                # The group's letter at the end of its balls (R, Y: the language's): not colour alone.
                letter = self.words(f"group.{s.group}")[0][:1]
                lfont = self.small_fonts[0]
                lw = lfont.width(letter)
                ly = 25 * u + (7 * u - lfont.height) // 2 + (0 if u == 1 else u)
                start = lw + u
                items.append(Text(0 if side == 0 else w - lw, ly, lw, letter, lfont, tint, "left", False))
                for i in range(count):
                    items.append(Disc(start + step * i if side == 0 else w - start - d - step * i, y, d, tint))
                if side == 0:
                    left = max(left, start + step * count + u)
                else:
                    right = min(right, w - start - step * count - u)
        said: list[tuple[str, list[str], Colour, int | None]] = []
        for side in winners:
            said.append((f"wins{side}", winner_texts(state, side, self.words, named=True) or [], "win", None))
        said += news(state, self.words)
        if state.open_table and not state.frame_over:
            said.append(("open", self.words("open_table"), "label", None))
        item = self._news(said, left, right - left, "status")
        if item is not None:
            items.append(item)
        return items


def _sized(base: type[Hall], w: int, h: int) -> type[Hall]:
    cls = type(f"{base.__name__}{w}x{h}", (base,), {"width": w, "height": h, "u": h // 32,
                                                    "__doc__": f"{base.game} on a {w}x{h} hall board."})
    return cls


HALL_SIZES = ((64, 32), (128, 64), (192, 96))
"""The hall boards: one 64x32 panel, four in a 2x2 square, nine in a 3x3 (or chains of 64x32
and 128x64 modules making those sizes)."""

HALL_SNOOKER = tuple(_sized(HallSnooker, w, h) for w, h in HALL_SIZES)
"""Snooker on each hall board."""

HALL_BLACKBALL = tuple(_sized(HallBlackball, w, h) for w, h in HALL_SIZES)
"""Blackball on each hall board."""
