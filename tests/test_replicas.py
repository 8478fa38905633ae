"""Several arena replicas on one database act as one arena: two real `python app.py` processes
on a real PostgreSQL server, driven through gradio_client; and, on every backend, the leases
that make it so (space_app/leases.py): a planned match claimed by two replicas at once runs
once, another machine's live match is left alone and a dead replica's is aborted, and the
caps (space_app/admission.py) hold across replicas for single matches, agent calls and
batches' matches, a dead replica's slot freed once its lease expires."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from gradio_client import Client
from gradio_client.exceptions import AppError
from pg_server import free_port
from sqlalchemy import delete, func, select, update

from sdk import Agent, Observation, serve
from space_app.admission import MatchSlots, Refused, match_slot
from space_app.batch import planned
from space_app.leases import ABORTED_LEASE, CALL, Leases, LeaseSettings
from space_app.match_plan import MatchPlan
from space_app.service import Arena
from space_app.store import Store, make_engine, match_leases, matches

REPO = Path(__file__).resolve().parents[1]
PAIR = {"pair": {"civilian": "marmalade", "spy": "chutney"}}
SEATS = ["someone/gate", "house:heuristic", "house:random", "house:heuristic", "house:random", "house:heuristic"]
JOB_TIMEOUT = 120
VOTE = {"game": "spy", "verb": "vote", "you": "P1", "options": ["P2", "P3"]}


class Gate(Agent):
    """Speaks in the first round, then holds every call until the test opens the gate."""

    games = ("spy",)

    def __init__(self) -> None:
        super().__init__("gate")
        self.open = threading.Event()
        self.held = threading.Semaphore(0)  # released once per call held

    def _hold(self) -> None:
        self.held.release()
        self.open.wait(90)

    def speak(self, obs: Observation) -> str:
        if obs.round != 1:
            self._hold()
        return f"{obs.you}: you find it on a breakfast table, round {obs.round}"

    def vote(self, obs: Observation) -> str:
        self._hold()
        return obs.options[0]

    def answer(self, obs: Observation) -> str:
        return obs.options[0] if obs.options else "no idea"


def wait_for(condition: Callable[[], Any], what: str, seconds: float = 60) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"gave up waiting for {what}")


class Replica:
    """One `python app.py` on the shared database, on its own loopback port."""

    def __init__(self, name: str, db: str, log_dir: Path) -> None:
        self.db = db
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        env = {**os.environ, "ARENA_DB": db, "ARENA_DEMO_MATCHES": "0", "GRADIO_SERVER_NAME": "127.0.0.1",
               "GRADIO_SERVER_PORT": str(self.port), "HF_HUB_OFFLINE": "1", "ARENA_MAX_MATCHES": "2",
               "ARENA_MAX_MATCHES_PER_VISITOR": "1", "ARENA_TRUSTED_PROXY_HOPS": "1",
               "ARENA_REMOTE_TIMEOUT": "100", "ARENA_LEASE_SECONDS": "3", "ARENA_HEARTBEAT_SECONDS": "0.3"}
        self.log = (log_dir / f"{name}.log").open("w")
        self.proc = subprocess.Popen([sys.executable, "app.py"], cwd=REPO, env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT)

    def ready(self) -> bool:
        assert self.proc.poll() is None, f"the replica stopped: see {self.log.name}"
        try:
            return httpx.get(self.url, timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def client(self, visitor: str) -> Client:
        return Client(self.url, verbose=False, headers={"X-Forwarded-For": visitor},
                      httpx_kwargs={"timeout": JOB_TIMEOUT})

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(30)
        self.log.close()


def call(client: Client, api_name: str, *args: Any) -> Any:
    return client.submit(*args, api_name=api_name).result(timeout=JOB_TIMEOUT)


def refusal(client: Client, api_name: str, *args: Any) -> str:
    with pytest.raises(AppError) as info:
        call(client, api_name, *args)
    return str(info.value)


def start(client: Client, seed: int) -> Any:
    return client.submit(game="spy", seats=SEATS, seed=seed, settings=PAIR, api_name="/run_match")


@pytest.fixture
def replicas(pg_server, launch, tmp_path) -> Iterator[tuple[Gate, Replica, Replica]]:
    gate = Gate()
    gate_url = launch(serve(gate))
    db = pg_server.database("replicas")
    store = Store(db)  # the schema, and the agent both replicas seat
    store.upsert_agent("someone/gate", name="gate", kind="remote", src=gate_url, owner="someone", games=["spy"])
    store.close()
    a, b = Replica("a", db, tmp_path), Replica("b", db, tmp_path)
    try:
        wait_for(lambda: a.ready() and b.ready(), "both replicas to serve", seconds=180)
        yield gate, a, b
    finally:
        gate.open.set()
        a.stop()
        b.stop()


def test_two_replicas_on_one_database_are_one_arena(replicas):
    gate, a, b = replicas
    # a match started on replica A ...
    x_on_a = start(a.client("198.51.100.1"), seed=1)
    assert gate.held.acquire(timeout=60)
    x_on_b = b.client("198.51.100.1")
    running = call(x_on_b, "/list_matches", "spy", "", "running", 5)
    assert len(running) == 1, "... is listed on replica B"
    match_id = running[0]["id"]

    # ... and watched live there: what A played so far, public events only, while it runs
    def watched() -> dict[str, Any] | None:
        seen = call(x_on_b, "/get_match", match_id, "")
        return seen if any("breakfast table" in e["text"] for e in seen["events"]) else None

    seen = wait_for(watched, "B to show the statement A's match stored")
    assert seen["status"] == "running" and seen["seed"] is None
    assert all(e["visible_to"] is None for e in seen["events"])

    # the caps hold across both: one match per visitor, two in the whole arena; for X an agent
    # call on B is refused too, and X's comparison on B is admitted but its matches wait
    assert "You already have 1 matches running" in refusal(x_on_b, "/run_match", "spy", SEATS, 2, PAIR)
    assert "You already have 1 matches running" in refusal(x_on_b, "/try_agent", "house:heuristic", VOTE)
    x_compares = x_on_b.submit("house:heuristic", "house:random", "spy", 1, api_name="/compare")
    wait_for(lambda: leases_counting(a.db, CALL) == 1, "B to admit X's comparison")
    y_on_b = start(b.client("198.51.100.2"), seed=3)
    assert gate.held.acquire(timeout=60)
    assert "its limit" in refusal(a.client("198.51.100.3"), "/run_match", "spy", SEATS, 4, PAIR)

    # cancelled on B by whoever started it (nobody else), the match stops on A
    assert "only whoever started" in refusal(b.client("198.51.100.9"), "/cancel_match", match_id)
    assert "cancelling" in call(x_on_b, "/cancel_match", match_id)
    outcome = x_on_a.result(timeout=JOB_TIMEOUT)
    assert outcome["match_id"] == match_id and outcome["status"] == "aborted" and "cancelled" in outcome["error"]
    record = call(x_on_b, "/get_match", match_id, "")
    assert record["status"] == "aborted" and record["events"], "what was played stays recorded"
    # X's slot on A is free: B's heartbeat hands it to the comparison's matches, one at a time
    compared = x_compares.result(timeout=JOB_TIMEOUT)
    played = [call(x_on_b, "/get_match", deal[side], "") for deal in compared["per_deal"]
              for side in ("match_a", "match_b")]
    assert len(played) == 2 and all(m["status"] == "finished" for m in played)
    assert min(m["created_at"] for m in played) >= record["finished_at"], "they waited for X's match on A"
    assert leases_counting(a.db, CALL) == 0

    # a slot is free again: a match on A, then A dies mid-match; B aborts it once its lease expires
    start(a.client("198.51.100.4"), seed=5)
    assert gate.held.acquire(timeout=60)
    orphan = [m["id"] for m in call(x_on_b, "/list_matches", "spy", "", "running", 5) if m["id"] != match_id]
    assert len(orphan) == 2  # A's new match and Y's on B
    a.proc.kill()
    a.proc.wait(30)

    def aborted() -> list[dict[str, Any]]:
        records = [call(x_on_b, "/get_match", mid, "") for mid in orphan]
        return [r for r in records if r["status"] == "aborted"]

    dead = wait_for(aborted, "B to abort the dead replica's match")
    assert len(dead) == 1 and dead[0]["error"] == ABORTED_LEASE
    assert not y_on_b.done() and call(x_on_b, "/get_match", y_on_b_id(orphan, dead), "")["status"] == "running"
    # the dead replica's slot is free: the arena takes a second match again
    z_on_b = start(b.client("198.51.100.5"), seed=7)
    assert gate.held.acquire(timeout=60)
    gate.open.set()
    assert y_on_b.result(timeout=JOB_TIMEOUT)["status"] == "finished"
    assert z_on_b.result(timeout=JOB_TIMEOUT)["status"] == "finished"


def leases_counting(db: str, capped: int) -> int:
    """Live leases of one kind in the shared database (`space_app.leases`)."""
    engine = make_engine(db)
    try:
        with engine.connect() as conn:
            return conn.execute(select(func.count()).where(match_leases.c.capped == capped,
                                                           match_leases.c.expires_at >= time.time())).scalar_one()
    finally:
        engine.dispose()


def y_on_b_id(orphan: list[str], dead: list[dict[str, Any]]) -> str:
    return next(mid for mid in orphan if mid != dead[0]["id"])


# -- leases, on every backend ---------------------------------------------------------------
SEAT_ROWS = [{"seat": "P1", "agent_id": "house:random"}, {"seat": "P2", "agent_id": "house:random"}]


def test_two_replicas_claiming_one_planned_match_at_once_play_it_once(new_store):
    target = new_store()
    replicas = [Store(target) for _ in range(4)]
    barrier = threading.Barrier(len(replicas))
    claims: list[str] = []

    def claim(store: Store) -> None:
        barrier.wait()
        claims.append(store.claim_match("0123456789ab", "spy", 1, SEAT_ROWS, tag="plan"))

    threads = [threading.Thread(target=claim, args=(s,)) for s in replicas]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(claims) == ["created", "leased", "leased", "leased"]
    for s in replicas:
        s.close()


def test_another_machines_live_match_is_left_and_a_dead_replicas_is_aborted(new_store):
    target = new_store()
    playing = Store(target)
    playing.leases.settings = LeaseSettings(seconds=3, heartbeat=1)
    playing.leases.stop()  # nobody renews: as a replica that died would
    assert playing.claim_match("0123456789ab", "spy", 1, SEAT_ROWS, tag="plan") == "created"
    with playing.engine.begin() as conn:  # as if played on another machine: no PID to check
        conn.execute(update(matches).where(matches.c.id == "0123456789ab").values(process="elsewhere:1:1"))
    other = Store(target)
    assert other.get_match("0123456789ab")["status"] == "running", "a live lease is left alone at open"
    assert other.claim_match("0123456789ab", "spy", 1, SEAT_ROWS, tag="plan") == "leased"
    assert wait_for(other.leases.reap, "the unrenewed lease to expire", seconds=30) == ["0123456789ab"]
    record = other.get_match("0123456789ab")
    assert record["status"] == "aborted" and record["error"] == ABORTED_LEASE
    assert other.claim_match("0123456789ab", "spy", 1, SEAT_ROWS, tag="plan") == "created"
    playing.close()
    other.close()


def test_the_caps_are_counted_over_every_replicas_leases(new_store):
    target = new_store()
    a, b = Store(target), Store(target)

    class Full(Exception):
        def __init__(self, message: str, code: str, **_: Any) -> None:
            super().__init__(message)
            self.code = code

    a.leases.take("m1", "ip:1", total=2, per_visitor=1, refuse=Full)
    with pytest.raises(Full, match="You already have 1 matches running"):
        b.leases.take("m2", "ip:1", total=2, per_visitor=1, refuse=Full)
    b.leases.take("m3", "ip:2", total=2, per_visitor=1, refuse=Full)
    with pytest.raises(Full, match="its limit"):
        a.leases.take("m4", "ip:3", total=2, per_visitor=1, refuse=Full)
    assert b.leases.request_cancel("m1", "ip:2") == "not_yours"
    assert b.leases.request_cancel("m1", "ip:1") == "requested"
    assert a.leases.renew() == ["m1"], "the replica holding it hears of the request"
    a.leases.release("m1")
    b.leases.take("m4", "ip:3", total=2, per_visitor=1, refuse=Full)
    a.close()
    b.close()


@pytest.mark.parametrize(("env", "message"), [
    ({"ARENA_LEASE_SECONDS": "soon"}, "ARENA_LEASE_SECONDS must be a number of seconds, got 'soon'"),
    ({"ARENA_LEASE_SECONDS": "-1"}, "ARENA_LEASE_SECONDS: "),
    ({"ARENA_LEASE_SECONDS": "5", "ARENA_HEARTBEAT_SECONDS": "5"}, "must be shorter than ARENA_LEASE_SECONDS"),
])
def test_bad_lease_settings_are_refused_naming_the_setting(env, message):
    with pytest.raises(ValueError, match=message):
        LeaseSettings.from_env(env)
    assert LeaseSettings.from_env({}) == LeaseSettings(seconds=30, heartbeat=5)


def test_a_closed_store_gives_up_its_leases(tmp_path):
    store = Store(tmp_path / "a.db")
    assert store.leases.claim("sync:restore")
    other = Store(tmp_path / "a.db")
    assert not other.leases.claim("sync:restore"), "held by a live replica"
    store.close()
    assert other.leases.claim("sync:restore")
    assert isinstance(other.leases, Leases)
    other.close()


def test_an_unusable_lease_setting_stops_the_app_with_one_line(tmp_path):
    env = {**os.environ, "ARENA_DB": str(tmp_path / "a.db"), "ARENA_DEMO_MATCHES": "0", "HF_HUB_OFFLINE": "1",
           "ARENA_LEASE_SECONDS": "2", "ARENA_HEARTBEAT_SECONDS": "10"}
    done = subprocess.run([sys.executable, "app.py"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip() == ("error: ARENA_HEARTBEAT_SECONDS (10) must be shorter than ARENA_LEASE_SECONDS (2), "
                                   "or leases expire between renewals")


def test_one_planned_match_started_by_two_replicas_at_once_is_played_once(new_store):
    """Both replicas are asked to play the same planned match: one plays it, the other waits
    while its lease is live and then keeps the finished record."""
    target = new_store()
    arenas = [Arena(Store(target)) for _ in range(2)]
    plan = planned(MatchPlan("spy", ["house:heuristic", "house:random"] * 3, seed=4, settings=PAIR, tag="plan"),
                   ("test", 0))
    played: list[list[int]] = [[], []]

    async def both() -> list[Any]:
        return await asyncio.gather(*(a.run(plan, on_events=lambda items, i=i: played[i].extend(s for s, _ in items))
                                      for i, a in enumerate(arenas)))

    outcomes = asyncio.run(both())
    assert sorted(bool(p) for p in played) == [False, True], "exactly one replica played it"
    assert [o.status for o in outcomes] == ["finished", "finished"]
    assert outcomes[0].result == outcomes[1].result
    record = arenas[0].store.get_match(plan.match_id)
    assert record["status"] == "finished" and [e["seq"] for e in record["events"]] == sorted(max(played, key=len))
    for a in arenas:
        a.store.close()


# -- the caps across replicas, for every kind of match, on every backend ------------------------
def replica_slots(target: str, lease_seconds: float = 30) -> tuple[Store, MatchSlots]:
    """A replica's slots on the shared store: two matches in the arena, one per visitor."""
    store = Store(target)
    store.leases.settings = LeaseSettings(seconds=lease_seconds, heartbeat=min(0.2, lease_seconds / 4))
    return store, MatchSlots(store.leases, total=2, per_visitor=1)


