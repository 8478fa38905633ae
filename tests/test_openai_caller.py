"""openai_caller against a real OpenAI-compatible HTTP server on loopback (tests/model_server.py):
the turn's budget reaches the model call, a call the arena gives up on is cancelled on the
server, 429/5xx/dropped connections are retried within the budget (Retry-After honoured), the
sampling settings are sent, and a reply cut at the token limit is flagged, asked again once
and recorded in the arena's call record."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from model_server import ModelServer, Step, model_server

from sdk import AgentError, LLMAgent, Observation, RemoteAgent, openai_caller, serve
from sdk.callers.openai_compat import retry_after
from sdk.deadline import turn
from space_app.agents.catalogue import AgentCatalogue
from space_app.config import ArenaConfig
from space_app.core.game import Request
from space_app.runner import call_agent

MESSAGES = [{"role": "user", "content": "Say something."}]


def caller(server: ModelServer, **settings: Any):
    return openai_caller("test-model", base_url=server.url, api_key="k", **settings)


def vote(seconds: float = 30.0, **extra: Any) -> Observation:
    return Observation.model_validate({
        "game": "spy", "phase": "vote", "verb": "vote", "you": "P1", "seats": ["P1", "P2", "P3"],
        "options": ["P2", "P3"], "instruction": "Vote for the spy.",
        "limits": {"seconds": seconds, "max_chars": 400}, **extra})


def speak(seconds: float = 30.0) -> Observation:
    return Observation.model_validate({
        "game": "spy", "phase": "describe", "verb": "speak", "you": "P1", "seats": ["P1", "P2", "P3"],
        "instruction": "Describe your word.", "limits": {"seconds": seconds, "max_chars": 400}})


# -- settings ------------------------------------------------------------------------------------
def test_settings_reach_the_server() -> None:
    with model_server() as server:
        call = caller(server, temperature=0.2, top_p=0.9, max_tokens=50, stop=["\n\n", "END"])
        assert call(MESSAGES) == "Final answer: P2"
        assert call.settings["max_tokens"] == 50
        unset = caller(server, temperature=None, max_tokens=None)
        unset(MESSAGES)
    sent, default = server.requests
    assert (sent["model"], sent["temperature"], sent["top_p"], sent["max_tokens"], sent["stop"]) == \
        ("test-model", 0.2, 0.9, 50, ["\n\n", "END"])
    # a setting left at None is not sent: the server's own default applies
    assert not {"temperature", "top_p", "max_tokens", "stop"} & set(default)


# -- retries -------------------------------------------------------------------------------------
def test_server_errors_are_retried_then_answered() -> None:
    with model_server(Step(status=500), Step(status=503), Step(text="Final answer: P3")) as server:
        with turn(30):
            reply = caller(server)(MESSAGES)
    assert reply == "Final answer: P3"
    assert len(server.requests) == 3


def test_retry_after_is_honoured_within_the_turn() -> None:
    # the server keeps refusing (too_early) any retry sent before its Retry-After has passed
    with model_server(Step(status=429, retry_after="1"), Step(text="Final answer: P3")) as server:
        with turn(20):
            reply = caller(server)(MESSAGES)
    assert reply == "Final answer: P3"
    assert len(server.requests) == 2 and server.too_early == 0


def test_retry_after_past_the_budget_fails_at_once() -> None:
    with model_server(Step(status=429, retry_after="30")) as server:
        with turn(3), pytest.raises(AgentError) as err:
            caller(server)(MESSAGES)
    assert err.value.kind == "agent_failed"
    assert "429" in err.value.message and "retry after 30 s" in err.value.message
    assert len(server.requests) == 1  # no hopeless wait, no second request


def test_dropped_connection_is_retried() -> None:
    with model_server(Step(reset=True), Step(text="Final answer: P3")) as server:
        with turn(20):
            assert caller(server)(MESSAGES) == "Final answer: P3"
    assert len(server.requests) == 2


def test_retries_stop_after_max_retries() -> None:
    with model_server() as server:
        server.default = Step(status=500)
        with turn(60), pytest.raises(AgentError) as err:
            caller(server, max_retries=2)(MESSAGES)
    assert err.value.kind == "agent_failed" and "answered 500" in err.value.message
    assert "3 attempts" in err.value.message and len(server.requests) == 3


def test_client_errors_are_not_retried() -> None:
    with model_server(Step(status=400)) as server, pytest.raises(AgentError) as err:
        caller(server)(MESSAGES)
    assert err.value.kind == "agent_failed" and "answered 400" in err.value.message
    assert len(server.requests) == 1


def test_retry_after_forms() -> None:
    def refused(headers: dict[str, str]) -> openai.RateLimitError:
        response = httpx.Response(429, headers=headers, request=httpx.Request("POST", "http://x/"))
        return openai.RateLimitError("rate limited", response=response, body=None)

    assert retry_after(refused({"retry-after": "7"})) == 7
    assert retry_after(refused({"retry-after-ms": "250", "retry-after": "7"})) == 0.25
    assert retry_after(refused({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})) == 0  # a past date
    assert retry_after(refused({"retry-after": "soon"})) is None
    assert retry_after(refused({})) is None


# -- the budget and cancellation ------------------------------------------------------------------
def test_slow_call_is_cancelled_at_the_turns_deadline() -> None:
    with model_server(Step(slow=60)) as server:
        call = caller(server)
        with turn(1.0), pytest.raises(AgentError) as err:
            call(MESSAGES)
        assert err.value.kind == "timeout" and "1.0 s" in err.value.message
        # the server saw the client go: its handler was cancelled, long before its 60 s
        assert server.settled.wait(15)
        assert server.disconnected == 1 and server.running == 0
        # the one slot is free: the next call is answered, not queued behind the abandoned one
        with turn(10):
            assert call(MESSAGES) == "Final answer: P2"


def test_timeout_setting_bounds_a_call_outside_a_turn() -> None:
    with model_server(Step(slow=60)) as server:
        with pytest.raises(AgentError) as err:
            caller(server, timeout=1.0)(MESSAGES)
        assert err.value.kind == "timeout"
        assert server.settled.wait(15) and server.disconnected == 1


def test_arena_giving_up_cancels_the_model_request() -> None:
    """The arena cancels an in-process agent's call before the turn ends (e.g. the match was
    stopped): the model request is closed at once, not left running to the turn's end."""
    with model_server(Step(slow=60)) as server:
        agent = LLMAgent(caller(server), name="patient")

        async def give_up() -> None:
            task = asyncio.ensure_future(agent.aact(speak(seconds=60)))
            assert await asyncio.to_thread(server.started.wait, 15)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        asyncio.run(give_up())
        assert server.settled.wait(15)
        assert server.disconnected == 1 and server.running == 0


