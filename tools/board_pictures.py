"""Sheets of board pictures: every layout showing a set of states, page by page.

A sheet has a row a state and a column a page (what the board shows at 0, 2.5, 5 ...
seconds, pictures that repeat left out), the boards one pixel an LED with a 2-pixel
gap between them. The golden tests compare such sheets with ``tests/golden/``, and the
pictures in ``docs/img/`` are sheets drawn as LEDs. ``python tools/board_pictures.py``
redraws the pictures in ``docs/img/`` from the states of ``tests/golden/states.json``.

Each language the boards speak (``cueboard/boards/words.py``) has sheets of its own
(:func:`language_sheet`, :data:`LANGUAGE_SHEETS`), and ``docs/img/board-languages-*.png``
show one board in each (:data:`LANGUAGE_PICTURES`).

The conversation bar (``cueboard/boards/bar.py``) has sheets of its own: a row a state
with a call being keyed in, a lapsed call or a refusal (:data:`SAID`), a column a moment
(:data:`TALK_TIMES`: its start, its marquee moving, and long after, when a refusal is gone).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from cueboard.boards import LayoutOptions, render
from cueboard.boards.preview import leds
from cueboard.boards.shown import Shown
from cueboard.boards.words import words_for
from cueboard.common.languages import LANGUAGES
from cueboard.contract.codes import Reason
from cueboard.contract.notices import Notice, Prompt
from cueboard.engine.blackball.events import Foul as BlackballFoul
from cueboard.engine.events import Pot
from cueboard.engine.shot_clock import ShotTime
from cueboard.engine.snooker.events import Foul as SnookerFoul

__all__ = [
    "GAP",
    "LANGUAGE_PICTURES",
    "LANGUAGE_SHEETS",
    "MESSAGES",
    "MESSAGE_PICTURES",
    "MESSAGE_SHEETS",
    "PICTURES",
    "SAID",
    "TALK_CASES",
    "TALK_PICTURES",
    "TALK_TIMES",
    "Case",
    "Said",
    "hub75_sheet",
    "hub75_talk_sheet",
    "language_sheet",
    "led_sheet",
    "load_cases",
    "message_sheet",
    "pages",
    "pictures",
    "sheet",
    "talk_pages",
    "talk_sheet",
    "through_emulator",
]

ROOT = Path(__file__).resolve().parent.parent
STATES = ROOT / "tests" / "golden" / "states.json"
GAP = 2
MAX_PAGES = 4
SAMPLES = 6


@dataclass(frozen=True)
class Case:
    """A state to draw (as JSON: ``tests/golden/states.json``'s, with a row's changes), with the
    shot clock's seconds left (None: not running) and, when the file gives it, the shot's call
    (``call``: seconds into the shot; else as the state says: :func:`~cueboard.boards.shown.next_shot`)."""

    name: str
    state: dict[str, Any]
    clock: float | None = None
    call: tuple[float | None] | None = None

    @property
    def shown(self) -> Shown:
        """What the board draws, read strictly (a golden state that does not fit is an error)."""
        shown = Shown.from_json(self.state)
        if self.call is None or shown.shot is None:
            return shown
        return replace(shown, shot=ShotTime(shown.shot.length, self.call[0]))

    def changed(self, name: str, changes: dict[str, Any]) -> Case:
        """This case with ``changes`` to its state's fields (a row of a picture)."""
        return replace(self, name=name, state={**self.state, **changes})


