"""An agent needs no per-game code: every observation carries the game's rules and how the
reply is read, written by the game; an agent whose `info` declares no game list is seated in
every game; an agent pinned to the previous SDK (0.2.0, which refuses fields it does not
know) is sent what it reads and still plays every game."""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

import pytest

import sdk.serving
from sdk import Agent, LLMAgent, Observation, RemoteAgent, scripted_caller, serve
from space_app.api import ArenaAPI
from space_app.config import ArenaConfig
from space_app.core import GAMES, get_game
from space_app.core.conformance import self_play
from space_app.service import MatchPlan

GAME_IDS = sorted(GAMES)
FIXTURE = Path(__file__).parent / "fixtures" / "sdk_0_2_0" / "observation.py"


@functools.cache
def sdk_0_2_0() -> Any:
    spec = importlib.util.spec_from_file_location("sdk_0_2_0_observation", FIXTURE)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the module's annotations through it
    spec.loader.exec_module(module)
    return module


class Plain(Agent):
    """Default info (no game list); replies from the observation alone."""

    def speak(self, obs: Any) -> str:
        return f"{obs.you} has read the rules and speaks."

    def vote(self, obs: Any) -> str:
        return ", ".join(obs.options[: obs.pick])

    def answer(self, obs: Any) -> str:
        return ", ".join(obs.options[: obs.pick]) if obs.options else "I cannot tell yet."


# what an agent built with SDK 0.2.0 declared by default: the games of that release
GAMES_OF_0_2_0 = ["spy", "avalon", "mystery", "tom"]


class PinnedTo020(Plain):
    def info(self) -> dict:
        return {**super().info(), "sdk_version": "0.2.0", "games": GAMES_OF_0_2_0}


def play_with(tmp_path: Path, url: str, game: str) -> dict[str, Any]:
    api = ArenaAPI(ArenaConfig(db=str(tmp_path / f"{game}.db"), demo_matches=0, allow_private_urls=True))
    registered = api.register_agent(url, name="plain")
    spec = get_game(game)
    fill = [name for name, house in spec.house.agents.items() if house.random_fill]
    seats = [registered["agent_id"], *(fill[i % len(fill)] for i in range(spec.facts.default_players - 1))]
    arena = api.arena
    outcome = arena.run_in_own_loop(arena.run(MatchPlan(game, seats, seed=4)))
    match = api.store.get_match(outcome.match_id)
    api.store.close()
    return match


def calls_of(match: dict[str, Any], seat: str) -> list[dict[str, Any]]:
    return [e["data"] for e in match["events"] if e["kind"] == "call" and e["actor"] == seat]


@pytest.mark.parametrize("game", GAME_IDS)
def test_every_observation_carries_the_rules_and_the_reply_format(game):
    played = self_play(get_game(game), seed=2)
    seen = [obs for views in played.seen.values() for obs in views]
    assert seen and all(obs.rules and obs.reply_format for obs in seen)
    votes = [obs for obs in seen if obs.verb == "vote"]
    assert votes and all("Final answer" in o.reply_format or "最终答案" in o.reply_format for o in votes)


@pytest.mark.parametrize("game", GAME_IDS)
def test_an_agent_with_default_info_is_seated_in_every_game(tmp_path, launch, game):
    url = launch(serve(Plain("plain")))
    match = play_with(tmp_path, url, game)
    assert match["status"] == "finished"
    first = match["seats"][0]
    assert first["agent_name"] == "plain"
    calls = calls_of(match, first["seat"])
    assert calls and [c for c in calls if c["status"] != "ok"] == []


@pytest.mark.parametrize("game", [g for g in GAME_IDS if g in GAMES_OF_0_2_0])
def test_an_agent_pinned_to_sdk_0_2_0_still_plays(tmp_path, launch, monkeypatch, game):
    old = sdk_0_2_0()
    # the served agent reads observations exactly as SDK 0.2.0 did: unknown fields refused
    monkeypatch.setattr(sdk.serving, "Observation", old.Observation)
    url = launch(serve(PinnedTo020("plain")))
    match = play_with(tmp_path, url, game)
    assert match["status"] == "finished"
    calls = calls_of(match, match["seats"][0]["seat"])
    assert calls and [c for c in calls if c["status"] != "ok"] == []


def test_the_pinned_observation_refuses_the_new_fields():
    """What makes the previous test meaningful: 0.2.0 refuses the rules it was never sent."""
    old = sdk_0_2_0()
    current = Observation(game="spy", verb="speak", you="P1", rules="The rules.", reply_format="One line.")
    with pytest.raises(Exception, match="Extra inputs are not permitted"):
        old.Observation.model_validate(current.model_dump(mode="json"))
    assert old.Observation.model_validate(current.dump_for("0.2.0")).you == "P1"


def test_an_llm_agent_prompt_comes_from_the_game():
    spy = get_game("spy")
    game = spy.make(6, 3, {"language": "zh"})
    request = game.pending()[0]
    caller = scripted_caller(["它很甜。"])
    LLMAgent(caller).act(request.observation)
    system, user = caller.calls[0]
    assert system["content"].startswith("你在玩“谁是卧底”") and system["content"].endswith("Always reply in Chinese.")
    assert user["content"].endswith(request.observation.reply_format)
    assert RemoteAgent  # the served path is covered above


def test_the_sdk_names_no_game():
    """A new game needs no SDK release: no game id appears in the SDK's code."""
    root = Path(__file__).resolve().parents[1] / "sdk"
    named = {}
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        found = sorted(g for g in GAMES if re.search(rf"[\"'`/]{g}[\"'`/]", text))
        if found:
            named[str(path.relative_to(root))] = found
    assert named == {}
