"""`try_agent` explains a timeout: the time used, the limit and where it came from, and what
the arena was still waiting for (the agent's model, or its served endpoint)."""

from __future__ import annotations

import asyncio
import threading

from model_server import Step, model_server

from sdk import Agent, LLMAgent, Observation, openai_caller, serve
from space_app.api import ArenaAPI
from space_app.config import ArenaConfig
from space_app.ui.agents_tab import read_as_markdown

SPEAK = {"game": "spy", "verb": "speak", "you": "P1", "instruction": "Describe your word.",
         "limits": {"seconds": 1.5}}


class Stuck(Agent):
    """Never answers within a turn: waits until the test lets it go."""

    def __init__(self) -> None:
        super().__init__("stuck")
        self.release = threading.Event()

    def speak(self, obs: Observation) -> str:
        self.release.wait(30)
        return "late"


def api_for(tmp_path, **settings) -> ArenaAPI:
    return ArenaAPI(ArenaConfig(db=str(tmp_path / "t.db"), demo_matches=0, allow_private_urls=True, **settings))


def test_a_served_agent_that_never_answers_is_explained(tmp_path, launch):
    stuck = Stuck()
    url = launch(serve(stuck))
    try:
        got = asyncio.run(api_for(tmp_path).try_agent(f"remote:{url}", SPEAK))
    finally:
        stuck.release.set()
    assert got["status"] == "timeout" and got["seconds"] == 1.5
    why = got["explanation"]
    assert "of the 1.5 s limit (the observation's limits.seconds)" in why
    assert f"still waiting for the agent's reply to its `speak` call at {url}" in why
    assert why in read_as_markdown(got).replace("\\", "")  # the page shows the explanation


def test_a_model_that_runs_out_of_time_is_named_as_what_was_pending(tmp_path, launch):
    with model_server(Step(slow=30)) as server:
        # the caller's own timeout, shorter than the turn: the agent says why before the arena gives up
        caller = openai_caller("m", base_url=server.url, api_key="k", timeout=0.3)
        url = launch(serve(LLMAgent(caller, name="slowpoke")))
        got = asyncio.run(api_for(tmp_path).try_agent(f"remote:{url}", SPEAK))
    assert got["status"] == "timeout"
    why = got["explanation"]
    assert "still waiting for the agent's model: model endpoint gave no reply" in why


def test_a_limit_cut_by_the_arena_says_so(tmp_path, launch):
    stuck = Stuck()
    url = launch(serve(stuck))
    try:
        got = asyncio.run(api_for(tmp_path, max_turn_seconds=1.0).try_agent(
            f"remote:{url}", {**SPEAK, "limits": {"seconds": 90}}))
    finally:
        stuck.release.set()
    assert got["seconds"] == 1.0
    assert ("of the 1 s limit (the observation asked for 90 s, cut to this arena's ARENA_MAX_TURN_SECONDS)"
            in got["explanation"])


def test_an_answer_in_time_needs_no_explanation(tmp_path):
    got = asyncio.run(api_for(tmp_path).try_agent("house:heuristic", SPEAK))
    assert got["status"] == "ok" and "explanation" not in got
