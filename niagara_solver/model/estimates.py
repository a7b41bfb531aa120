"""Estimates from simulated games and their 95% confidence intervals (the advice of the analysis, ``simulate``).

Wilson's interval for a rate, Newcombe's for a difference of rates, the normal approximation for a mean and a
difference of means, the order statistics for a median, a seeded bootstrap for a difference of medians. Every
function returns plain numbers; :func:`interval_json` and :func:`rate_json` write them for ``--json``.
"""

from __future__ import annotations

import math
import random
import statistics
from typing import Any, Sequence

#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054


def wilson(hits: float, n: int) -> tuple[float, float]:
    """Wilson's 95% interval for a rate of ``hits`` in ``n`` (the whole [0, 1] for no trial)."""
    if n == 0:
        return (0.0, 1.0)
    p = hits / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def newcombe(hits_a: float, n_a: int, hits_b: float, n_b: int) -> tuple[float, float]:
    """Newcombe's 95% interval for the difference of two rates, B minus A (from their Wilson intervals)."""
    pa, pb = hits_a / max(n_a, 1), hits_b / max(n_b, 1)
    la, ua = wilson(hits_a, n_a)
    lb, ub = wilson(hits_b, n_b)
    d = pb - pa
    return (d - math.sqrt((pb - lb) ** 2 + (ua - pa) ** 2), d + math.sqrt((ub - pb) ** 2 + (pa - la) ** 2))


def rate_difference(hits_a: int, n_a: int, hits_b: int, n_b: int) -> tuple[float, float, float]:
    """B's rate minus A's, with Newcombe's 95% interval."""
    low, high = newcombe(hits_a, n_a, hits_b, n_b)
    return (hits_b / max(n_b, 1) - hits_a / max(n_a, 1), low, high)


def mean_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """The mean and its 95% interval (normal approximation; NaN without values, unbounded with one)."""
    if not values:
        return (math.nan, math.nan, math.nan)
    mean = statistics.fmean(values)
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.inf
    return (mean, mean - half, mean + half)


def median_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """The median and a distribution-free 95% interval between two order statistics (their ranks from the
    binomial distribution, normal approximation), clamped to the smallest and largest value."""
    if not values:
        return (math.nan, math.nan, math.nan)
    ordered = sorted(values)
    n = len(ordered)
    low = max(0, math.floor(n / 2 - Z95 * math.sqrt(n) / 2) - 1)
    high = min(n - 1, math.ceil(n / 2 + Z95 * math.sqrt(n) / 2))
    return (statistics.median(ordered), ordered[low], ordered[high])


def mean_difference(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float]:
    """B's mean minus A's, with a 95% interval (Welch, normal approximation); NaN with fewer than 2 values."""
    if len(a) < 2 or len(b) < 2:
        return (math.nan, math.nan, math.nan)
    d = statistics.fmean(b) - statistics.fmean(a)
    half = Z95 * math.sqrt(statistics.variance(a) / len(a) + statistics.variance(b) / len(b))
    return (d, d - half, d + half)


def median_difference(a: Sequence[float], b: Sequence[float], resamples: int = 2000,
                      seed: int = 0) -> tuple[float, float, float]:
    """B's median minus A's, with a 95% interval from a seeded bootstrap (the same on every run)."""
    if not a or not b:
        return (math.nan, math.nan, math.nan)
    rng = random.Random(seed)
    diffs = sorted(statistics.median(rng.choices(b, k=len(b))) - statistics.median(rng.choices(a, k=len(a)))
                   for _ in range(resamples))
    return (statistics.median(b) - statistics.median(a), diffs[int(0.025 * resamples)],
            diffs[int(0.975 * resamples) - 1])


def number(x: float, digits: int = 4) -> float | None:
    """A number for JSON: rounded, None for NaN or an infinity."""
    return None if math.isnan(x) or math.isinf(x) else round(x, digits)


def interval_json(values: tuple[float, float, float]) -> dict[str, float | None]:
    """An estimate and its interval as ``{"value", "low", "high"}``."""
    return {"value": number(values[0]), "low": number(values[1]), "high": number(values[2])}


def rate_json(hits: float, n: int) -> dict[str, Any]:
    """A rate as ``{"count", "of", "value", "low", "high"}`` with Wilson's interval."""
    low, high = wilson(hits, n)
    return {"count": hits, "of": n, "value": round(hits / n, 4) if n else None, "low": round(low, 4),
            "high": round(high, 4)}


def shown(x: float | None, share: bool) -> str:
    """A figure for a table: ``42%`` for a share, ``15.7`` otherwise, ``-`` for no value."""
    if x is None or math.isnan(x):
        return "-"
    return f"{100 * x:.0f}%" if share else f"{x:.1f}"


def signed(x: float | None, share: bool) -> str:
    """A difference for a table, with its sign: ``+7%``, ``-1.1``, ``0`` when it rounds to nothing."""
    if x is None or math.isnan(x):
        return "-"
    text = f"{100 * x:+.0f}%" if share else f"{x:+.1f}"
    return "0" if text.lstrip("+-").rstrip("%") in ("0", "0.0") else text


def difference_row(row: dict[str, Any]) -> list[str]:
    """A row of a comparison (``Comparison.to_json()["differences"]``) as table cells: the measure, A, B, B − A
    and its 95% interval."""
    share = row["unit"] == "share"
    d = row["difference"]
    interval = f"{signed(d['low'], share)} to {signed(d['high'], share)}" if d["low"] is not None else "-"
    return [row["measure"], shown(row["a"], share), shown(row["b"], share), signed(d["value"], share), interval]
