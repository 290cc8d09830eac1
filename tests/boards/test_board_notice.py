"""A notice in the bar: after an ``amend`` the boards say CORRECTED and what (its undo or redo:
UNDO or REDO and CORRECTION), for a while, without the blink of a refusal (the input was taken),
in every board language."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PIL import Image

from cueboard.boards import Board, Renderer
from cueboard.boards.bar import READ_SECONDS
from cueboard.boards.notices import notice_words
from cueboard.boards.words import LANGUAGES, words_for
from cueboard.contract.notices import Notice
from cueboard.engine.events import Amend, Pot
from cueboard.engine.snooker.events import Foul
from cueboard.hw.clock import ManualClock
from cueboard.hw.display_config import parse_display
from cueboard.table.devices import open_board
from tests.helpers.boards import golden

BREAK = golden("snooker", "break")
PINK = Notice("corrected", Amend(seq=14, event=Pot(balls=("pink",))))


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
        b.notice(PINK)
        said = picture(b)
        assert said.tobytes() != plain.tobytes()
        talk = b._renderer.message
        assert talk is not None and (talk.kind, talk.head, talk.tail) == ("notice", "CORRECTED", "EVENT 14: POT PINK")
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
    r.notice(PINK, 0.0)
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


def test_every_correction_is_said_in_every_board_language() -> None:
    """A replacement, a deletion and an insertion, and the undo of one, in the five languages'
    words (screen/i18n/*.json), never the English of the event's type."""
    amends = [Amend(seq=14, event=Pot(balls=("pink",))), Amend(seq=3, delete=True),
              Amend(seq=2, insert=Foul(points=4))]
    for language in LANGUAGES:
        say = words_for(language)
        for kind, amend in [*(("corrected", a) for a in amends), ("undo", amends[1]), ("redo", amends[2])]:
            head, forms = notice_words(Notice(kind, amend), say)
            assert head == say(f"notice.{kind}")[0]
            assert forms and all(str(amend.seq) in f and "{" not in f for f in forms), (language, forms)
        _, forms = notice_words(Notice("corrected", amends[2]), say)
        assert say("event.foul", n=4)[0] in forms[0]
