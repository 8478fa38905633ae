"""Metrics that scale: per-seat records stored when a match ends, running totals and
ratings read by the leaderboard, `rescore` rebuilding them from events, and a rating
that is sound for uneven teams (one spy against five civilians). Every store-level test
runs on SQLite and on a real PostgreSQL server."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import textwrap
import threading
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import text, update
from stores import BACKENDS, store_target

from sdk import AgentError
from space_app.cli import main as cli_main
from space_app.games.spy.agents import HeuristicSpyAgent, RandomAgent
from space_app.leaderboard import board, from_matches
from space_app.rating import SIDE, Placing, TeamRating
from space_app.service import Arena, MatchPlan
from space_app.sources import EVERY_KIND
from space_app.standings import Standings, catch_up, from_row, keep, rescore, unreachable_calls, write_standings
from space_app.store import Store, agent_totals, ratings, seat_records

PAIR = {"pair": {"civilian": "tea", "spy": "coffee"}}


def tournament(target: str, agents: dict[str, object], games: int, seed: int = 1) -> Arena:
    arena = Arena(Store(target))
    for name, agent in agents.items():
        arena.catalogue.add(name, agent)
    arena.run_in_own_loop(arena.tournament("spy", list(agents), games, seed=seed, settings=PAIR))
    return arena


def same_rows(a: list[dict], b: list[dict]) -> None:
    assert [r["agent"] for r in a] == [r["agent"] for r in b]
    for x, y in zip(a, b, strict=True):
        assert x.keys() == y.keys()
        for key in x:
            if isinstance(x[key], float):
                assert x[key] == pytest.approx(y[key], abs=1e-9), (x["agent"], key)
            else:
                assert x[key] == y[key], (x["agent"], key)


@pytest.fixture(scope="module", params=BACKENDS)
def played(request, tmp_path_factory):
    path = store_target(request.param, tmp_path_factory.mktemp("standings"), request)
    arena = tournament(path, {"heur": HeuristicSpyAgent("heur"), "rand": RandomAgent("rand")}, 30)
    arena.run_in_own_loop(arena.tournament("spy", ["heur", "rand"], 6, seed=5, settings=PAIR, tag="study:x:1"))
    arena.run_in_own_loop(arena.tournament("spy", ["heur", "rand"], 4, seed=6, settings=PAIR, tag="demo"))
    return arena.store


def test_each_finished_match_stores_one_record_per_seat(played):
    rows = list(played.records("spy"))
    assert len(rows) == 40 * 6
    assert {r["role"] for r in rows} == {"spy", "civilian"}
    assert sum(r["role"] == "spy" for r in rows) == 40
    # the order they were applied is the order of the matches, one number per match
    assert len({r["rated"] for r in rows}) == 40


@pytest.mark.parametrize(("kinds", "matches"), [
    (None, 30),  # the default: demo and study matches left out (a kept pool)
    (EVERY_KIND, 40),  # a kept pool
    (frozenset({"study"}), 6),  # computed from the stored records
    (frozenset({"demo", "tournament"}), 34),
])
def test_the_stored_leaderboard_equals_a_recomputation_from_events(played, kinds, matches):
    stored = board(played, "spy", sources=kinds)
    again = from_matches("spy", played.iter_matches("spy", order="rated"), sources=kinds)
    same_rows(stored, again)
    # both agents sit in every match (six seats, two agents)
    assert [r["matches"] for r in stored] == [matches, matches]


def test_one_tags_leaderboard_comes_from_its_stored_records(played):
    # one tournament's tag: from its stored records, without events
    study = board(played, "spy", tag="study:x:1")
    assert {r["agent"] for r in study} == {"heur", "rand"} and max(r["matches"] for r in study) <= 6


def test_rescore_agrees_then_names_a_tampered_record_and_repairs_it(played):
    before = board(played, "spy")
    report = rescore(played, "spy")
    assert (report.matches, report.agreed, report.differed, report.failed) == (40, 40, [], {})
    same_rows(board(played, "spy"), before)
    victim = next(played.records("spy"))
    with played.engine.begin() as conn:
        conn.execute(update(seat_records).where(seat_records.c.match_id == victim["match_id"],
                                                seat_records.c.seat == victim["seat"])
                     .values(score=seat_records.c.score + 5))
    report = rescore(played, "spy")
    assert report.differed == [victim["match_id"]] and report.agreed == 39
    assert victim["match_id"] in "\n".join(report.lines())
    same_rows(board(played, "spy"), before)


def test_rescore_skips_aborted_and_error_matches_and_says_so(new_store, capsys):
    target = new_store()
    arena = tournament(target, {"heur": HeuristicSpyAgent("heur"), "rand": RandomAgent("rand")}, 4)
    store = arena.store
    seats = [{"seat": f"P{i}", "agent_id": "heur"} for i in range(1, 7)]
    for match_id, status in (("gone-1", "aborted"), ("broke-1", "error")):
        store.create_match(match_id, "spy", 1, seats)
        store.finish_match(match_id, status, None, "it stopped")
    assert cli_main(["--db", target, "rescore", "--game", "spy"]) == 0
    out = capsys.readouterr().out
    assert "4 finished matches rescored from their events: 4 agree" in out
    assert "skipped (not finished, no records): 1 aborted, 1 error" in out
    assert "gone-1" in out and "broke-1" in out
    assert sum(r["matches"] for r in board(store, "spy")) == 8  # two agents in each of four matches


def test_a_store_without_records_catches_up(played):
    before = board(played, "spy")
    played.clear_derived("spy")  # as a store written by an older version, or restored matches
    assert board(played, "spy") == []
    assert catch_up(played) == 40
    same_rows(board(played, "spy"), before)


# The two tests below check the rating's arithmetic over 120 matches, not the store: SQLite only.
def test_twins_share_one_rating(tmp_path):
    """Six copies of one agent under different names: every 95% interval holds a common value."""
    twins = {f"twin-{i}": HeuristicSpyAgent(f"twin-{i}") for i in range(6)}
    rows = board(tournament(str(tmp_path / "s.db"), twins, 120).store, "spy")  # 20 rotations of six
    assert len(rows) == 6
    assert max(r["rating_low"] for r in rows) <= min(r["rating_high"] for r in rows)
    assert all(r["rating_low"] <= 25.0 <= r["rating_high"] for r in rows)


def test_a_clearly_stronger_agent_ranks_first(tmp_path):
    agents = {"strong": HeuristicSpyAgent("strong"), **{f"weak-{i}": RandomAgent(f"weak-{i}") for i in range(5)}}
    rows = board(tournament(str(tmp_path / "s.db"), agents, 120).store, "spy")
    by_rating = sorted(rows, key=lambda r: -r["rating"])
    assert by_rating[0]["agent"] == "strong"
    assert by_rating[0]["rating_low"] > max(r["rating"] for r in by_rating[1:])


def test_the_side_not_the_agent_absorbs_an_uneven_game():
    """One agent always plays the lone side, which wins 20% of the time whoever plays it;
    with sum-strength teams its μ would fall far below the others'. Here the side's
    pseudo-player learns the 20% and the agents stay level."""
    rng = random.Random(3)
    rating = TeamRating()
    agents = [f"a{i}" for i in range(6)]
    for _ in range(600):
        lone_wins = rng.random() < 0.2
        rating.rate([Placing(agents[0], "lone", 0 if lone_wins else 1)]
                    + [Placing(a, "many", 1 if lone_wins else 0) for a in agents[1:]])
    lone, many = rating.skills[SIDE + "lone"], rating.skills[SIDE + "many"]
    assert many.mu - lone.mu > 5
    skills = [rating.skills[a] for a in agents]
    assert max(s.low for s in skills) <= min(s.high for s in skills)
    assert abs(skills[0].mu - sum(s.mu for s in skills[1:]) / 5) < 5


def test_a_store_kept_under_the_older_pools_is_derived_again(new_store):
    """A store written before versioned migrations, its standings kept under the older pools
    ('no-studies' counted demo matches): they are dropped when it is upgraded, and derived again."""
    arena = tournament(new_store(), {"heur": HeuristicSpyAgent("heur"), "rand": RandomAgent("rand")}, 3)
    arena.run_in_own_loop(arena.tournament("spy", ["heur", "rand"], 2, seed=5, settings=PAIR, tag="demo"))
    expected = board(arena.store, "spy")
    with arena.store.engine.begin() as conn:
        conn.execute(update(agent_totals).where(agent_totals.c.pool == "default").values(pool="no-studies"))
        conn.execute(update(ratings).where(ratings.c.pool == "default").values(pool="no-studies"))
        conn.execute(text("DROP TABLE alembic_version"))  # as written before migrations
    arena.store.close()
    reopened = Store(arena.store.url)
    assert list(reopened.records("spy")) == [] and reopened.totals("spy", "no-studies") == []
    assert catch_up(reopened) == 5
    same_rows(board(reopened, "spy"), expected)
    assert [r["matches"] for r in expected] == [3, 3]  # the demo matches are not in the default


class Unreachable(RandomAgent):
    """Plays at random, but in every other match (in the order it meets them) its first call
    never reaches it, as a network fault would."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.met: list[str] = []
        self.lock = threading.Lock()

    def act(self, obs):
        with self.lock:
            first = obs.match_id not in self.met
            if first:
                self.met.append(obs.match_id)
            lose = first and len(self.met) % 2 == 1
        if lose:
            raise AgentError("unreachable", "connection refused")
        return super().act(obs)


