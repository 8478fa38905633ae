"""serve(agent) + RemoteAgent over real HTTP on loopback: the happy path, invalid
observations, failing / hanging / oversized / non-text agents, secrets, unreachable
and waking endpoints, a failing model endpoint behind an LLMAgent, and concurrency."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

import sdk
from sdk import (
    Agent,
    AgentError,
    LLMAgent,
    LLMText,
    Observation,
    RemoteAgent,
    Usage,
    openai_caller,
    serve,
)
from sdk.remote import resolve_src

TIME_LIMIT = 1.0
USAGE = Usage(prompt_tokens=7, completion_tokens=3)


def observation(verb: str = "speak", **extra: Any) -> Observation:
    base: dict[str, Any] = {
        "game": "spy", "phase": verb, "verb": verb, "you": "P3",
        "private": {"facts": {"word": "tea"}, "text": "Your secret word is 'tea'."},
        "history": [{"who": "P1", "kind": "statement", "text": "You drink it hot.", "round": 1}],
        "instruction": f"Please {verb}.", "seats": ["P1", "P2", "P3", "P10"],
        "match_id": "m-1", "round": 1,
    }
    if verb == "vote":
        base["options"] = ["P1", "P2", "P10"]
    base.update(extra)
    return Observation.model_validate(base)


def raw(verb: str = "speak", **extra: Any) -> dict[str, Any]:
    return observation(verb, **extra).model_dump(mode="json")


class CountingAgent(Agent):
    """Answers every verb at once and counts the calls that reached it."""

    name = "counter"
    description = "A test agent."
    games = ("spy", "tom")

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []
        self._lock = threading.Lock()

    def _count(self, verb: str) -> None:
        with self._lock:
            self.calls.append(verb)

    def speak(self, obs: Observation) -> str:
        self._count("speak")
        return LLMText(f"{obs.you} says: it is warm.", USAGE)

    def vote(self, obs: Observation) -> str:
        self._count("vote")
        return LLMText(obs.options[-1], USAGE)

    def answer(self, obs: Observation) -> str:
        self._count("answer")
        return f"answer to: {obs.instruction}"


class FnAgent(Agent):
    """speak runs `fn`; the other verbs are not used."""

    def __init__(self, fn: Callable[[Observation], Any], name: str = "fn-agent") -> None:
        super().__init__(name)
        self.fn = fn
        self.calls = 0

    def speak(self, obs: Observation) -> Any:
        self.calls += 1
        return self.fn(obs)


@pytest.fixture
def remotes() -> Iterator[Callable[..., RemoteAgent]]:
    made: list[RemoteAgent] = []

    def make(src: str, **kwargs: Any) -> RemoteAgent:
        remote = RemoteAgent(src, **kwargs)
        made.append(remote)
        return remote

    yield make
    for remote in made:
        remote.close()


@pytest.fixture
def counting(launch) -> tuple[CountingAgent, str]:
    agent = CountingAgent()
    return agent, launch(serve(agent))


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A loopback port that refuses connections: bound (so nobody else takes it) but
    not listening."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    yield sock.getsockname()[1]
    sock.close()


@pytest.fixture
def gate(launch) -> Iterator[threading.Event]:
    """Released at teardown (before the apps close) so hung agent threads end."""
    event = threading.Event()
    yield event
    event.set()


def arun(remote: RemoteAgent, coro_fn: Callable[[], Any]) -> Any:
    """Run `coro_fn()` in a fresh event loop and close the remote's session for it."""
    async def main() -> Any:
        try:
            return await coro_fn()
        finally:
            await remote.aclose()  # this loop's session only; sync calls keep working

    return asyncio.run(main())


def failures(remote: RemoteAgent, obs: Observation) -> tuple[AgentError, AgentError]:
    """The same call through `act` and through `aact`: both must fail; their errors."""
    with pytest.raises(AgentError) as sync_err:
        remote.act(obs)

    async def go() -> None:
        await remote.aact(obs)

    with pytest.raises(AgentError) as async_err:
        arun(remote, go)
    return sync_err.value, async_err.value


# -- happy path ----------------------------------------------------------------
def test_info(counting, remotes, monkeypatch):
    monkeypatch.delenv("AGENT_REVISION", raising=False)
    monkeypatch.delenv("SPACE_COMMIT_SHA", raising=False)
    _, url = counting
    remote = remotes(url)
    assert remote.vision is False  # nothing read yet
    info = remote.info(wait=False)
    assert info == {"name": "counter", "description": "A test agent.", "sdk_version": sdk.__version__,
                    "games": ["spy", "tom"], "vision": False, "secret_required": False,
                    "version": {"sdk": sdk.__version__, "model": "", "revision": ""}}
    assert remote.known_info == info
    assert remote.vision is False