def load_cases(path: Path = STATES) -> dict[str, list[Case]]:
    """The named states of each game in ``path`` (``tests/golden/states.json``): a state, the
    clock's seconds left, and the board's extras beside the state (``call``)."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    return {game: [Case(c["name"], c["state"], c.get("clock"), (c["call"],) if "call" in c else None)
                   for c in cases] for game, cases in raw.items()}


def pages(case: Case, width: int, height: int, mode: str, *, size: tuple[int, int] | None = None,
          options: LayoutOptions | None = None) -> list[Image.Image]:
    """The pictures ``case`` shows in turn (sampled every ``page_seconds``), repeats left out."""
    seconds = (options or LayoutOptions()).page_seconds
    out: list[Image.Image] = []
    seen: set[bytes] = set()
    for k in range(SAMPLES):
        image = render(case.shown, width, height, mode=mode, clock=case.clock, at=k * seconds, size=size,
                       options=options)
        data = image.tobytes()
        if data not in seen:
            seen.add(data)
            out.append(image)
        if len(out) == MAX_PAGES:
            break
    return out


@dataclass(frozen=True)
class Said:
    """What the table says on the board over a state: a call (or a lapsed one), a refusal
    (a :class:`~cueboard.contract.codes.Reason`: its short form), an undo or a redo."""

    name: str
    prompt: Prompt | None = None
    refusal: str | None = None
    notice: Notice | None = None


SAID: dict[str, tuple[Said, ...]] = {
    "snooker": (
        Said("call", Prompt("referee_box:0", ("FOUL", "MISS"), "the ball that sets the penalty (4 to 7)")),
        Said("call-keys", Prompt("keypad", ("FREE BALL", "FOUL", "MISS"), "the ball that sets the penalty (4 to 7)")),
        Said("call-short", Prompt("keypad", ("AWARD",), "the side: 1 or 2")),
        Said("lapsed", Prompt("referee_box:0", ("FOUL", "MISS"), lapsed=True)),
        Said("refusal", refusal=Reason("red is on: potting the pink is a foul, enter a foul (Section 3 Rule "
                                       "10(b)(iii))", "not_on", ball="red")),
        Said("refusal-short", refusal=Reason("the match is over", "match_over")),
        Said("undo", notice=Notice("undo", Pot(balls=("black",)))),
        Said("redo", notice=Notice("redo", SnookerFoul(points=4, miss=True))),
    ),
    "blackball": (
        Said("call", Prompt("referee_box:0", ("FOUL",), "the balls that went down, then FOUL or OK")),
        Said("call-short", Prompt("keypad", ("AWARD",), "the side: 1 or 2")),
        Said("lapsed", Prompt("keypad", ("FOUL", "+"), lapsed=True)),
        Said("refusal", refusal=Reason("yellow is not your group: enter a foul (rule 5c)", "not_your_group",
                                       ball="yellow")),
        Said("undo", notice=Notice("undo", BlackballFoul(balls=("yellow",)))),
    ),
}
"""The calls and refusals of the golden sheets and the pictures, in the keymaps' words."""

TALK_CASES: dict[str, tuple[str, ...]] = {"snooker": ("break", "three-digits"), "blackball": ("groups", "frame-over")}
"""The states the bar is drawn over: an ordinary one, and one that narrows the bar on 64x16
(three-digit scores; a running shot clock)."""

TALK_TIMES: tuple[float, ...] = (0.0, 2.5, 5.0, 60.0)
"""When the bar is drawn: as it appears, moving, and a minute on (a call still pending; a
refusal gone, the state back)."""


def talk_pages(case: Case, said: Said, width: int, height: int, mode: str, *,
               times: Sequence[float] = TALK_TIMES) -> list[Image.Image]:
    """What the board shows at ``times`` after ``said`` came over ``case``, repeats left out."""
    out: list[Image.Image] = []
    seen: set[bytes] = set()
    for at in times:
        image = render(case.shown, width, height, mode=mode, clock=case.clock, at=at, prompt=said.prompt,
                       refusal=said.refusal, notice=said.notice)
        if image.tobytes() not in seen:
            seen.add(image.tobytes())
            out.append(image)
    return out


