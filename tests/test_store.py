"""The store on real SQLite files and a real PostgreSQL server: WAL, CRUD, filters,
secrets, hostile text, and a process killed in the middle of a tournament."""

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
from sqlalchemy import create_engine, text, update
from sqlalchemy.exc import DBAPIError, IntegrityError

from space_app.core.events import GENERIC, Call, Event, Private, Setup
from space_app.games.spy.metrics import rescore
from space_app.store import Store, matches

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(params=["path", "url"])
def sqlite_target(request, tmp_path) -> tuple[str, Path]:
    """A SQLite store target in both accepted forms, and the file it lands in."""
    db = tmp_path / "nested" / "dir" / "arena.db"
    if request.param == "url":
        db.parent.mkdir(parents=True)
        return f"sqlite:///{db}", db
    return str(db), db


@pytest.fixture(params=["sqlite-path", "sqlite-url", "postgresql"])
def target(request, tmp_path) -> tuple[str, Path | None]:
    """A store target: a SQLite file in both accepted forms, or a PostgreSQL database."""
    if request.param == "postgresql":
        return request.getfixturevalue("pg_server").database(), None
    db = tmp_path / "nested" / "dir" / "arena.db"
    if request.param == "sqlite-url":
        db.parent.mkdir(parents=True)
        return f"sqlite:///{db}", db
    return str(db), db


def seat_rows(*agent_ids: str) -> list[dict[str, str]]:
    return [{"seat": f"P{i}", "agent_id": a, "agent_name": a.upper()}
            for i, a in enumerate(agent_ids, start=1)]


def sample_events(n: int = 5) -> list[tuple[int, Event]]:
    evs = [Setup(text="secret setup", visible_to=(), roles={"P1": "spy"}),
           Private(text="your word", visible_to=("P1",), facts={"word": "tea"}),
           Event(kind="statement", actor="P1", text="hello ✓ 你好", round=1),
           Call(actor="P1", round=1, visible_to=(), latency_ms=1.5),
           Event(kind="end", round=1, winner="spy")]
    return list(enumerate(evs[:n]))


def test_wal_mode_is_on(sqlite_target):
    url, db = sqlite_target
    store = Store(url)
    assert store.url.startswith("sqlite:///")
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar().lower() == "wal"
    store.create_match("m1", "spy", 1, seat_rows("a"))
    assert db.is_file()
    with sqlite3.connect(db) as raw:  # WAL is a property of the file itself
        assert raw.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal"
    store.close()


def test_a_postgresql_url_without_a_driver_gets_psycopg(pg_server):
    url = pg_server.database()
    for plain in (url.replace("postgresql+psycopg://", "postgresql://"),
                  url.replace("postgresql+psycopg://", "postgres://")):
        store = Store(plain)
        assert store.url == url and store.backend == "postgresql"
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
    assert m["seats"][0] == {"seat": "P1", "agent_id": "house:random", "agent_name": "HOUSE:RANDOM",
                           "version": {}}

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
    back = [GENERIC.parse(e) for e in got]
    assert [b.to_dict() for b in back] == [e.to_dict() for _, e in items]  # kind, actor, text, round, visibility, data
    assert got[2]["text"] == "hello ✓ 你好"
    assert got[0]["visible_to"] == [] and got[2]["visible_to"] is None
    assert store.events_of("m1") == got
    assert store.get_match("m1", with_events=False).get("events") is None
    assert store.get_match("nope") is None
    with pytest.raises(IntegrityError):  # a sequence number is written once
        store.append_events("m1", [(0, Event(kind="statement"))])
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


