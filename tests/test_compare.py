"""Duplicate mode: the deals and their seats, the paired statistics, two identical agents
(an interval holding 0) against a strong and a weak one (an interval excluding 0), the CLI
command and the gradio_client endpoint."""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from pathlib import Path

import pytest
from test_cli_tournament import cli

from space_app.compare import compare, compare_tag, plan_deals
from space_app.core import get_game
from space_app.export import rows as export_rows
from space_app.games.spy.agents import HeuristicSpyAgent
from space_app.leaderboard import board, from_matches
from space_app.service import Arena
from space_app.sources import EVERY_KIND
from space_app.stats import bootstrap_mean, sign_test
from space_app.store import Store


# -- statistics ---------------------------------------------------------------------------
def test_the_sign_test_is_exact_and_two_sided():
    assert sign_test(0, 0) == 1.0
    assert sign_test(10, 0) == sign_test(0, 10) == pytest.approx(2 / 1024)
    assert sign_test(3, 2) == 1.0
    # 8 of 10: P(X <= 2) = (1 + 10 + 45) / 1024, doubled
    assert sign_test(8, 2) == pytest.approx(2 * 56 / 1024)


def test_the_bootstrap_interval_is_seeded_and_holds_the_mean():
    values = [1.0] * 30 + [0.0] * 50 + [-1.0] * 20
    first = bootstrap_mean(values, seed=7)
    assert first == bootstrap_mean(values, seed=7)
    low, high = first
    assert low < 0.1 < high
    # close to the normal approximation's half-width for this sample
    sd = math.sqrt(sum((v - 0.1) ** 2 for v in values) / len(values))
    assert (high - low) / 2 == pytest.approx(1.96 * sd / 10, rel=0.1)
    assert bootstrap_mean([0.0] * 10) == (0.0, 0.0)
    assert bootstrap_mean([]) is None


# -- the deals -------------------------------------------------------------------------------
@pytest.mark.parametrize(("game", "deals"), [("spy", 20), ("avalon", 25)])
def test_the_seat_covers_every_role_equally_and_only_a_and_b_differ(game, deals):
    spec = get_game(game)
    n = spec.facts.default_players
    planned = plan_deals("A", "B", ["o1", "o2"], spec.facts.seat_names(n), deals, 3,
                         lambda s: spec.deal_roles(n, s), spec.facts.roles)
    roles = Counter(d.role for d in planned)
    assert len(set(roles.values())) == 1 and sum(roles.values()) == deals
    for d in planned:
        i = spec.facts.seat_names(n).index(d.seat)
        assert spec.deal_roles(n, d.seed)[i] == d.role
        assert d.seats_a[i] == "A" and d.seats_b[i] == "B"
        assert [s for j, s in enumerate(d.seats_a) if j != i] == [s for j, s in enumerate(d.seats_b) if j != i]
        assert set(d.seats_a) - {"A"} <= {"o1", "o2"}
    assert len({d.seed for d in planned}) == deals


# -- played ------------------------------------------------------------------------------------
def run(tmp_path: Path, a: str, b: str, deals: int, **kw: object):
    arena = Arena(Store(tmp_path / "c.db"))
    for name in ("twin-a", "twin-b"):
        arena.catalogue.add(name, HeuristicSpyAgent(name))
    return arena, arena.run_in_own_loop(compare(arena, a, b, "spy", deals, seed=1, **kw))


@pytest.mark.parametrize(("a", "b"), [("house:heuristic", "house:heuristic"), ("twin-a", "twin-b")])
def test_identical_agents_give_an_interval_holding_zero(tmp_path, a, b):
    arena, result = run(tmp_path, a, b, 30)
    out = result.to_dict()
    assert out["deals"] == 30 and out["dropped"] == 0
    assert out["low"] <= 0.0 <= out["high"]
    assert out["p_value"] > 0.05
    assert out["a_better"] + out["b_better"] + out["same"] == 30
    arena.store.close()


