"""Intervals for the figures the arena reports: Wilson for rates; for means kept as running
sums (a leaderboard over any number of matches), the normal interval from the sum of squares."""

from __future__ import annotations

import math
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


__all__ = ["Z95", "Mean", "Rate", "wilson"]
