"""Comparisons that stop when the answer is known: the sequential sign test's evidence and
the anytime-valid interval (exact values, and their error rates over simulated comparisons
that peek at every look), and `compare --until-separated` / `--until-interval` played on a
real store: two agents of known different strength separate before the budget, two of one
strength run to the budget and claim nothing."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
from test_cli_tournament import cli

from sdk import Observation
from space_app.compare import compare
from space_app.games.spy.agents import RandomAgent
from space_app.sequential import (
    ALPHA,
    Look,
    StopRule,
    expected_half_width,
    half_width,
    log_sign_evidence,
    look_alpha,
    look_at,
    verdict,
)
from space_app.service import Arena
from space_app.store import Store


def test_the_sign_tests_evidence_is_the_mixture_likelihood_ratio():
    # 3 of 3 untied deals A's way: 2^3 · 3! · 0! / 4! = 2
    assert math.exp(log_sign_evidence(3, 0)) == pytest.approx(2.0)
    # 5 to 5: 2^10 · 5! 5! / 11! = 1024 · 14400 / 39916800
    assert math.exp(log_sign_evidence(5, 5)) == pytest.approx(1024 * 14400 / 39916800)
    assert log_sign_evidence(0, 0) == 0.0  # no untied deal: no evidence either way
    assert log_sign_evidence(7, 2) == pytest.approx(log_sign_evidence(2, 7))  # two-sided
    rule = StopRule(separated=True)
    assert verdict(Look(1, 28, 0.7, 0.0, 1.0, a_better=24, b_better=4), rule) == "separated: A better"
    assert verdict(Look(1, 28, -0.7, -1.0, 0.0, a_better=4, b_better=24), rule) == "separated: B better"
    assert verdict(Look(1, 9, 0.5, -0.5, 1.0, a_better=7, b_better=2), rule) is None  # evidence 1.4 < 20


def test_the_looks_spend_alpha_in_a_series_that_sums_to_it():
    assert look_alpha(1) == ALPHA / 2 and look_alpha(4) == ALPHA / 20
    assert math.fsum(look_alpha(k) for k in range(1, 100_000)) == pytest.approx(ALPHA, rel=1e-4)
    with pytest.raises(ValueError):
        look_alpha(0)


def test_the_interval_is_hoeffdings_or_bernsteins_whichever_is_narrower():
    n, spent = 2000, look_alpha(3)
    spread = [1.0, -1.0] * 1000  # the widest spread a win difference can have: Hoeffding's bound
    assert half_width(spread, 3, -1, 1) == pytest.approx(2 * math.sqrt(math.log(4 / spent) / (2 * n)))
    ties = [0.0] * 1980 + [1.0] * 20  # nearly every deal tied: the variance term wins
    scaled = [(v + 1) / 2 for v in ties]
    centre = sum(scaled) / n
    variance = sum((x - centre) ** 2 for x in scaled) / (n - 1)
    log_term = math.log(8 / spent)
    bernstein = 2 * (math.sqrt(2 * variance * log_term / n) + 7 * log_term / (3 * (n - 1)))
    assert half_width(ties, 3, -1, 1) == pytest.approx(bernstein)
    assert bernstein < 2 * math.sqrt(math.log(4 / spent) / (2 * n))
    seen = look_at([1.0] * 10, 1, -1, 1)
    assert seen.high == 1.0 and seen.low < 1.0 and seen.mean == 1.0  # clipped to the range, holds the mean
    assert expected_half_width([1.0, 0.0], 200, StopRule(separated=True), -1, 1) == \
        pytest.approx(half_width([1.0, 0.0] * 100, 10, -1, 1))


def simulated(rng: random.Random, chances: tuple[float, float, float], rule: StopRule, budget: int) -> list[Look]:
    """One comparison that looks after every batch: deals of A better / same / B better drawn
    with `chances`, its looks until the rule stops it or the budget is spent."""
    values: list[float] = []
    looks = []
    while len(values) < budget:
        values += rng.choices([1.0, 0.0, -1.0], weights=chances, k=rule.every)
        looks.append(look_at(values, len(looks) + 1, -1, 1))
        if verdict(looks[-1], rule):
            break
    return looks


def test_peeking_at_every_look_keeps_the_error_rates():
    rng = random.Random(20261126)
    rule = StopRule(separated=True, every=10)
    runs = 1500
    # no difference (A and B equally often better, many ties): how often is one claimed?
    claimed = sum(verdict(simulated(rng, (0.25, 0.5, 0.25), rule, 400)[-1], rule) is not None for _ in range(runs))
    assert claimed / runs <= ALPHA, claimed
    # a true mean difference of +0.2: how often does some look's interval miss it?
    truth, missed = 0.2, 0
    for _ in range(runs):
        looks = simulated(rng, (0.35, 0.5, 0.15), StopRule(half_width=0.001, every=10), 300)
        missed += any(not k.low <= truth <= k.high for k in looks)
    assert missed / runs <= ALPHA, missed


def test_a_rule_needs_a_target_and_sane_looks():
    with pytest.raises(ValueError, match="target"):
        StopRule()
    with pytest.raises(ValueError, match="half-width"):
        StopRule(half_width=0)
    with pytest.raises(ValueError, match="at least 2"):
        StopRule(separated=True, every=1)


# -- played ------------------------------------------------------------------------------------
class OwnStreamRandom(RandomAgent):
    """The random agent voting from its own stream: two copies are equally strong yet differ
    deal by deal (house agents otherwise play a deal identically, and every pair would tie)."""

    def __init__(self, name: str, seed: int) -> None:
        super().__init__(name)
        self.stream = random.Random(seed)

    def vote(self, obs: Observation) -> str:
        return ", ".join(self.stream.sample(obs.options, obs.pick))


def arena_at(path: Path) -> Arena:
    arena = Arena(Store(path))
    for k, name in enumerate(("twin-a", "twin-b")):
        arena.catalogue.add(name, OwnStreamRandom(name, k))
    return arena


def test_agents_of_different_strength_separate_before_the_budget(tmp_path):
    arena = arena_at(tmp_path / "c.db")
    rule = StopRule(separated=True, every=20)
    result = arena.run_in_own_loop(compare(arena, "house:heuristic", "house:random", "spy", 200, seed=0, stop=rule))
    out = result.to_dict()["sequential"]
    assert out["stopped"] == "separated: A better" and out["deals"] < 200 and out["deals"] % 20 == 0
    assert len(result.pairs) == out["deals"] and result.dropped == 0
    last = out["looks"][-1]
    assert last["evidence"] >= 1 / ALPHA and all(k["evidence"] < 1 / ALPHA for k in out["looks"][:-1])
    assert (last["a_better"], last["b_better"]) == (sum(p.diff > 0 for p in result.pairs),
                                                    sum(p.diff < 0 for p in result.pairs))
    assert out["low"] <= result.summary()["mean"] <= out["high"]
    stored = arena.store.records("spy", tag=result.tag)
    assert len({r["match_id"] for r in stored}) == 2 * out["deals"]  # the rest of the budget never played
    # run again: the same deals, nothing played twice, the same stop
    again = arena.run_in_own_loop(compare(arena, "house:heuristic", "house:random", "spy", 200, seed=0, stop=rule))
    assert again.to_dict()["sequential"] == out
    assert len({r["match_id"] for r in arena.store.records("spy", tag=result.tag)}) == 2 * out["deals"]


def test_agents_of_one_strength_run_to_the_budget_and_claim_nothing(tmp_path):
    arena = arena_at(tmp_path / "c.db")
    # against the heuristic agent a random seat's vote decides some deals
    result = arena.run_in_own_loop(compare(arena, "twin-a", "twin-b", "spy", 60, seed=3,
                                           opponents=["house:heuristic"], stop=StopRule(separated=True, every=20)))
    out = result.to_dict()["sequential"]
    assert out["deals"] == 60 and [k["deals"] for k in out["looks"]] == [20, 40, 60]
    assert out["stopped"].startswith("budget spent: no difference claimed")
    assert out["low"] <= 0 <= out["high"]
    assert 0 < out["looks"][-1]["a_better"] + out["looks"][-1]["b_better"] < 60  # the twins differ on some deals


def test_a_score_comparison_cannot_stop_early(tmp_path):
    arena = arena_at(tmp_path / "c.db")
    with pytest.raises(ValueError, match="win measure"):
        arena.run_in_own_loop(compare(arena, "twin-a", "twin-b", "spy", 20, measure="score",
                                      stop=StopRule(separated=True)))


def test_the_cli_stops_at_an_interval_half_width_and_says_so(tmp_path):
    db = tmp_path / "cli.db"
    done = cli("--db", str(db), "compare", "house:random", "house:random", "--deals", "40", "--look-every", "20",
               "--until-interval", "0.9", "--json", timeout=300)
    assert done.returncode == 0, done.stderr
    seq = json.loads(done.stdout)["sequential"]
    assert seq["stopped"].startswith("interval half-width") and seq["deals"] in (20, 40)
    assert (seq["high"] - seq["low"]) / 2 <= 0.9
    refused = cli("--db", str(db), "compare", "house:random", "house:random", "--until-interval", "0")
    assert refused.returncode == 2 and "half-width must be more than 0" in refused.stderr


def test_the_api_takes_a_stopping_rule_and_refuses_a_bad_one(tmp_path):
    import asyncio

    from space_app.api import ApiError, ArenaAPI
    from space_app.config import ArenaConfig

    api = ArenaAPI(ArenaConfig(db=str(tmp_path / "api.db"), demo_matches=0))
    out = asyncio.run(api.compare("house:heuristic", "house:random", "spy", 60, until_separated=True, look_every=20))
    seq = out["sequential"]
    assert seq["stopped"].startswith("separated") and seq["deals"] in (20, 40, 60) and seq["budget_deals"] == 60
    assert asyncio.run(api.compare("house:heuristic", "house:random", "spy", 2))["sequential"] is None
    for bad, said in (({"until_interval": "wide"}, "must be a number"), ({"until_interval": -1}, "half-width above 0"),
                      ({"until_separated": "yes"}, "true or false"),
                      ({"until_separated": True, "look_every": 1}, "look_every must be a whole number from 2")):
        with pytest.raises(ApiError, match=said):
            asyncio.run(api.compare("house:heuristic", "house:random", "spy", 4, **bad))


def test_token_and_cost_budgets_stop_a_comparison_after_the_batch_that_spends_them(tmp_path):
    from sdk import LLMAgent
    from sdk.callers.scripted import scripted_caller
    from space_app.prices import Price

    arena = Arena(Store(tmp_path / "t.db"))
    for name in ("llm-a", "llm-b"):  # a model that reports its tokens (words), named "scripted"
        arena.catalogue.add(name, LLMAgent(scripted_caller(["It is round and it is sweet. Final answer: P2"]),
                                           name=name))

    def run(tag: str, rule: StopRule, deals: int = 20, prices: dict | None = None):
        return arena.run_in_own_loop(compare(arena, "llm-a", "llm-b", "spy", deals, seed=4, tag=tag, stop=rule,
                                             prices=prices)).to_dict()["sequential"]

    every = run("all", StopRule(max_tokens=10**9, every=5), deals=10)
    assert every["stopped"] == "budget spent: every deal played" and every["deals"] == 10
    stored = list(arena.store.records("spy", tag="all"))
    assert every["spent"]["tokens"] == sum(r["stats"]["tokens"] for r in stored) > 0
    assert every["spent"]["matches"] == 20 and every["spent"]["cost_usd"] is None  # no price table: no cost
    assert every["spent"]["unpriced_tokens"] == every["spent"]["tokens"]

    first = run("one", StopRule(max_tokens=1, every=5))
    assert first["stopped"].startswith("token budget spent") and first["deals"] == 5
    per_deal = first["spent"]["tokens"] / 5
    # a budget of about two and a half batches: the pilot expects what it pays for, the run stops
    # after the batch that spends it (the batch in flight always finishes)
    budget = 2.5 * first["spent"]["tokens"]
    some = run("some", StopRule(max_tokens=budget, every=5))
    assert some["expected_deals"] == int(budget / per_deal)
    assert some["stopped"].startswith("token budget spent") and some["deals"] == 15
    assert some["spent"]["tokens"] >= budget and some["spent"]["matches"] == 30

    batch_cost = first["spent"]["tokens"] * 100 / 1_000_000  # at 100 USD per million tokens either way
    priced = run("priced", StopRule(max_cost=1.5 * batch_cost, every=5),
                 prices={"scripted": Price(input=100, output=100)})
    assert priced["spent"]["cost_usd"] == pytest.approx(priced["spent"]["tokens"] * 100 / 1_000_000)
    assert priced["stopped"].startswith("cost budget spent") and priced["deals"] == 10
    with pytest.raises(ValueError, match="budget must be more than 0"):
        StopRule(max_tokens=0)


def test_the_cli_refuses_a_cost_budget_without_prices(tmp_path):
    done = cli("--db", str(tmp_path / "c.db"), "compare", "house:random", "house:heuristic", "--max-cost", "1")
    assert done.returncode == 2 and "needs a price table: set ARENA_PRICES" in done.stderr
