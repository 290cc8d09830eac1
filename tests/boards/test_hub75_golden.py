"""Golden images of the hall layouts (64x32, 128x64, 192x96, both games), each page drawn by
the board, handed to a HUB75 board on RGBMatrixEmulator (headless) and read back as the
frame the emulated panel was given; and the conversation bar on them. To redraw after a
deliberate change (and look at them)::

    CUEBOARD_UPDATE_GOLDEN=1 .venv/bin/pytest tests/boards/test_hub75_golden.py
    .venv/bin/python tools/board_pictures.py
"""

from __future__ import annotations

from pathlib import Path

import pytest
from board_pictures import TALK_CASES, hub75_sheet, hub75_talk_sheet, load_cases, pages

from cueboard.boards.catalogue import find_layout
from cueboard.boards.hall import HALL_SIZES
from tests.helpers.golden import compare_sheet

GOLDEN = Path(__file__).parents[1] / "golden"
CASES = load_cases(GOLDEN / "states.json")
BOARDS = [(game, size) for game in ("snooker", "blackball") for size in HALL_SIZES]


@pytest.mark.parametrize(("game", "size"), BOARDS, ids=[f"{g}-{w}x{h}" for g, (w, h) in BOARDS])
def test_the_hall_layout_draws_its_golden_image_on_the_emulated_panel(game: str, size: tuple[int, int]) -> None:
    drawn, corners = hub75_sheet(CASES[game], *size)
    compare_sheet(drawn, GOLDEN / f"hub75-{game}-{size[0]}x{size[1]}.png", corners, [c.name for c in CASES[game]],
                  size, "picture")


@pytest.mark.parametrize(("game", "size"), BOARDS, ids=[f"{g}-{w}x{h}" for g, (w, h) in BOARDS])
def test_the_bar_on_the_hall_layout_draws_its_golden_image(game: str, size: tuple[int, int]) -> None:
    cases = [c for c in CASES[game] if c.name in TALK_CASES[game]]
    drawn, corners, names = hub75_talk_sheet(cases, game, *size)
    compare_sheet(drawn, GOLDEN / f"talk-hub75-{game}-{size[0]}x{size[1]}.png", corners, names, size, "picture")


@pytest.mark.parametrize(("game", "size"), BOARDS, ids=[f"{g}-{w}x{h}" for g, (w, h) in BOARDS])
def test_each_hall_board_has_its_own_layout_and_lights_colour(game: str, size: tuple[int, int]) -> None:
    layout = find_layout(CASES[game][0].shown.state, *size)
    assert (layout.game, layout.width, layout.height) == (game, *size)
    for case in CASES[game]:
        for page in pages(case, *size, "RGB"):
            colours = {rgb for _, rgb in page.getcolors(1 << 16) or []}
            # Anti-aliased: edges partly lit, not only the palette's full colours.
            assert len(colours) > 8, f"{case.name}: {len(colours)} colours"
            assert page.getbbox() is not None
