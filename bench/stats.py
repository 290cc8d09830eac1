"""The benches' one percentile rule, so that every figure in docs/performance.md is read the
same way."""

from __future__ import annotations

from collections.abc import Sequence


def percentile(values: Sequence[float], p: float) -> float:
    """The value at ``p`` percent of ``values`` sorted (nearest rank, no interpolation: a
    figure is always one that was measured)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]