async def refused_by(slot: Any) -> str:
    with pytest.raises(Refused) as caught:
        async with slot:
            pass
    return caught.value.key


async def until(condition: Callable[[], Any], what: str) -> None:
    for _ in range(600):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")


def test_a_visitor_at_their_cap_on_one_replica_waits_or_is_refused_on_another(new_store):
    """Visitor 1 plays a match on A: on B their agent call is refused and their batch's match
    waits (B's heartbeat sees nothing free) until A's match ends; then B hands it the slot."""
    target = new_store()
    (a, on_a), (b, on_b) = replica_slots(target), replica_slots(target)
    played: list[str] = []

    async def scenario() -> None:
        match_on_a = asyncio.Event()
        async with on_a.now("ip:1", key="matchona001"):
            assert await refused_by(on_b.now("ip:1")) == "your_matches", "an agent call on B"
            assert on_b.running("ip:1") == 1 and on_a.running() == 1

            async def batch_on_b() -> None:
                async with on_b.batch("ip:1"):
                    async with match_slot():
                        played.append("batch match on B")
                        assert match_on_a.is_set(), "it started only once A's match had ended"

            batch = asyncio.create_task(batch_on_b())
            await until(lambda: on_b.waiting() == 1, "the batch's match to wait on B")
            await asyncio.to_thread(b.leases.beat)  # B's heartbeat: nothing free yet
            assert on_b.waiting() == 1 and not played
            # the slot B's waiter would take is free for another visitor (one per visitor)
            async with on_b.now("ip:2"):
                assert await refused_by(on_a.now("ip:3")) == "arena_full", "the global cap, across both"
                assert await refused_by(on_a.batch("ip:3")) == "arena_full"
            match_on_a.set()
        await asyncio.wait_for(batch, 60)  # B's heartbeat hands it the slot A gave back
        assert played == ["batch match on B"] and on_b.waiting() == 0 and on_a.running() == 0

    asyncio.run(scenario())
    a.close()
    b.close()


