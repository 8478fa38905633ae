"""Stopping a paired comparison when its answer is known, without losing the coverage the
interval states.

Looking at a bootstrap or normal interval after every batch and stopping once it excludes 0
("peeking") makes false differences far likelier than 5%. Here the comparison looks only
after each batch of `every` deals, and the interval at look k is built at level
1 − α_k with α_k = α / (k (k + 1)); these sum to α over every look there could ever be, so
with chance at least 1 − α every interval of the sequence holds the true mean difference at
once (a union bound). Any rule that stops at a look, however it depends on the data seen so
far, therefore keeps the stated 95% coverage, and a difference it claims is a false one with
chance at most α.

Each look's interval is the narrower of two bounds for a mean of values in a known range of
width w (a win difference lies in [−1, 1], w = 2), each at level α_k / 2:
- Hoeffding: half-width w √(ln(4/α_k) / (2n));
- empirical Bernstein (Maurer & Pontil 2009, Theorem 4, two-sided): with V the sample
  variance of the values scaled to [0, 1], half-width
  w (√(2 V ln(8/α_k) / n) + 7 ln(8/α_k) / (3 (n − 1))).
The second is much narrower when most paired deals tie (V small), as between agents of one
strength. Both hold for independent values in the range, with no normality assumed (the
empirical-Bernstein bound is proved for identically distributed values; the deals rotate the
seat's role, which adds between-role spread to V and so widens, not narrows, the interval).

Whether A and B differ is decided by a sequential sign test, which uses the data better than
waiting for the interval to leave 0. With a win difference in {−1, 0, +1} the mean difference
is 0 exactly when, among the deals that did not tie, A is better as often as B; so the test
asks whether the untied deals' chance p of "A better" is ½. Its evidence is the likelihood
ratio of a uniform mixture over p against p = ½: with k of m untied deals going A's way,
2^m · k! (m − k)! / (m + 1)!. Under p = ½ this ratio is a martingale, so by Ville's inequality
it ever reaches 1/α with chance at most α, at whatever look one stops: a difference claimed
when it does is a false one with chance at most α.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

ALPHA = 0.05
TEST = ("sequential sign test: uniform-mixture likelihood ratio of the untied deals against an even split, "
        "separated when it reaches 1/α = 20 (Ville's inequality: at most 5% false separations, at any stop)")
METHOD = ("anytime-valid 95% interval: looks after each batch, look k at level 1 − α/(k(k+1)) "
          "(Hoeffding and empirical-Bernstein bounds, the narrower), so stopping at any look keeps 95% coverage")


@dataclass(frozen=True)
class StopRule:
    """When a comparison may stop: once A and B are separated (`separated`), once the
    interval's half-width is at most `half_width`, or once it has used `max_tokens` tokens or
    `max_cost` US dollars (every seat's model calls, priced by the operator's table); it looks
    after every `every` deals, and the deals asked for are its budget too."""

    separated: bool = False
    half_width: float | None = None
    every: int = 20
    max_tokens: float | None = None
    max_cost: float | None = None

    def __post_init__(self) -> None:
        if not self.separated and self.half_width is None and self.max_tokens is None and self.max_cost is None:
            raise ValueError("a stopping rule needs a target (separation, an interval half-width) or a budget "
                             "(tokens, cost)")
        if self.half_width is not None and not 0 < self.half_width:
            raise ValueError(f"the target half-width must be more than 0, got {self.half_width}")
        for name, value in (("token", self.max_tokens), ("cost", self.max_cost)):
            if value is not None and not (math.isfinite(value) and value > 0):
                raise ValueError(f"the {name} budget must be more than 0, got {value}")
        if self.every < 2:
            raise ValueError(f"a comparison looks after at least 2 deals, got {self.every}")

    def describe(self) -> str:
        targets = (["the sequential sign test separates A and B"] if self.separated else []) + \
                  ([f"the interval's half-width is at most {self.half_width:g}"] if self.half_width else [])
        budgets = ([f"{self.max_tokens:g} tokens"] if self.max_tokens else []) + \
                  ([f"{self.max_cost:g} USD"] if self.max_cost else [])
        said = f"stop when {' or '.join(targets)}" if targets else "no target"
        if budgets:
            said += f"; budget {' and '.join(budgets)} (checked after each batch)"
        return f"{said}; looking after every {self.every} deals"

    def over_budget(self, tokens: float, cost: float | None) -> str | None:
        """Why the budget is spent, or None."""
        if self.max_tokens is not None and tokens >= self.max_tokens:
            return f"token budget spent: {tokens:,.0f} of {self.max_tokens:,.0f}"
        if self.max_cost is not None and cost is not None and cost >= self.max_cost:
            return f"cost budget spent: {cost:.4f} of {self.max_cost:g} USD"
        return None


@dataclass(frozen=True)
class Look:
    """The comparison as it stood at one look."""

    look: int
    deals: int
    mean: float
    low: float
    high: float
    a_better: int = 0
    b_better: int = 0

    @property
    def evidence(self) -> float:
        """The sequential sign test's likelihood ratio at this look (see the module's text)."""
        return math.exp(log_sign_evidence(self.a_better, self.b_better))

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2


def look_alpha(look: int, alpha: float = ALPHA) -> float:
    """The error spent on look `look` (1-based): α / (k (k + 1)), summing to α."""
    if look < 1:
        raise ValueError("looks count from 1")
    return alpha / (look * (look + 1))


def half_width(values: Sequence[float], look: int, low: float, high: float, alpha: float = ALPHA) -> float:
    """The half-width of look `look`'s interval for the mean of `values` in [low, high]."""
    n = len(values)
    if n == 0:
        return high - low
    width = high - low
    spent = look_alpha(look, alpha)
    hoeffding = width * math.sqrt(math.log(4 / spent) / (2 * n))
    if n < 2:
        return hoeffding
    scaled = [(v - low) / width for v in values]
    centre = math.fsum(scaled) / n
    variance = math.fsum((x - centre) ** 2 for x in scaled) / (n - 1)
    log_term = math.log(8 / spent)
    bernstein = width * (math.sqrt(2 * variance * log_term / n) + 7 * log_term / (3 * (n - 1)))
    return min(hoeffding, bernstein)


