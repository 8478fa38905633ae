"""What a registered agent's owner alone may do, and caps that count matches: the real arena
in Space mode on loopback, driven through gradio_client, with stand-in agent servers (see
`hostile_servers.py`) and the store's real SQLite file.

- Benchmarks cannot be poisoned: only the owner (or an operator) runs one on a registered
  agent; a question whose call never reached the agent (503 while it restarts, a bare 500) is
  kept to retry, not scored, and the next run asks it; an agent that cannot be woken is refused
  before anything is recorded; the owner can start again from scratch (`fresh`).
- `try_agent` on a registered agent is its owner's (the call carries the owner's secret);
  observations carry no outside image URL.
- A visitor's comparisons never run more matches at once than the visitor's cap, and every
  running match counts against the arena's cap.
- Numeric parameters that are not numbers are refused naming the parameter.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import pytest
from alembic import command
from browser_support import running_arena
from gradio_client import Client
from gradio_client.exceptions import AppError
from hostile_servers import Server
from sqlalchemy import create_engine

from sdk import Agent, Observation, serve
from space_app import migrations
from space_app.admission import MatchSlots, match_slot
from space_app.api import ArenaAPI
from space_app.config import ArenaConfig
from space_app.store import Store, to_url
from space_app.suites import open_suite
from space_app.suites.run import first_n

SUITE = "tom-household"
JOB_TIMEOUT = 180
USER = "x-test-user"  # the header the test's auth dependency reads as the signed-in user
PAIR = {"pair": {"civilian": "marmalade", "spy": "chutney"}}


def signed_in_as(request: Any) -> str | None:
    return request.headers.get(USER)


class Spaced(NamedTuple):
    url: str  # the arena where a request's `x-test-user` header is its signed-in user
    db: str
    anonymous_url: str  # the same arena (same store) as anonymous visitors meet it ("" unless asked)


@pytest.fixture
def space(tmp_path) -> Iterator[Callable[..., Spaced]]:
    """space(agents={id: (owner, src)}, anonymous=False, **config): the arena in Space mode.
    Gradio's auth dependency admits only requests it names a user for, so anonymous visitors
    meet a second arena process-mate on the same store (two arenas on one file is supported)."""
    stack: list[Any] = []

    def start(agents: dict[str, tuple[str, str]] | None = None, anonymous: bool = False,
              **overrides: Any) -> Spaced:
        db = str(tmp_path / f"space{len(stack)}.db")
        store = Store(db)
        for agent_id, (owner, src) in (agents or {}).items():
            store.upsert_agent(agent_id, name=agent_id, kind="remote", src=src, owner=owner, games=["spy"])
        store.close()
        config = ArenaConfig(**{"db": db, "demo_matches": 0, "space_id": "arena/test", "allow_private_urls": True,
                                **overrides})
        urls = []
        for extra in ({"auth_dependency": signed_in_as}, {}) if anonymous else ({"auth_dependency": signed_in_as},):
            ctx = running_arena(config, **extra)
            urls.append(ctx.__enter__()[1])
            stack.append(ctx)
        return Spaced(urls[0], db, urls[1] if anonymous else "")

    yield start
    for ctx in reversed(stack):
        ctx.__exit__(None, None, None)


def client(url: str, user: str | None = None) -> Client:
    return Client(url, verbose=False, headers={USER: user} if user else None, httpx_kwargs={"timeout": 120})


def call(who: Client, api_name: str, *args: Any, **kwargs: Any) -> Any:
    return who.submit(*args, api_name=api_name, **kwargs).result(timeout=JOB_TIMEOUT)


def refusal(who: Client, api_name: str, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(AppError) as info:
        call(who, api_name, *args, **kwargs)
    message = str(info.value)
    assert message and message != "None" and "Traceback" not in message
    return message


def acts(server: Server) -> list[Any]:
    """The `act` calls the agent server got (the observation, the secret)."""
    return [r.json()["data"] for r in server.requests if r.path.rstrip("/").endswith("/act")]


# -- benchmarks that cannot be poisoned ---------------------------------------------------------
def test_a_benchmark_is_its_owners_and_infrastructure_failures_are_asked_again(space, hostile):
    url, db, anonymous_url = space(operators=["opal"], anonymous=True)
    alice, bob, opal, anyone = client(url, "alice"), client(url, "bob"), client(url, "opal"), client(anonymous_url)
    agent_id = call(alice, "/register_agent", src=hostile.url + "any/", name="quizzer")["agent_id"]
    asked = lambda: len(acts(hostile))  # noqa: E731
    before = asked()

    # somebody else cannot run it, signed in or not: nothing is asked, nothing stored
    message = refusal(anyone, "/run_benchmark", SUITE, agent_id, 12, False)
    assert f"only the owner of {agent_id!r} (alice)" in message and "sign in" in message
    assert "benchmark_results" in message  # where the published results are
    assert "not its owner" in refusal(bob, "/run_benchmark", SUITE, agent_id, 12, True)
    assert asked() == before and Store(db).answers(SUITE, agent_id) == []

    # asleep or restarting (every call answers 503): refused before any question, nothing kept
    hostile.down = True
    message = refusal(alice, "/run_benchmark", SUITE, agent_id, 12, False)
    assert "could not be reached before the benchmark" in message and "nothing was recorded" in message
    hostile.down = False
    assert Store(db).answers(SUITE, agent_id) == [] and Store(db).to_retry(SUITE) == {}

    # awake, but its server fails every question (503 while restarting, then a bare 500):
    # nothing is scored, everything waits to be asked again
    for status in (503, 500):
        hostile.fail_act = status
        scores = call(alice, "/run_benchmark", SUITE, agent_id, 12, False)
        assert scores["answered"] == 0 and scores["to_retry"] == 12 and scores["accuracy"] is None
    hostile.fail_act = 0
    assert asked() == before + 24
    published = {r["agent"]: r for r in call(anyone, "/benchmark_results", SUITE)}
    assert published[agent_id]["answered"] == 0 and published[agent_id]["to_retry"] == 12

    # the owner's next run asks them again, and they count
    scores = call(alice, "/run_benchmark", SUITE, agent_id, 12, False)
    items = first_n(open_suite(SUITE).loaded.items, 12)
    right = sum(item.answer == next(iter(dict(item.options))) for item in items)  # it answers the first option
    assert scores["answered"] == 12 and scores["to_retry"] == 0 and round(scores["accuracy"] * 12) == right
    assert asked() == before + 36
    # resumed: nothing left to ask; an operator may run it too
    assert call(opal, "/run_benchmark", SUITE, agent_id, 12, False)["answered"] == 12 and asked() == before + 36
    # from scratch: every question asked again
    again = call(alice, "/run_benchmark", SUITE, agent_id, 12, True)
    assert again["answered"] == 12 and again["accuracy"] == scores["accuracy"] and asked() == before + 48
    published = {r["agent"]: r for r in call(anyone, "/benchmark_results", SUITE)}
    assert published[agent_id]["answered"] == 12 and published[agent_id]["to_retry"] == 0

    # parameters that are not what they should be are named
    assert refusal(alice, "/run_benchmark", SUITE, agent_id, "abc", False) == \
        "limit must be a whole number from 0 to 1000, not 'abc'"
    assert refusal(alice, "/run_benchmark", SUITE, agent_id, 12, "yes") == "fresh must be true or false, not str"


class Failing(Agent):
    """An agent whose own code fails, or is too slow: its answers, not the network's fault."""

    games = ("tom",)

    def __init__(self, name: str, slow: bool) -> None:
        super().__init__(name)
        self.slow = slow

    def answer(self, obs: Observation) -> str:
        if self.slow:
            threading.Event().wait(obs.limits.seconds + 1)
            return "A"
        raise RuntimeError("my model endpoint said no")


