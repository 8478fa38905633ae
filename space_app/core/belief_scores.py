"""A belief scored against the truth. Every candidate of a probe is a yes/no forecast (is this
player the spy?) with probability p and outcome y (1 when it is), so both question shapes
score alike and one reliability diagram holds them all:

- Brier score: the mean over candidates of (p - y)^2 (0 perfect; 0.25 for p = 0.5 throughout);
- log loss: the mean over candidates of -[y ln p + (1 - y) ln(1 - p)], with p clipped to
  [0.01, 0.99] first, so one certain wrong answer costs ln 100 = 4.6 rather than infinity;
- top-guess accuracy: 1 when the most likely candidate is one of the truth; a tie among the
  top candidates counts the share of them that are (a uniform belief scores the base rate);
- calibration: (p, y) pairs binned by p in tenths; a bin's observed frequency is compared with
  its mean p.

A probe whose candidates hold none of the truth (the spy asked who the spy is among the
others) cannot be scored and is left out. Pure: no I/O."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

CLIP = 0.01  # log loss reads p in [CLIP, 1 - CLIP]
BINS = 10


@dataclass(frozen=True)
class BeliefScore:
    brier: float
    log_loss: float
    top1: float
    pairs: tuple[tuple[float, int], ...]  # (p, y) per candidate, for the reliability diagram


def score_belief(belief: Mapping[str, float], truth: Iterable[str]) -> BeliefScore | None:
    """The scores of one belief over its candidates (its keys); None when no candidate is true."""
    true = set(truth)
    names = list(belief)
    if not names or not true & set(names):
        return None
    pairs = tuple((float(belief[n]), int(n in true)) for n in names)
    brier = math.fsum((p - y) ** 2 for p, y in pairs) / len(pairs)
    clipped = [(min(max(p, CLIP), 1 - CLIP), y) for p, y in pairs]
    log_loss = math.fsum(-math.log(p) if y else -math.log(1 - p) for p, y in clipped) / len(pairs)
    best = max(belief.values())
    top = [n for n in names if belief[n] == best]
    return BeliefScore(brier=brier, log_loss=log_loss, top1=sum(n in true for n in top) / len(top), pairs=pairs)


@dataclass(frozen=True)
class Bin:
    """One bin of the reliability diagram: forecasts with p in [low, high)."""

    low: float
    high: float
    n: int
    mean_p: float
    hits: int

    @property
    def frequency(self) -> float:
        return self.hits / self.n


def reliability(pairs: Iterable[tuple[float, int]], bins: int = BINS) -> list[Bin]:
    """The (p, y) pairs binned by p (the last bin holds p = 1); empty bins left out."""
    grouped: dict[int, list[tuple[float, int]]] = {}
    for p, y in pairs:
        grouped.setdefault(min(int(p * bins), bins - 1), []).append((p, y))
    return [Bin(low=i / bins, high=(i + 1) / bins, n=len(g), mean_p=math.fsum(p for p, _ in g) / len(g),
                hits=sum(y for _, y in g)) for i, g in sorted(grouped.items())]


__all__ = ["BINS", "CLIP", "BeliefScore", "Bin", "reliability", "score_belief"]
