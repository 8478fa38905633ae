"""An agent's history is trimmed by an estimate of tokens against the context length its
author sets: the newest items that fit are kept, the prompt says how many were left out."""

from __future__ import annotations

import pytest
from model_server import model_server

from sdk import LLMAgent, Observation, openai_caller
from sdk.context import estimate_tokens, newest_that_fit, reply_reserve
from sdk.observation import HistoryItem

RULES = "Who is the Spy: describe your word without saying it; vote out the spy. " * 4


def long_match(items: int = 200) -> Observation:
    history = [HistoryItem(who=f"P{i % 6 + 1}", kind="statement", round=i // 6 + 1,
                           text=f"statement number {i}: it is something you find in a kitchen, often by the window")
               for i in range(items)]
    return Observation(game="spy", verb="speak", you="P1", history=history, rules=RULES,
                       instruction="Describe your word.")


def prompt_tokens(messages: list[dict]) -> int:
    return sum(estimate_tokens(m["content"]) for m in messages)


def test_the_newest_items_that_fit_are_kept_and_the_prompt_says_what_was_left_out():
    caller = openai_caller("m", base_url="http://127.0.0.1:9/v1", api_key="k", max_tokens=128)
    agent = LLMAgent(caller, context_tokens=1000, max_history=500)
    obs = long_match()
    messages = agent.build_messages(obs)
    assert prompt_tokens(messages) + 128 <= 1000
    user = messages[1]["content"]
    assert "statement number 199:" in user  # the newest item
    assert "statement number 0:" not in user and "statement number 100:" not in user
    kept = sum(f"statement number {i}:" in user for i in range(200))
    assert kept > 5 and f"({200 - kept} earlier event(s) left out to fit the model's context)" in user
    # one more item would not have fitted
    roomier = LLMAgent(caller, context_tokens=1000 + 60, max_history=500).build_messages(obs)[1]["content"]
    assert sum(f"statement number {i}:" in roomier for i in range(200)) > kept


def test_without_a_context_length_the_item_cap_alone_applies():
    agent = LLMAgent(lambda messages: "ok", max_history=60)
    user = agent.build_messages(long_match())[1]["content"]
    assert sum(f"statement number {i}:" in user for i in range(200)) == 60 and "left out" not in user


def test_a_short_history_that_fits_is_sent_whole():
    agent = LLMAgent(lambda messages: "ok", context_tokens=8192)
    user = agent.build_messages(long_match(5))[1]["content"]
    assert all(f"statement number {i}:" in user for i in range(5)) and "left out" not in user


def test_the_trimmed_prompt_reaches_a_real_model_server():
    with model_server() as server:
        agent = LLMAgent(openai_caller("m", base_url=server.url, api_key="k", max_tokens=64), context_tokens=600)
        assert agent.act(long_match()).text
        (body,) = server.requests
    assert prompt_tokens(body["messages"]) + 64 <= 600 and body["max_tokens"] == 64


def test_bad_context_lengths_are_named():
    for bad in (0, -5, 2.5, "4k"):
        with pytest.raises(ValueError, match="context_tokens must be the model's context length"):
            LLMAgent(lambda messages: "ok", context_tokens=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="leaves no room for a prompt: the reply alone is given 512 tokens"):
        LLMAgent(lambda messages: "ok", context_tokens=500)


def test_the_estimate_and_the_search():
    assert estimate_tokens("abcd" * 10) == 10 and estimate_tokens("谁是卧底") == 4 and estimate_tokens("") == 0
    assert reply_reserve(lambda messages: "") == 512
    assert newest_that_fit(50, 10, lambda n: 10 * n) == 5
    assert newest_that_fit(500, 10, lambda n: 10 * n) == 10
    assert newest_that_fit(5, 10, lambda n: 10 + n) == 0  # not even the bare prompt fits: no history
