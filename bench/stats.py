"""The benches' one percentile rule and the one form of a page bench's figures, so that every
figure in docs/performance.md is read the same way."""

from __future__ import annotations

import datetime
import json
import os
import sys
from collections.abc import Sequence
from typing import Any


def percentile(values: Sequence[float], p: float) -> float:
    """The value at ``p`` percent of ``values`` sorted (nearest rank, no interpolation: a
    figure is always one that was measured)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def summary(lags: Sequence[float]) -> dict[str, Any]:
    """``n``, ``p50_ms``, ``p99_ms`` and ``max_ms`` of ``lags`` (milliseconds); ``{"n": 0}`` for none."""
    if not lags:
        return {"n": 0}
    return {"n": len(lags), "p50_ms": round(percentile(lags, 50), 1), "p99_ms": round(percentile(lags, 99), 1),
            "max_ms": round(max(lags), 1)}


def over_floor(measured: dict[str, Any], floor: dict[str, Any]) -> dict[str, float | None]:
    """The p50 and p99 of ``measured`` over the floor's of the same run (:func:`summary`'s); None
    where either has no figure."""
    return {k: round(measured[k] / floor[k], 2) if measured.get(k) and floor.get(k) else None
            for k in ("p50_ms", "p99_ms")}


def load_average() -> list[float]:
    """The machine's 1, 5 and 15 minute load averages, as a report gives them."""
    return [round(x, 2) for x in os.getloadavg()]


def report(script: str, figures: dict[str, Any]) -> int:
    """Print a bench's ``figures`` as JSON under the command that made them (``script`` and this
    process's arguments), the date and the CPUs; the exit status: 0 when ``figures["ok"]``."""
    result = {"command": " ".join([script, *sys.argv[1:]]),
              "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"), "cpus": os.cpu_count(),
              **figures}
    print(json.dumps(result, indent=2))
    return 0 if result["ok"] else 1
