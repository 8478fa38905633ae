"""The SQLite store on real files: WAL, CRUD, filters, secrets, and a process killed
in the middle of a tournament."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from sqlalchemy import update
from sqlalchemy.exc import IntegrityError

from space_app.core.game import Event
from space_app.games.spy.metrics import rescore
from space_app.store import Store, matches

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(params=["path", "url"])
def target(request, tmp_path) -> tuple[str, Path]:
    """A store target in both accepted forms, and the file it lands in."""
    db = tmp_path / "nested" / "dir" / "arena.db"
    if request.param == "url":
        db.parent.mkdir(parents=True)
        return f"sqlite:///{db}", db
    return str(db), db


def seat_rows(*agent_ids: str) -> list[dict[str, str]]:
    return [{"seat": f"P{i}", "agent_id": a, "agent_name": a.upper()}
            for i, a in enumerate(agent_ids, start=1)]


def sample_events(n: int = 5) -> list[tuple[int, Event]]:
    evs = [Event("setup", text="secret setup", visible_to=(), data={"roles": {"P1": "spy"}}),
           Event("private", text="your word", visible_to=("P1",), data={"facts": {"word": "tea"}}),
           Event("statement", actor="P1", text="hello ✓ 你好", round=1),
           Event("call", actor="P1", round=1, visible_to=(), data={"latency_ms": 1.5}),
           Event("end", round=1, data={"winner": "spy"})]
    return list(enumerate(evs[:n]))


def test_wal_mode_is_on(target):
    url, db = target
    store = Store(url)
    assert store.url.startswith("sqlite:///")
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar().lower() == "wal"
    store.create_match("m1", "spy", 1, seat_rows("a"))
    assert db.is_file()
    with sqlite3.connect(db) as raw:  # WAL is a property of the file itself
        assert raw.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal"
    store.close()


def test_create_append_finish_get(target):
    url, _ = target
    store = Store(url)
    store.create_match("m1", "spy", 42, seat_rows("house:random", "house:heuristic"),
                       settings={"rounds": 3}, tag="t1", owner="me")
    m = store.get_match("m1")
    assert m["status"] == "running" and m["seed"] == 42 and m["settings"] == {"rounds": 3}
    assert m["tag"] == "t1" and m["owner"] == "me" and m["events"] == []
    assert [s["seat"] for s in m["seats"]] == ["P1", "P2"]
    assert m["seats"][0] == {"seat": "P1", "agent_id": "house:random", "agent_name": "HOUSE:RANDOM"}

    items = sample_events()
    store.append_events("m1", items[:2])
    store.append_events("m1", items[2:])
    store.append_events("m1", [])
    store.finish_match("m1", "finished", {"scores": {"P1": 12.0, "P2": 0.0}, "winner": "spy"})
    m = store.get_match("m1")
    assert m["status"] == "finished" and m["finished_at"] >= m["created_at"]
    assert m["result"] == {"scores": {"P1": 12.0, "P2": 0.0}, "winner": "spy"}
    got = m["events"]
    assert [e["seq"] for e in got] == list(range(5))
    back = [Event.from_dict(e) for e in got]
    assert back == [e for _, e in items]  # kind, actor, text, round, visibility, data
    assert got[2]["text"] == "hello ✓ 你好"
    assert got[0]["visible_to"] == [] and got[2]["visible_to"] is None
    assert store.events_of("m1") == got
    assert store.get_match("m1", with_events=False).get("events") is None
    assert store.get_match("nope") is None
    with pytest.raises(IntegrityError):  # a sequence number is written once
        store.append_events("m1", [(0, Event("statement"))])
    assert len(store.events_of("m1")) == 5
    store.close()


def test_list_and_filter(target):
    url, _ = target
    store = Store(url)
    store.create_match("a1", "spy", 1, seat_rows("alice", "bob"), tag="x")
    store.create_match("a2", "spy", 2, seat_rows("bob", "carol"), tag="y")
    store.create_match("a3", "avalon", 3, seat_rows("carol", "dave"), tag="x")
    store.create_match("a4", "spy", 4, seat_rows("alice", "dave"), tag="")
    store.finish_match("a1", "finished", {"scores": {}})
    store.finish_match("a2", "finished", {"scores": {}})
    store.finish_match("a4", "error", error="boom")

    def ids(**kw) -> set[str]:
        return {m["id"] for m in store.list_matches(**kw)}

    assert ids() == {"a1", "a2", "a3", "a4"}
    assert ids(game="spy") == {"a1", "a2", "a4"}
    assert ids(game="avalon") == {"a3"}
    assert ids(agent_id="bob") == {"a1", "a2"}
    assert ids(agent_id="dave") == {"a3", "a4"}
    assert ids(agent_id="nobody") == set()
    assert ids(status="finished") == {"a1", "a2"}
    assert ids(status="running") == {"a3"}
    assert ids(status="error") == {"a4"}
    assert ids(tag="x") == {"a1", "a3"}
    assert ids(tag="") == {"a4"}
    assert ids(game="spy", tag="x", status="finished", agent_id="alice") == {"a1"}
    assert ids(since=time.time() + 60) == set()
    listed = store.list_matches()
    assert [m["created_at"] for m in listed] == sorted((m["created_at"] for m in listed), reverse=True)
    assert len(store.list_matches(limit=2)) == 2
    assert ids(limit=2) | ids(limit=2, offset=2) == ids()
    assert {s["agent_id"] for s in next(m for m in listed if m["id"] == "a2")["seats"]} == {"bob", "carol"}
    assert store.list_matches(status="error")[0]["error"] == "boom"
    assert store.count_matches() == 4 and store.count_matches("spy") == 3
    assert [m["id"] for m in store.iter_matches("spy")] == ["a1", "a2"]
    assert [m["id"] for m in store.iter_matches("spy", tag="y")] == ["a2"]
    assert [m["id"] for m in store.iter_matches("spy", status="error")] == ["a4"]
    assert [m["id"] for m in store.iter_matches("spy", chunk=1)] == ["a1", "a2"]
    store.close()


def test_secrets_are_never_listed(target):
    url, _ = target
    store = Store(url)
    secret = "sk-very-secret-0123456789"
    store.upsert_agent("remote:me/agent", name="Mine", kind="remote", src="me/agent",
                       secret=secret, owner="me", description="d", games=["spy"])
    store.upsert_agent("house:random", name="Random", kind="house")
    listed = store.list_agents()
    assert {a["id"] for a in listed} == {"remote:me/agent", "house:random"}
    assert secret not in json.dumps(listed, default=str)
    assert all("secret" not in a for a in listed)
    assert {a["id"]: a["has_secret"] for a in listed} == {"remote:me/agent": True, "house:random": False}
    public = store.get_agent("remote:me/agent")
    assert "secret" not in public and secret not in json.dumps(public, default=str)
    assert public["has_secret"] is True and public["games"] == ["spy"]
    assert store.get_agent("remote:me/agent", with_secret=True)["secret"] == secret
    # an update without a secret keeps the stored one; listings still hide it
    store.upsert_agent("remote:me/agent", name="Mine 2", kind="remote", src="me/agent")
    assert store.get_agent("remote:me/agent", with_secret=True)["secret"] == secret
    assert store.get_agent("remote:me/agent")["name"] == "Mine 2"
    assert store.deactivate_agent("remote:me/agent")
    assert {a["id"] for a in store.list_agents()} == {"house:random"}
    inactive = store.list_agents(active_only=False)
    assert len(inactive) == 2 and secret not in json.dumps(inactive, default=str)
    store.close()


def dead_pid() -> int:
    """The pid of a process that has just exited."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_reopening_marks_running_matches_aborted(target):
    url, _ = target
    store = Store(url)
    store.create_match("done", "spy", 1, seat_rows("a"))
    store.append_events("done", sample_events())
    store.finish_match("done", "finished", {"scores": {"P1": 12.0}})
    store.create_match("half", "spy", 2, seat_rows("a"))
    store.append_events("half", sample_events(3))
    # a match of a process that is still alive (this one) is never aborted by another opener
    assert Store(url).aborted_on_open == []
    # ... but once its process is gone, it is
    with store.engine.begin() as conn:
        conn.execute(update(matches).where(matches.c.id == "half")
                     .values(process=f"{socket.gethostname()}:{dead_pid()}"))
    store.close()

    peek = Store(url, recover=False)
    assert peek.aborted_on_open == [] and peek.get_match("half")["status"] == "running"
    peek.close()

    again = Store(url)
    assert again.aborted_on_open == ["half"]
    half = again.get_match("half")
    assert half["status"] == "aborted" and half["error"]
    assert [e["kind"] for e in half["events"]] == ["setup", "private", "statement"]
    assert again.get_match("done")["status"] == "finished"
    assert len(again.get_match("done")["events"]) == 5
    again.close()
    assert Store(url).aborted_on_open == []


