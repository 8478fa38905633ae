"""litellm_caller against a real loopback HTTP server speaking the Anthropic Messages and the
Gemini generateContent APIs (tests/provider_server.py): settings and keys reach the provider in
its own shape, usage is reported, a reply stopped by the token limit is flagged, a 429's
Retry-After is honoured within the budget (and a wait past it fails at once), a missing key is
refused before anything is sent, and images reach the provider as its own image blocks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from provider_server import ProviderServer, Reply, provider_server

from sdk import AgentError, LLMAgent, Observation, litellm_caller
from sdk.deadline import turn
from sdk.usage import LLMText

CLAUDE = "anthropic/claude-3-5-haiku-latest"
GEMINI = "gemini/gemini-2.0-flash"
MESSAGES = [{"role": "system", "content": "You play Who is the Spy."},
            {"role": "user", "content": "Say something."}]


def claude(server: ProviderServer, **settings: Any):
    return litellm_caller(CLAUDE, api_key="sk-ant-test", api_base=server.url, **settings)


def gemini(server: ProviderServer, **settings: Any):
    return litellm_caller(GEMINI, api_key="gem-test", api_base=server.url, **settings)


# -- Anthropic -----------------------------------------------------------------------------------
def test_anthropic_messages_carry_the_settings_and_the_key() -> None:
    with provider_server(Reply("Final answer: P3")) as server:
        call = claude(server, max_tokens=64, temperature=0.2, top_p=0.9, stop=["END"])
        reply = call(MESSAGES)
    assert reply == "Final answer: P3"
    assert isinstance(reply, LLMText) and not reply.truncated
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (12, 4)
    (seen,) = server.seen
    assert seen.path == "/v1/messages"
    assert seen.headers["x-api-key"] == "sk-ant-test" and "anthropic-version" in seen.headers
    body = seen.body
    assert body["model"] == "claude-3-5-haiku-latest"
    assert (body["max_tokens"], body["temperature"], body["top_p"], body["stop_sequences"]) == (64, 0.2, 0.9, ["END"])
    # the system message becomes Anthropic's top-level `system`, not a chat turn
    assert "You play Who is the Spy." in str(body["system"])
    assert [m["role"] for m in body["messages"]] == ["user"]
    assert call.model == CLAUDE and call.settings["max_tokens"] == 64


def test_anthropic_stop_reason_max_tokens_is_flagged_truncated() -> None:
    with provider_server(Reply("P2 is the one who", truncated=True)) as server:
        reply = claude(server, max_tokens=5)(MESSAGES)
    assert reply == "P2 is the one who" and reply.truncated


def test_a_truncated_vote_is_asked_again_shorter_and_the_flag_kept() -> None:
    vote = Observation.model_validate({
        "game": "spy", "phase": "vote", "verb": "vote", "you": "P1", "seats": ["P1", "P2", "P3"],
        "options": ["P2", "P3"], "instruction": "Vote for the spy.", "limits": {"seconds": 30, "max_chars": 400}})
    with provider_server(Reply("I think the spy is", truncated=True), Reply("Final answer: P3")) as server:
        reply = LLMAgent(claude(server), name="t").act(vote)
    assert len(server.seen) == 2
    assert reply.text == "P3" and reply.meta["truncated"] is True


def test_a_429_with_retry_after_is_retried_after_the_wait() -> None:
    with provider_server(Reply(status=429, retry_after="1"), Reply("Final answer: P2")) as server:
        reply = claude(server, timeout=20)(MESSAGES)
    assert reply == "Final answer: P2"
    assert server.too_early == 0  # the second attempt waited for the Retry-After
    assert len(server.seen) == 2


def test_a_retry_after_past_the_budget_fails_at_once_saying_so() -> None:
    with provider_server(Reply(status=429, retry_after="60")) as server:
        with pytest.raises(AgentError) as err:
            claude(server, timeout=5)(MESSAGES)
    assert err.value.kind == "agent_failed"
    assert "429" in str(err.value) and "retry after 60 s" in str(err.value)
    assert len(server.seen) == 1


def test_a_slow_reply_ends_with_the_turn_as_a_timeout() -> None:
    with provider_server(Reply(slow=60)) as server:
        call = claude(server, timeout=120)
        with turn(1.5), pytest.raises(AgentError) as err:
            call(MESSAGES)
    assert err.value.kind == "timeout"
    assert "1.5 s" in str(err.value)  # the turn's budget, not the caller's 120 s


def test_a_server_error_is_retried_then_answered() -> None:
    with provider_server(Reply(status=500), Reply(status=503), Reply("Final answer: P2")) as server:
        reply = claude(server, timeout=30)(MESSAGES)
    assert reply == "Final answer: P2" and len(server.seen) == 3


def test_an_unreachable_provider_fails_as_the_agents_failure() -> None:
    import socket

    with socket.socket() as sock:  # bound, not listening: connections are refused
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        with pytest.raises(AgentError) as err:
            litellm_caller(CLAUDE, api_key="k", api_base=f"http://127.0.0.1:{port}", timeout=5,
                           max_retries=1)(MESSAGES)
    assert err.value.kind == "agent_failed"


def test_a_refused_key_is_not_retried() -> None:
    with provider_server(Reply(status=401)) as server:
        with pytest.raises(AgentError) as err:
            claude(server)(MESSAGES)
    assert err.value.kind == "agent_failed" and "401" in str(err.value)
    assert len(server.seen) == 1


def test_a_missing_key_is_refused_before_anything_is_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    with provider_server() as server:
        with pytest.raises(AgentError) as err:
            litellm_caller(CLAUDE, api_base=server.url)(MESSAGES)
    assert err.value.kind == "agent_failed"
    assert "ANTHROPIC_API_KEY" in str(err.value)
    assert server.seen == []


def test_the_key_is_read_from_the_providers_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-from-env")
    with provider_server() as server:
        litellm_caller(CLAUDE, api_base=server.url)(MESSAGES)
    assert server.seen[0].headers["x-api-key"] == "sk-ant-from-env"


def test_images_reach_anthropic_as_image_blocks() -> None:
    pixel = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
    messages = [{"role": "user", "content": [
        {"type": "text", "text": "What is in the picture?"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{pixel}"}}]}]
    with provider_server() as server:
        claude(server)(messages)
    parts = server.seen[0].body["messages"][0]["content"]
    image = next(p for p in parts if p["type"] == "image")
    assert image["source"] == {"type": "base64", "media_type": "image/png", "data": pixel}


def test_images_reach_gemini_as_inline_data() -> None:
    pixel = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
    messages = [{"role": "user", "content": [
        {"type": "text", "text": "What is in the picture?"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{pixel}"}}]}]
    with provider_server() as server:
        gemini(server)(messages)
    parts = server.seen[0].body["contents"][0]["parts"]
    inline = next(p["inline_data"] for p in parts if "inline_data" in p)
    assert inline == {"mime_type": "image/png", "data": pixel}


# -- Gemini --------------------------------------------------------------------------------------
def test_gemini_generate_content_carries_the_settings_and_the_key() -> None:
    with provider_server(Reply("Final answer: P2")) as server:
        reply = gemini(server, max_tokens=32, temperature=0.1, stop=["END"])(MESSAGES)
    assert reply == "Final answer: P2" and not reply.truncated
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (13, 5)
    (seen,) = server.seen
    assert seen.path.endswith("/models/gemini-2.0-flash:generateContent")
    assert seen.headers["x-goog-api-key"] == "gem-test"
    config = seen.body["generationConfig"]
    assert (config["max_output_tokens"], config["temperature"], config["stop_sequences"]) == (32, 0.1, ["END"])
    assert "You play Who is the Spy." in json.dumps(seen.body)  # as a system instruction or a first part


def test_gemini_finish_reason_max_tokens_is_flagged_truncated() -> None:
    with provider_server(Reply("P3 because", truncated=True)) as server:
        reply = gemini(server, max_tokens=3)(MESSAGES)
    assert reply == "P3 because" and reply.truncated


def test_gemini_429_with_retry_after_is_retried() -> None:
    with provider_server(Reply(status=429, retry_after="1"), Reply("Final answer: P3")) as server:
        reply = gemini(server, timeout=20)(MESSAGES)
    assert reply == "Final answer: P3"
    assert server.too_early == 0 and len(server.seen) == 2


def test_gemini_missing_key_names_the_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    with provider_server() as server:
        with pytest.raises(AgentError) as err:
            litellm_caller(GEMINI, api_base=server.url)(MESSAGES)
    assert "GEMINI_API_KEY" in str(err.value)
    assert server.seen == []


# -- no network at import ------------------------------------------------------------------------
def test_importing_the_caller_keeps_litellm_offline() -> None:
    """The price map is LiteLLM's bundled copy: no download is tried at import."""
    env = {k: v for k, v in os.environ.items() if k != "LITELLM_LOCAL_MODEL_COST_MAP"}
    code = ("import os, sdk, litellm; print(os.environ['LITELLM_LOCAL_MODEL_COST_MAP']); "
            "print(len(litellm.model_cost) > 0)")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]
    assert "fetch" not in done.stderr.lower()