def test_a_served_vision_agent_declares_it_and_the_remote_reads_it(launch, remotes):
    remote = remotes(launch(serve(LLMAgent(lambda messages: "ok", name="seer", vision=True))))
    assert remote.vision is False  # until its info is read
    remote.prepare()
    assert remote.info(wait=False)["vision"] is True and remote.vision is True


def test_speak_vote_answer_sync(counting, remotes):
    agent, url = counting
    remote = remotes(url, timeout=10)
    speak = remote.act(observation("speak"))
    assert speak.text == "P3 says: it is warm."
    assert speak.usage == USAGE  # usage travels back over HTTP
    vote = remote.act(observation("vote"))
    assert vote.text == "P10" and vote.usage == USAGE
    answer = remote.act(observation("answer", instruction="Who is the spy?"))
    assert answer.text == "answer to: Who is the spy?"
    assert answer.usage is None
    # the per-verb helpers use the same endpoint
    assert remote.speak(observation("speak")) == "P3 says: it is warm."
    assert remote.vote(observation("vote")) == "P10"
    assert agent.calls == ["speak", "vote", "answer", "speak", "vote"]


def test_speak_vote_answer_async(counting, remotes):
    agent, url = counting
    remote = remotes(url, timeout=10)

    async def go():
        return [await remote.aact(observation(verb)) for verb in ("speak", "vote", "answer")]

    speak, vote, answer = arun(remote, go)
    assert (speak.text, speak.usage) == ("P3 says: it is warm.", USAGE)
    assert (vote.text, vote.usage) == ("P10", USAGE)
    assert answer.text == "answer to: Please answer." and answer.usage is None
    assert agent.calls == ["speak", "vote", "answer"]


def test_per_verb_endpoints_over_raw_http(counting):
    _, url = counting
    for verb, expected in [("speak", "P3 says: it is warm."), ("vote", "P10"),
                           ("answer", "answer to: Please answer.")]:
        response = httpx.post(f"{url}gradio_api/run/{verb}", json={"data": [raw(verb), ""]})
        assert response.status_code == 200, response.text
        assert response.json()["data"] == [expected]


# -- invalid observations ----------------------------------------------------------
def _without(data: dict, key: str) -> dict:
    return {k: v for k, v in data.items() if k != key}


INVALID = [
    (_without(raw("speak"), "verb"), "verb"),
    ({**raw("speak"), "you": 5}, "you"),
    ({**raw("speak"), "history": "everything"}, "history"),
    ({**raw("speak"), "options": "P1"}, "options"),
    ({**raw("speak"), "limits": {"seconds": "soon"}}, "limits"),
    ({**raw("speak"), "unexpected": 1}, "unexpected"),
    (raw("vote"), "verb is 'vote' but this endpoint is 'speak'"),
    ({**raw("speak"), "verb": "vote"}, "a vote needs at least one option"),
    ("not json at all", "not JSON"),
    (["a", "list"], "expected a JSON object"),
]


def test_invalid_observation_is_refused_before_the_agent_runs(counting):
    agent, url = counting
    with httpx.Client() as client:
        for bad, detail in INVALID:
            response = client.post(f"{url}gradio_api/run/speak", json={"data": [bad, ""]})
            assert response.status_code != 200, bad
            error = response.json()["error"]
            assert error.startswith("invalid observation"), (bad, error)
            assert detail in error, (bad, error)
    assert agent.calls == []


def test_invalid_observation_on_act_becomes_refused(counting, remotes):
    agent, url = counting
    remote = remotes(url)
    with pytest.raises(AgentError) as err:
        remote._post("act", [_without(raw("speak"), "you"), ""], 5.0)
    assert err.value.kind == "refused"
    assert "invalid observation" in err.value.message and "you" in err.value.message
    assert agent.calls == []


# -- failing agents ----------------------------------------------------------------
def _boom(obs: Observation) -> str:
    raise RuntimeError("the author's bug")


def test_agent_that_raises_is_agent_failed(launch, remotes):
    agent = FnAgent(_boom)
    remote = remotes(launch(serve(agent)))
    for err in failures(remote, observation("speak")):
        assert err.kind == "agent_failed"
        assert "RuntimeError" in err.message and "the author's bug" in err.message
    assert agent.calls == 2
    # a verb the agent does not implement fails the same way
    with pytest.raises(AgentError) as err:
        remote.act(observation("vote"))
    assert err.value.kind == "agent_failed" and "NotImplementedError" in err.value.message


