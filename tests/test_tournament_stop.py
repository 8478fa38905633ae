"""Tournaments that stop when the answer is known (`tournament --until-separated`,
`--until-interval`, `--max-games`): house agents of different strength separate before the
budget, two equally strong agents run to it and claim nothing, the match budget is never
passed, a run again plays nothing new, and every block keeps its balanced seating."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from test_cli_tournament import cli
from test_sequential import OwnStreamRandom

from space_app.seating import rotation
from space_app.service import Arena
from space_app.store import Store
from space_app.tournament_stop import (
    TournamentRule,
    interval_lineup,
    separation_lineups,
    stopping_tournament,
)


def arena_at(path: Path) -> Arena:
    arena = Arena(Store(path))
    for k, name in enumerate(("twin-a", "twin-b")):
        arena.catalogue.add(name, OwnStreamRandom(name, k))
    return arena


def matches_of(arena: Arena, tag: str) -> set[str]:
    return {r["match_id"] for r in arena.store.records("spy", tag=tag)}


def test_the_cli_separates_heuristic_from_random_before_the_budget_and_a_rerun_adds_no_match(tmp_path):
    db = tmp_path / "t.db"
    args = ("--db", str(db), "tournament", "spy", "--seats", "house:heuristic", "house:random",
            "--until-separated", "house:heuristic", "house:random", "--max-games", "400", "--look-every", "10")
    done = cli(*args, timeout=600)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "pilot (10 deals, 20 matches): expected half-width at the budget (200 deals)" in out
    assert "look 1: 10 deals, 20 matches; house:heuristic − house:random" in out
    stop = next(line for line in out.splitlines() if line.startswith("stopped after"))
    played = int(stop.split()[2])
    assert stop.endswith("separated: house:heuristic better") and played < 400
    assert "house:heuristic better in" in out and "leaderboard" in out
    stored = matches_of(Arena(Store(db)), "tournament")
    assert len(stored) == played
    again = cli(*args, timeout=600)
    assert again.returncode == 0, again.stderr
    assert f"{played} matches finished ({played} of them before this run)" in again.stdout
    assert next(line for line in again.stdout.splitlines() if line.startswith("stopped after")) == stop
    assert matches_of(Arena(Store(db)), "tournament") == stored


def test_two_equally_strong_agents_run_to_the_budget_and_claim_nothing(tmp_path):
    arena = arena_at(tmp_path / "t.db")
    # against the heuristic agent a random seat's vote decides some deals
    rule = TournamentRule(36, separate=("twin-a", "twin-b"), every=2)
    result = arena.run_in_own_loop(stopping_tournament(arena, "spy", ["twin-a", "twin-b", "house:heuristic"], rule,
                                                       seed=3, tag="twins"))
    assert result.matches == 36 and len(matches_of(arena, "twins")) == 36  # six matches a deal: [a, b, h] and swapped
    assert [k.matches for k in result.looks] == [12, 24, 36]
    assert result.stopped.startswith("match budget spent: 36 of 36 matches")
    assert "no difference claimed" in result.stopped
    last = result.looks[-1].pair
    assert last is not None and last.low <= 0 <= last.high and last.evidence < 20
    assert last.a_better + last.b_better > 0  # the twins differ on some deals


def test_the_match_budget_is_never_passed_and_whole_deals_are_kept(tmp_path):
    arena = arena_at(tmp_path / "t.db")
    rule = TournamentRule(10, half_width=0.01, every=2)  # a target it cannot reach in 10 matches
    result = arena.run_in_own_loop(stopping_tournament(arena, "spy", ["house:heuristic", "house:random",
                                                                      "twin-a"], rule, tag="b"))
    # blocks of three matches: three whole deals fit in ten
    assert result.matches == 9 and len(matches_of(arena, "b")) == 9
    assert result.stopped == ("match budget spent: 9 of 10 matches (the next deal needs 3); the widest interval "
                              "is still wider than asked")
    exact = arena.run_in_own_loop(stopping_tournament(arena, "spy", ["house:heuristic", "house:random", "twin-a"],
                                                      TournamentRule(12, half_width=0.01, every=2), tag="b"))
    assert exact.matches == 12 and len(matches_of(arena, "b")) == 12  # the first nine again, three more
    assert exact.stopped.startswith("match budget spent: 12 of 12 matches")


def test_a_target_met_stops_before_the_budget_with_every_interval_narrow_enough(tmp_path):
    arena = arena_at(tmp_path / "t.db")
    rule = TournamentRule(400, half_width=0.45, every=5)
    result = arena.run_in_own_loop(stopping_tournament(arena, "spy", ["house:heuristic", "house:random"], rule,
                                                       tag="w"))
    assert result.stopped.startswith("every interval's half-width ≤ 0.45") and result.matches < 400
    last = result.looks[-1]
    assert all(k.half_width <= 0.45 for k in last.agents.values()) and set(last.agents) == {"house:heuristic",
                                                                                             "house:random"}
    assert len(result.looks) > 1  # the pilot's intervals are wider than that
    assert max(k.half_width for k in result.looks[-2].agents.values()) > 0.45


def test_every_block_is_balanced_and_the_line_ups_follow_the_uncertainty(tmp_path):
    # with more agents than seats, a block seats the widest intervals (unplayed first, then the least played)
    specs = ["p1", "p2", "p3", "p4", "p5", "p6"]
    assert interval_lineup(specs, 4, {}, {"p1": 1, "p2": 1}) == ("p3", "p4", "p5", "p6")
    widths = {"p1": 0.1, "p2": 0.3, "p3": 0.2, "p4": 0.4, "p5": 0.05, "p6": 0.25}
    assert interval_lineup(specs, 4, widths, {}) == ("p2", "p3", "p4", "p6")
    assert interval_lineup(specs[:3], 4, widths, {}) == ("p1", "p2", "p3")  # fewer agents than seats: all
    # separating: A and B in every match, and swapped on the same deal unless that is a rotation
    assert separation_lineups("a", "b", [], 6, 0) == (("a", "b"),)
    assert separation_lineups("a", "b", ["c", "d", "e", "f", "g"], 4, 1) == (("a", "b", "d", "e"), ("b", "a", "d", "e"))
    arena = arena_at(tmp_path / "t.db")
    specs = ["house:heuristic", "house:random", "twin-a", "twin-b"]
    rule = TournamentRule(60, half_width=0.01, every=2)
    result = arena.run_in_own_loop(stopping_tournament(arena, "spy", specs, rule, players=4, tag="bal"))
    sep = arena.run_in_own_loop(stopping_tournament(arena, "spy", specs, TournamentRule(
        48, separate=("twin-a", "house:random"), every=2), players=4, tag="sep"))
    for block in [*result.blocks, *sep.blocks]:
        for lineup in block.lineups:
            seats = [rotation(lineup, 4, r) for r in range(len(lineup))]
            for agent in lineup:  # every agent of the line-up in every seat equally often
                assert len({sum(s[i] == agent for s in seats) for i in range(4)}) == 1
    for block in sep.blocks:
        assert all({"twin-a", "house:random"} <= set(lineup) for lineup in block.lineups)
        a, b = block.lineups
        assert a[:2] == b[1::-1] and a[2:] == b[2:]
    # the stored matches are the blocks' matches, and the seating counts add up to them
    assert len(matches_of(arena, "bal")) == result.matches == result.seating.matches
    per_seat = Counter({a: sum(c.values()) for a, c in result.seating.by_seat.items()})
    assert sum(per_seat.values()) == 4 * result.matches
    assert "blocks, each one deal and every rotation of its line-up" in result.seating.note()


def test_a_rule_needs_a_target_and_the_cli_keeps_budgets_for_targets(tmp_path):
    with pytest.raises(ValueError, match="needs a target"):
        TournamentRule(10)
    with pytest.raises(ValueError, match="two different agents"):
        TournamentRule(10, separate=("a", "a"))
    with pytest.raises(ValueError, match="at least 2"):
        TournamentRule(10, half_width=0.1, every=1)
    done = cli("--db", str(tmp_path / "c.db"), "tournament", "spy", "--max-games", "4")
    assert done.returncode == 2 and "budget of a tournament with a target" in done.stderr
    done = cli("--db", str(tmp_path / "c.db"), "tournament", "spy", "--seats", "house:random", "house:random",
               "--until-separated", "house:heuristic", "house:random")
    assert done.returncode == 2 and "must be among the tournament's agents" in done.stderr


def test_compare_takes_a_budget_in_matches(tmp_path):
    import json

    db = str(tmp_path / "c.db")
    done = cli("--db", db, "compare", "house:random", "house:random", "--max-games", "9", "--until-separated",
               "--look-every", "2", "--json", timeout=300)
    assert done.returncode == 0, done.stderr
    seq = json.loads(done.stdout)["sequential"]
    assert seq["budget_deals"] == 4 and seq["deals"] == 4  # nine matches pay for four deals of two
    assert seq["stopped"].startswith("budget spent: no difference claimed")
    assert len(matches_of(Arena(Store(db)), "compare:house:random-vs-house:random:0")) == 8


def test_with_more_agents_than_seats_the_narrowest_interval_sits_out(tmp_path):
    arena = arena_at(tmp_path / "t.db")
    arena.catalogue.add("twin-c", OwnStreamRandom("twin-c", 2))
    specs = ["house:heuristic", "house:random", "twin-a", "twin-b", "twin-c"]
    result = arena.run_in_own_loop(stopping_tournament(arena, "spy", specs, TournamentRule(
        120, half_width=0.01, every=3), players=4, tag="five"))
    assert len(result.looks) >= 3
    for k, look in enumerate(result.looks[:-1]):
        after = result.blocks[3 * (k + 1):3 * (k + 2)]  # the batch placed after this look
        narrowest = min(w.half_width for w in look.agents.values())
        for block in after:
            (lineup,) = block.lineups
            (out,) = set(specs) - set(lineup)
            assert look.agents[out].half_width == narrowest  # the widest four play
    seat_counts = {a: sum(c.values()) for a, c in result.seating.by_seat.items()}
    assert set(seat_counts) == set(specs) and sum(seat_counts.values()) == 4 * result.matches


def test_a_token_budget_stops_a_tournament_after_the_look_that_spends_it(tmp_path):
    from sdk import LLMAgent
    from sdk.callers.scripted import scripted_caller

    arena = Arena(Store(tmp_path / "t.db"))
    for name in ("llm-a", "llm-b"):  # a model that reports its tokens (words)
        arena.catalogue.add(name, LLMAgent(scripted_caller(["It is round and it is sweet. Final answer: P2"]),
                                           name=name))
    rule = TournamentRule(40, separate=("llm-a", "llm-b"), every=2, max_tokens=1)
    result = arena.run_in_own_loop(stopping_tournament(arena, "spy", ["llm-a", "llm-b"], rule, tag="tok"))
    assert result.matches == 4 and len(result.looks) == 1
    assert result.spent is not None and result.spent["matches"] == 4
    assert result.spent["tokens"] == sum(r["stats"]["tokens"] for r in arena.store.records("spy", tag="tok")) > 0
    assert result.stopped.startswith("token budget spent") and "no difference claimed" in result.stopped
    assert result.expected_deals == 2  # the pilot's spend says the budget pays for no more than it
