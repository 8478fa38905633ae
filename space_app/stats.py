"""Intervals for the figures the arena reports: Wilson for rates."""

from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Rate:
    """k successes out of n, with its 95% Wilson interval."""

    k: int
    n: int

    @property
    def value(self) -> float | None:
        return self.k / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson(self.k, self.n)

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


__all__ = ["Z95", "Rate", "wilson"]