def test_hanging_agent_times_out_sync_and_async(launch, remotes, gate):
    # The agent hangs until teardown; had the client waited for it, the call would have
    # returned "late" instead of raising, and `answered` would not be empty.
    answered: list[str] = []
    agent = FnAgent(lambda obs: (gate.wait(60), answered.append("late"), "late")[2])
    url = launch(serve(agent))
    remote = remotes(url, timeout=TIME_LIMIT)
    short_turn = observation("speak", limits={"seconds": TIME_LIMIT})

    assert [err.kind for err in failures(remote, short_turn)] == ["timeout"] * 2
    assert not answered

    # the turn's own limit applies whatever the agent's timeout (ARENA_REMOTE_TIMEOUT) says
    patient = remotes(url, timeout=60)
    with pytest.raises(AgentError) as err:
        patient.act(short_turn)
    assert err.value.kind == "timeout" and "within 1.0s" in err.value.message and not answered

    # the Space still answers other calls while those threads hang
    assert remotes(url).info(wait=False)["name"] == "fn-agent"
    assert agent.calls == 3


def test_huge_reply_is_bad_reply(launch, remotes):
    agent = FnAgent(lambda obs: "x" * 1_000_000)
    remote = remotes(launch(serve(agent)), timeout=10)
    for err in failures(remote, observation("speak")):
        assert err.kind == "bad_reply" and "larger than" in err.message


def test_non_text_reply_is_bad_reply(launch, remotes):
    values: list[Any] = []
    agent = FnAgent(lambda obs: values[-1])
    url = launch(serve(agent))
    remote = remotes(url, timeout=10)
    for value in (42, {"text": "P1"}, None, ["P1"]):
        values.append(value)
        for err in failures(remote, observation("speak")):
            assert err.kind == "bad_reply" and type(value).__name__ in err.message, value
        # the plain /speak endpoint says the same
        response = httpx.post(f"{url}gradio_api/run/speak", json={"data": [raw("speak"), ""]})
        assert response.json()["error"].startswith("bad_reply"), value
    assert agent.calls == 12


# -- secrets ----------------------------------------------------------------------
def _check_secret(url: str, agent: CountingAgent, remotes, secret: str) -> None:
    assert remotes(url).info(wait=False)["secret_required"] is True
    for given in (None, "", "wrong", secret + "x", secret[:-1]):
        with pytest.raises(AgentError) as err:
            remotes(url, secret=given).act(observation("speak"))
        assert err.value.kind == "refused", given
        assert "secret" in err.value.message
    # the raw per-verb endpoints check it too
    response = httpx.post(f"{url}gradio_api/run/vote", json={"data": [raw("vote"), "nope"]})
    assert response.json()["error"].startswith("refused")
    assert agent.calls == []  # refused before the agent ran

    owner = remotes(url, secret=secret)
    assert owner.act(observation("speak")).text == "P3 says: it is warm."

    async def go():
        return await owner.aact(observation("vote"))

    assert arun(owner, go).text == "P10"
    assert agent.calls == ["speak", "vote"]


def test_secret_argument(launch, remotes):
    agent = CountingAgent()
    _check_secret(launch(serve(agent, secret="s3cret")), agent, remotes, "s3cret")


def test_secret_from_environment(launch, remotes, monkeypatch):
    monkeypatch.setenv("AGENT_SECRET", "env-s3cret")
    agent = CountingAgent()
    _check_secret(launch(serve(agent)), agent, remotes, "env-s3cret")


def test_no_secret_accepts_any_secret(counting, remotes):
    agent, url = counting
    assert remotes(url, secret="whatever").act(observation("speak")).text.startswith("P3")
    assert agent.calls == ["speak"]


# -- unreachable and waking endpoints ----------------------------------------------------
def test_closed_port_is_unreachable(closed_port, remotes):
    remote = remotes(f"http://127.0.0.1:{closed_port}", timeout=5)
    assert [err.kind for err in failures(remote, observation("speak"))] == ["unreachable"] * 2
    with pytest.raises(AgentError) as err:
        remote.info(wait=False)
    assert err.value.kind == "unreachable"