def test_the_agents_own_failure_and_a_timeout_are_answers_not_retries(tmp_path):
    api = ArenaAPI(ArenaConfig(db=str(tmp_path / "f.db"), demo_matches=0, max_turn_seconds=0.5))
    api.arena.catalogue.add("local:broken", Failing("broken", slow=False))
    api.arena.catalogue.add("local:slow", Failing("slow", slow=True))
    for agent in ("local:broken", "local:slow"):
        scores = api.arena.run_in_own_loop(api.run_benchmark(SUITE, agent, 4))
        assert scores["answered"] == 4 and scores["to_retry"] == 0 and scores["failed_rate"] == 1.0
    assert api.store.to_retry(SUITE) == {}
    api.store.close()


def test_a_store_from_before_keeps_its_unreachable_answers_to_retry(new_store):
    """A store written before retryable answers existed holds the poisoned answers as failed;
    opening it marks them to retry, and only them (SQLite and PostgreSQL)."""
    db = new_store()
    store = Store(db)
    row = {"types": ["belief"], "gold": "A", "parsed": None, "correct": 0, "reply": None, "latency_ms": 1.0}
    store.save_answers(SUITE, "alice/quizzer", [
        {**row, "item_id": "q1", "status": "error", "detail": "unreachable: HTTP 503: Space is starting"},
        {**row, "item_id": "q2", "status": "error", "detail": "agent_failed: HTTP 502"},
        {**row, "item_id": "q3", "status": "error", "detail": "agent_failed: HTTP 500: Internal Server Error"},
        {**row, "item_id": "q4", "status": "timeout", "detail": "timeout: no reply within 60.0s"},
        {**row, "item_id": "q5", "status": "error", "detail": "agent_failed: llm_caller failed: HTTP 500"},
        {**row, "item_id": "q6", "status": "ok", "detail": "", "parsed": "A", "correct": 1},
    ])
    store.close()
    engine = create_engine(to_url(db))
    with engine.connect() as conn, conn.begin():  # back to the schema of before
        command.downgrade(migrations.config(conn), "0001_baseline")
    engine.dispose()
    reopened = Store(db)
    assert reopened.to_retry(SUITE) == {"alice/quizzer": {"q1", "q2", "q3"}}
    assert reopened.answered(SUITE, "alice/quizzer") == {"q4", "q5", "q6"}
    reopened.close()