# -- a process killed in the middle of a tournament -----------------------------------
CRASH_SCRIPT = textwrap.dedent("""
    import asyncio, sys, time
    from sdk.agent import Agent
    from space_app.agents.catalogue import AgentCatalogue
    from space_app.service import Arena
    from space_app.store import Store

    class Slow(Agent):
        def speak(self, obs):
            time.sleep(0.03)
            return f"{obs.you} gives clue {obs.round} after {len(obs.history)} events"

        def vote(self, obs):
            time.sleep(0.03)
            h = sum(map(ord, obs.you + str(obs.round)))
            return "abstain" if h % 3 == 0 else obs.options[h % len(obs.options)]

    class Slowpoke(AgentCatalogue):
        def resolve(self, spec):
            return Slow(spec)

    store = Store(sys.argv[1])
    arena = Arena(store, Slowpoke(store))
    asyncio.run(arena.tournament(
        "spy", ["slow:a", "slow:b", "slow:c"], games=400, seed=3, concurrency=3,
        settings={"pair": {"civilian": "tea", "spy": "coffee"}}, tag="crash"))
""")


def _running_with_events(db: Path) -> int:
    """Running matches that already wrote events (a kill then leaves a partial record)."""
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return conn.execute("SELECT count(DISTINCT e.match_id) FROM events e JOIN matches m ON m.id = e.match_id "
                                "WHERE m.status = 'running'").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def _statuses(db: Path) -> dict[str, str]:
    if not db.exists():
        return {}
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return dict(conn.execute("SELECT id, status FROM matches").fetchall())
    except sqlite3.OperationalError:  # the tables are not there yet
        return {}