def test_what_sqlite_accepts_every_backend_accepts(target):
    """Hostile or unusual values reach the store from agents and CLI users: NUL characters,
    strings past the declared lengths (SQLite never enforced them), seeds past 32 bits, NaN in
    data. Every backend stores them; PostgreSQL, which refuses NUL in text and NaN in JSON,
    keeps U+FFFD and null in their place."""
    url, _ = target
    store = Store(url)
    long_tag, long_agent = "t" * 500, "remote:" + "a" * 600
    store.upsert_agent(long_agent, name="N" * 300, kind="remote", src="s" * 700, secret="k" * 800)
    store.create_match("m1", "spy", 2**40 + 7, [{"seat": "S" * 90, "agent_id": long_agent}],
                       settings={"rounds": 3}, tag=long_tag)
    store.append_events("m1", [(0, Event(kind="statement", actor="A" * 150, text="nul\x00byte ✓",
                                         raw="nul\x00in json", latency=float("nan")))])
    store.finish_match("m1", "error", error="trace with \x00")
    store.save_answers("suite-" + "x" * 300, long_agent, [
        {"item_id": "q1", "types": ["belief"], "gold": "a", "parsed": None, "correct": 0, "status": "error",
         "detail": "d\x00", "reply": "r\x00", "latency_ms": 1.0, "tokens": 3}])
    store.save_verdicts([{"match_id": "m1", "seat": "S" * 90, "score": "rp", "item": 0, "judge": "j" * 300,
                          "value": 0.5}])

    m = store.get_match("m1")
    assert m["seed"] == 2**40 + 7 and m["tag"] == long_tag and m["seats"][0]["seat"] == "S" * 90
    agent = store.get_agent(long_agent, with_secret=True)
    assert agent["name"] == "N" * 300 and agent["src"] == "s" * 700 and agent["secret"] == "k" * 800
    e = m["events"][0]
    assert e["actor"] == "A" * 150 and e["data"]["raw"] == "nul\x00in json"  # JSON escapes NUL
    kept = "\x00" if store.backend == "sqlite" else "\ufffd"
    assert e["text"] == f"nul{kept}byte ✓" and m["error"] == f"trace with {kept}"
    nan = e["data"]["latency"]
    assert (nan != nan) if store.backend == "sqlite" else nan is None
    (answer,) = store.answers("suite-" + "x" * 300)
    assert (answer["detail"], answer["reply"]) == (f"d{kept}", f"r{kept}")
    assert store.verdicts(["m1"])[0]["judge"] == "j" * 300
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


def _running_with_events(url: str) -> int:
    """Running matches that already wrote events (a kill then leaves a partial record)."""
    try:
        with create_engine(url).connect() as conn:
            return conn.execute(text("SELECT count(DISTINCT e.match_id) FROM events e JOIN matches m "
                                     "ON m.id = e.match_id WHERE m.status = 'running'")).scalar_one()
    except DBAPIError:  # the tables are not there yet
        return 0


def _statuses(url: str) -> dict[str, str]:
    """Read through a bare engine, as another program would, not through a Store."""
    if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).exists():
        return {}
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return dict(conn.execute(text("SELECT id, status FROM matches")).all())
    except DBAPIError:  # the tables are not there yet
        return {}
    finally:
        engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def crash_store(request, tmp_path) -> tuple[str, str]:
    """(what the crashing process is given, the URL to read it back with)."""
    if request.param == "postgresql":
        url = request.getfixturevalue("pg_server").database()
        return url, url
    db = tmp_path / "crash.db"
    return str(db), f"sqlite:///{db}"


def test_a_killed_tournament_leaves_a_readable_store(tmp_path, crash_store):
    given, url = crash_store
    script = tmp_path / "crash_run.py"
    script.write_text(CRASH_SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, str(script), given], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.communicate()[1].decode()[-3000:]
            assert time.monotonic() < deadline, "the tournament never got going"
            states = list(_statuses(url).values())
            if states.count("finished") >= 3 and "running" in states and _running_with_events(url):
                break
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL

    at_kill = _statuses(url)
    running = {m for m, s in at_kill.items() if s == "running"}
    finished = {m for m, s in at_kill.items() if s == "finished"}
    assert running and len(finished) >= 3
    assert set(at_kill.values()) <= {"running", "finished"}

    store = Store(url)  # (SQLite: the URL form opens the same file)
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
    again = Store(given)  # (SQLite: and the plain path form too)
    assert again.aborted_on_open == []
    assert again.get_match("after")["status"] == "finished"
    assert again.count_matches("spy") == len(at_kill) + 1
    again.close()
