"""`python -m space_app copy-store SRC DST`: a SQLite store moved to a real PostgreSQL server
and back, every row and every standing kept, and a copy that does not agree named."""

from __future__ import annotations

import pytest
from sqlalchemy import update

from space_app.cli import main as cli_main
from space_app.copy_store import compare_standings
from space_app.core.events import Event
from space_app.leaderboard import board
from space_app.service import Arena
from space_app.store import Store, ratings

PAIR = {"pair": {"civilian": "tea", "spy": "coffee"}}


@pytest.fixture
def sqlite_store(tmp_path) -> Store:
    """A SQLite store with something in every table."""
    store = Store(tmp_path / "source.db")
    arena = Arena(store)
    arena.run_in_own_loop(arena.tournament("spy", ["house:heuristic", "house:random"], 12, seed=4, settings=PAIR))
    arena.run_in_own_loop(arena.tournament("spy", ["house:heuristic", "house:random"], 4, seed=5, tag="demo"))
    store.upsert_agent("remote:me/agent", name="Mine", kind="remote", src="https://me-agent.hf.space",
                       secret="sk-secret-0123456789", games=["spy"], info={"vision": False})
    store.save_answers("tom-household", "house:guess", [
        {"item_id": f"q{i}", "types": ["belief"], "gold": "a", "parsed": "a" if i % 2 else "b",
         "correct": i % 2, "status": "ok", "detail": "", "reply": "a", "latency_ms": 1.5, "tokens": 4}
        for i in range(5)])
    match_id = store.list_matches(limit=1)[0]["id"]
    store.save_verdicts([{"match_id": match_id, "seat": "P1", "score": "rp", "item": 0,
                          "judge": "heuristic", "value": 0.75}])
    store.create_match("still-running", "spy", 9, [{"seat": "P1", "agent_id": "house:random"}])
    return store


def run(capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli_main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_sqlite_store_moves_to_postgresql_and_back(sqlite_store, pg_server, tmp_path, capsys):
    target = pg_server.database()
    # small chunks: every table of any size goes in several COPYs within its one transaction
    code, out, _ = run(capsys, "copy-store", sqlite_store.url, target, "--quiet", "--chunk", "100")
    assert code == 0, out
    assert out.strip().endswith("counts and standings agree") and "spy standings: agree" in out
    assert "matches: 17 rows" in out and "suite_answers: 5 rows" in out and "judge_verdicts: 1 rows" in out

    copy = Store(target, recover=False)
    assert copy.backend == "postgresql"
    assert board(copy, "spy") == board(sqlite_store, "spy") and board(copy, "spy")
    assert copy.get_agent("remote:me/agent", with_secret=True)["secret"] == "sk-secret-0123456789"
    assert copy.answers("tom-household") == sqlite_store.answers("tom-household")
    assert copy.verdicts() == sqlite_store.verdicts()
    assert copy.get_match("still-running")["status"] == "running"  # copied as it was
    for match in sqlite_store.iter_matches("spy"):  # every match whole, events in order
        assert copy.get_match(match["id"]) == match
    # the copy verifies from its own events, and takes new events after the copied ones
    code, out, _ = run(capsys, "--db", target, "verify", "--all")
    assert code == 0 and "16 identical" in out
    copy.create_match("new-one", "spy", 1, [{"seat": "P1", "agent_id": "house:random"}])
    copy.append_events("new-one", [(0, Event(kind="setup", visible_to=()))])

    # and back to a new SQLite file
    back = tmp_path / "back.db"
    code, out, _ = run(capsys, "copy-store", target, str(back), "--quiet")
    assert code == 0 and "counts and standings agree" in out and "matches: 18 rows" in out
    assert board(Store(back, recover=False), "spy") == board(sqlite_store, "spy")


def test_a_copy_goes_only_into_an_empty_store(sqlite_store, tmp_path, capsys):
    other = Store(tmp_path / "other.db")
    other.upsert_agent("house:random", name="Random", kind="house")
    code, _, err = run(capsys, "copy-store", sqlite_store.url, other.url, "--quiet")
    assert code == 2 and "is not empty (its agents table has rows)" in err
    assert other.count_matches() == 0  # nothing was written
    code, _, err = run(capsys, "copy-store", sqlite_store.url, sqlite_store.url, "--quiet")
    assert code == 2 and "the same store" in err


def test_standings_that_differ_are_named(sqlite_store, pg_server, capsys):
    target = pg_server.database()
    assert run(capsys, "copy-store", sqlite_store.url, target, "--quiet")[0] == 0
    copy = Store(target, recover=False)
    assert compare_standings(sqlite_store, copy, "spy") == []
    with copy.engine.begin() as conn:  # one rating nudged in the copy
        conn.execute(update(ratings).where(ratings.c.system == "agent", ratings.c.subject == "house:random",
                                           ratings.c.pool == "default").values(mu=ratings.c.mu + 1))
    assert compare_standings(sqlite_store, copy, "spy") == ["ratings differ", "leaderboards differ"]