def test_non_gradio_server_is_reported_not_crashed(remotes):
    """A plain web server answering 404 (e.g. a Space that is still building)."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class NotFound(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.send_response(404)
            self.send_header("Content-Length", "9")
            self.end_headers()
            self.wfile.write(b"not found")

    server = ThreadingHTTPServer(("127.0.0.1", 0), NotFound)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        remote = remotes(f"http://127.0.0.1:{server.server_address[1]}/", timeout=5)
        with pytest.raises(AgentError) as err:
            remote.act(observation("speak"))
        assert err.value.kind == "unreachable"
        assert "404" in err.value.message
    finally:
        server.shutdown()
        server.server_close()


def test_info_waits_for_an_endpoint_that_starts_later(remotes):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    remote = remotes(f"http://127.0.0.1:{port}/", timeout=5, wake_timeout=30)
    app = serve(CountingAgent())
    with ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(remote.info, wait=True)
        time.sleep(1.0)
        assert not waiting.done()  # still retrying: nothing listens yet
        sock.close()
        app.launch(prevent_thread_lock=True, server_name="127.0.0.1", server_port=port, quiet=True)
        try:
            info = waiting.result(timeout=30)
        finally:
            app.close()
    assert info["name"] == "counter"


def test_info_gives_up_after_wake_timeout(closed_port, remotes):
    remote = remotes(f"http://127.0.0.1:{closed_port}/", timeout=1, wake_timeout=1)
    with pytest.raises(AgentError) as err:
        remote.info(wait=True)
    assert err.value.kind == "unreachable"


# -- an LLMAgent whose model endpoint is down -------------------------------------------
def test_llm_caller_network_failure(closed_port, launch, remotes):
    caller = openai_caller(model="x", base_url=f"http://127.0.0.1:{closed_port}/v1", api_key="k",
                           timeout=2, max_retries=0)
    agent = LLMAgent(caller, name="offline-llm")

    # called directly: the caller's AgentError comes through as is
    with pytest.raises(AgentError) as direct:
        agent.act(observation("speak"))
    assert direct.value.kind == "agent_failed"
    assert "model endpoint unreachable" in direct.value.message

    # served: the kind travels back through the gr.Error message prefix
    url = launch(serve(agent))
    remote = remotes(url, timeout=10)
    for verb in ("speak", "vote", "answer"):
        for served in failures(remote, observation(verb)):
            assert served.kind == "agent_failed", verb
            assert "model endpoint unreachable" in served.message
    # the Space itself is fine
    assert remote.info(wait=False)["name"] == "offline-llm"


# -- resolve_src -----------------------------------------------------------------
@pytest.mark.parametrize("src, url", [
    ("owner/my_space", "https://owner-my-space.hf.space/"),
    ("Owner/My.Space", "https://owner-my-space.hf.space/"),
    ("  owner/agent-1  ", "https://owner-agent-1.hf.space/"),
    ("http://127.0.0.1:7860", "http://127.0.0.1:7860/"),
    ("http://127.0.0.1:7860/", "http://127.0.0.1:7860/"),
    ("https://example.org/agents/a", "https://example.org/agents/a/"),
])
def test_resolve_src(src, url):
    assert resolve_src(src) == url


@pytest.mark.parametrize("src", ["", "   ", "garbage", "owner/", "/name", "a/b/c", "ftp://host/x",
                                 "owner/na me", "-owner/name"])
def test_resolve_src_rejects_garbage(src):
    with pytest.raises(ValueError):
        resolve_src(src)
    with pytest.raises(ValueError):
        RemoteAgent(src)


# -- concurrency -----------------------------------------------------------------
def test_calls_in_flight_are_not_serialised(launch, remotes):
    # Eight calls meet at a barrier inside the agent: it only opens when all eight are
    # running at once, so a server or client that serialised them would break it.
    meeting = threading.Barrier(8, timeout=20)
    agent = FnAgent(lambda obs: (meeting.wait(), "done")[1])
    remote = remotes(launch(serve(agent)), timeout=30)

    async def go():
        return await asyncio.gather(*(remote.aact(observation("speak", match_id=f"m{i}"))
                                      for i in range(8)))

    replies = arun(remote, go)
    assert [r.text for r in replies] == ["done"] * 8
    assert agent.calls == 8

    # sync calls from several threads are concurrent too
    meeting.reset()
    with ThreadPoolExecutor(8) as pool:
        texts = list(pool.map(lambda i: remote.act(observation("speak")).text, range(8)))
    assert texts == ["done"] * 8


# -- connection lifecycle --------------------------------------------------------
def test_closed_agent_reopens_its_connections(counting, remotes):
    _, url = counting
    remote = remotes(url, timeout=10)
    assert remote.act(observation("speak")).text == "P3 says: it is warm."
    remote.close()
    # close() releases connections, it does not retire the agent
    assert remote.act(observation("vote")).text == "P10"

    async def two_calls() -> str:
        first = (await remote.aact(observation("speak"))).text
        await remote.aclose()
        return first + " / " + (await remote.aact(observation("vote"))).text

    assert arun(remote, two_calls) == "P3 says: it is warm. / P10"


def test_agent_dropped_without_close_leaves_no_open_session(counting, recwarn):
    """An agent used in a loop that has ended, then dropped, closes its session
    itself: aiohttp reports no unclosed session or connector."""
    import gc

    _, url = counting
    remote = RemoteAgent(url, timeout=10)

    async def call(agent: RemoteAgent) -> str:
        return (await agent.aact(observation("vote"))).text

    assert asyncio.run(call(remote)) == "P10"
    session = next(iter(remote._sessions.values()))
    del remote
    gc.collect()
    assert session.closed
    unclosed = [w for w in recwarn.list if "Unclosed" in str(w.message)]
    assert unclosed == []
