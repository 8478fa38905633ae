"""Intervals and tests for the figures the arena reports: Wilson for rates; for means kept as
running sums (a leaderboard over any number of matches), the normal interval from the sum of
squares; for paired differences (duplicate mode) a seeded percentile bootstrap of the mean and
an exact sign test. Plain Python: the same numbers on every machine for one seed."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Rate:
    """k successes out of n, with its 95% Wilson interval (k may be a summed float stat)."""

    k: float
    n: float

    @property
    def value(self) -> float | None:
        return self.k / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson(self.k, self.n)

    def to_dict(self, prefix: str = "") -> dict[str, float | int | None]:
        low, high = self.interval or (None, None)
        return {f"{prefix}": self.value, f"{prefix}_low": low, f"{prefix}_high": high, f"{prefix}_n": self.n}


@dataclass(frozen=True)
class Mean:
    """The mean of n values known by their sum and sum of squares, with a 95% interval
    mean ± 1.96·s/√n (s the sample standard deviation). Running totals keep only these sums,
    so a bootstrap, which needs every value, is left to the exports; the interval is shown
    from 2 values (it is wide when n is small, and not exact below ~30)."""

    total: float
    squares: float | None  # None: not kept (totals written by an older version)
    n: int

    @property
    def value(self) -> float | None:
        return self.total / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float] | None:
        if self.squares is None or self.n < 2:
            return None
        mean = self.total / self.n
        variance = max(0.0, (self.squares - self.n * mean * mean) / (self.n - 1))
        half = Z95 * math.sqrt(variance / self.n)
        return mean - half, mean + half

    def to_dict(self, prefix: str = "") -> dict[str, float | int | None]:
        low, high = self.interval or (None, None)
        return {f"{prefix}": self.value, f"{prefix}_low": low, f"{prefix}_high": high, f"{prefix}_n": self.n}


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval of k/n (None for n = 0): sound near 0 and 1 and for small n."""
    if n <= 0:
        return None
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def bootstrap_mean(values: Sequence[float], resamples: int = 10_000, seed: int = 0,
                   level: float = 0.95) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean: `resamples` resamples with replacement drawn
    with `random.Random(seed)`, the (1 - level)/2 and (1 + level)/2 quantiles of their means
    (nearest rank). None for no values."""
    n = len(values)
    if n == 0:
        return None
    if min(values) == max(values):  # every resample has the same mean
        return float(values[0]), float(values[0])
    rng = random.Random(seed)
    means = sorted(math.fsum(rng.choices(values, k=n)) / n for _ in range(resamples))
    last = resamples - 1
    return means[round((1 - level) / 2 * last)], means[round((1 + level) / 2 * last)]


def sign_test(plus: int, minus: int) -> float:
    """Exact two-sided sign test: the chance, under a fair coin for each untied pair, of a
    split at least as uneven as `plus` against `minus` (ties are left out before)."""
    n = plus + minus
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(plus, minus) + 1))
    return min(1.0, 2 * tail / 2**n)


__all__ = ["Z95", "Mean", "Rate", "bootstrap_mean", "sign_test", "wilson"]
