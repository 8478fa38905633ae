"""Correlation across a few agents, with a seeded percentile bootstrap over the agents.

Pearson's r of the values and Spearman's rho (Pearson's r of their ranks, ties given their
mean rank). The interval resamples the agents (pairs) with replacement; a resample in which
either side does not vary has no correlation and is left out, and how many were left out is
returned beside it. Below `MIN_AGENTS` agents no correlation is given at all: two points are
always perfectly correlated, whatever they are. Plain Python: the same numbers for one seed."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

MIN_AGENTS = 3  # fewer: no correlation is computed
FEW_AGENTS = 8  # fewer: it is shown, with a plain warning that it means little
RESAMPLES = 2000


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson's r, or None when the lengths differ, there are fewer than 2 pairs or a side is constant."""
    n = len(x)
    if n != len(y) or n < 2:
        return None
    mx, my = math.fsum(x) / n, math.fsum(y) / n
    sxy = math.fsum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = math.fsum((a - mx) ** 2 for a in x)
    syy = math.fsum((b - my) ** 2 for b in y)
    if sxx <= 1e-15 or syy <= 1e-15:
        return None
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))


def ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, tied values sharing their mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    return pearson(ranks(x), ranks(y)) if len(x) == len(y) else None


@dataclass(frozen=True)
class Correlation:
    """One coefficient across n agents with its 95% bootstrap interval (None when it has none)."""

    method: str  # "pearson" | "spearman"
    n: int
    value: float | None
    low: float | None
    high: float | None
    resamples: int  # resamples that had a correlation
    dropped: int  # resamples in which a side did not vary

    def text(self) -> str:
        if self.value is None:
            return f"{self.method}: none (n={self.n})"
        interval = f" [{self.low:+.2f}, {self.high:+.2f}]" if self.low is not None and self.high is not None else ""
        return f"{self.method} {self.value:+.2f}{interval} n={self.n}"


METHODS = {"pearson": pearson, "spearman": spearman}


def correlate(x: Sequence[float], y: Sequence[float], method: str = "spearman", resamples: int = RESAMPLES,
              seed: int = 0) -> Correlation:
    """The coefficient of (x, y) pairs (one per agent) and its percentile bootstrap interval over
    the agents; no value below MIN_AGENTS agents."""
    if method not in METHODS:
        raise ValueError(f"unknown correlation {method!r}; choose from {', '.join(METHODS)}")
    if len(x) != len(y):
        raise ValueError(f"{len(x)} x values for {len(y)} y values: one pair per agent is needed")
    n = len(x)
    fn = METHODS[method]
    value = fn(x, y) if n >= MIN_AGENTS else None
    if value is None:
        return Correlation(method, n, None, None, None, 0, 0)
    rng = random.Random(seed)
    found: list[float] = []
    for _ in range(resamples):
        picks = [rng.randrange(n) for _ in range(n)]
        r = fn([x[i] for i in picks], [y[i] for i in picks])
        if r is not None:
            found.append(r)
    if not found:
        return Correlation(method, n, value, None, None, 0, resamples)
    found.sort()
    last = len(found) - 1
    low, high = found[round(0.025 * last)], found[round(0.975 * last)]
    return Correlation(method, n, value, min(low, value), max(high, value), len(found), resamples - len(found))


def caveat(n: int) -> str:
    """What n agents allow one to say, in words."""
    if n < MIN_AGENTS:
        return (f"too few agents ({n}) for a correlation: with fewer than {MIN_AGENTS} it is ±1 or undefined "
                "whatever the scores")
    if n < FEW_AGENTS:
        return (f"only {n} agents: a correlation across so few means little (the interval resamples the agents "
                "and is wide; resamples where a side did not vary are left out)")
    return f"{n} agents; the interval resamples the agents"


__all__ = ["FEW_AGENTS", "MIN_AGENTS", "Correlation", "caveat", "correlate", "pearson", "ranks", "spearman"]