# -- try_agent is the owner's -----------------------------------------------------------------
VOTE = {"game": "spy", "verb": "vote", "you": "P1", "options": ["P2", "P3"]}


def test_only_the_owner_tries_a_registered_agent_and_no_outside_image_goes_out(space, hostile, internal):
    url, _, anonymous_url = space(anonymous=True)
    alice, bob, anyone = client(url, "alice"), client(url, "bob"), client(anonymous_url)
    agent_id = call(alice, "/register_agent", src=hostile.url + "agent/", name="secretive",
                    secret="alices-secret")["agent_id"]
    before = len(acts(hostile))

    message = refusal(anyone, "/try_agent", agent_id, VOTE)
    assert f"only the owner of {agent_id!r} (alice)" in message and "try" in message
    assert "not its owner" in refusal(bob, "/try_agent", agent_id, VOTE)
    assert len(acts(hostile)) == before  # nobody else's call reached it, with or without her secret

    mine = call(alice, "/try_agent", agent_id, VOTE)
    assert mine["status"] == "ok" and mine["read_as"] == "P2"
    assert acts(hostile)[-1][1] == "alices-secret"
    # the same URL seated by URL: anyone's (signed in on a Space), and no stored secret goes with it
    by_url = call(bob, "/try_agent", f"remote:{hostile.url}agent/", VOTE)
    assert by_url["status"] == "ok" and not acts(hostile)[-1][1]
    assert call(anyone, "/try_agent", "house:heuristic", VOTE)["status"] == "ok"

    pictures = {
        "images[0]": {**VOTE, "images": [internal.url + "metadata.png"]},
        "history[0].images[0]": {**VOTE, "history": [{"who": "P2", "kind": "statement", "text": "look",
                                                      "images": ["HTTPS://example.org/x.png"]}]},
        "private.documents[0].images[1]": {**VOTE, "private": {"documents": [{"title": "clue", "images": [
            "mystery/x/y.png", "//internal.example/x.png"]}]}},
    }
    for where, obs in pictures.items():
        message = refusal(alice, "/try_agent", agent_id, obs)
        assert message.startswith(f"invalid observation: {where}: ") and "outside image URL" in message
    assert "outside image URL" in refusal(anyone, "/try_agent", "house:heuristic",
                                          {**VOTE, "images": ["file:///etc/passwd"]})
    # the arena's own references and data URLs are pictures an agent may be shown
    own = {**VOTE, "images": ["data:image/png;base64,iVBORw0KGgo=", "mystery/x/y.png"]}
    assert call(anyone, "/try_agent", "house:heuristic", own)["status"] == "ok"
    assert internal.requests == []


