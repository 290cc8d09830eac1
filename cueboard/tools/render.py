"""``cueboard render``: a picture of a board showing a state or a replayed log, drawn by the
boards' own code on luma's ``dummy`` device, for a preview or a document. Its options:
docs/boards.md ("Preview any state") and ``cueboard render --help``.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from PIL import Image

from cueboard.boards import SIZES, LayoutOptions, parse_size, render
from cueboard.boards.preview import leds
from cueboard.boards.shown import Shown, Waiting
from cueboard.boards.words import words_for
from cueboard.common.errors import RenderError
from cueboard.contract.notices import Prompt
from cueboard.engine import IllegalEvent
from cueboard.table.journal import written

__all__ = ["RenderError", "read_prompt", "read_state", "run"]


def read_state(data: bytes, source: str = "input", game: str | None = None) -> Shown:
    """The state in ``data``: a JSON object, the last of JSON lines, or a log's end, read
    strictly (``docs/state.md``): a state that does not fit is a :class:`RenderError` naming
    the file and the field, and nothing is drawn. ``game`` (``--game``) sets its ``game``
    first."""
    lines_end, end = written(data)
    if end < len(data):  # a running table's journal: its preallocated zeros after the lines (cueboard.table.journal)
        if lines_end < end:
            raise RenderError(f"{source}: its last line is torn: it runs into zero bytes (a power cut?)")
        data = data[:lines_end]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RenderError(f"{source}: not UTF-8 ({exc.reason})") from None
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, dict):
        objects: list[Any] = [whole]
    else:
        objects = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                objects.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise RenderError(f"{source}: line {number} is not JSON ({exc.msg})") from None
    if not objects or not all(isinstance(o, dict) for o in objects):
        raise RenderError(f"{source}: expected a state (a JSON object) or an event log")
    if objects[0].get("type") == "match":
        from cueboard.common.errors import RejectedLine
        from cueboard.games.replay import replay

        try:
            matches = [m for m, _ in replay(line.encode() for line in text.splitlines())]
        except RejectedLine as exc:
            raise RenderError(f"{source}: {exc}") from None
        # A log's end: the state it leaves (replay raises on an empty log).
        state: dict[str, Any] = dict(matches[-1].state().to_json())
    else:
        state = dict(objects[-1])
    if game is not None:
        state["game"] = game
    try:
        return Shown.from_json(state)
    except IllegalEvent as exc:
        raise RenderError(f"{source}: {exc}") from None


def read_prompt(keys: str | None, needs: str | None, lapsed: bool) -> Prompt | None:
    """The call of ``--prompt KEY,KEY --needs TEXT`` (or ``--lapsed``); None without ``--prompt``."""
    if keys is None:
        if needs is not None or lapsed:
            raise RenderError("--needs and --lapsed go with --prompt (the keys of the call, such as FOUL,MISS)")
        return None
    legends = tuple(k.strip() for k in keys.split(","))
    if not all(legends):
        raise RenderError(f"--prompt: the keys' legends, each named, between commas (such as FOUL,MISS), "
                          f"not {keys!r}")
    return Prompt("render", legends, needs or "", lapsed)


def run(source: str, out: str, *, layout: str, size: str | None, game: str | None, mode: str,
        clock: float | None, at: float, scale: int, pixels: bool, flash: bool,
        stdin: BinaryIO, stderr: TextIO, prompt: str | None = None, needs: str | None = None,
        lapsed: bool = False, refusal: str | None = None, language: str = "en", idle: str | None = None,
        time_of_day: str = "20:15") -> int:
    """The command: 0 with the picture written, 1 when the input or output fails."""
    try:
        call = read_prompt(prompt, needs, lapsed)
        if refusal is not None and not refusal.strip():
            raise RenderError("--refusal: the reason the key was refused, not nothing")
    except RenderError as exc:
        print(f"cueboard render: {exc}", file=stderr)
        return 1
    try:
        data = stdin.read() if source == "-" else Path(source).read_bytes()
    except OSError as exc:
        print(f"cueboard render: cannot read {source}: {exc.strerror}", file=stderr)
        return 1
    try:
        shown = read_state(data, source, game)
        layout_size = parse_size(layout)
        board_size = parse_size(size) if size else layout_size
    except (RenderError, ValueError) as exc:
        print(f"cueboard render: {exc}", file=stderr)
        return 1
    if idle is not None:
        shown = replace(shown, waiting=Waiting(idle))
    forced = layout_size if layout_size in SIZES else None
    options = LayoutOptions(words=words_for(language))
    image = render(shown, *board_size, mode=mode, clock=clock, at=at, size=forced, inverted=flash, prompt=call,
                   refusal=refusal, options=options, time_of_day=time_of_day)
    picture = image.convert("RGB") if pixels else leds(image, scale=scale)
    if pixels and scale > 1:
        picture = picture.resize((image.width * scale, image.height * scale), Image.Resampling.NEAREST)
    try:
        picture.save(out)
    except (OSError, ValueError) as exc:
        print(f"cueboard render: cannot write {out}: {exc}", file=stderr)
        return 1
    return 0
