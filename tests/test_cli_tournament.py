"""The headless CLI end to end: a 100-game tournament offline, its printed leaderboard
checked against two recomputations, one match's transcript, and a bad agent spec; balanced
seating (every agent in every seat and role equally often) and the games' deal hooks."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from space_app.core import GAMES, get_game
from space_app.games.spy.agents import HeuristicSpyAgent
from space_app.leaderboard import from_matches
from space_app.seating import count_seating, schedule
from space_app.service import Arena
from space_app.stats import wilson
from space_app.store import Store

REPO = Path(__file__).resolve().parents[1]
DEAD_PROXY = "http://127.0.0.1:9"  # any network use fails fast


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ARENA_DB"}
    env.update(PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               HTTP_PROXY=DEAD_PROXY, HTTPS_PROXY=DEAD_PROXY, http_proxy=DEAD_PROXY,
               https_proxy=DEAD_PROXY, NO_PROXY="", no_proxy="", PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, "-m", "space_app", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)


def parse_table(stdout: str) -> dict[str, dict[str, str]]:
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:2] == ["agent", "matches"])
    header = lines[start].split()
    assert set(lines[start + 1].replace(" ", "")) == {"-"}
    rows = {}
    for line in lines[start + 2:]:
        if not line.strip():
            break
        cells = re.split(r"\s{2,}", line.strip())  # columns are two spaces apart; a cell may hold one
        assert len(cells) == len(header), line
        rows[cells[0]] = dict(zip(header, cells, strict=True))
    return rows


def independent_ranking(db: Path) -> dict[str, tuple[float, int]]:
    """100 + sum of stored game scores - games, straight from the tables."""
    total: dict[str, float] = defaultdict(float)
    games: dict[str, int] = defaultdict(int)
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT m.result, s.seat, s.agent_id FROM matches m JOIN seats s ON s.match_id = m.id "
            "WHERE m.game = 'spy' AND m.status = 'finished'").fetchall()
    for result, seat, agent in rows:
        total[agent] += json.loads(result)["scores"][seat]
        games[agent] += 1
    return {a: (100 + total[a] - games[a], games[a]) for a in total}


@pytest.fixture(scope="module")
def tournament(tmp_path_factory):
    db = tmp_path_factory.mktemp("cli") / "a.db"
    proc = cli("--db", str(db), "tournament", "spy", "--games", "100",
               "--seats", "house:heuristic", "house:random", "--pair", "tea/coffee")
    return db, proc


def test_tournament_runs_offline_and_prints_a_leaderboard(tournament):
    db, proc = tournament
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    assert "100 matches finished, 0 failed" in proc.stdout
    table = parse_table(proc.stdout)
    assert set(table) == {"house:heuristic", "house:random"}
    assert sum(int(r["seats"]) for r in table.values()) == 600
    # both agents sit in every match (two specs fill six seats): matches, not seats
    assert all(int(r["matches"]) == 100 for r in table.values())
    store = Store(db)
    assert store.count_matches("spy") == 100
    assert len(store.list_matches(status="finished", limit=1000)) == 100
    store.close()


def parse_counts(stdout: str, title: str) -> dict[str, dict[str, int]]:
    """A seating table printed under `title`: agent -> column -> count."""
    lines = stdout.splitlines()
    start = lines.index(title) + 1
    header = lines[start].split()
    rows = {}
    for line in lines[start + 2:]:
        if not line.strip():
            break
        agent, *cells = line.split()
        rows[agent] = dict(zip(header[1:], map(int, cells), strict=True))
    return rows


def test_the_tournament_prints_balanced_seating(tournament):
    """100 matches of two agents are 50 whole blocks: each agent is the spy in 50 matches
    and sits in each of the six seats 50 times, as printed and as stored."""
    db, proc = tournament
    assert "whole blocks: equal counts by construction" in proc.stdout
    roles = parse_counts(proc.stdout, "seats taken per role")
    seats = parse_counts(proc.stdout, "seats taken per seat position")
    assert roles == {a: {"spy": 50, "civilian": 250} for a in ("house:heuristic", "house:random")}
    assert seats == {a: {f"P{i}": 50 for i in range(1, 7)} for a in ("house:heuristic", "house:random")}
    stored_roles: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    stored_seats: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    store = Store(db)
    for match in store.iter_matches("spy"):
        for s in match["seats"]:
            stored_roles[s["agent_id"]][match["result"]["roles"][s["seat"]]] += 1
            stored_seats[s["agent_id"]][s["seat"]] += 1
    store.close()
    assert stored_roles == roles and stored_seats == seats


def test_printed_leaderboard_matches_both_recomputations(tournament):
    db, proc = tournament
    assert proc.returncode == 0, proc.stderr[-3000:]
    printed = parse_table(proc.stdout)
    store = Store(db)
    recomputed = {r["agent"]: r for r in from_matches("spy", store.iter_matches("spy", order="rated"))}
    store.close()
    independent = independent_ranking(db)
    assert set(printed) == set(recomputed) == set(independent)
    for agent, row in printed.items():
        ranking, games = independent[agent]
        assert int(row["seats"]) == recomputed[agent]["seats"] == games
        # the stored standings and the recomputation from events agree, ratings included
        assert float(row["rating"]) == pytest.approx(recomputed[agent]["rating"], abs=5e-4)
        # printed with 3 decimals; stored per-seat scores are rounded to 6 (e.g. 8/3)
        assert float(row["ranking_score"]) == pytest.approx(recomputed[agent]["ranking_score"], abs=5e-4)
        assert float(row["ranking_score"]) == pytest.approx(ranking, abs=1e-3)
        assert recomputed[agent]["ranking_score"] == pytest.approx(ranking, abs=1e-3)
        # every rate is printed with its 95% Wilson interval and its sample size
        low, high = wilson(round(recomputed[agent]["win_rate"] * games), games)
        assert row["win_rate"] == (f"{recomputed[agent]['win_rate'] * 100:.1f} "
                                   f"[{low * 100:.1f}, {high * 100:.1f}] n={games}")
    # the game is zero-sum around 12 points: the two rankings add up accordingly
    assert sum(r for r, _ in independent.values()) == pytest.approx(2 * 100 + 100 * 12 - 600, abs=1e-3)


def test_leaderboard_command_reprints_the_same_table(tournament):
    db, proc = tournament
    again = cli("--db", str(db), "leaderboard", "spy")
    assert again.returncode == 0, again.stderr[-3000:]
    first, second = parse_table(proc.stdout), parse_table(again.stdout)
    assert first == second


def test_match_prints_a_transcript_and_stores_one_match(tmp_path):
    db = tmp_path / "m.db"
    seats = ["house:random", "house:heuristic"] * 3
    proc = cli("--db", str(db), "match", "spy", "--seats", *seats, "--seed", "7",
               "--pair", "tea/coffee")
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "== Round 1 begins" in out
    assert "[judge]" in out and "[end] Game over" in out
    store = Store(db)
    (match,) = store.list_matches()
    assert match["status"] == "finished" and match["seed"] == 7 and match["game"] == "spy"
    assert f"match {match['id']}: finished" in out
    assert [s["agent_id"] for s in match["seats"]] == seats
    events = store.events_of(match["id"])
    statements = [e for e in events if e["kind"] == "statement"]
    assert statements
    for e in statements:
        assert f"  {e['actor']}: {e['text']}" in out
    agents = {s["seat"]: s["agent_id"] for s in match["seats"]}
    for seat, pts in match["result"]["scores"].items():
        assert f"  {seat} {agents[seat]} ({match['result']['roles'][seat]}): {pts:g}" in out
    assert f"replay: http://127.0.0.1:7860/?match={match['id']}" in out
    words = next(e for e in events if e["kind"] == "setup")["data"]["words"]
    assert set(words.values()) == {"tea", "coffee"}
    store.close()


def test_the_same_seed_replays_the_same_match(tmp_path):
    """House agents draw from what they have seen, not from the match id: a seed is a
    reproducible game for a researcher, run after run."""
    seats = ["house:random", "house:heuristic"] * 3
    transcripts = []
    for run in ("a", "b"):
        proc = cli("--db", str(tmp_path / f"{run}.db"), "match", "spy", "--seats", *seats, "--seed", "11")
        assert proc.returncode == 0, proc.stderr[-3000:]
        transcripts.append([line for line in proc.stdout.splitlines()
                            if not line.startswith(("match ", "replay: ", "again: "))])
    assert transcripts[0] == transcripts[1]
    assert sum(": " in line for line in transcripts[0]) > 10  # statements and votes, not an empty game


@pytest.mark.parametrize("command", ["match", "tournament"])
def test_an_unknown_agent_spec_is_a_clear_error(tmp_path, command):
    db = tmp_path / "u.db"
    extra = ["--games", "3"] if command == "tournament" else []
    proc = cli("--db", str(db), command, "spy", "--seats", "nosuch:agent", *(["house:random"] * 5),
               "--pair", "tea/coffee", *extra)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert "unknown agent 'nosuch:agent'" in proc.stderr
    # nothing was started: no half-run match is left behind as 'running'
    store = Store(db, recover=False)
    assert store.count_matches() == 0
    store.close()


def test_a_game_without_seats_given_plays_its_own_house_agents(tmp_path):
    db = tmp_path / "own.db"
    proc = cli("--db", str(db), "tournament", "avalon", "--games", "2")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "2 matches finished, 0 failed" in proc.stdout
    lineup = set(get_game("avalon").house.demo)
    assert set(parse_table(proc.stdout)) == lineup
    match = cli("--db", str(db), "match", "avalon", "--seed", "4")
    assert match.returncode == 0, match.stderr[-3000:]
    store = Store(db)
    (last,) = [m for m in store.list_matches(limit=10) if m["tag"] == "cli"]
    assert {s["agent_id"] for s in last["seats"]} == lineup
    store.close()
    # the printed command plays the same match again
    again = next(line for line in match.stdout.splitlines() if line.startswith("again: "))
    argv = again.removeprefix("again:").split()[3:]  # after python -m space_app
    assert argv[:2] == ["--db", str(db)] and "--seed" in argv
    replayed = cli(*argv)
    assert replayed.returncode == 0, replayed.stderr[-3000:]
    def transcript(out: str) -> list[str]:
        return [line for line in out.splitlines() if not line.startswith(("match ", "replay: ", "again: "))]
    assert transcript(replayed.stdout) == transcript(match.stdout)


def test_seats_that_do_not_play_the_game_are_refused_before_any_progress_bar(tmp_path):
    proc = cli("--db", str(tmp_path / "x.db"), "tournament", "avalon", "--games", "5", "--seats", "house:heuristic")
    assert proc.returncode == 2
    assert proc.stderr.strip() == "error: agent 'house:heuristic' does not play 'avalon' (it declares: spy)"


# -- balanced seating ----------------------------------------------------------------------

def stored_counts(store: Store, tag: str) -> tuple[dict, dict]:
    """agent -> role -> seats and agent -> seat -> seats, from the stored results."""
    roles: dict[str, Counter] = defaultdict(Counter)
    seats: dict[str, Counter] = defaultdict(Counter)
    for match in store.iter_matches("spy", tag=tag):
        assert match["status"] == "finished"
        for s in match["seats"]:
            roles[s["agent_id"]][match["result"]["roles"][s["seat"]]] += 1
            seats[s["agent_id"]][s["seat"]] += 1
    return roles, seats


def play(tmp_path: Path, agents: list[str], games: int, **kw: object):
    arena = Arena(Store(tmp_path / "b.db"))
    for name in agents:
        if not name.startswith("house:"):
            arena.catalogue.add(name, HeuristicSpyAgent(name))
    outcomes = arena.run_in_own_loop(arena.tournament("spy", agents, games, seed=4, tag="t",
                                                      settings={"pair": {"civilian": "tea", "spy": "coffee"}},
                                                      **kw))
    return arena.store, outcomes


def test_three_agents_in_six_seats_take_every_role_and_seat_equally(tmp_path):
    """12 matches = 4 whole blocks of 3: each agent is the spy 4 times, a civilian 20 times,
    and sits in each seat 4 times; the returned counts are what was stored."""
    store, outcomes = play(tmp_path, ["a", "b", "c"], 12)
    roles, seats = stored_counts(store, "t")
    assert roles == {a: {"spy": 4, "civilian": 20} for a in "abc"}
    assert seats == {a: {f"P{i}": 4 for i in range(1, 7)} for a in "abc"}
    seating = outcomes.seating
    assert seating.exact and seating.block == 3 and seating.matches == 12
    assert {a: dict(c) for a, c in seating.by_role.items()} == roles
    assert {a: dict(c) for a, c in seating.by_seat.items()} == seats
    assert len({m["seed"] for m in store.iter_matches("spy", tag="t")}) == 4  # one deal per block
    store.close()


def test_a_fixed_role_agent_leaves_the_rotating_agents_balanced(tmp_path):
    store, outcomes = play(tmp_path, ["a", "b", "c"], 12, role_specs={"spy": "house:random"})
    roles, seats = stored_counts(store, "t")
    assert roles["house:random"] == {"spy": 12}
    assert {a: dict(roles[a]) for a in "abc"} == {a: {"civilian": 20} for a in "abc"}
    # every rotating agent lost the same seats (the spy's): equal per seat position
    for seat in (f"P{i}" for i in range(1, 7)):
        assert len({seats[a][seat] for a in "abc"}) == 1
    assert {a: dict(c) for a, c in outcomes.seating.by_role.items()} == {a: dict(c) for a, c in roles.items()}
    store.close()


@pytest.mark.parametrize(("k", "n", "games"), [(2, 6, 10), (3, 6, 12), (4, 6, 20), (6, 6, 18), (8, 6, 24),
                                                (5, 4, 15)])
def test_whole_blocks_give_equal_counts_for_any_number_of_agents(k, n, games):
    agents = [f"a{i}" for i in range(k)]
    spec = get_game("spy")
    counts = count_seating(schedule(agents, n, games, seed=1), lambda s: spec.deal_roles(n, s), spec.facts.roles,
                           spec.facts.seat_names(n), block=k)
    assert counts.exact
    assert len({tuple(sorted(c.items())) for c in counts.by_role.values()}) == 1
    assert len({tuple(sorted(c.items())) for c in counts.by_seat.values()}) == 1
    assert set(counts.by_seat) == set(agents)
    assert counts.by_role["a0"]["spy"] == games // k


@pytest.mark.parametrize(("k", "games"), [(3, 13), (4, 14), (4, 23), (7, 10)])
def test_a_partial_block_keeps_counts_within_one(k, games):
    agents = [f"a{i}" for i in range(k)]
    spec = get_game("spy")
    counts = count_seating(schedule(agents, 6, games, seed=2), lambda s: spec.deal_roles(6, s), spec.facts.roles,
                           spec.facts.seat_names(6), block=k)
    assert not counts.exact
    for seat in spec.facts.seat_names(6):
        got = [counts.by_seat.get(a, Counter())[seat] for a in agents]
        assert max(got) - min(got) <= 1
    spies = [counts.by_role.get(a, Counter())["spy"] for a in agents]
    assert max(spies) - min(spies) <= 1  # one spy seat per deal


@pytest.mark.parametrize("game", sorted(GAMES))
def test_each_games_deal_hook_is_the_deal_its_game_makes(game):
    spec = get_game(game)
    for n in sorted({spec.facts.min_players, spec.facts.default_players}):
        if game == "mystery" and n != spec.facts.default_players:
            continue  # a script has its own number of characters
        for seed in range(20):
            built = spec.make(n, seed)
            assert spec.deal_roles(n, seed) == [built.seat_roles()[s] for s in built.seats]


def test_a_snapshot_carries_its_filter_its_matches_and_the_versions(tournament):
    db, _ = tournament
    done = cli("--db", str(db), "export", "--game", "spy", "--what", "snapshot")
    assert done.returncode == 0, done.stderr[-3000:]
    snap = json.loads(done.stdout)
    assert snap["matches"] == 100 and snap["filter"]["sources"] == "default"
    assert snap["filter"]["includes"].startswith("Includes visitor, human and tournament matches")
    assert snap["rules_version"] >= 1 and snap["code"]["package_version"] and snap["exported_at"]
    assert {r["agent"] for r in snap["rows"]} == {"house:heuristic", "house:random"}
    assert {"win_rate", "win_rate_low", "win_rate_high", "win_rate_n"} <= set(snap["rows"][0])
    # the demo source holds none of these matches
    demo = cli("--db", str(db), "export", "--game", "spy", "--what", "snapshot", "--sources", "demo")
    empty = json.loads(demo.stdout)
    assert empty["matches"] == 0 and empty["rows"] == []