def test_a_visitors_batch_calls_are_counted_across_replicas(new_store):
    target = new_store()
    (a, on_a), (b, on_b) = replica_slots(target), replica_slots(target)

    async def scenario() -> None:
        async with on_a.batch("ip:1"):
            assert await refused_by(on_b.batch("ip:1")) == "your_batches"
            async with on_b.batch("ip:2"):
                pass
        async with on_b.batch("ip:1"):  # A's call ended: its lease with it
            pass

    asyncio.run(scenario())
    a.close()
    b.close()


def test_a_dead_replicas_slot_frees_once_its_lease_expires(new_store):
    """A takes the visitor's slot and dies (stops renewing); B's batch match waits for it and
    gets it once the lease has expired."""
    target = new_store()
    (dead, _), (b, on_b) = replica_slots(target, lease_seconds=2), replica_slots(target)
    dead.leases.stop()  # it never renews what it takes, as a replica that died would not
    dead.leases.take("deadmatch001", "ip:1", total=2, per_visitor=1, refuse=Refused)
    with b.engine.connect() as conn:
        expires = conn.execute(select(match_leases.c.expires_at)
                               .where(match_leases.c.key == "deadmatch001")).scalar_one()

    async def scenario() -> float:
        async with on_b.batch("ip:1"):
            async with match_slot():
                return time.time()

    assert asyncio.run(scenario()) > expires, "the slot was taken only once the dead replica's lease expired"
    assert b.leases.count() == 0
    dead.close()
    b.close()