# -- the litellm example agent, served as a Space ------------------------------------------------
def test_the_litellm_example_agent_plays_through_the_arena_client(launch, monkeypatch: pytest.MonkeyPatch) -> None:
    """example_agents/litellm_agent served over HTTP and called with RemoteAgent, as the arena
    does, its Claude calls answered by the loopback Anthropic server; a cut vote is asked again
    and the arena's reply carries the flag and both calls' tokens."""
    import importlib.util
    from pathlib import Path

    from sdk import RemoteAgent

    path = Path(__file__).resolve().parents[1] / "example_agents" / "litellm_agent" / "app.py"
    with provider_server(Reply("I suspect", truncated=True), Reply("Final answer: P3")) as server:
        monkeypatch.setenv("LITELLM_API_BASE", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-space-secret")
        monkeypatch.delenv("MODEL", raising=False)
        spec = importlib.util.spec_from_file_location("litellm_example_app", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        remote = RemoteAgent(launch(module.app), timeout=30)
        try:
            assert remote.info(wait=False)["name"] == "litellm-agent"
            vote = Observation.model_validate({
                "game": "spy", "phase": "vote", "verb": "vote", "you": "P1", "seats": ["P1", "P2", "P3"],
                "options": ["P2", "P3"], "instruction": "Vote for the spy.",
                "limits": {"seconds": 30, "max_chars": 400}})
            reply = remote.act(vote)
        finally:
            remote.close()
    assert reply.text == "P3"
    assert reply.usage is not None and reply.usage.prompt_tokens == 24  # 12 + 12: both calls
    assert [s.path for s in server.seen] == ["/v1/messages", "/v1/messages"]
    assert server.seen[0].headers["x-api-key"] == "sk-ant-space-secret"
    assert server.seen[0].body["model"] == "claude-3-5-haiku-latest"
