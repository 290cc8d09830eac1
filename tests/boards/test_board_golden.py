"""Golden images: each layout of each game, drawn on luma's ``dummy`` device, pixel for pixel.

The states are ``tests/golden/states.json`` (real states of the example logs, and a few
made harder: long names, doubles, three-digit scores, two-digit frames, a shot clock).
Each golden PNG is a sheet: a row a state, a column a page as the board shows them in
turn (see ``tools/board_pictures.py``). The ``talk-*`` sheets are the conversation bar:
a call being keyed in, a lapsed call and refusals over two states of each game, a column
a moment. After a deliberate change of a layout, look at the new pictures, then redraw
the goldens with::

    CUEBOARD_UPDATE_GOLDEN=1 .venv/bin/pytest tests/boards/test_board_golden.py
    .venv/bin/python tools/board_pictures.py      # and the pictures in docs/img/
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from board_pictures import (
    LANGUAGE_PICTURES,
    LANGUAGE_SHEETS,
    MESSAGE_PICTURES,
    MESSAGE_SHEETS,
    PICTURES,
    TALK_CASES,
    TALK_PICTURES,
    language_sheet,
    load_cases,
    message_sheet,
    pictures,
    sheet,
    talk_sheet,
)
from PIL import Image

from tests.helpers.golden import compare_sheet

GOLDEN = Path(__file__).parents[1] / "golden"
ROOT = Path(__file__).parents[2]
CASES = load_cases(GOLDEN / "states.json")

SHEETS = [(game, size, mode) for game in ("snooker", "blackball") for size in ((32, 8), (64, 16), (128, 32))
          for mode in ("1", "RGB")]
ODD_SIZES = [("snooker", (16, 8), "1"), ("blackball", (24, 8), "RGB"), ("snooker", (40, 8), "1"),
             ("blackball", (64, 32), "RGB"), ("snooker", (96, 24), "RGB")]
"""Boards without a layout of their own: the largest layout that fits, in the middle, or the
tiny one below 32x8."""


def golden_path(game: str, size: tuple[int, int], mode: str) -> Path:
    return GOLDEN / f"{game}-{size[0]}x{size[1]}-{'mono' if mode == '1' else 'rgb'}.png"


@pytest.mark.parametrize(("game", "size", "mode"), SHEETS + ODD_SIZES,
                         ids=[golden_path(*case).stem for case in SHEETS + ODD_SIZES])
def test_the_layout_draws_its_golden_image(game: str, size: tuple[int, int], mode: str) -> None:
    drawn, corners = sheet(CASES[game], *size, mode)
    compare_sheet(drawn, golden_path(game, size, mode), corners, [c.name for c in CASES[game]], size)


TALK_SHEETS = [*SHEETS, ("snooker", (16, 8), "1"), ("blackball", (24, 8), "RGB"), ("snooker", (40, 8), "1"),
               ("blackball", (64, 32), "RGB")]
"""The bar on every layout, and on boards drawn by the tiny layout or a smaller one in the middle."""


@pytest.mark.parametrize(("game", "size", "mode"), TALK_SHEETS,
                         ids=[golden_path(*case).stem for case in TALK_SHEETS])
def test_the_bar_draws_its_golden_image(game: str, size: tuple[int, int], mode: str) -> None:
    cases = [c for c in CASES[game] if c.name in TALK_CASES[game]]
    drawn, corners, names = talk_sheet(cases, game, *size, mode)
    path = golden_path(game, size, mode).with_name("talk-" + golden_path(game, size, mode).name)
    compare_sheet(drawn, path, corners, names, size, "moment")


@pytest.mark.parametrize(("size", "mode"), MESSAGE_SHEETS,
                         ids=[f"{w}x{h}-{'mono' if mode == '1' else 'rgb'}" for (w, h), mode in MESSAGE_SHEETS])
def test_the_messages_the_referee_trusts_draw_their_golden_image(size: tuple[int, int], mode: str) -> None:
    """Issue 24: an undo and a redo acknowledged with what they took back or put back; a
    refusal's short form; who won the frame and the match, with the score; a miss count on the
    offender's line; a held shot clock (its word and its seconds in turn), on every layout."""
    drawn, corners, names = message_sheet(CASES, *size, mode)
    path = GOLDEN / "messages" / f"messages-{size[0]}x{size[1]}-{'mono' if mode == '1' else 'rgb'}.png"
    compare_sheet(drawn, path, corners, names, size, "moment")


def language_path(language: str, game: str, size: tuple[int, int], mode: str) -> Path:
    return GOLDEN / "languages" / f"{language}-{golden_path(game, size, mode).name}"


@pytest.mark.parametrize(("language", "game", "size", "mode"), LANGUAGE_SHEETS,
                         ids=[language_path(*case).stem for case in LANGUAGE_SHEETS])
def test_each_language_draws_its_golden_image(language: str, game: str, size: tuple[int, int], mode: str) -> None:
    """Every state of both games, with the board's words in Dutch, Swedish, German and French:
    the words of the catalogue, the shortest form that fits where the longest does not."""
    drawn, corners = language_sheet(CASES[game], *size, mode, language)
    compare_sheet(drawn, language_path(language, game, size, mode), corners, [c.name for c in CASES[game]], size)


@functools.cache
def drawn_pictures() -> dict[str, Image.Image]:
    return pictures()


@pytest.mark.parametrize("picture", sorted(PICTURES) + sorted(TALK_PICTURES) + sorted(LANGUAGE_PICTURES)
                         + sorted(MESSAGE_PICTURES))
def test_the_pictures_in_the_docs_are_what_the_layouts_draw(picture: str) -> None:
    with Image.open(ROOT / picture) as saved:
        assert saved.convert("RGB").tobytes() == drawn_pictures()[picture].tobytes(), (
            "redraw with: .venv/bin/python tools/board_pictures.py")
