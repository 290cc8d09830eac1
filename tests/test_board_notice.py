"""A notice in the bar: after an ``amend`` (or its undo or redo) the boards say CORRECTED and
what, for a while, without the blink of a refusal (the input was taken)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PIL import Image

from cueboard.boards import Board, Renderer
from cueboard.boards.bar import READ_SECONDS
from cueboard.devices import open_board
from cueboard.hw.clock import ManualClock
from cueboard.hw.display_config import parse_display

STATES = json.loads((Path(__file__).parent / "golden" / "states.json").read_text(encoding="utf-8"))
BREAK = next(c["state"] for c in STATES["snooker"] if c["name"] == "break")


def board(width: int, height: int, clock: ManualClock) -> Board:
    config = parse_display({"device": "dummy", "width": width, "height": height, "mode": "RGB"})
    return open_board(config, time_source=clock)


def picture(b: Board) -> Image.Image:
    image: Image.Image = b.device.image.copy()
    return image


def test_corrected_is_said_in_the_bar_a_while_without_a_blink(tmp_path: Path) -> None:
    for width, height in ((128, 32), (64, 16)):
        clock = ManualClock()
        b = board(width, height, clock)
        b.show(BREAK)
        plain = picture(b)
        b.notice("CORRECTED", "event 14: pot pink")
        said = picture(b)
        assert said.tobytes() != plain.tobytes()
        talk = b._renderer.message
        assert talk is not None and (talk.kind, talk.head, talk.tail) == ("notice", "CORRECTED", "event 14: pot pink")
        big = said.resize((width * 6, height * 6), Image.Resampling.NEAREST)
        big.save(tmp_path / f"corrected-{width}x{height}.png")  # looked at: the bar reads CORRECTED
        clock.advance(0.2)
        b.tick()
        # A refusal would blink inverted now (a light background): a notice does not.
        dark = picture(b).convert("L").histogram()[0]
        assert dark > width * height // 2
        assert b._renderer.message is not None
        clock.advance(READ_SECONDS + 30)
        b.tick()
        assert b._renderer.message is None


def test_the_renderer_draws_a_notice_in_the_call_colour_not_the_alert() -> None:
    r = Renderer(128, 32)
    r.update(BREAK, None, 0.0)
    r.notice("CORRECTED", "event 14: pot pink", 0.0)
    texts: list[Any] = []

    def walk(items: Any) -> None:
        for item in items:
            pages = getattr(item, "pages", None)
            if pages is not None:
                for page in pages:
                    walk(page)
            elif hasattr(item, "text"):
                texts.append(item)

    walk(r.scene)
    corrected = [t for t in texts if "CORRECTED" in t.text]
    assert corrected and all(t.colour != "alert" for t in corrected)