# -- caps count matches, not calls -------------------------------------------------------------
class Gate(Agent):
    """Holds every call until the test opens the gate; knows which matches it holds."""

    games = ("spy",)

    def __init__(self) -> None:
        super().__init__("gate")
        self.open = threading.Event()
        self.held: set[str] = set()  # the matches whose call waits at the gate

    def _wait(self, obs: Observation) -> None:
        if not self.open.is_set():
            self.held.add(obs.match_id)
        self.open.wait(60)

    def speak(self, obs: Observation) -> str:
        self._wait(obs)
        return f"{obs.you}: you find it on a breakfast table, round {obs.round}"

    def vote(self, obs: Observation) -> str:
        self._wait(obs)
        return obs.options[0]


def wait_for(condition: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.05)


def most_at_once(spans: list[tuple[float, float]]) -> int:
    """The largest number of (start, end) spans that overlap at any instant."""
    edges = sorted([(end, -1) for _, end in spans] + [(start, 1) for start, _ in spans])
    most = now = 0
    for _, step in edges:
        now += step
        most = max(most, now)
    return most


def test_comparisons_run_no_more_matches_than_the_visitors_cap_and_count_arena_wide(space, launch):
    gate = Gate()
    url, db, _ = space(agents={"someone/gate": ("someone", launch(serve(gate)))},
                       max_matches_per_visitor=2, max_matches_total=3)
    ann, ben, cid = client(url, "ann"), client(url, "ben"), client(url, "cid")
    # ann: two comparisons of four matches each (each used to play her cap's worth at once: 4);
    # ben: one of two matches
    jobs = [ann.submit("someone/gate", "house:random", "spy", 2, "", seed, 0, "win", api_name="/compare")
            for seed in (1, 2)]
    # a match held at the gate holds its slot until the gate opens: ann's two first (her cap
    # alone never fills the arena, so both her comparisons are admitted), then ben's one
    wait_for(lambda: len(gate.held) == 2 or any(j.done() for j in jobs), "ann's two matches at the gate")
    jobs.append(ben.submit("someone/gate", "house:heuristic", "spy", 1, "", 3, 0, "win", api_name="/compare"))
    store = Store(db)
    wait_for(lambda: len(gate.held) == 3 or any(j.done() for j in jobs), "three matches at the gate")
    assert not any(j.done() for j in jobs), [j.exception() for j in jobs if j.done()]
    # three are being played (the refusal below counts them); a batch marks its matches ended in
    # plan order, so the store may still list one that has finished playing as running
    assert len(store.list_matches(status="running")) >= 3
    # the arena's cap is reached by matches of comparisons: a plain match is refused
    assert refusal(cid, "/run_match", game="spy", seats=[], seed=1, settings=PAIR) == \
        "The arena is running 3 matches, its limit; try again in a minute."
    gate.open.set()
    results = [j.result(timeout=JOB_TIMEOUT) for j in jobs]
    assert [r["deals"] + r["dropped"] for r in results] == [2, 2, 1]
    spans: dict[str, list[tuple[float, float]]] = {"ann": [], "ben": []}
    for match in store.list_matches(limit=100):
        assert match["status"] == "finished"
        who = "ann" if match["tag"].endswith(("gate-vs-house:random:1", "gate-vs-house:random:2")) else "ben"
        # played from its creation to its last event's write (a batch marks its matches ended
        # later, in plan order, so `finished_at` is not when the play stopped)
        played_until = max(e["created_at"] for e in store.events_of(match["id"]))
        spans[who].append((match["created_at"], played_until))
    assert len(spans["ann"]) == 8 and len(spans["ben"]) == 2
    assert most_at_once(spans["ann"]) <= 2 and most_at_once(spans["ann"] + spans["ben"]) <= 3
    store.close()


