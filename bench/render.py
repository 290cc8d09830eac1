"""Benchmark of the LED boards (not a test): prints one JSON object.

    .venv/bin/python bench/render.py             # the figures
    .venv/bin/python bench/render.py --cpu 0     # pinned to one core

For each layout (32x8, 64x16, 128x32, as a MAX7219 chain of 4, 16 and 64 chips), and each
game, a match is shown state by state as the daemon shows it:

- snooker: the first ``EVENTS`` events of a synthetic best-of-35 final
  (``cueboard.games.simulate.final_log``), one ``show`` a state;
- blackball: the first ``EVENTS`` events of ``cueboard.games.simulate.blackball_log`` with the
  shot clock running: after each event, 20 s of clock, ``show`` every 100 ms.

Per layout and game:

- ``update_us``: p50/p99/max of the time ``Board.show`` takes for a new state, from the
  call to the last byte handed to the serial interface (render, encode, diff, write): what
  the daemon's press-to-pixels budget (p99 < 2 ms from a GPIO edge) spends on the board;
- ``update_cpu_us``: the same in CPU time of the thread: what the work costs, whatever else
  the machine is doing (wall-clock figures on a busy machine include time other processes
  had the core);
- ``clock_call_us``: p50/p99 of a ``show`` while the shot clock runs (mostly: nothing to do);
- ``bytes_per_update``: mean and p99 of the SPI bytes a new state sends, and the full frame
  luma's ``max7219`` sends for every frame (16 bytes a chip); ``bytes_per_clock_second``:
  SPI bytes for one second of a running shot clock, against a full frame at every call;
- ``luma_full_frame_us``: the same updates drawn and sent by luma's own ``max7219``
  (whole frames, its pixel loop): the refresh this replaces;
- ``spi_ms_at_8mhz``: the wire time of those bytes at luma's default 8 MHz (8 bits a
  byte, nothing else counted).

Timings move with the machine's load: compare runs made on a quiet machine. A Pi 4 runs
this code some 3-4 times slower than a laptop core.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

from luma.core.render import canvas
from luma.led_matrix.device import max7219
from stats import percentile

from cueboard.boards.shown import Shown
from cueboard.engine import Match
from cueboard.games.simulate import blackball_log, final_log
from cueboard.hw.display_config import parse_display
from cueboard.hw.display_devices import open_device
from cueboard.table.devices import open_board

EVENTS = 400
SEED = 2025
SIZES = ((32, 8), (64, 16), (128, 32))
SPI_HZ = 8_000_000


class CountingSerial:
    """A serial interface that counts what it is given (luma's ``spi`` has these methods)."""

    def __init__(self) -> None:
        self.bytes = 0

    def data(self, data: Any) -> None:
        self.bytes += len(data)

    def command(self, *cmd: int) -> None:
        self.bytes += len(cmd)

    def cleanup(self) -> None:
        pass


def states(log: list[dict[str, Any]]) -> list[Shown]:
    """Each state of the log as the daemon hands it to a board (typed, never JSON)."""
    match = Match.from_json(log[0])
    out = []
    for obj in log[1:EVENTS + 1]:
        match.apply(match.parse(obj))
        out.append(Shown(match.state(), shot=match.shot_time()))
    return out


def us(values: list[float]) -> dict[str, float]:
    return {"p50": round(percentile(values, 50) * 1e6, 1), "p99": round(percentile(values, 99) * 1e6, 1),
            "max": round(max(values) * 1e6, 1)}


def board_figures(size: tuple[int, int], shown: list[dict[str, Any]], clock: bool,
                  timer: Callable[[], float] = time.perf_counter) -> dict[str, Any]:
    w, h = size
    serial = CountingSerial()
    config = parse_display({"device": "max7219", "width": w, "height": h, "block_orientation": -90,
                            "resync_seconds": 0})
    board = open_board(config, device_factory=lambda c: open_device(c, serial=serial))
    chips = w * h // 64
    full = 16 * chips
    now = 0.0
    update: list[float] = []
    sent: list[int] = []
    calls: list[float] = []
    clock_bytes = 0
    clock_seconds = 0.0
    update_cpu: list[float] = []
    for state in shown:
        before = serial.bytes
        cpu = time.thread_time()
        start = timer()
        board.show(state, clock=60.0 if clock else None, now=now)
        update.append(timer() - start)
        update_cpu.append(time.thread_time() - cpu)
        sent.append(serial.bytes - before)
        if clock:
            before = serial.bytes
            for tenth in range(1, 200):  # 20 s of the shot clock, a call every 100 ms
                now += 0.1
                start = timer()
                board.show(state, clock=60.0 - tenth / 10, now=now)
                calls.append(timer() - start)
            clock_bytes += serial.bytes - before
            clock_seconds += 19.9
        now += 0.05  # the next event; pages and scrolling (ticks) are left out of these figures
    figures: dict[str, Any] = {
        "chips": chips,
        "updates": len(update),
        "update_us": us(update),
        "update_cpu_us": us(update_cpu),
        "bytes_per_update": {"mean": round(statistics.fmean(sent), 1), "p99": percentile(sent, 99),
                             "full_frame": full},
        "spi_ms_at_8mhz": {"mean_update": round(statistics.fmean(sent) * 8 / SPI_HZ * 1e3, 3),
                           "full_frame": round(full * 8 / SPI_HZ * 1e3, 3)},
    }
    if clock:
        figures["clock_call_us"] = us(calls)
        figures["bytes_per_clock_second"] = {"sent": round(clock_bytes / clock_seconds, 1),
                                             "full_frame_every_call": full * 10}
    board.close()
    return figures


def luma_full_frames(size: tuple[int, int], shown: list[dict[str, Any]], clock: bool) -> dict[str, float]:
    """The same states, drawn by the same renderer, sent whole by luma's ``max7219``."""
    w, h = size
    serial = CountingSerial()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # luma's getdata on Pillow 13
        device = max7219(serial, width=w, height=h, block_orientation=-90)
        board = open_board(parse_display({"device": "dummy", "width": w, "height": h, "mode": "1"}))
        renderer = board.renderer
        times = []
        for i, state in enumerate(shown):
            start = time.perf_counter()
            renderer.update(state, 60.0 if clock else None, float(i))
            with canvas(device) as draw:
                renderer.draw(draw, float(i))
            times.append(time.perf_counter() - start)
    return us(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpu", type=int, help="pin the process to this CPU (Linux)")
    args = parser.parse_args()
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    games = {"snooker": (states(final_log(35, seed=SEED)), False),
             "blackball": (states(blackball_log(25, seed=SEED)), True)}
    layouts: dict[str, Any] = {}
    for size in SIZES:
        name = f"{size[0]}x{size[1]}"
        layouts[name] = {}
        for game, (shown, clock) in games.items():
            board_figures(size, shown[:20], clock)  # warm the caches (fonts, glyphs)
            figures = board_figures(size, shown, clock)
            figures["luma_full_frame_us"] = luma_full_frames(size, shown, clock)
            layouts[name][game] = figures
    worst = max(g["update_us"]["p99"] for layout in layouts.values() for g in layout.values())
    worst_cpu = max(g["update_cpu_us"]["p99"] for layout in layouts.values() for g in layout.values())
    result = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "events": EVENTS,
        "logs": {"snooker": f"cueboard.games.simulate.final_log(35, seed={SEED})",
                 "blackball": f"cueboard.games.simulate.blackball_log(25, seed={SEED}), shot clock running"},
        "layouts": layouts,
        "target_update_p99_us": 2000,
        "worst_update_p99_us": worst,
        "worst_update_cpu_p99_us": worst_cpu,
        "meets_target": worst < 2000,
        "meets_target_cpu": worst_cpu < 2000,
    }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