def test_a_strong_agent_beats_a_weak_one_beyond_the_interval(tmp_path):
    arena, result = run(tmp_path, "house:heuristic", "house:random", 40)
    out = result.to_dict()
    assert out["deals"] == 40 and out["low"] > 0.0 and out["p_value"] < 0.01
    assert out["a_better"] > out["b_better"]
    assert set(out["by_role"]) == {"spy", "civilian"}
    assert out["by_role"]["spy"]["deals"] == out["by_role"]["civilian"]["deals"] == 20
    # the stored matches: two per deal under the tag, the same seed, differing only in the seat
    matches = {m["id"]: m for m in arena.store.iter_matches("spy", tag=compare_tag("house:heuristic",
                                                                                    "house:random", 1))}
    assert len(matches) == 80
    for p in result.pairs:
        ma, mb = matches[p.match_a], matches[p.match_b]
        assert ma["seed"] == mb["seed"] == p.deal.seed
        seats_a = {s["seat"]: s["agent_id"] for s in ma["seats"]}
        seats_b = {s["seat"]: s["agent_id"] for s in mb["seats"]}
        assert seats_a[p.deal.seat] == "house:heuristic" and seats_b[p.deal.seat] == "house:random"
        assert {k: v for k, v in seats_a.items() if k != p.deal.seat} == \
            {k: v for k, v in seats_b.items() if k != p.deal.seat}
        assert ma["result"]["roles"][p.deal.seat] == mb["result"]["roles"][p.deal.seat] == p.deal.role
    # an experiment, like a study: its source kind is 'study', in the pool of every match, not
    # in the default leaderboard's
    assert board(arena.store, "spy") == []
    assert sum(r["seats"] for r in board(arena.store, "spy", sources=EVERY_KIND)) == 80 * 6
    assert from_matches("spy", arena.store.iter_matches("spy")) == []
    assert list(export_rows(arena.store, "spy", "seats", "jsonl")) == []
    assert len(list(export_rows(arena.store, "spy", "matches", "jsonl", sources={"study"}))) == 80
    arena.store.close()


def test_the_score_measure_reads_the_seats_game_score(tmp_path):
    arena, result = run(tmp_path, "house:heuristic", "house:random", 6, measure="score",
                        opponents=["house:heuristic"])
    for p in result.pairs:
        for match_id, value in ((p.match_a, p.a), (p.match_b, p.b)):
            assert arena.store.get_match(match_id)["result"]["scores"][p.deal.seat] == pytest.approx(value)
    arena.store.close()


def test_the_cli_prints_the_comparison_and_its_tag(tmp_path):
    db = tmp_path / "cli.db"
    proc = cli("--db", str(db), "compare", "house:heuristic", "house:random", "--game", "spy", "--deals", "8",
               "--opponents", "house:random,house:heuristic", "--seed", "5")
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "8 deals" in out and "95% interval [" in out and "sign test" in out
    assert "A better on" in out
    assert "matches tagged compare:house:heuristic-vs-house:random:5" in out
    store = Store(db)
    assert store.count_matches("spy") == 16
    assert {m["tag"] for m in store.iter_matches("spy")} == {"compare:house:heuristic-vs-house:random:5"}
    store.close()
    bad = cli("--db", str(db), "compare", "house:heuristic", "nosuch:agent", "--deals", "2")
    assert bad.returncode == 2 and "unknown agent 'nosuch:agent'" in bad.stderr


def test_the_compare_endpoint_through_gradio_client(tmp_path):
    from browser_support import running_arena
    from gradio_client import Client

    from space_app.config import ArenaConfig

    with running_arena(ArenaConfig(db=str(tmp_path / "api.db"), demo_matches=0)) as (_, url):
        client = Client(url, verbose=False, httpx_kwargs={"timeout": 120})
        out = client.predict("house:heuristic", "house:random", "spy", 4, "", 2, 0, "win", api_name="/compare")
    assert out["deals"] == 4 and out["tag"] == "compare:house:heuristic-vs-house:random:2"
    assert out["opponents"] == ["house:random"] and out["test"].startswith("exact two-sided sign test")
    assert len(out["per_deal"]) == 4 and out["low"] <= out["mean"] <= out["high"]


def test_compare_refuses_a_bad_measure_before_playing(tmp_path):
    arena = Arena(Store(tmp_path / "x.db"))
    with pytest.raises(ValueError, match="measure"):
        asyncio.run(compare(arena, "house:heuristic", "house:random", deals=2, measure="elo"))
    assert arena.store.count_matches() == 0
    arena.store.close()
