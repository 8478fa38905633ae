"""Who may register, edit and remove agents: on a Space only a signed-in user, and only
the owner edits or removes; a gradio_client token signs in through whoami. Plus the
arena-wide cap on concurrent matches."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from browser_support import running_arena
from gradio_client import Client

from sdk import Agent, Observation, serve
from space_app.api import ApiError, ArenaAPI
from space_app.config import ArenaConfig
from space_app.signin import SignIn
from space_app.ui.endpoints import user_from_request


class Plain(Agent):
    description = "a plain test agent"
    games = ("spy",)

    def speak(self, obs: Observation) -> str:
        return f"{obs.you} says something about round {obs.round}"

    def vote(self, obs: Observation) -> str:
        return obs.options[0]


def test_only_the_owner_edits_or_removes_an_agent(tmp_path, launch):
    agent_url = launch(serve(Plain("shared")))
    api = ArenaAPI(ArenaConfig(db=str(tmp_path / "o.db"), demo_matches=0, allow_private_urls=True))
    alice = api.register_agent(agent_url, description="first words", owner="alice")
    # the owner registering the same source again edits that agent
    edited = api.register_agent(agent_url, description="better words", owner="alice")
    assert edited["agent_id"] == alice["agent_id"]
    assert api.store.get_agent(alice["agent_id"])["description"] == "better words"
    # somebody else gets an agent of their own, and cannot touch alice's
    bob = api.register_agent(agent_url, description="bob's copy", owner="bob")
    assert bob["agent_id"] != alice["agent_id"]
    assert api.store.get_agent(alice["agent_id"])["description"] == "better words"
    with pytest.raises(ApiError, match="only the owner"):
        api.remove_agent(alice["agent_id"], "bob")
    assert alice["agent_id"] in api.seat_choices()
    assert api.remove_agent(alice["agent_id"], "alice") == f"removed {alice['agent_id']}"
    choices = api.seat_choices()
    assert alice["agent_id"] not in choices and bob["agent_id"] in choices
    with pytest.raises(ApiError, match="no agent"):
        api.remove_agent(alice["agent_id"], "alice")
    api.store.close()


def test_on_a_space_the_signed_in_user_owns_what_they_register(tmp_path, launch):
    """Space mode (SPACE_ID set): the owner is the signed-in user, whatever the caller
    claims in the `owner` field. (An anonymous caller is refused: test_api_client.)"""
    agent_url = launch(serve(Plain("spaced")))
    config = ArenaConfig(db=str(tmp_path / "s.db"), demo_matches=0, space_id="arena/test",
                         allow_private_urls=True)
    with running_arena(config, auth_dependency=lambda request: request.headers.get("x-test-user")) as (_, url):
        def client(user: str) -> Client:
            return Client(url, verbose=False, headers={"x-test-user": user})

        alice = client("alice").predict(agent_url, "mine", "", "", "remote", "mallory",
                                        api_name="/register_agent")
        assert alice["agent_id"].startswith("alice/")
        again = client("alice").predict(agent_url, "mine", "", "edited", "remote", "",
                                        api_name="/register_agent")
        assert again["agent_id"] == alice["agent_id"]  # the owner edits her agent
        bob = client("bob").predict(agent_url, "mine", "", "hijack?", "remote", "alice",
                                    api_name="/register_agent")
        assert bob["agent_id"].startswith("bob/") and bob["agent_id"] != alice["agent_id"]
        listed = {a["id"]: a for a in client("bob").predict(api_name="/list_agents")}
        assert listed[alice["agent_id"]]["owner"] == "alice"
        assert listed[alice["agent_id"]]["description"] == "edited"
        assert listed[bob["agent_id"]]["owner"] == "bob"


def test_a_client_token_signs_in_through_whoami():
    class Request:
        username = None
        client = None

        def __init__(self, headers: dict[str, str]) -> None:
            self.headers = headers

    def whoami(token: str) -> str | None:
        return "alice" if token == "hf_alice" else None

    signin = SignIn(whoami)

    def user(request: Request) -> str | None:
        return asyncio.run(user_from_request(request, signin))

    assert user(Request({"x-hf-authorization": "Bearer hf_alice"})) == "alice"
    assert user(Request({"authorization": "Bearer hf_alice"})) == "alice"
    assert user(Request({"x-hf-authorization": "Bearer hf_forged"})) is None
    assert user(Request({})) is None
    page_login = Request({})
    page_login.username = "bob"  # signed in on the page: no token needed
    assert user(page_login) == "bob"
    assert signin.lookups == 2  # alice's token once (then cached), the forged one once


def test_the_arena_wide_match_cap_refuses_with_a_clear_message(tmp_path):
    api = ArenaAPI(ArenaConfig(db=str(tmp_path / "c.db"), demo_matches=0, max_matches_total=1,
                               max_matches_per_visitor=1))
    async def one_then_another() -> None:
        async with api.admit("first visitor"):
            with pytest.raises(ApiError, match="its limit"):
                async with api.admit("second visitor"):
                    pass
        async with api.admit("second visitor"):  # the slot is free again
            pass

    api.arena.run_in_own_loop(one_then_another())

    async def two_at_once() -> list[Any]:
        slow = {"game": "spy", "seats": ["house:random"] * 6, "seed": 1}
        first = asyncio.create_task(api.run_match(slow, visitor="a"))
        # the first match's seats are checked on a worker thread before it takes a slot:
        # wait until it holds the only one
        while api.slots.running("a") == 0 and not first.done():
            await asyncio.sleep(0.01)
        second = await asyncio.gather(api.run_match(slow, visitor="b"), return_exceptions=True)
        return [await first, second[0]]

    first, second = api.arena.run_in_own_loop(two_at_once())
    assert first["status"] == "finished"
    assert isinstance(second, ApiError) and "limit" in str(second)
    assert len(api.store.list_matches()) == 1  # the refused match was never created
    api.store.close()