# -- a batch's played matches keep their lease until their command marks them -------------------
def test_a_played_batch_match_keeps_its_lease_and_its_command_takes_it_over(new_store):
    """A worker plays a planned match and leaves it for its command to mark: the match keeps
    the worker's lease (another machine's process: nobody judges whether it lives), the
    command takes the lease over, and the worker closing changes nothing; once marked, the
    match is finished and its lease gone. A running match without a lease is nobody's."""
    target = new_store()
    worker, command = Arena(Store(target)), Arena(Store(target))
    plan = planned(MatchPlan("spy", ["house:heuristic", "house:random"] * 3, seed=4, settings=PAIR, tag="plan"),
                   ("test", 0))
    outcome = asyncio.run(worker.run(plan, end=False))
    assert outcome.status == "finished"
    with worker.store.engine.begin() as conn:  # as if played on another machine
        conn.execute(update(matches).where(matches.c.id == plan.match_id).values(process="elsewhere:1:1"))
        assert command.store.leases.holder(conn, plan.match_id) == "elsewhere"
    opener = Store(target)
    assert opener.aborted_on_open == [], "a played match waiting for its command is left to it"
    assert command.store.adopt_match(plan.match_id)
    worker.store.close()  # the worker goes: the match is the command's now
    with command.store.engine.connect() as conn:
        assert command.store.leases.holder(conn, plan.match_id) == "here"
    later = Store(target)
    assert later.aborted_on_open == []
    later.close()
    command.end_match(plan.match_id, outcome, if_running=True)
    assert command.store.get_match(plan.match_id)["status"] == "finished"
    assert not command.store.adopt_match(plan.match_id), "an ended match is nobody's to take over"
    with command.store.engine.connect() as conn:
        assert command.store.leases.holder(conn, plan.match_id) is None

    # a running match with no lease (a store of an older version), named after a live
    # process of this host (this one): aborted all the same
    command.store.create_match("unleased0001", "spy", 1, SEAT_ROWS)
    with command.store.engine.begin() as conn:
        conn.execute(delete(match_leases).where(match_leases.c.key == "unleased0001"))
    assert opener.abort_running() == ["unleased0001"]
    assert command.store.claim_match("unleased0001", "spy", 1, SEAT_ROWS, tag="plan") == "created"
    opener.close()
    command.store.close()