def talk_sheet(cases: Sequence[Case], game: str, width: int, height: int,
               mode: str) -> tuple[Image.Image, list[list[tuple[int, int]]], list[str]]:
    """The sheet of :data:`SAID` over each of ``cases``: the image, each row's corners, and
    each row's name (``state/said``)."""
    rows, names = [], []
    for case in cases:
        for said in SAID[game]:
            rows.append(talk_pages(case, said, width, height, mode))
            names.append(f"{case.name}/{said.name}")
    image, corners = _assemble(rows, width, height, mode)
    return image, corners, names


def sheet(cases: Sequence[Case], width: int, height: int, mode: str, *,
          size: tuple[int, int] | None = None) -> tuple[Image.Image, list[list[tuple[int, int]]]]:
    """The sheet of ``cases`` and, for each case, the top-left corner of each of its pages."""
    return _assemble([pages(c, width, height, mode, size=size) for c in cases], width, height, mode)


def language_sheet(cases: Sequence[Case], width: int, height: int, mode: str,
                   language: str) -> tuple[Image.Image, list[list[tuple[int, int]]]]:
    """:func:`sheet` with the board's words in ``language`` (``[display] language``)."""
    options = LayoutOptions(words=words_for(language))
    return _assemble([pages(c, width, height, mode, options=options) for c in cases], width, height, mode)


LANGUAGE_SHEETS: tuple[tuple[str, str, tuple[int, int], str], ...] = tuple(
    (language, game, size, mode) for language in LANGUAGES if language != "en" for game in ("snooker", "blackball")
    for size, mode in (((32, 8), "1"), ((64, 16), "RGB"), ((128, 32), "RGB"), ((128, 64), "RGB")))
"""The golden sheets of the other languages (English's are the sheets above): every state
of both games on a one-colour 32x8, a 64x16, a 128x32 and a 128x64 hall board."""


HELD = {"clock": {"running": False, "paused": True, "left": 41.0, "length": 60}}
"""A state's changes when the referee holds the shot clock (the daemon's ``clock`` object)."""

MESSAGES: tuple[tuple[str, str, str, dict[str, Any], str | None], ...] = (
    # (row, game, state, changes to it, what is said over it: a name of SAID[game])
    ("undo", "snooker", "break", {}, "undo"),
    ("redo", "snooker", "break", {}, "redo"),
    ("refusal", "snooker", "break", {}, "refusal"),
    ("frame-won", "snooker", "match-over", {"match_over": False, "match_winner": None}, None),
    ("match-won", "snooker", "match-over", {}, None),
    ("miss-on-the-offenders-line", "snooker", "miss", {}, None),
    ("held-clock", "snooker", "shot-clock", HELD, None),
    ("blackball-refusal", "blackball", "groups", {}, "refusal"),
    ("blackball-frame-won", "blackball", "frame-over", {}, None),
    ("blackball-match-won", "blackball", "match-over", {}, None),
    ("blackball-held-clock", "blackball", "groups", HELD, None),
)
"""The messages the referee must trust at a glance (issue 24), a row each: an undo and a redo
acknowledged, a refusal's short form, who won a frame and a match with the score, a miss count
on the offender's line, a held shot clock; a column a moment (:data:`MESSAGE_TIMES`)."""

MESSAGE_TIMES: tuple[float, ...] = (0.0, 1.6, 2.6, 5.1, 7.6)

MESSAGE_SHEETS: tuple[tuple[tuple[int, int], str], ...] = (
    ((32, 8), "1"), ((32, 8), "RGB"), ((64, 16), "RGB"), ((128, 32), "RGB"), ((64, 32), "RGB"),
    ((128, 64), "RGB"), ((192, 96), "RGB"))
"""Every layout's messages sheet (``tests/golden/messages/``)."""


