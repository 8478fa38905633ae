"""The arena as an attacker meets it: the real app in-process on loopback, driven through
gradio_client, with hostile agent servers and a stand-in internal service. Space mode is
the arena with `space_id` set (private URLs refused, visitors anonymous unless signed in)."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browser_support import running_arena
from gradio_client import Client
from gradio_client.exceptions import AppError

from sdk import Agent, Observation, serve
from space_app.config import ArenaConfig
from space_app.store import Store

PAIR = {"pair": {"civilian": "marmalade", "spy": "chutney"}}
JOB_TIMEOUT = 120
PROXY = "203.0.113.7"  # what the Space's proxy appends: the caller's real address


@pytest.fixture
def arena(tmp_path) -> Iterator[Callable[..., tuple[str, str]]]:
    """arena(agents={id: (kind, src)}, launch={...}, **config) -> (URL, db path)."""
    stack: list[Any] = []

    def start(agents: dict[str, tuple[str, str]] | None = None, launch: dict[str, Any] | None = None,
              **overrides: Any) -> tuple[str, str]:
        db = str(tmp_path / f"arena{len(stack)}.db")
        store = Store(db)
        for agent_id, (kind, src) in (agents or {}).items():
            # stored as if registered earlier (when its name still resolved elsewhere)
            store.upsert_agent(agent_id, name=agent_id, kind=kind, src=src, owner="someone", games=["spy"])
        store.close()
        settings = {"db": db, "demo_matches": 0, "allow_private_urls": True, **overrides}
        ctx = running_arena(ArenaConfig(**settings), **(launch or {}))
        _, url = ctx.__enter__()
        stack.append(ctx)
        return url, db

    yield start
    for ctx in reversed(stack):
        ctx.__exit__(None, None, None)


def client_for(url: str, forwarded_for: str | None = None) -> Client:
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else None
    return Client(url, verbose=False, headers=headers, httpx_kwargs={"timeout": 120})


def call(client: Client, api_name: str, *args: Any, **kwargs: Any) -> Any:
    return client.submit(*args, api_name=api_name, **kwargs).result(timeout=JOB_TIMEOUT)


def refusal(client: Client, api_name: str, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(AppError) as info:
        call(client, api_name, *args, **kwargs)
    message = str(info.value)
    assert message and message != "None" and "Traceback" not in message
    return message


def seats_with(first: str) -> list[str]:
    return [first, "house:heuristic", "house:random", "house:heuristic", "house:random", "house:heuristic"]


class Gate(Agent):
    """Holds every call until the test opens the gate (or the call's time runs out)."""

    games = ("spy",)

    def __init__(self, name: str = "gate") -> None:
        super().__init__(name)
        self.open = threading.Event()
        self.entered = threading.Event()

    def _wait(self) -> None:
        self.entered.set()
        self.open.wait(30)

    def speak(self, obs: Observation) -> str:
        self._wait()
        return f"{obs.you}: you find it on a breakfast table, round {obs.round}"

    def vote(self, obs: Observation) -> str:
        self._wait()
        return obs.options[0]

    def answer(self, obs: Observation) -> str:
        return obs.options[0] if obs.options else "no idea"


# -- SSRF ---------------------------------------------------------------------------------
def test_anonymous_visitors_cannot_seat_an_agent_by_url_on_a_space(arena, internal):
    url, _ = arena(space_id="x/y", allow_private_urls=False)
    client = client_for(url)
    for spec in (f"remote:{internal.url}", f"wis:{internal.url}", f"remote:{internal.url}+reasoning"):
        message = refusal(client, "/run_match", game="spy", seats=seats_with(spec), seed=1, settings=PAIR)
        assert "sign-in" in message
    assert internal.requests == []


def test_signed_in_visitors_seat_only_urls_the_egress_policy_allows(arena, internal):
    url, _ = arena(space_id="x/y", allow_private_urls=False, launch={"auth_dependency": lambda r: "tester"})
    client = client_for(url)
    for spec in (f"remote:{internal.url}", f"wis:{internal.url}"):
        assert "non-public" in refusal(client, "/run_match", game="spy", seats=seats_with(spec), seed=1,
                                       settings=PAIR)
    with_credentials = internal.url.replace("http://", "http://admin:hunter2@")
    assert "credentials" in refusal(client, "/run_match", game="spy",
                                    seats=seats_with(f"remote:{with_credentials}"), seed=1, settings=PAIR)
    assert internal.requests == []


def test_a_registered_agent_now_pointing_inwards_is_refused_at_connection(arena, internal):
    """Registered while public, the agent's address now leads inwards (rebinding, a moved
    name): every call is refused on the address actually connected to, the match goes on,
    and nothing of the internal service reaches the record."""
    url, _ = arena(space_id="x/y", allow_private_urls=False,
                   agents={"someone/moved": ("remote", internal.url), "someone/moved-wis": ("wis", internal.url)})
    client = client_for(url)
    for agent_id in ("someone/moved", "someone/moved-wis"):
        outcome = call(client, "/run_match", game="spy", seats=seats_with(agent_id), seed=2, settings=PAIR)
        assert outcome["status"] == "finished"
        record = call(client, "/get_match", outcome["match_id"], "")
        calls = [e for e in record["events"] if e["kind"] == "call" and e["actor"] == "P1"]
        assert calls and all(c["data"]["status"] == "error" and "non-public" in c["data"]["detail"]
                             for c in calls)
        assert "INTERNAL-ONLY" not in json.dumps(record)
    assert internal.requests == []


def test_redirects_during_registration_carry_nothing_inwards(arena, hostile, internal):
    url, _ = arena()
    client = client_for(url)
    message = refusal(client, "/register_agent", src=hostile.url + "redirect/", name="sneaky",
                      secret="the-agents-secret")
    assert "redirect" in message
    message = refusal(client, "/register_agent", src=hostile.url + "redirect", kind="wis")
    assert "redirect" in message
    assert internal.requests == []


# -- credentials --------------------------------------------------------------------------
def test_a_new_secret_is_used_from_the_next_call(arena, hostile):
    url, _ = arena()
    client = client_for(url)
    src = hostile.url + "agent/"
    first = call(client, "/register_agent", src=src, name="recorder", secret="first-secret")
    sent = lambda: [r.json()["data"][1] for r in hostile.requests if r.path.endswith("/act")]  # noqa: E731
    outcome = call(client, "/run_match", game="spy", seats=seats_with(first["agent_id"]), seed=3, settings=PAIR)
    assert outcome["status"] == "finished"
    assert set(sent()) == {"first-secret"}
    before = len(sent())
    again = call(client, "/register_agent", src=src, name="recorder", secret="second-secret")
    assert again["agent_id"] == first["agent_id"]
    call(client, "/run_match", game="spy", seats=seats_with(first["agent_id"]), seed=4, settings=PAIR)
    assert set(sent()[before + 1:]) == {"second-secret"}  # +1: the registration's own probe


# -- fair use -----------------------------------------------------------------------------
def test_thirty_concurrent_anonymous_calls_admit_only_the_per_visitor_cap(arena, launch):
    gate = Gate()
    gate_url = launch(serve(gate))
    url, _ = arena(space_id="x/y", trusted_proxy_hops=1, max_matches_total=16,
                   agents={"someone/gate": ("remote", gate_url)})
    # one caller, thirty requests, each claiming another address in front of the proxy's
    clients = [client_for(url, f"10.9.8.{i}, {PROXY}") for i in range(30)]
    jobs = [c.submit(game="spy", seats=seats_with("someone/gate"), seed=i, settings=PAIR, api_name="/run_match")
            for i, c in enumerate(clients)]
    refused = []
    deadline = time.monotonic() + 60
    while len(refused) < 28 and time.monotonic() < deadline:
        refused = [j for j in jobs if j.done() and j.exception() is not None]
        time.sleep(0.1)
    assert len(refused) == 28
    assert all("already have 2 matches running" in str(j.exception()) for j in refused)
    # a visitor behind another address still gets a match
    other = call(client_for(url, "10.9.8.1, 198.51.100.9"), "/run_match", game="spy",
                 seats=seats_with("house:heuristic"), seed=99, settings=PAIR)
    assert other["status"] == "finished"
    gate.open.set()
    admitted = [j.result(timeout=JOB_TIMEOUT) for j in jobs if j.exception() is None]
    assert len(admitted) == 2 and all(a["status"] == "finished" for a in admitted)


def test_the_global_cap_holds_for_many_addresses(arena, launch):
    gate = Gate()
    gate_url = launch(serve(gate))
    url, _ = arena(space_id="x/y", trusted_proxy_hops=1, max_matches_total=4,
                   agents={"someone/gate": ("remote", gate_url)})
    jobs = [client_for(url, f"198.51.100.{i}").submit(game="spy", seats=seats_with("someone/gate"), seed=i,
                                                      settings=PAIR, api_name="/run_match")
            for i in range(12)]
    deadline = time.monotonic() + 60
    while sum(j.done() for j in jobs) < 8 and time.monotonic() < deadline:
        time.sleep(0.1)
    refused = [j for j in jobs if j.done() and j.exception() is not None]
    assert len(refused) == 8 and all("its limit" in str(j.exception()) for j in refused)
    gate.open.set()
    assert sum(j.exception() is None for j in jobs) == 4


def test_turn_and_match_time_are_bounded(arena, launch):
    gate = Gate()
    gate_url = launch(serve(gate))
    url, db = arena(max_match_seconds=2, agents={"someone/gate": ("remote", gate_url)})
    client = client_for(url)
    for seconds in (1e308, 121, 0, -5):
        message = refusal(client, "/run_match", game="spy", seats=[], seed=1, settings={**PAIR, "seconds": seconds})
        assert "seconds" in message
    outcome = call(client, "/run_match", game="spy", seats=seats_with("someone/gate"), seed=1, settings=PAIR)
    gate.open.set()
    assert outcome["status"] == "aborted" and "limit of 2 s" in outcome["error"]
    assert Store(db).get_match(outcome["match_id"])["status"] == "aborted"


def test_a_visitor_cancels_their_own_match_and_nobody_else_can(arena, launch):
    gate = Gate()
    gate_url = launch(serve(gate))
    url, _ = arena(space_id="x/y", trusted_proxy_hops=1, agents={"someone/gate": ("remote", gate_url)})
    owner = client_for(url, PROXY)
    job = owner.submit(game="spy", seats=seats_with("someone/gate"), seed=5, settings=PAIR, api_name="/run_match")
    assert gate.entered.wait(30)
    running = call(owner, "/list_matches", "spy", "", "running", 5)
    assert len(running) == 1
    match_id = running[0]["id"]
    assert "only whoever started" in refusal(client_for(url, "198.51.100.9"), "/cancel_match", match_id)
    assert "cancelling" in call(owner, "/cancel_match", match_id)
    outcome = job.result(timeout=JOB_TIMEOUT)
    gate.open.set()
    assert outcome["status"] == "aborted" and "cancelled" in outcome["error"]
    record = call(owner, "/get_match", match_id, "")
    assert record["status"] == "aborted" and record["events"], "what was played stays recorded"


# -- no live answer key -------------------------------------------------------------------
class Snoop(Agent):
    """An agent that reads the arena's record of its own match before every move."""

    games = ("spy",)

    def __init__(self) -> None:
        super().__init__("snoop")
        self.arena_url = ""
        self.seen: list[Any] = []
        self.seat_refusals: list[str] = []
        self._client: Client | None = None
        self._lock = threading.Lock()

    def _look(self, obs: Observation) -> None:
        with self._lock:
            if self._client is None:
                self._client = Client(self.arena_url, verbose=False)
            client = self._client
        self.seen.append(client.predict(obs.match_id, "", api_name="/get_match"))
        try:
            client.predict(obs.match_id, obs.you, api_name="/get_match")
        except AppError as exc:
            self.seat_refusals.append(str(exc))

    def speak(self, obs: Observation) -> str:
        self._look(obs)
        return f"{obs.you} thinks of mornings, round {obs.round}"

    def vote(self, obs: Observation) -> str:
        self._look(obs)
        return obs.options[0]

    def answer(self, obs: Observation) -> str:
        return "no idea"


def test_an_agent_reading_its_running_match_learns_nothing_its_seat_could_not_see(arena, launch):
    snoop = Snoop()
    snoop_url = launch(serve(snoop))
    url, _ = arena(agents={"someone/snoop": ("remote", snoop_url)})
    snoop.arena_url = url
    client = client_for(url)
    seats = ["someone/snoop", "house:heuristic", "someone/snoop", "house:random", "someone/snoop",
             "house:heuristic"]
    outcome = call(client, "/run_match", game="spy", seats=seats, seed=6, settings=PAIR)
    assert outcome["status"] == "finished" and snoop.seen
    for record in snoop.seen:
        assert record["status"] == "running" and record["result"] is None
        assert all(e["visible_to"] is None for e in record["events"])
        assert not re.search(r"marmalade|chutney", json.dumps(record)), "a word leaked while running"
    assert len(snoop.seat_refusals) == len(snoop.seen)
    assert all("once the match has ended" in m for m in snoop.seat_refusals)
    ended = call(client, "/get_match", outcome["match_id"], "")
    assert ended["result"]["spy"]  # the whole record once it is over


# -- refusals say why -----------------------------------------------------------------------
def test_every_refusal_carries_a_message(arena, hostile):
    url, _ = arena()
    client = client_for(url)
    assert "seed" in refusal(client, "/run_match", game="spy", seats=[], seed=2**70, settings=PAIR)
    nested: dict[str, Any] = {"x": 1}
    for _ in range(40):
        nested = {"deeper": nested}
    assert "nested" in refusal(client, "/run_match", game="spy", seats=[], seed=1, settings=nested)
    assert "games" in refusal(client, "/register_agent", src=hostile.url + "badinfo/")
    assert refusal(client, "/get_match", "no-such-match!", "")
    assert "unknown game" in refusal(client, "/leaderboard", "chess", 0)


def test_names_an_agent_gives_itself_are_made_inert(arena, hostile):
    url, _ = arena()
    client = client_for(url)
    reg = call(client, "/register_agent", src=hostile.url + "named/")
    listed = {a["id"]: a for a in call(client, "/list_agents")}[reg["agent_id"]]
    for text in (reg["name"], listed["name"], listed["description"]):
        assert not re.search(r"[\u202e\u200b\x00-\x09\x0b-\x1f\x7f]", text), repr(text)
    assert listed["name"] == "gnp.exe[31m evil"
    assert listed["description"] == "line one[1m\nline two"
