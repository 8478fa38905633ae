"""Intervals and tests for the figures the arena reports: Wilson for rates; for means kept as
running sums (a leaderboard over any number of matches), the normal interval from the sum of
squares; for paired differences (duplicate mode) a seeded percentile bootstrap of the mean and
an exact sign test. Plain Python: the same numbers on every machine for one seed.

Every interval contains its own estimate: the estimate and the interval are computed from the
same sums here (a caller asks `mean_interval` for both), and the ends are widened to the
estimate where floating point would leave it a hair outside (an interval shown as
"6.78 [6.77, 6.77]" was a naive sum's mean beside an interval of `fsum` means)."""

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
        return around(mean, mean - half, mean + half)

    def to_dict(self, prefix: str = "") -> dict[str, float | int | None]:
        low, high = self.interval or (None, None)
        return {f"{prefix}": self.value, f"{prefix}_low": low, f"{prefix}_high": high, f"{prefix}_n": self.n}


def around(value: float, low: float, high: float) -> tuple[float, float]:
    """(low, high) widened to hold `value`: rounding in the sums may leave an estimate at the
    very end of its interval a last bit outside (a rate of 0 or 1, a sample of equal values)."""
    return min(low, value), max(high, value)


def wilson(k: float, n: float, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval of k/n (None for n = 0): sound near 0 and 1 and for small n."""
    if n <= 0:
        return None
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(0.0, p * (1 - p)) / n + z * z / (4 * n * n)) / denom
    return around(p, max(0.0, centre - half), min(1.0, centre + half))


def mean(values: Sequence[float]) -> float | None:
    """The mean as every figure here computes it (an exactly rounded sum), None for no values."""
    return math.fsum(values) / len(values) if values else None


def bootstrap_mean(values: Sequence[float], resamples: int = 10_000, seed: int = 0,
                   level: float = 0.95) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean: `resamples` resamples with replacement drawn
    with `random.Random(seed)`, the (1 - level)/2 and (1 + level)/2 quantiles of their means
    (nearest rank), widened to hold `mean(values)`. None for no values."""
    found = mean_interval(values, resamples, seed, level)
    return None if found is None else (found[1], found[2])


def mean_interval(values: Sequence[float], resamples: int = 10_000, seed: int = 0,
                  level: float = 0.95) -> tuple[float, float, float] | None:
    """(mean, low, high): the mean and its percentile bootstrap interval (`bootstrap_mean`),
    from the same sums, so the interval always holds the estimate shown beside it. None for
    no values; a sample of one value, or of equal values, has the interval [mean, mean]."""
    n = len(values)
    centre = mean(values)
    if centre is None:
        return None
    if min(values) == max(values):  # every resample has the same mean
        return centre, centre, centre
    rng = random.Random(seed)
    means = sorted(math.fsum(rng.choices(values, k=n)) / n for _ in range(resamples))
    last = resamples - 1
    low, high = around(centre, means[round((1 - level) / 2 * last)], means[round((1 + level) / 2 * last)])
    return centre, low, high


@dataclass(frozen=True)
class Difference:
    """A difference of two rates, p1 - p2, with its 95% interval."""

    value: float
    low: float
    high: float


def rate_difference(k1: int, n1: int, k2: int, n2: int) -> Difference | None:
    """Newcombe's hybrid score interval of k1/n1 - k2/n2 from the two Wilson intervals
    (Newcombe 1998, method 10): sound for small n and rates near 0 or 1. None when an arm is empty."""
    w1, w2 = wilson(k1, n1), wilson(k2, n2)
    if w1 is None or w2 is None:
        return None
    p1, p2 = k1 / n1, k2 / n2
    d = p1 - p2
    low = d - math.sqrt((p1 - w1[0]) ** 2 + (w2[1] - p2) ** 2)
    high = d + math.sqrt((w1[1] - p1) ** 2 + (p2 - w2[0]) ** 2)
    low, high = around(d, max(-1.0, low), min(1.0, high))
    return Difference(d, low, high)


def sign_test(plus: int, minus: int) -> float:
    """Exact two-sided sign test: the chance, under a fair coin for each untied pair, of a
    split at least as uneven as `plus` against `minus` (ties are left out before)."""
    n = plus + minus
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(plus, minus) + 1))
    return min(1.0, 2 * tail / 2**n)


__all__ = ["Z95", "Difference", "Mean", "Rate", "around", "bootstrap_mean", "mean", "mean_interval", "rate_difference",
           "sign_test", "wilson"]