def test_a_60_s_turn_gives_the_model_60_s(launch) -> None:
    """A served agent, seated by the arena's own catalogue with the default
    ARENA_REMOTE_TIMEOUT: its model request is made with the turn's 60 s, not 10 s."""
    default = ArenaConfig().remote_timeout
    with model_server() as server:
        url = launch(serve(LLMAgent(caller(server), name="served")))
        catalogue = AgentCatalogue(remote_timeout=default)
        agent = catalogue.resolve(f"remote:{url}")
        obs = vote(seconds=60)
        outcome, record = asyncio.run(call_agent(agent, Request("P1", obs)))
        agent.close()
    assert outcome.text == "P2" and record.status == "ok"
    # the openai client sends each request's timeout (x-stainless-read-timeout): the turn's
    # time left when the served agent made the request, past the default cap
    budget = float(server.headers[0]["x-stainless-read-timeout"])
    assert default < budget <= 60


def test_streamed_call_reads_the_reply_and_is_cancelled_at_the_deadline() -> None:
    with model_server(Step(text="It grows in every garden", finish="length"), Step(slow=60)) as server:
        call = caller(server, stream=True)
        with turn(10):
            reply = call(MESSAGES)
        assert reply == "It grows in every garden" and reply.truncated is True
        assert reply.usage is not None and reply.usage.completion_tokens == 5  # from the last chunk
        # the slow reply has begun streaming; the turn ends: the stream is closed
        with turn(1.0), pytest.raises(AgentError) as err:
            call(MESSAGES)
        assert err.value.kind == "timeout"
        assert server.settled.wait(15) and server.disconnected == 1 and server.running == 0
    assert all(r["stream"] is True for r in server.requests)


