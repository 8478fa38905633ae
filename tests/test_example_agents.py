"""The example agents run as Spaces would: their app.py served over HTTP and played
through RemoteAgent. The OpenAI example talks to a fake OpenAI-compatible server; the
local example really runs the embedded SmolLM2-135M model."""

from __future__ import annotations

import importlib.util
import json
import sys
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType

import pytest

from sdk import AgentError, Observation, RemoteAgent, Usage

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "example_agents"
REPLIES = {
    "speak": "It is something you enjoy on a quiet morning.",
    "vote": "P2 sounded vague, but P1 repeated P3. I suspect P1 but final answer: P10",
    "answer": "Sally will look in the basket, where she left the marble.",
}
USAGE = {"speak": (31, 9), "vote": (57, 17), "answer": (44, 12)}


def load_app(folder: str) -> ModuleType:
    """Import example_agents/<folder>/app.py under a unique module name."""
    path = EXAMPLES / folder / "app.py"
    spec = importlib.util.spec_from_file_location(f"{folder}_app_{uuid.uuid4().hex[:8]}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def observation(verb: str, seconds: float = 10.0, **extra) -> Observation:
    base = {
        "game": "spy", "phase": "describe" if verb == "speak" else verb, "verb": verb, "you": "P3",
        "private": {"facts": {"word": "tea"}, "text": "Your secret word is 'tea'."},
        "history": [{"who": "P1", "kind": "statement", "text": "You drink it hot.", "round": 1},
                    {"who": "P2", "kind": "statement", "text": "It can be green.", "round": 1}],
        "instruction": {"speak": "Describe your word in one statement without saying it.",
                        "vote": "Vote for the player you think is the spy.",
                        "answer": "Where will Sally look for her marble?"}[verb],
        "limits": {"max_chars": 300, "seconds": seconds},
        "seats": ["P1", "P2", "P3", "P10"], "match_id": f"test-{verb}", "round": 1,
    }
    if verb == "vote":
        base["options"] = ["P1", "P2", "P10"]
    return Observation.model_validate({**base, **extra})


# -- a fake OpenAI-compatible endpoint -------------------------------------------
class FakeOpenAI:
    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.auth: list[str | None] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                if self.path != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                fake.requests.append(body)
                fake.auth.append(self.headers.get("Authorization"))
                user = body["messages"][-1]["content"]
                verb = ("vote" if "Final answer" in user else "answer" if "Answer concisely" in user
                        else "speak")
                prompt, completion = USAGE[verb]
                self._send(200, {
                    "id": f"chatcmpl-{len(fake.requests)}", "object": "chat.completion", "created": 0,
                    "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": REPLIES[verb]}}],
                    "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                              "total_tokens": prompt + completion},
                })

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake_openai(monkeypatch) -> Iterator[FakeOpenAI]:
    server = FakeOpenAI()
    # set before the example is imported: its llm_caller reads them at import time
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "dummy")
    monkeypatch.setenv("MODEL", "fake-model")
    yield server
    server.close()


def test_openai_example_plays_all_three_verbs(fake_openai, launch):
    module = load_app("openai_agent")
    assert module.agent.name == "openai-agent"
    remote = RemoteAgent(launch(module.app), timeout=30)
    try:
        info = remote.info(wait=False)
        assert info["name"] == "openai-agent" and info["secret_required"] is False

        speak = remote.act(observation("speak"))
        assert speak.text == REPLIES["speak"]
        assert speak.usage == Usage(prompt_tokens=31, completion_tokens=9)

        vote = remote.act(observation("vote"))
        assert vote.text == "P10"  # "P1" inside the reasoning is not taken for the answer
        assert vote.usage == Usage(prompt_tokens=57, completion_tokens=17)

        answer = remote.act(observation("answer"))
        assert answer.text == REPLIES["answer"]
        assert answer.usage == Usage(prompt_tokens=44, completion_tokens=12)

        assert remote.vote(observation("vote")) == "P10"  # the plain verb helpers work too
    finally:
        remote.close()

    assert len(fake_openai.requests) == 4
    for request, auth in zip(fake_openai.requests, fake_openai.auth, strict=True):
        assert request["model"] == "fake-model"
        assert auth == "Bearer dummy"
        assert request["messages"][0]["role"] == "system"
        assert "tea" in request["messages"][-1]["content"]


def test_openai_example_honours_agent_secret(fake_openai, launch, monkeypatch):
    monkeypatch.setenv("AGENT_SECRET", "s3cret")
    module = load_app("openai_agent")
    url = launch(module.app)
    outsider, owner = RemoteAgent(url, timeout=30), RemoteAgent(url, secret="s3cret", timeout=30)
    try:
        with pytest.raises(AgentError) as refused:
            outsider.act(observation("speak"))
        assert refused.value.kind == "refused"
        assert fake_openai.requests == []  # refused before any credits were spent
        assert owner.act(observation("speak")).text == REPLIES["speak"]
    finally:
        outsider.close()
        owner.close()