def message_sheet(cases: dict[str, list[Case]], width: int, height: int,
                  mode: str) -> tuple[Image.Image, list[list[tuple[int, int]]], list[str]]:
    """The sheet of :data:`MESSAGES` on one layout: the image, each row's corners, its names."""
    named = {(game, c.name): c for game, group in cases.items() for c in group}
    said = {(game, s.name): s for game, group in SAID.items() for s in group}
    rows, names = [], []
    for name, game, state, changes, says in MESSAGES:
        base = named[game, state]
        case = base.changed(name, changes)
        if says is None:
            out: list[Image.Image] = []
            for at in MESSAGE_TIMES:
                image = render(case.shown, width, height, mode=mode, clock=case.clock, at=at)
                if all(image.tobytes() != o.tobytes() for o in out):
                    out.append(image)
            rows.append(out)
        else:
            rows.append(talk_pages(case, said[game, says], width, height, mode, times=(0.0, 1.6, 6.0)))
        names.append(name)
    image, corners = _assemble(rows, width, height, mode)
    return image, corners, names


MESSAGE_PICTURES: dict[str, tuple[tuple[int, int], str]] = {
    "docs/img/board-messages-32x8.png": ((32, 8), "1"),
    "docs/img/board-messages-64x16.png": ((64, 16), "RGB"),
    "docs/img/board-messages-128x32.png": ((128, 32), "RGB"),
    "docs/img/board-messages-128x64.png": ((128, 64), "RGB"),
}
"""The messages sheets in ``docs/img/``, as LEDs."""


def through_emulator(width: int, height: int) -> Callable[[Image.Image], Image.Image]:
    """A HUB75 board of that size on RGBMatrixEmulator, headless: each picture handed to it
    comes back as the frame the emulated panel was given (hw/hub75.py)."""
    from cueboard.hw.display_config import parse_display
    from cueboard.hw.display_devices import open_device
    from cueboard.hw.hub75 import last_frame

    device = open_device(parse_display({"device": "hub75", "width": width, "height": height,
                                        "backend": "emulator"}))

    def show(image: Image.Image) -> Image.Image:
        device.display(image)
        return last_frame(device)

    return show


def hub75_sheet(cases: Sequence[Case], width: int, height: int) -> tuple[Image.Image, list[list[tuple[int, int]]]]:
    """:func:`sheet` for a HUB75 board, each page as the emulated panel showed it."""
    show = through_emulator(width, height)
    return _assemble([[show(p) for p in pages(c, width, height, "RGB")] for c in cases], width, height, "RGB")


def hub75_talk_sheet(cases: Sequence[Case], game: str, width: int,
                     height: int) -> tuple[Image.Image, list[list[tuple[int, int]]], list[str]]:
    """:func:`talk_sheet` for a HUB75 board, through the emulated panel."""
    show = through_emulator(width, height)
    rows, names = [], []
    for case in cases:
        for said in SAID[game]:
            rows.append([show(p) for p in talk_pages(case, said, width, height, "RGB")])
            names.append(f"{case.name}/{said.name}")
    image, corners = _assemble(rows, width, height, "RGB")
    return image, corners, names


def _assemble(rows: Sequence[Sequence[Image.Image]], width: int, height: int,
              mode: str) -> tuple[Image.Image, list[list[tuple[int, int]]]]:
    columns = max(len(r) for r in rows)
    image = Image.new(mode, (columns * (width + GAP) - GAP, len(rows) * (height + GAP) - GAP))
    corners: list[list[tuple[int, int]]] = []
    for r, row in enumerate(rows):
        corners.append([])
        for c, page in enumerate(row):
            xy = (c * (width + GAP), r * (height + GAP))
            image.paste(page, xy)
            corners[-1].append(xy)
    return image, corners