# -- truncation ------------------------------------------------------------------------------------
def test_truncated_vote_is_flagged_and_asked_again() -> None:
    with model_server(Step(text="P2 said nothing useful, and P3 seems to", finish="length"),
                      Step(text="Final answer: P3")) as server:
        reply = LLMAgent(caller(server)).act(vote())
    assert reply.text == "P3" and reply.meta["truncated"] is True
    assert len(server.requests) == 2
    again = server.requests[1]["messages"]
    assert again[-2]["content"].startswith("P2 said nothing useful")
    assert "cut off at the length limit" in again[-1]["content"]
    assert reply.usage is not None and reply.usage.completion_tokens > 5  # both calls counted


def test_truncated_statement_is_asked_again_only_when_its_line_was_cut() -> None:
    with model_server(Step(text="It is something you find in every", finish="length"),
                      Step(text="It grows in gardens.")) as server:
        reply = LLMAgent(caller(server)).act(speak())
    assert reply.text == "It grows in gardens." and reply.meta["truncated"] is True
    assert len(server.requests) == 2

    # the first line is whole: it is the statement, the cut came later; flagged, not asked again
    with model_server(Step(text="It grows in gardens.\nMore thoughts that ran", finish="length")) as server:
        reply = LLMAgent(caller(server)).act(speak())
    assert reply.text == "It grows in gardens." and reply.meta["truncated"] is True
    assert len(server.requests) == 1


def test_untruncated_reply_carries_no_flag() -> None:
    with model_server() as server:
        reply = LLMAgent(caller(server)).act(vote())
    assert reply.text == "P2" and "truncated" not in reply.meta


def test_truncation_is_recorded_in_the_call_record(launch) -> None:
    cut = Step(text="I think that P3 is the", finish="length")
    with model_server(cut, Step(text="Final answer: P3"), cut, Step(text="Final answer: P3")) as server:
        local = LLMAgent(caller(server), name="local")
        _, record = asyncio.run(call_agent(local, Request("P1", vote())))
        assert record.truncated is True and record.parsed == "P3"

        # served: the flag rides on the act endpoint's reply to the arena's record
        remote = RemoteAgent(launch(serve(LLMAgent(caller(server), name="served"))))
        _, record = asyncio.run(call_agent(remote, Request("P1", vote())))
        remote.close()
        assert record.truncated is True and record.parsed == "P3"

        # a whole reply leaves no flag in the record
        _, record = asyncio.run(call_agent(local, Request("P1", vote())))
        assert record.truncated is None  # not set: the reply was whole
    assert len(server.requests) == 5


# -- llama-cpp-python's own OpenAI-compatible server, on the embedded GGUF -------------------------
@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """`python -m llama_cpp.server` (the `server` extra) serving SmolLM2 on a free loopback port,
    one request at a time; yields its /v1 URL and its log file."""
    pytest.importorskip("llama_cpp.server")
    from sdk.callers.local import GGUF_FILE, model_dir

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-u", "-m", "llama_cpp.server",
                                 "--model", str(model_dir() / GGUF_FILE), "--host", "127.0.0.1",
                                 "--port", str(port), "--n_ctx", "2048", "--n_threads", "1"],
                                stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(240):
            if proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited: {log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{url}/models", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        else:
            raise RuntimeError("llama_cpp.server did not start in 120 s")
        yield url, log
    finally:
        proc.terminate()
        proc.wait(30)


@pytest.mark.model
def test_llama_cpp_server_reply_truncation_and_cancellation(llama_server: tuple[str, Path]) -> None:
    url, log = llama_server
    short = openai_caller("smollm2", base_url=url, api_key="k", max_tokens=4, temperature=0.0)
    with turn(60):
        reply = short(MESSAGES)
    assert reply.truncated is True  # 4 tokens: cut by max_tokens, finish_reason "length"
    assert reply.usage is not None and reply.usage.completion_tokens == 4

    # a long generation in a short turn: the call ends with the turn, and the server stops it
    # (the turn is far shorter than the reply: on a quiet machine the model writes ~80 tokens a
    # second and may end a counting reply after a hundred or so)
    long = openai_caller("smollm2", base_url=url, api_key="k", max_tokens=1500, temperature=0.0, stream=True)
    count = [{"role": "user", "content": "Count from 1 to 1000, one number per line."}]
    with turn(0.3), pytest.raises(AgentError) as err:
        long(count)
    assert err.value.kind == "timeout"
    for _ in range(60):  # the server says so in its log once it sees the connection closed
        if "Disconnected from client" in log.read_text():
            break
        time.sleep(0.5)
    assert "Disconnected from client" in log.read_text()
    with turn(60):  # and its one slot serves the next request
        assert short(MESSAGES).truncated is True
