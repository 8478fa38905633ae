"""docs/build-an-agent.md: its generated examples are up to date, every verb of every game
has one, its runnable examples run, and its rule-based agent plays full matches."""

from __future__ import annotations

import asyncio
import importlib.util
import re
import uuid
from pathlib import Path
from types import ModuleType

import pytest

from sdk import LLMAgent, RemoteAgent, scripted_caller
from space_app.agent_examples import DOC, examples, main, messages_for, reask_messages, render_doc
from space_app.core import get_game
from space_app.runner import SeatAgent, outcome_text, play

ROOT = Path(__file__).resolve().parents[1]
RULE_AGENT = ROOT / "example_agents" / "rule_agent" / "app.py"
# every verb of every game the docs promise an example of
PROMISED = {
    "spy/speak/describe", "spy/vote/vote",
    "avalon/speak/discuss", "avalon/vote/propose", "avalon/vote/team_vote", "avalon/vote/quest",
    "avalon/vote/assassinate", "avalon/answer/deduce",
    "mystery/speak/introduction", "mystery/vote/vote", "mystery/answer/question",
    "tom/answer/question",
}


def load_rule_agent() -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"rule_agent_{uuid.uuid4().hex[:8]}", RULE_AGENT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_doc_is_up_to_date_with_the_generator():
    text = DOC.read_text(encoding="utf-8")
    assert render_doc(text) == text, "run: python -m space_app.agent_examples"
    assert main(["--check"]) == 0


def test_every_verb_of_every_game_has_a_real_example():
    found = {e.key for e in examples()}
    assert PROMISED <= found, sorted(PROMISED - found)
    text = DOC.read_text(encoding="utf-8")
    for e in examples():
        assert e.title in text
        # the reply the doc shows is one the arena reads as valid
        given, status, _ = outcome_text(e.reply, e.observation)
        assert status == "ok" and given, (e.key, e.reply)


def test_every_phase_shown_is_named_in_words_by_its_game():
    # the titles come from each game's presentation, so a new game brings its own words
    for e in examples():
        if e.verb == "answer":
            continue  # a suite's question, titled by the suite
        titles = get_game(e.game).presentation.phase_titles
        assert e.phase in titles, f"{e.game}: phase {e.phase!r} has no title in its Presentation.phase_titles"
        assert e.title.endswith(titles[e.phase])


def test_the_messages_shown_are_the_ones_llm_agent_sends():
    for e in examples():
        caller = scripted_caller([e.reply])
        LLMAgent(caller).act(e.observation)
        assert caller.calls[0] == messages_for(e.observation)
    vote = next(e for e in examples() if e.verb == "vote")
    last = reask_messages(vote.observation)[-1]["content"]
    assert "could not be read" in last and last in DOC.read_text(encoding="utf-8")


def test_examples_are_deterministic():
    from space_app.agent_examples import game_examples

    first = [e.observation for e in game_examples("avalon")]
    again = [e.observation for e in game_examples("avalon")]
    assert first == again


def runnable_blocks() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    return re.findall(r"<!-- runnable -->\n```python\n(.*?)```", text, re.S)


def test_the_runnable_examples_run():
    blocks = runnable_blocks()
    assert blocks
    for i, code in enumerate(blocks):
        exec(compile(code, f"build-an-agent.md (runnable block {i + 1})", "exec"), {"__name__": f"doc_{i}"})


def test_the_doc_shows_the_rule_agent_file_as_it_is():
    text = DOC.read_text(encoding="utf-8")
    assert RULE_AGENT.read_text(encoding="utf-8").strip() in text


@pytest.mark.parametrize("game", ["spy", "avalon", "mystery"])
def test_the_rule_agent_plays_a_full_match(game):
    agent = load_rule_agent().agent
    assert game in agent.games
    spec = get_game(game)
    match = spec.make(spec.facts.default_players, 5)
    out = asyncio.run(play(match, {seat: SeatAgent(agent, "rule-agent") for seat in match.seats}))
    assert out.status == "finished", out.error
    calls = [e for e in out.events if e.kind == "call"]
    assert calls and all(e.status == "ok" for e in calls), [e.payload() for e in calls if e.status != "ok"]
    assert not [e for e in out.events if e.kind == "foul"]


def test_the_rule_agent_answers_every_example_over_http(launch):
    module = load_rule_agent()
    remote = RemoteAgent(launch(module.app), timeout=10)
    assert remote.info()["games"] == list(module.agent.games)
    for e in examples():
        reply = remote.act(e.observation).text
        _, status, detail = outcome_text(reply, e.observation)
        assert status == "ok", (e.key, reply, detail)
    remote.close()


def test_the_templates_declare_no_game_list_and_are_seated_in_every_game(tmp_path):
    """A scaffolded agent's `info` names no game: it plays any game, from the rules each
    observation carries (the SDK holds no per-game prompt)."""
    from sdk.scaffold import render
    from space_app.agents.catalogue import plays
    from space_app.core import GAMES
    from space_app.suites import suite_games

    arena_has = set(GAMES) | set(suite_games())
    for template in ("openai", "litellm", "local"):
        code = render(template, "t")["app.py"]
        assert "games=" not in code, template
    default = LLMAgent(scripted_caller(["x"])).info()["games"]
    assert default == [] and all(plays(default, game) for game in arena_has)
    assert set(load_rule_agent().agent.games) <= arena_has
    assert LLMAgent(scripted_caller(["x"]), games=("spy",)).info()["games"] == ["spy"]
    assert not plays(["spy"], "avalon")