@pytest.mark.model
def test_local_example_runs_the_embedded_model(launch):
    module = load_app("local_agent")
    assert module.agent.name == "local-agent"
    remote = RemoteAgent(launch(module.app), timeout=120)
    try:
        for verb in ("speak", "vote", "answer"):
            reply = remote.act(observation(verb, seconds=120))
            assert isinstance(reply.text, str) and reply.text.strip(), verb
            assert reply.usage is not None and reply.usage.completion_tokens > 0, verb
            assert reply.usage.completion_tokens <= 2 * 48, verb  # at most one re-ask of 48 tokens
            if verb == "speak":
                assert reply.usage.completion_tokens <= 48
    finally:
        remote.close()


# -- the examples' requirements.txt install what their app imports -----------------------
# Runs app.py in a fresh interpreter that cannot import any distribution the example's
# requirements.txt would not install (as on a fresh Space), then plays one verb.
APP_WITH_ONLY_ITS_REQUIREMENTS = """
import importlib.util, json, sys
example, root, blocked = sys.argv[1], sys.argv[2], set(json.loads(sys.argv[3]))

class NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r} (requirements.txt does not install it)",
                                      name=name)
        return None

sys.meta_path.insert(0, NotInstalled())
sys.path.insert(0, root); sys.path.insert(0, example)
spec = importlib.util.spec_from_file_location("example_app", example + "/app.py")
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)  # builds the agent and its Gradio app, as the Space does
from sdk import AgentError, Observation
obs = Observation.model_validate(json.loads(sys.argv[4]))
try:
    print("reply:", module.agent.act(obs).text)
except AgentError as exc:  # the model endpoint is unreachable here: a clean agent error
    print("agent error:", exc.kind)
"""


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A loopback port that refuses connections (bound, not listening)."""
    import socket

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    yield sock.getsockname()[1]
    sock.close()


def _requirement_closure(requirements: Path) -> set[str]:
    """Every distribution that `pip install -r requirements` installs (what it lists and,
    recursively, what those require), read from the installed metadata."""
    from importlib.metadata import PackageNotFoundError, requires

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    todo = [Requirement(line.split("#")[0].strip()) for line in requirements.read_text().splitlines()
            if line.split("#")[0].strip()]
    seen: set[str] = set()
    done: set[tuple[str, str]] = set()  # (distribution, extra): an extra asked for (httpx[http2]) adds its own
    while todo:
        req = todo.pop()
        name = canonicalize_name(req.name)
        seen.add(name)
        for extra in {"", *req.extras}:
            if (name, extra) in done:
                continue
            done.add((name, extra))
            try:
                deps = requires(req.name) or []
            except PackageNotFoundError:
                continue
            for dep in map(Requirement, deps):
                if dep.marker is None or dep.marker.evaluate({"extra": extra}):
                    todo.append(dep)
    return seen


def _imports_in(path: Path) -> set[str]:
    """Top-level modules a source file imports anywhere, inside functions included."""
    import ast

    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize(("folder", "caller_module"), [("openai_agent", "openai_compat"),
                                                      ("litellm_agent", "litellm_caller"),
                                                      ("local_agent", "local")])
def test_example_runs_with_only_what_its_requirements_install(folder, caller_module, closed_port):
    import subprocess
    from importlib.metadata import packages_distributions

    from packaging.utils import canonicalize_name

    example = EXAMPLES / folder
    installed = _requirement_closure(example / "requirements.txt")
    # `sdk` ships inside the Space folder (deploy vendors it), so it is importable there even
    # though no requirement installs it; with this project installed (`pip install -e .`) the
    # metadata names it as a distribution's module, and it must not be blocked for that
    vendored = {"sdk"}
    blocked = sorted(module for module, dists in packages_distributions().items()
                     if module not in sys.stdlib_module_names and module not in vendored
                     and not {canonicalize_name(d) for d in dists} & installed)
    if folder != "litellm_agent":  # LiteLLM itself depends on aiohttp
        assert "aiohttp" in blocked  # the arena's HTTP client is not an agent Space's dependency
    # the model libraries the caller imports on its first call are installed too
    needed_later = _imports_in(ROOT / "sdk" / "callers" / f"{caller_module}.py") & set(blocked)
    assert not needed_later, f"{folder}/requirements.txt does not install {needed_later}"

    env = {"HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False", "PATH": "/usr/bin:/bin",
           "OPENAI_BASE_URL": f"http://127.0.0.1:{closed_port}/v1", "OPENAI_API_KEY": "sk-test",
           "NO_PROXY": "127.0.0.1"}
    obs = observation("speak" if folder == "local_agent" else "vote").model_dump_json()
    script = APP_WITH_ONLY_ITS_REQUIREMENTS
    if folder == "local_agent":  # building is enough here; the model itself runs in the test above
        script = script.split("from sdk import AgentError")[0] + "print('built:', module.agent.name)\n"
    proc = subprocess.run([sys.executable, "-c", script, str(example), str(ROOT), json.dumps(blocked), obs],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    # the model endpoints fail: a closed port (openai), no ANTHROPIC_API_KEY (litellm)
    expected = "built: local-agent" if folder == "local_agent" else "agent error: agent_failed"
    assert expected in proc.stdout, proc.stdout + proc.stderr[-2000:]