def test_matches_lost_to_an_unreachable_agent_can_be_voided(new_store):
    arena = tournament(new_store(), {"heur": HeuristicSpyAgent("heur"), "flaky": Unreachable("flaky")}, 12)
    store = arena.store
    hit = {m["id"] for m in store.iter_matches("spy") if unreachable_calls(m)}
    assert len(hit) == 6
    kept = board(store, "spy")
    voided = board(store, "spy", void_infra=True)
    assert [r["matches"] for r in kept] == [12, 12]
    assert [r["matches"] for r in voided] == [12 - len(hit)] * 2
    same_rows(voided, from_matches("spy", store.iter_matches("spy", order="rated"), void_infra=True))
    # the lost call is the agent's foul in the game all the same: only the filter leaves it out
    records = [r for r in store.records("spy") if r["match_id"] in hit and r["agent_id"] == "flaky"]
    assert sum((r["stats"] or {}).get("infra_failures", 0) for r in records) >= len(hit)


WRITER = textwrap.dedent("""
    import sys
    from space_app.service import Arena
    from space_app.store import Store

    arena = Arena(Store(sys.argv[1]))
    arena.run_in_own_loop(arena.tournament("spy", ["house:heuristic", "house:random"], 24, seed=int(sys.argv[2]),
                                           settings={"pair": {"civilian": "tea", "spy": "coffee"}},
                                           tag=f"writer-{sys.argv[2]}"))
""")