def test_a_visitor_has_no_more_comparisons_under_way_than_match_slots(tmp_path):
    gate = Gate()
    api = ArenaAPI(ArenaConfig(db=str(tmp_path / "c.db"), demo_matches=0, max_matches_per_visitor=2))
    api.arena.catalogue.add("local:gate", gate)

    async def three() -> list[Any]:
        first = [asyncio.ensure_future(api.compare("local:gate", "house:random", "spy", 2, seed=s, visitor="ann"))
                 for s in (1, 2)]
        while len(gate.held) < 2:  # both comparisons are under way, the first's matches at the gate
            assert not any(f.done() for f in first), [f.exception() for f in first if f.done()]
            await asyncio.sleep(0.05)
        third = await asyncio.gather(api.compare("house:heuristic", "house:random", "spy", 1, visitor="ann"),
                                     return_exceptions=True)
        other = await api.compare("house:heuristic", "house:random", "spy", 1, seed=5, visitor="ben")
        gate.open.set()
        return [*await asyncio.gather(*first), third[0], other]

    one, two, third, other = api.arena.run_in_own_loop(three())
    assert str(third) == ("You already have 2 comparisons, studies or benchmarks running (limit 2); "
                          "wait for one to finish.")
    assert one["deals"] + one["dropped"] == 2 and two["deals"] + two["dropped"] == 2 and other["deals"] == 1
    api.store.close()


def test_slots_are_handed_per_match_across_visitors_in_order(tmp_path):
    """The slots themselves: one visitor's batch runs at most their cap at once; the arena at
    most its total; a visitor at their cap holds nobody else up."""
    store = Store(tmp_path / "slots.db")
    slots = MatchSlots(store.leases, total=3, per_visitor=2)
    inside: dict[str, int] = {"a": 0, "b": 0}
    most: dict[str, int] = {"a": 0, "b": 0, "all": 0}

    async def match(visitor: str) -> None:
        async with match_slot():
            inside[visitor] += 1
            most[visitor] = max(most[visitor], inside[visitor])
            most["all"] = max(most["all"], sum(inside.values()))
            await asyncio.sleep(0.01)
            inside[visitor] -= 1

    async def batch(visitor: str, n: int) -> None:
        async with slots.batch(visitor):
            await asyncio.gather(*(match(visitor) for _ in range(n)))

    async def everything() -> None:
        await asyncio.gather(batch("a", 12), batch("b", 12))

    async def a_third() -> None:
        async with slots.now("a"), slots.now("a"):
            assert slots.running("a") == 2
            with pytest.raises(Exception, match="already have 2 matches running"):
                async with slots.now("a"):
                    pass

    asyncio.run(everything())
    assert most == {"a": 2, "b": 2, "all": 3} and slots.running() == 0 and slots.waiting() == 0
    asyncio.run(a_third())
    assert slots.running() == 0
    store.close()


# -- numbers that are not numbers ---------------------------------------------------------------
def test_numeric_parameters_of_read_endpoints_are_refused_by_name(space):
    anyone = client(space(anonymous=True).anonymous_url)
    assert refusal(anyone, "/list_matches", limit="abc") == "limit must be a whole number from 1 to 500, not 'abc'"
    assert refusal(anyone, "/leaderboard", "spy", "lots") == \
        "min_games must be a whole number from 0 to 1000000, not 'lots'"
    assert refusal(anyone, "/compare", "house:heuristic", "house:random", "spy", "many") == \
        "deals must be a whole number from 1 to 200, not 'many'"
    assert refusal(anyone, "/compare", "house:heuristic", "house:random", "spy", 500) == \
        "deals must be a whole number from 1 to 200, not 500"


def test_the_operators_are_the_listed_users_and_the_spaces_owner(monkeypatch):
    monkeypatch.setenv("ARENA_OPERATORS", " opal, ops ,,")
    monkeypatch.setenv("SPACE_ID", "alice/deduction-arena")
    assert ArenaConfig.from_env().operators == ["opal", "ops", "alice"]
    monkeypatch.delenv("SPACE_ID")
    monkeypatch.delenv("ARENA_OPERATORS")
    assert ArenaConfig.from_env().operators == []  # locally: whoever runs the arena, no list needed