PICTURES: dict[str, tuple[str, tuple[int, int], str, tuple[str, ...]]] = {
    # picture: (game, board size, mode, the cases it shows)
    "docs/img/board-snooker-32x8.png": ("snooker", (32, 8), "1", ("break", "free-ball", "snookers")),
    "docs/img/board-snooker-64x16.png": ("snooker", (64, 16), "RGB", ("break", "snookers", "match-over")),
    "docs/img/board-snooker-128x32.png": ("snooker", (128, 32), "RGB", ("break", "snookers", "respotted-black")),
    "docs/img/board-blackball-32x8.png": ("blackball", (32, 8), "1", ("groups", "free-shot", "match-over")),
    "docs/img/board-blackball-64x16.png": ("blackball", (64, 16), "RGB", ("groups", "free-shot", "match-over")),
    "docs/img/board-blackball-128x32.png": ("blackball", (128, 32), "RGB", ("groups", "free-shot",
                                                                             "match-over")),
    # The hall boards (HUB75 panels).
    "docs/img/board-snooker-64x32.png": ("snooker", (64, 32), "RGB", ("break", "snookers")),
    "docs/img/board-snooker-128x64.png": ("snooker", (128, 64), "RGB", ("break", "snookers", "match-over")),
    "docs/img/board-snooker-192x96.png": ("snooker", (192, 96), "RGB", ("free-ball", "shot-clock")),
    "docs/img/board-blackball-64x32.png": ("blackball", (64, 32), "RGB", ("groups", "free-shot")),
    "docs/img/board-blackball-128x64.png": ("blackball", (128, 64), "RGB", ("groups", "free-shot", "match-over")),
    "docs/img/board-blackball-192x96.png": ("blackball", (192, 96), "RGB", ("black-on", "two-digit-frames")),
}
"""The pictures in ``docs/img/``: a few telling states of each layout, as LEDs."""

TALK_PICTURES: dict[str, tuple[tuple[int, int], str, tuple[tuple[str, str, str], ...], tuple[float, ...]]] = {
    # picture: (board size, mode, rows of (game, state, said), times)
    **{f"docs/img/board-prompt-{w}x{h}.png": ((w, h), mode, (
        ("snooker", "break", "call"), ("snooker", "break", "lapsed"), ("blackball", "groups", "call")),
        (0.0, 3.0)) for (w, h), mode in (((32, 8), "1"), ((64, 16), "RGB"), ((128, 32), "RGB"))},
    **{f"docs/img/board-refusal-{w}x{h}.png": ((w, h), mode, (
        ("snooker", "break", "refusal"), ("blackball", "groups", "refusal")),
        (0.0, 3.0, 6.0, 60.0)) for (w, h), mode in (((32, 8), "1"), ((64, 16), "RGB"), ((128, 32), "RGB"))},
    "docs/img/board-talk-128x64.png": ((128, 64), "RGB", (
        ("snooker", "break", "call"), ("snooker", "break", "refusal"), ("blackball", "groups", "lapsed")),
        (0.0, 3.0)),
}
"""The pictures of the bar in ``docs/img/``: calls, a lapsed call, refusals, at a few moments
(a refusal's last one: gone, the state back)."""


LANGUAGE_PICTURES: dict[str, tuple[str, tuple[int, int], tuple[tuple[str, dict[str, Any], float], ...]]] = {
    # picture: (game, board size, columns of (state, changes to it, seconds after it came))
    "docs/img/board-languages-snooker.png": ("snooker", (128, 32), (
        *(("snookers", {"free_ball": True, "misses": 1}, at) for at in (0.0, 2.5, 5.0, 7.5)),
        ("match-over", {}, 0.0))),
    "docs/img/board-languages-blackball.png": ("blackball", (128, 32), (
        ("free-shot", {}, 0.0),
        ("free-shot", {}, 2.5),
        ("match-over", {}, 0.0))),
}
"""A board in each language: a row a language, a few moments of a few states side by side
(together they say every word of the layout but the rarest)."""

LANGUAGE_NAMES = {"en": "English", "nl": "Nederlands", "sv": "Svenska", "de": "Deutsch", "fr": "Français"}


