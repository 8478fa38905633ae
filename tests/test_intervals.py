"""An interval always contains its own estimate, in the degenerate cases too: a sample of equal
values (the bootstrap), a rate of 0 or 1 (Wilson), a mean of equal values from running sums,
and the figure as shown ('value [low, high] n=…')."""

from __future__ import annotations

import random

import pytest

from space_app.stats import Mean, Rate, bootstrap_mean, mean_interval, wilson
from space_app.tables import figure

# five equal values whose naive sum gives 6.775 while each is 6.77499…: the page once showed
# "6.78 [6.77, 6.77] n=5" for them (a naive mean beside the interval [values[0], values[0]])
SHOWN_OUTSIDE = 6.7749999999999995


def shown_parts(text: str) -> tuple[float, float, float]:
    value, rest = text.split(" [", 1)
    low, high = rest.split("]", 1)[0].split(", ")
    return float(value), float(low), float(high)


def test_a_sample_of_equal_values_has_an_interval_on_its_mean():
    values = [SHOWN_OUTSIDE] * 5
    centre, low, high = mean_interval(values)
    assert low == centre == high
    row = {"rp": centre, "rp_low": low, "rp_high": high, "rp_n": 5}
    assert figure(row, "rp", digits=2) == "6.78 [6.78, 6.78] n=5"
    assert bootstrap_mean(values) == (centre, centre)


@pytest.mark.parametrize("values", [[1.0], [0.0, 0.0], [0.1] * 7, [7.215] * 5, [0.105] * 5, [1e-300, 1e-300]])
def test_one_value_or_equal_values(values):
    centre, low, high = mean_interval(values)
    assert low <= centre <= high
    assert low == high == centre


def test_the_bootstrap_interval_holds_its_mean_on_many_small_skewed_samples():
    rng = random.Random(3)
    for _ in range(300):
        n = rng.randint(2, 6)
        values = [rng.choice([0.0, 0.1, 0.2, 1.0, 6.775, 10.0]) for _ in range(n)]
        centre, low, high = mean_interval(values, resamples=200, seed=rng.randint(0, 99))
        assert low <= centre <= high, (values, centre, low, high)


@pytest.mark.parametrize("k,n", [(0, 1), (0, 5), (5, 5), (1, 1), (0, 1000), (1000, 1000), (3, 7), (0.5, 3),
                                 (0.1 * 3, 0.6), (7, 49)])
def test_wilson_holds_the_rate_at_zero_and_one(k, n):
    low, high = wilson(k, n)
    assert 0.0 <= low <= k / n <= high <= 1.0
    shown = Rate(k, n).to_dict("x")
    assert shown["x_low"] <= shown["x"] <= shown["x_high"]


def test_wilson_of_no_trials_is_no_interval():
    assert wilson(0, 0) is None
    assert Rate(0, 0).to_dict("x") == {"x": None, "x_low": None, "x_high": None, "x_n": 0}


@pytest.mark.parametrize("value,n", [(SHOWN_OUTSIDE, 5), (0.1, 3), (7.215, 2), (1e6 + 0.1, 9)])
def test_a_mean_from_running_sums_of_equal_values(value, n):
    total = sum([value] * n)
    squares = sum([value * value] * n)  # cancellation: the variance may come out a hair off zero
    m = Mean(total, squares, n)
    low, high = m.interval
    assert low <= m.value <= high


def test_a_mean_of_one_value_has_no_interval_rather_than_a_wrong_one():
    assert Mean(3.0, 9.0, 1).interval is None
    assert figure(Mean(3.0, 9.0, 1).to_dict("x"), "x") == "3.000 n=1"