def test_a_killed_tournament_leaves_a_readable_store(tmp_path):
    db = tmp_path / "crash.db"
    script = tmp_path / "crash_run.py"
    script.write_text(CRASH_SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, str(script), str(db)], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.communicate()[1].decode()[-3000:]
            assert time.monotonic() < deadline, "the tournament never got going"
            states = list(_statuses(db).values())
            if states.count("finished") >= 3 and "running" in states and _running_with_events(db):
                break
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL

    at_kill = _statuses(db)
    running = {m for m, s in at_kill.items() if s == "running"}
    finished = {m for m, s in at_kill.items() if s == "finished"}
    assert running and len(finished) >= 3
    assert set(at_kill.values()) <= {"running", "finished"}

    store = Store(f"sqlite:///{db}")  # the URL form opens the same file
    assert set(store.aborted_on_open) == running

    # finished matches are whole: every event, and the stored result is what they say
    done = list(store.iter_matches("spy", tag="crash"))
    assert {m["id"] for m in done} == finished
    for m in done:
        seqs = [e["seq"] for e in m["events"]]
        assert seqs == list(range(len(seqs)))
        kinds = [e["kind"] for e in m["events"]]
        assert kinds[0] == "setup" and kinds[-1] == "end" and "call" in kinds
        assert len(m["seats"]) == 6
        assert rescore(m).scores == pytest.approx(m["result"]["scores"])
        assert sum(m["result"]["scores"].values()) == pytest.approx(12)
        end = next(e for e in m["events"] if e["kind"] == "end")
        assert end["data"]["scores"] == m["result"]["scores"]

    # the ones cut short are marked and their partial record is readable
    partial = 0
    for mid in running:
        m = store.get_match(mid)
        assert m["status"] == "aborted" and "stopped" in m["error"]
        assert m["result"] is None
        seqs = [e["seq"] for e in m["events"]]
        assert seqs == list(range(len(seqs)))
        if m["events"]:
            partial += 1
            assert m["events"][0]["kind"] == "setup"
    assert partial >= 1
    assert list(store.iter_matches("spy", status="aborted", tag="crash"))
    assert store.list_matches(status="running") == []

    # and the reopened store takes new records
    store.create_match("after", "spy", 1, seat_rows("a"))
    store.finish_match("after", "finished", {"scores": {"P1": 12.0}})
    store.close()
    again = Store(db)  # and the plain path form too
    assert again.aborted_on_open == []
    assert again.get_match("after")["status"] == "finished"
    assert again.count_matches("spy") == len(at_kill) + 1
    again.close()