def test_two_processes_keeping_standings_on_one_store_lose_no_update(new_store, tmp_path):
    """Two tournaments in two processes on one store: every match gets its own place in the
    order and the running totals and ratings are exactly what the records give, replayed."""
    target = new_store()
    Store(target).close()  # the schema first: this test is about the standings, not the migration
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    procs = [subprocess.Popen([sys.executable, str(script), target, str(seed)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for seed in (1, 2)]
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-3000:]
    store = Store(target)
    rows = list(store.records("spy"))
    by_match = {r["match_id"]: r["rated"] for r in rows}
    assert len(by_match) == 48 and sorted(by_match.values()) == list(range(1, 49))
    assert {r["tag"] for r in rows} == {"writer-1", "writer-2"}
    same_rows(board(store, "spy"), from_matches("spy", store.iter_matches("spy", order="rated")))
    assert [r["matches"] for r in board(store, "spy")] == [48, 48]
    store.close()


def test_keeping_a_match_twice_from_two_processes_keeps_it_once(new_store):
    """Two processes reach the same finished match (one finished it, the other is catching
    up): the first keeps it, the second finds it kept. Two stores on one target stand in
    for the two processes: each has its own engine and connections."""
    target = new_store()
    arena = Arena(Store(target))
    plan = MatchPlan("spy", ["house:heuristic", "house:random", "house:random", "house:random"], 3,
                     settings={**PAIR, "players": 4})
    outcome = arena.run_in_own_loop(arena.run(plan))
    assert outcome.status == "finished"
    first = Store(target)
    first.clear_derived("spy")  # as if the match had only just finished and nobody had kept it
    second = Store(target)
    assert keep(first, outcome.match_id) is True
    assert keep(second, outcome.match_id) is False  # kept already: nothing written twice
    assert catch_up(second) == 0 and catch_up(first) == 0
    rows = list(second.records("spy"))
    assert len(rows) == 4 and {r["rated"] for r in rows} == {1}
    assert [r["matches"] for r in board(second, "spy")] == [1, 1]
    for store in (first, second, arena.store):
        store.close()


def test_a_rebuild_leaves_a_match_kept_meanwhile_for_catch_up(new_store):
    """A rescore computes its rows first and writes them in one transaction; a match another
    process keeps in between is left unrated, and the next `catch_up` keeps it: counted
    once, never lost."""
    target = new_store()
    arena = tournament(target, {"heur": HeuristicSpyAgent("heur"), "rand": RandomAgent("rand")}, 3)
    store = arena.store
    rows = [(row["match_id"], row["tag"], row["rated"]) for row in store.records("spy")]
    first_three = {m for m, _, _ in rows}
    late = arena.run_in_own_loop(arena.tournament("spy", ["heur", "rand"], 1, seed=9, settings=PAIR))
    late_id = next(m["id"] for m in store.iter_matches("spy") if m["id"] not in first_three)
    assert late and late_id
    # a rebuild from the records of the first three only: the late match is not among them
    standings = Standings()
    by_match: dict[str, tuple[str, int, list]] = {}
    for row in store.records("spy"):
        if row["match_id"] in first_three:
            by_match.setdefault(row["match_id"], (row["tag"], row["rated"], []))[2].append(from_row(row))
    ordered = sorted(by_match.items(), key=lambda item: item[1][1])
    for _, (tag, _, recs) in ordered:
        standings.add(tag, recs)
    write_standings(store, "spy", [(m, tag, order, recs) for m, (tag, order, recs) in ordered], standings)
    assert store.unrated("spy") == [late_id]
    assert catch_up(store) == 1
    assert len({r["match_id"] for r in store.records("spy")}) == 4
    same_rows(board(store, "spy"), from_matches("spy", store.iter_matches("spy", order="rated")))
    store.close()


def test_the_arena_and_a_compare_write_one_sqlite_file_at_once(tmp_path):
    """The arena serves a store (its API playing matches, and starting again, which catches
    up on every finished match without records) while `python -m space_app compare` plays
    on the same SQLite file in another process: both finish, every match has one record per
    seat, the standings are what the records give, and `verify --all` passes."""
    from space_app.api import ArenaAPI
    from space_app.config import ArenaConfig

    db = str(tmp_path / "arena.db")
    config = ArenaConfig(db=db, demo_matches=0)
    api = ArenaAPI(config)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    deals = 40
    proc = subprocess.Popen([sys.executable, "-m", "space_app", "--db", db, "compare", "house:heuristic",
                             "house:random", "--deals", str(deals), "--concurrency", "4", "--json"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    played = []
    while proc.poll() is None:
        outcome = asyncio.run(api.run_match({"game": "spy", "seats": [], "settings": {"players": 4}}))
        played.append(outcome)
        api = ArenaAPI(config, api.store)  # the arena starting again on the same store: catch_up
    out, err = proc.communicate()
    assert proc.returncode == 0, err[-3000:]
    assert "Traceback" not in err
    summary = json.loads(out)
    assert summary["deals"] == deals and summary["dropped"] == 0
    assert played and all(o["status"] == "finished" for o in played)
    store = api.store
    finished = list(store.iter_matches("spy"))
    assert len(finished) == 2 * deals + len(played)
    assert store.unrated("spy") == []
    rows = list(store.records("spy"))
    per_match = Counter(r["match_id"] for r in rows)
    assert per_match == {m["id"]: len(m["seats"]) for m in finished}
    assert sorted({r["rated"] for r in rows}) == list(range(1, len(finished) + 1))
    same_rows(board(store, "spy", sources=EVERY_KIND),
              from_matches("spy", store.iter_matches("spy", order="rated"), sources=EVERY_KIND))
    store.close()
    verify = subprocess.run([sys.executable, "-m", "space_app", "--db", db, "verify", "--all"], env=env,
                            capture_output=True, text=True)
    assert verify.returncode == 0, verify.stdout[-3000:] + verify.stderr[-3000:]
    assert f"{len(finished)} matches: {len(finished)} identical" in verify.stdout
