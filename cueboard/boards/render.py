"""The picture of one board: :class:`Renderer` (a board's state, scene and moving parts) and
:func:`render` (one picture, for tests and ``cueboard render``)."""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass

from luma.core.device import dummy  # type: ignore[import-untyped]  # luma ships no type hints (no py.typed, no stubs)
from luma.core.render import canvas  # type: ignore[import-untyped]  # luma ships no type hints (no py.typed, no stubs)
from PIL import Image, ImageDraw

from cueboard.boards.bar import Talk, bar_item, reading_seconds
from cueboard.boards.catalogue import LAYOUTS, find_layout
from cueboard.boards.idle import idle_scene
from cueboard.boards.layout import Layout, LayoutOptions, Say, TinyLayout
from cueboard.boards.notices import notice_words, refusal_forms, standing_words
from cueboard.boards.scene import Item, Motion, Pages, Palette, draw_scene, moves, next_change, phase
from cueboard.boards.shown import ClockShown, Shown, clock_shown
from cueboard.contract.codes import Reason
from cueboard.contract.notices import Notice, Prompt

__all__ = ["Renderer", "layout_for", "render"]


def layout_for(shown: Shown | None, width: int, height: int, size: tuple[int, int] | None,
               options: LayoutOptions) -> Layout:
    """The layout for ``shown`` on a ``width`` x ``height`` board; ``size`` forces one of
    :data:`SIZES` (drawn in the middle of a larger board; ignored when it does not fit). No
    state yet (before the first match): the tiny layout, whose bar takes the whole board."""
    if shown is None:
        return TinyLayout(width, height, options)
    if size is None or size[0] > width or size[1] > height:
        return find_layout(shown.state, width, height, options)
    cls = LAYOUTS.get(shown.state.game, {}).get(size)
    return cls(options) if cls is not None else TinyLayout(width, height, options)


def _motion_key(item: Item) -> Hashable:
    """What identifies a moving item from one scene to the next (see :class:`~.scene.Pages`)."""
    if isinstance(item, Pages):
        return ("pages", item.key)
    return ("item", item)


@dataclass(frozen=True)
class _Message:
    """A refusal or a lapsed call in the bar: said at ``since``; ``key`` tells it from the
    one before (a new refusal of the same words starts its marquee again)."""

    talk: Talk
    since: float
    key: int