def log_sign_evidence(plus: int, minus: int) -> float:
    """The log of the uniform-mixture likelihood ratio against p = ½ for `plus` of
    `plus + minus` untied deals going A's way: log(2^m · k! (m − k)! / (m + 1)!)."""
    m = plus + minus
    return m * math.log(2) + math.lgamma(plus + 1) + math.lgamma(minus + 1) - math.lgamma(m + 2)


def look_at(values: Sequence[float], look: int, low: float, high: float, alpha: float = ALPHA) -> Look:
    """Look `look` over every value so far: the mean and its anytime-valid interval, clipped
    to the values' range, and the deals each side did better on."""
    if not values:
        raise ValueError("a look needs at least one value")
    centre = math.fsum(values) / len(values)
    half = half_width(values, look, low, high, alpha)
    return Look(look, len(values), centre, max(low, centre - half), min(high, centre + half),
                sum(v > 0 for v in values), sum(v < 0 for v in values))


def verdict(seen: Look, rule: StopRule, alpha: float = ALPHA) -> str | None:
    """Why the comparison stops at this look, or None to go on."""
    if rule.separated and log_sign_evidence(seen.a_better, seen.b_better) >= math.log(1 / alpha):
        return "separated: A better" if seen.a_better > seen.b_better else "separated: B better"
    if rule.half_width is not None and seen.half_width <= rule.half_width:
        return f"interval half-width {seen.half_width:.3f} ≤ {rule.half_width:g}"
    return None


def affordable(budget: int, done: int, rule: StopRule, used: Mapping[str, Any] | None) -> int:
    """How many units (deals, matches) the budget is expected to pay for: `budget` at most,
    fewer when the token or cost budget runs out first at the pilot's spend per unit (`used`:
    the tokens and US dollars the first `done` units took); never fewer than `done`."""
    out = budget
    if used is not None and done:
        per_unit = used["tokens"] / done
        if rule.max_tokens is not None and per_unit > 0:
            out = min(out, max(done, int(rule.max_tokens / per_unit)))
        if rule.max_cost is not None and used["cost_usd"]:
            out = min(out, max(done, int(rule.max_cost / (used["cost_usd"] / done))))
    return out


def expected_half_width(pilot: Sequence[float], deals: int, rule: StopRule, low: float, high: float,
                        alpha: float = ALPHA) -> float:
    """The half-width the interval is expected to have after `deals` deals, if the deals to
    come vary as the pilot's did (the pilot's values repeated to that size)."""
    if not pilot:
        raise ValueError("a pilot needs at least one value")
    looks = max(1, math.ceil(deals / rule.every))
    grown = [pilot[i % len(pilot)] for i in range(deals)]
    return half_width(grown, looks, low, high, alpha)


__all__ = ["ALPHA", "METHOD", "TEST", "Look", "StopRule", "affordable", "expected_half_width", "half_width",
           "log_sign_evidence", "look_alpha", "look_at", "verdict"]