def language_pictures(cases: dict[str, list[Case]]) -> dict[str, Image.Image]:
    """Each picture of :data:`LANGUAGE_PICTURES`: the language's name, then its moments."""
    out = {}
    for path, (game, (w, h), columns) in LANGUAGE_PICTURES.items():
        named = {c.name: c for c in cases[game]}
        rows = []
        for language in LANGUAGES:
            options = LayoutOptions(words=words_for(language))
            rows.append([render(named[name].changed(name, changes).shown, w, h, mode="RGB", clock=named[name].clock,
                                at=at, options=options) for name, changes, at in columns])
        out[path] = _labelled(led_sheet(rows, scale=4), [LANGUAGE_NAMES[lang] for lang in LANGUAGES], 4 * h,
                              margin=12)
    return out


def _labelled(image: Image.Image, labels: Sequence[str], row_h: int, margin: int) -> Image.Image:
    """``image`` (a :func:`led_sheet`) with a label before each row."""
    from importlib.resources import files

    font = ImageFont.truetype(str(files("cueboard.boards") / "ttf" / "DejaVuSansCondensed-Bold.ttf"), 26)
    label_w = max(int(font.getlength(t)) for t in labels) + 2 * margin
    out = Image.new("RGB", (image.width + label_w, image.height), (72, 72, 78))
    out.paste(image, (label_w, 0))
    draw = ImageDraw.Draw(out)
    for r, text in enumerate(labels):
        y = margin + r * (row_h + margin) + row_h // 2
        draw.text((margin, y), text, font=font, fill=(235, 235, 235), anchor="lm")
    return out


def led_sheet(rows: Sequence[Sequence[Image.Image]], scale: int, margin: int = 12) -> Image.Image:
    """Boards as LEDs (:func:`~.preview.leds`), a row of pages a state, on a grey ground."""
    drawn = [[leds(page, scale=scale) for page in row] for row in rows]
    cell_w = max(d.width for row in drawn for d in row)
    cell_h = max(d.height for row in drawn for d in row)
    columns = max(len(row) for row in drawn)
    image = Image.new("RGB", (margin + columns * (cell_w + margin), margin + len(drawn) * (cell_h + margin)),
                      (72, 72, 78))
    for r, row in enumerate(drawn):
        for c, board in enumerate(row):
            image.paste(board, (margin + c * (cell_w + margin), margin + r * (cell_h + margin)))
    return image


def pictures(root: Path = ROOT) -> dict[str, Image.Image]:
    """Each picture of :data:`PICTURES` and :data:`TALK_PICTURES`, drawn."""
    cases = load_cases(root / "tests" / "golden" / "states.json")
    out = {}
    for path, (game, (w, h), mode, names) in PICTURES.items():
        rows = [pages(c, w, h, mode) for c in cases[game] if c.name in names]
        out[path] = led_sheet(rows, scale=_scale(w))
    for path, ((w, h), mode, said_rows, times) in TALK_PICTURES.items():
        said = {(game, s.name): s for game, group in SAID.items() for s in group}
        named = {(game, c.name): c for game, group in cases.items() for c in group}
        rows = [talk_pages(named[game, state], said[game, name], w, h, mode, times=times)
                for game, state, name in said_rows]
        out[path] = led_sheet(rows, scale=_scale(w))
    out.update(language_pictures(cases))
    for path, ((w, h), mode) in MESSAGE_PICTURES.items():
        sheet_image, corners, _ = message_sheet(cases, w, h, mode)
        rows = [[sheet_image.crop((x, y, x + w, y + h)) for x, y in row] for row in corners]
        out[path] = led_sheet(rows, scale=_scale(w))
    return out


def _scale(width: int) -> int:
    """Pixels an LED in the pictures: the big boards smaller, so that a picture stays a page wide."""
    return 8 if width <= 64 else 6 if width <= 128 else 4


def main() -> int:
    for path, image in pictures().items():
        image.save(ROOT / path, optimize=True)
        print(path, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