class Renderer:
    """The picture of one board: ``update`` with each state, ``draw`` at any time.

    Not thread-safe: the :class:`~.board.Board` that owns it serialises calls.
    """

    def __init__(self, width: int, height: int, mode: str = "RGB", *, size: tuple[int, int] | None = None,
                 options: LayoutOptions | None = None, motion: Motion | None = None) -> None:
        self.width, self.height, self.mode = width, height, mode
        self.size = size
        self.options = options or LayoutOptions()
        self.motion = motion or Motion()
        self._palette = Palette(mode)
        self._inverted = Palette(mode, inverted=True)
        self._shown: Shown | None = None
        self._shot: ClockShown | None = None
        self._seconds_left: float | None = None
        self.layout: Layout = layout_for(None, width, height, size, self.options)
        self._layout_game: str | None = None  # the game self.layout was looked up for (None: no state)
        self.scene: tuple[Item, ...] = ()
        self._moving: list[tuple[int, Hashable]] = []
        self._epochs: dict[Hashable, float] = {}
        self._origin = (0, 0)
        self._place()
        self._call: Prompt | None = None
        self._call_key = 0
        self._message: _Message | None = None
        self._until: float | None = None
        self._serial = 0
        self._time_of_day = ""

    @property
    def shown(self) -> Shown | None:
        """The last state given to :meth:`update`."""
        return self._shown

    @property
    def seconds_left(self) -> float | None:
        """The last shot clock given to :meth:`update`."""
        return self._seconds_left

    def update(self, shown: Shown | None, seconds_left: float | None, now: float) -> bool:
        """Take a new state and shot clock; True if the scene changed (not the time)."""
        state_changed = shown is not self._shown and shown != self._shown
        if state_changed:
            self._shown = shown
            # The table has moved on (the next key was taken): a refusal or a notice has said
            # its piece (a message still showing would be about a state that is gone).
            self._message = None
        elif seconds_left == self._seconds_left:
            return False
        self._seconds_left = seconds_left
        shot = None if shown is None else clock_shown(shown, seconds_left)
        if not state_changed and shot == self._shot:
            return False
        self._shot = shot
        game = None if shown is None else shown.state.game
        if game != self._layout_game:
            # The layout depends on the board and the game only: looked up again when the game
            # changes, not at every state (a press's frame waits for this, issue 41).
            self._layout_game = game
            layout = layout_for(shown, self.width, self.height, self.size, self.options)
            if type(layout) is not type(self.layout) or layout.name != self.layout.name:
                self.layout = layout
                self._place()
        return self._compose(now)

    @property
    def waiting(self) -> bool:
        """The idle board is up (:mod:`.idle`): the time of day is on it."""
        return self._shown is not None and self._shown.waiting is not None

    def time_of_day(self, text: str, now: float) -> bool:
        """The time the idle board shows (``"20:15"``: the board's owner keeps it); True if the
        scene changed. A refusal or a call in the bar stays: the table has not moved on."""
        if text == self._time_of_day:
            return False
        self._time_of_day = text
        return self.waiting and self._compose(now)

    # -- the conversation bar (see .bar) ---------------------------------------------------

    @property
    def call(self) -> Prompt | None:
        """The call being keyed in, as last given to :meth:`prompt` (None: none)."""
        return self._call

    @property
    def message(self) -> Talk | None:
        """The refusal or lapsed call in the bar now (None: none)."""
        return self._message.talk if self._message is not None else None

    @property
    def message_until(self) -> float | None:
        """When the message in the bar goes (on the time scale of ``now``), or None."""
        return self._until if self._message is not None else None

    def prompt(self, prompt: Prompt | None, now: float) -> bool:
        """A call being keyed in (drawn in the bar until the next call or None), or with
        ``lapsed`` a call that lapsed (drawn for :func:`~.bar.reading_seconds`). A call
        other than the one in the bar ends a refusal or lapsed call still showing: the
        table has moved on. None (or a call of no keys) only clears the call: a message
        runs its time. True if the scene changed."""
        if prompt is None or (not prompt.lapsed and not prompt.keys):
            if self._call is None:
                return False
            self._call = None
            return self._compose(now)
        if prompt.lapsed:
            self._call = None
            return self._say(Talk("lapsed", tuple(prompt.keys)), now)
        if prompt == self._call:
            return False
        self._call = prompt
        self._serial += 1
        self._call_key = self._serial
        self._message = None
        return self._compose(now)

    def refuse(self, reason: str, now: float) -> bool:
        """A refused key's ``reason``, drawn in the bar for :func:`~.bar.reading_seconds`
        from ``now`` (a new refusal starts it again), until the state changes. A
        :class:`~cueboard.contract.codes.Reason` is said in its short form, in the board's language;
        a plain string as it is. True if the scene changed."""
        words = self._layout_words()
        head = words("refused")[0]
        if isinstance(reason, Reason):
            forms = refusal_forms(reason, words)
            if forms:
                return self._say(Talk("refused", (head,), forms[0], forms), now)
        return self._say(Talk("refused", (head,), text=reason), now)

    def notice(self, notice: Notice, now: float) -> bool:
        """An undo, a redo or a correction acknowledged in the bar ("UNDO: POT BLACK",
        "CORRECTED: EVENT 14: POT PINK"), as long as a refusal, until the state changes, in the
        notice colour (not an alarm). True if the scene changed."""
        head, forms = notice_words(notice, self._layout_words())
        return self._say(Talk("notice", (head,), forms[0], forms), now)

    def _layout_words(self) -> Say:
        return self.layout.words

    def expire(self, now: float) -> bool:
        """Take a message whose time is over out of the bar; True if the scene changed."""
        if self._message is None or self._until is None or now < self._until:
            return False
        self._message = None
        return self._compose(now)

    def resized(self, width: int, height: int, mode: str, now: float) -> Renderer:
        """A renderer for a board of another size or mode, showing what this one shows."""
        other = Renderer(width, height, mode, size=self.size, options=self.options, motion=self.motion)
        other.update(self._shown, self._seconds_left, now)
        other._call, other._call_key, other._serial = self._call, self._call_key, self._serial
        other._message, other._until = self._message, self._until
        other._time_of_day = self._time_of_day
        other._compose(now)
        return other

    def _say(self, talk: Talk, now: float) -> bool:
        self._serial += 1
        self._message = _Message(talk, now, self._serial)
        self._until = now  # until the scene is composed: see _compose
        return self._compose(now)

    def _talk(self) -> tuple[Talk, Hashable] | None:
        """What the bar says now, and its key (None: no bar)."""
        if self._message is not None:
            return self._message.talk, ("bar", self._message.key)
        if self._call is not None:
            return Talk("call", tuple(self._call.keys), self._call.needs), ("bar", self._call_key)
        # The desk's message, the next match (which the idle board shows itself).
        shown = self._shown
        if shown is not None and shown.waiting is not None and shown.message is None:
            return None
        standing = None if shown is None else standing_words(shown, self._layout_words())
        if standing is not None:
            head, forms = standing
            return Talk("notice", (head,), forms[0], forms), ("standing", head, forms)
        return None

    def _place(self) -> None:
        """Where the layout goes on the board: in the middle of a larger one."""
        w, h = (self.layout.width, self.layout.height) if not isinstance(self.layout, TinyLayout) else (
            self.width, self.height)
        self._origin = ((self.width - w) // 2, (self.height - h) // 2) if w <= self.width else (0, 0)

    def _compose(self, now: float) -> bool:
        """The scene for the state, the shot clock and the bar; True if it changed."""
        # No state at all (before the first match): a blank board, but for the bar.
        shown = self._shown
        colour = self._palette.colour
        talk = self._talk()
        if talk is None and shown is not None and shown.waiting is not None:
            w, h = (self.width, self.height) if isinstance(self.layout, TinyLayout) else (
                self.layout.width, self.layout.height)  # where _place put the layout
            scene = idle_scene(shown.waiting.venue, self._time_of_day, shown.handed, w, h, self._layout_words())
        elif talk is None:
            scene = self.layout.scene(shown.state, self._shot, colour) if shown is not None else ()
        else:
            # Over the idle board the bar takes the whole board, as before the first state.
            kept, box = ((), (0, 0, self.width, self.height)) if shown is None or shown.waiting is not None else (
                self.layout.with_bar(shown.state, self._shot, colour))
            bar = bar_item(talk[1], talk[0], box, self.motion)
            scene = (*kept, bar)
            if self._message is not None:
                # The message's time is its marquee's on this board (kept up to date: the bar
                # can narrow, on 64x16, when a score gets a third digit).
                self._until = self._message.since + reading_seconds(bar, self.motion)
        if scene == self.scene:
            return False
        self.scene = scene
        moving = [(i, _motion_key(item)) for i, item in enumerate(scene) if moves(item, self.motion)]
        self._epochs = {key: self._epochs.get(key, now) for _, key in moving}
        self._moving = moving
        return True

    @staticmethod
    def _ms(now: float, epoch: float) -> int:
        """Whole milliseconds from ``epoch`` to ``now``: the scene's time (see ``scene``)."""
        return math.floor((now - epoch) * 1000)

    def _times(self, now: float) -> list[int]:
        times = [0] * len(self.scene)
        for i, key in self._moving:
            times[i] = self._ms(now, self._epochs[key])
        return times

    def phase(self, now: float) -> tuple[Hashable, ...]:
        """Equal phases (for the same scene) draw equal pictures."""
        return tuple(phase(self.scene[i], self._ms(now, self._epochs[key]), self.motion)
                     for i, key in self._moving)

    def next_change(self, now: float) -> float | None:
        """When the picture next changes by itself (pages, scrolling, a message's end), or
        None: it won't.

        After ``now`` (but a message's end not yet taken by :meth:`expire`, which is due),
        and never a hair early: at the time returned, the phase is the new one (a timer that
        woke to find nothing changed would ask again, for ever).
        """
        best: float | None = self.message_until
        for i, key in self._moving:
            epoch = self._epochs[key]
            ms = next_change(self.scene[i], self._ms(now, epoch), self.motion)
            if ms is None:
                continue
            when = epoch + ms / 1000
            while self._ms(when, epoch) < ms:
                when = math.nextafter(when, math.inf)
            best = when if best is None else min(best, when)
        return best

    def draw(self, draw: ImageDraw.ImageDraw, now: float, *, inverted: bool = False) -> None:
        """Draw the scene as it is at ``now`` (``inverted``: the refusal flash)."""
        palette = self._inverted if inverted else self._palette
        background = palette.background()
        if background is not None:
            draw.rectangle((0, 0, self.width - 1, self.height - 1), fill=background)
        draw_scene(draw, self.scene, palette, self.motion, self._times(now), self._origin)


def render(shown: Shown | None, width: int, height: int, *, mode: str = "RGB",
           clock: float | None = None, at: float = 0.0, size: tuple[int, int] | None = None,
           options: LayoutOptions | None = None, inverted: bool = False, prompt: Prompt | None = None,
           refusal: str | None = None, notice: Notice | None = None, time_of_day: str = "") -> Image.Image:
    """One picture of ``shown`` on a ``width`` x ``height`` board, ``at`` seconds after it
    appeared, drawn on luma's ``dummy`` device (what the golden tests and ``cueboard render``
    use). ``prompt``: a call being keyed in (or lapsed), and ``refusal``: a refused key's
    reason (a :class:`~cueboard.contract.codes.Reason`: its short form), both appearing with the state (a
    refusal over the call); ``notice``: an undo or a redo acknowledged; ``time_of_day``: what the
    idle board (``shown.waiting``) says the time is.

    >>> from cueboard.boards.shown import Shown
    >>> from cueboard.engine import Match
    >>> match = Match.from_json({"type": "match", "game": "snooker", "sides": ["Ann", "Bob"]})
    >>> image = render(Shown(match.state()), 32, 8, mode="1")
    >>> image.size, image.mode
    ((32, 8), '1')
    """
    device = dummy(width=width, height=height, mode=mode)
    renderer = Renderer(width, height, mode, size=size, options=options)
    renderer.time_of_day(time_of_day, 0.0)
    renderer.update(shown, clock, 0.0)
    renderer.prompt(prompt, 0.0)
    if refusal is not None:
        renderer.refuse(refusal, 0.0)
    if notice is not None:
        renderer.notice(notice, 0.0)
    renderer.expire(at)
    with canvas(device) as draw:
        renderer.draw(draw, at, inverted=inverted)
    image: Image.Image = device.image
    return image

