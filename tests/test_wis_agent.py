"""WiSAgent against the reference WiS implementation (`spy-agent-build-sdk` from PyPI).

The reference pins old FastAPI/uvicorn/langchain, so it lives in its own clean
virtualenv, built once and cached under ~/.cache/deduction-arena/ (keyed by the
package version). Each WiS player is a separate server process: the reference
keeps one process-wide memory, so a server is one player in one game.
"""

from __future__ import annotations

import asyncio
import fcntl
import itertools
import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from sdk import Agent, AgentError, Observation
from space_app.core.events import Call
from space_app.games.spy.events import Elimination, Foul, RoundStart, Statement, Vote, VoteResult
from space_app.games.spy.rules import SpyGame, SpySettings
from space_app.games.spy.wis import WiSAgent
from space_app.games.spy.words import WordPair
from space_app.runner import MatchOutcome, SeatAgent, new_match_id, play

WIS_PACKAGE = "spy-agent-build-sdk"
WIS_VERSION = "0.0.29"
SEATS = [f"P{i}" for i in range(1, 7)]
SEED = 3  # with the pair below: spy P2, opener P5


# -- the reference's virtualenv -------------------------------------------------
@pytest.fixture(scope="session")
def wis_python() -> Path:
    root = Path(os.environ.get("DEDUCTION_ARENA_CACHE", Path.home() / ".cache" / "deduction-arena"))
    root.mkdir(parents=True, exist_ok=True)
    venv = root / f"wisvenv-{WIS_VERSION}"
    python = venv / "bin" / "python"
    ready = venv / ".ready"
    with open(root / f"wisvenv-{WIS_VERSION}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel test runs build it once
        if not ready.exists():
            subprocess.run(["rm", "-rf", str(venv)], check=True)
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            pip = subprocess.run(
                [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q",
                 f"{WIS_PACKAGE}=={WIS_VERSION}"],
                capture_output=True, text=True, timeout=1200)
            if pip.returncode != 0:
                pytest.fail(f"could not install {WIS_PACKAGE}=={WIS_VERSION}:\n{pip.stderr[-3000:]}")
            subprocess.run([str(python), "-c", "import agent_build_sdk.server.server"], check=True,
                           timeout=120)
            ready.write_text(f"{WIS_PACKAGE}=={WIS_VERSION}\n")
    return python


# -- a WiS agent written the way the reference intends --------------------------
# BasicAgent subclass + EndpointServer(agent).app served by uvicorn (EndpointServer.start
# is hard-wired to 0.0.0.0:7860, so the app is served on a free loopback port instead).
# A thin ASGI wrapper logs every request (path + JSON body) to a JSONL file.
SERVER_SCRIPT = textwrap.dedent('''
    import argparse, json, threading

    import uvicorn
    from agent_build_sdk.model.model import (AgentReq, AgentResp, STATUS_DISTRIBUTION, STATUS_RESULT,
        STATUS_ROUND, STATUS_START, STATUS_VOTE, STATUS_VOTE_RESULT)
    from agent_build_sdk.sdk.agent import BasicAgent
    from agent_build_sdk.server.server import EndpointServer

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--speak", default="ok")  # ok | false | crash | noresult
    parser.add_argument("--vote", default="ok")
    args = parser.parse_args()


    class ScriptedSpyAgent(BasicAgent):
        """Deterministic: stock clues that never contain the word and never repeat;
        votes for the first candidate that is not itself."""

        def perceive(self, req=AgentReq):
            if req.status == STATUS_START:
                self.memory.clear()
                self.memory.set_variable("name", req.message)
                self.memory.set_variable("said", 0)
            elif req.status == STATUS_DISTRIBUTION:
                self.memory.set_variable("word", req.word)
            elif req.status == STATUS_ROUND:
                if req.name:
                    self.memory.append_history(req.name + ": " + req.message)
                else:
                    self.memory.append_history("host: round {}".format(req.round))
            elif req.status == STATUS_VOTE:
                self.memory.append_history(req.name + ": " + req.message)  # as the reference example
            elif req.status == STATUS_VOTE_RESULT:
                out = req.message if req.name else "nobody"
                self.memory.append_history("host: out: {}".format(out))
            elif req.status == STATUS_RESULT:
                self.memory.append_history(req.message)
            else:
                raise NotImplementedError(req.status)

        def _fail(self, mode):
            if mode == "false":
                return AgentResp(success=False, errMsg="scripted failure")
            if mode == "crash":
                raise RuntimeError("scripted crash")
            if mode == "noresult":
                return AgentResp(success=True)
            return None

        def interact(self, req=AgentReq) -> AgentResp:
            name = self.memory.load_variable("name")
            if req.status == STATUS_ROUND:
                failed = self._fail(args.speak)
                if failed is not None:
                    return failed
                said = self.memory.load_variable("said") + 1
                self.memory.set_variable("said", said)
                return AgentResp(success=True, result="{} clue {} {}".format(name, req.round, said))
            if req.status == STATUS_VOTE:
                failed = self._fail(args.vote)
                if failed is not None:
                    return failed
                choices = [x for x in req.message.split(",") if x != name]
                return AgentResp(success=True, result=choices[0])
            raise NotImplementedError(req.status)


    lock = threading.Lock()


    def logged(app):
        async def wrapper(scope, receive, send):
            if scope["type"] != "http":
                return await app(scope, receive, send)
            chunks = []

            async def recv():
                message = await receive()
                if message["type"] == "http.request":
                    chunks.append(message.get("body", b""))
                    if not message.get("more_body"):
                        raw = b"".join(chunks)
                        try:
                            body = json.loads(raw) if raw else None
                        except ValueError:
                            body = raw.decode("utf-8", "replace")
                        with lock, open(args.log, "a", encoding="utf-8") as f:
                            f.write(json.dumps({"path": scope["path"], "body": body}) + "\\n")
                return message

            await app(scope, recv, send)
        return wrapper


    server = EndpointServer(ScriptedSpyAgent("scripted", model_name="scripted-model"))
    uvicorn.run(logged(server.app), host="127.0.0.1", port=args.port, log_level="warning")
''')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WiSServer:
    def __init__(self, proc: subprocess.Popen, url: str, log: Path, err: Path) -> None:
        self.proc, self.url, self.log, self.err = proc, url, log, err

    def requests(self, path: str | None = None) -> list[dict]:
        if not self.log.exists():
            return []
        rows = [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines() if line]
        return [r for r in rows if path is None or r["path"] == path]

    def protocol(self) -> list[dict]:
        """Game protocol calls (info calls left out): [{'route': 'perceive', **body}, ...]."""
        return [{"route": r["path"].rsplit("/", 1)[-1], **(r["body"] or {})} for r in self.requests()
                if r["path"] not in ("/agent/checkHealth", "/agent/getModelName")]


@pytest.fixture
def wis_servers(wis_python: Path, tmp_path: Path) -> Iterator[Callable[..., list[WiSServer]]]:
    script = tmp_path / "scripted_wis_agent.py"
    script.write_text(SERVER_SCRIPT, encoding="utf-8")
    started: list[WiSServer] = []
    counter = itertools.count()

    def start(*modes: dict[str, str]) -> list[WiSServer]:
        """Start one server per modes dict (e.g. {'speak': 'false'}) in parallel; wait for health."""
        servers = []
        for mode in modes:
            n, port = next(counter), free_port()
            log, err = tmp_path / f"wis{n}.jsonl", tmp_path / f"wis{n}.err"
            args = [str(wis_python), str(script), "--port", str(port), "--log", str(log)]
            for key, value in mode.items():
                args += [f"--{key}", value]
            with open(err, "wb") as stderr:
                proc = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=stderr)
            server = WiSServer(proc, f"http://127.0.0.1:{port}", log, err)
            started.append(server)
            servers.append(server)
        deadline = time.monotonic() + 60
        for server in servers:
            while True:
                if server.proc.poll() is not None:
                    pytest.fail(f"WiS server exited:\n{server.err.read_text()[-3000:]}")
                try:
                    r = httpx.post(f"{server.url}/agent/checkHealth", json={}, timeout=2)
                    if r.status_code == 200 and r.json().get("success") is True:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    pytest.fail(f"WiS server did not come up:\n{server.err.read_text()[-3000:]}")
                time.sleep(0.1)
        return servers

    yield start
    for server in started:
        if server.proc.poll() is None:
            server.proc.terminate()
    for server in started:
        try:
            server.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.proc.kill()
            server.proc.wait(timeout=10)


# -- the match -----------------------------------------------------------------
class LocalAgent(Agent):
    name = "local"

    def speak(self, obs: Observation) -> str:
        return f"{obs.you} local remark {obs.round}"

    def vote(self, obs: Observation) -> str:
        return obs.options[-1]


def new_game() -> SpyGame:
    game = SpyGame(SEATS, SEED, SpySettings(pair=WordPair(civilian="tea", spy="coffee")))
    game.match_id = new_match_id()
    return game


def run_match(game: SpyGame, wis: dict[str, WiSAgent]) -> MatchOutcome:
    local = LocalAgent()
    seats = {s: SeatAgent(wis[s], f"wis-{s}") if s in wis else SeatAgent(local, "local") for s in SEATS}
    return asyncio.run(play(game, seats))


def calls(outcome: MatchOutcome, seat: str) -> list:
    return [e for e in outcome.events if isinstance(e, Call) and e.actor == seat]


def seen_before_last_call(outcome: MatchOutcome, seat: str) -> list:
    """Public events up to the seat's last call: what the adapter had to forward."""
    last = max(i for i, e in enumerate(outcome.events) if isinstance(e, Call) and e.actor == seat)
    return [e for e in outcome.events[:last] if e.visible_to is None]


def test_wis_seats_play_a_full_match(wis_servers) -> None:
    wis_seats = ["P2", "P4"]  # P2 is the spy ('coffee'), P4 a civilian ('tea')
    servers = dict(zip(wis_seats, wis_servers({}, {}), strict=True))
    agents = {s: WiSAgent(servers[s].url, timeout=10, name=f"wis-{s}") for s in wis_seats}
    info = agents["P2"].info()
    assert info["model_name"] == "scripted-model" and info["healthy"] and info["games"] == ["spy"]

    game = new_game()
    outcome = run_match(game, agents)
    assert outcome.status == "finished", outcome.error
    assert game.over and outcome.result["rounds_played"] == 3  # ties in rounds 2-3 keep it going

    for seat in wis_seats:
        server, word = servers[seat], game.words[seat]
        seat_calls = calls(outcome, seat)
        assert seat_calls and all(c.status == "ok" for c in seat_calls), seat_calls
        speaks = [c for c in seat_calls if c.verb == "speak"]
        votes = [c for c in seat_calls if c.verb == "vote"]
        assert len(speaks) == 3 and len(votes) == 3
        # statements are plain statements, never fouls
        said = [e for e in outcome.events if isinstance(e, Statement) and e.actor == seat]
        assert [e.text for e in said] == [f"{seat} clue {r} {r}" for r in (1, 2, 3)]
        assert not any(e.foul for e in said)
        assert not any(isinstance(e, Foul) and e.actor == seat for e in outcome.events)
        # votes are valid options: the first candidate the server was offered
        cast = [e for e in outcome.events if isinstance(e, Vote) and e.actor == seat]
        assert len(cast) == 3 and all(e.target in SEATS and e.target != seat for e in cast)

        # -- what the server received ------------------------------------------
        proto = server.protocol()
        assert [p["route"] for p in proto[:3]] == ["init", "perceive", "perceive"]
        assert proto[1] == {"route": "perceive", "status": "start", "message": seat}
        assert proto[2] == {"route": "perceive", "status": "distribution", "word": word}
        assert sum(p["route"] == "init" for p in proto) == 1
        perceives = [p for p in proto if p["route"] == "perceive"][2:]
        interacts = [p for p in proto if p["route"] == "interact"]
        seen = seen_before_last_call(outcome, seat)

        host_rounds = [p["round"] for p in perceives if p["status"] == "round" and "name" not in p]
        assert host_rounds == [e.round for e in seen if isinstance(e, RoundStart)] == [1, 2, 3]
        heard = [(p["name"], p["message"], p["round"]) for p in perceives
                 if p["status"] == "round" and "name" in p]
        assert heard == [(e.actor, e.text, e.round) for e in seen
                         if isinstance(e, Statement) and e.actor != seat]
        assert all(name != seat for name, _, _ in heard)  # own statements are not echoed
        vote_perceives = [(p["name"], p["message"]) for p in perceives if p["status"] == "vote"]
        assert vote_perceives == [(e.actor, e.target) for e in seen
                                  if isinstance(e, Vote) and e.actor != seat and e.target]
        results = [(p.get("name"), p["message"]) for p in perceives if p["status"] == "vote_result"]
        expected = [(e.eliminated, e.eliminated or "") for e in seen
                    if isinstance(e, VoteResult)]
        assert results == expected and results[0] == ("P6", "P6") and results[1] == (None, "")

        assert [i["status"] for i in interacts] == ["round", "vote"] * 3
        assert [i["round"] for i in interacts] == [1, 1, 2, 2, 3, 3]
        vote_offers = [i["message"].split(",") for i in interacts if i["status"] == "vote"]
        assert all(seat not in offer for offer in vote_offers)
        assert [offer[0] for offer in vote_offers] == [e.target for e in cast]

    for agent in agents.values():
        agent.close()


def test_failing_wis_seats_foul_or_abstain_and_the_match_finishes(wis_servers) -> None:
    # P1 answers success=false when asked to speak; P3 speaks but crashes (HTTP 500) on
    # votes; P2 speaks but votes with no result; P4 points at a port nobody listens on.
    false_speak, crash_vote, no_result = wis_servers({"speak": "false"}, {"vote": "crash"},
                                                     {"vote": "noresult"})
    urls = {"P1": false_speak.url, "P3": crash_vote.url, "P2": no_result.url,
            "P4": f"http://127.0.0.1:{free_port()}"}
    agents = {s: WiSAgent(u, timeout=5, name=f"wis-{s}") for s, u in urls.items()}
    with pytest.raises(AgentError) as err:
        agents["P4"].info()
    assert err.value.kind == "unreachable"

    game = new_game()
    outcome = run_match(game, agents)
    assert outcome.status == "finished", outcome.error

    def first_call(seat: str, verb: str):
        return next(c for c in calls(outcome, seat) if c.verb == verb)

    p1 = first_call("P1", "speak")
    assert p1.status == "error" and "agent_failed" in p1.detail
    assert "scripted failure" in p1.detail
    p4 = first_call("P4", "speak")
    assert p4.status == "error" and "unreachable" in p4.detail
    eliminated = [(e.actor, e.reason, e.round) for e in outcome.events if isinstance(e, Elimination)]
    assert ("P1", "foul", 1) in eliminated and ("P4", "foul", 1) in eliminated
    assert {e.actor for e in outcome.events if isinstance(e, Foul)} == {"P1", "P4"}

    p3 = first_call("P3", "vote")
    assert p3.status == "error" and "HTTP 500" in p3.detail
    p2 = first_call("P2", "vote")
    assert p2.status == "error" and "bad_reply" in p2.detail
    abstained = {e.actor for e in outcome.events
                 if isinstance(e, Vote) and e.round == 1 and not e.target}
    assert {"P2", "P3"} <= abstained
    # their statements were fine
    assert all(c.status == "ok" for s in ("P2", "P3") for c in calls(outcome, s)
               if c.verb == "speak")
    # the foul eliminations reached the survivors as vote_result perceives
    outs = [p.get("name") for p in crash_vote.protocol() if p.get("status") == "vote_result"]
    assert outs[:2] == ["P1", "P4"]
    for agent in agents.values():
        agent.close()


# -- fast checks with an in-process transport -----------------------------------
def _obs(verb: str = "speak", **kw) -> Observation:
    return Observation(game="spy", verb=verb, you="P1", match_id="m1", round=1,
                       options=["P2", "P3"] if verb == "vote" else [],
                       private={"facts": {"word": "tea"}}, seats=SEATS, **kw)


@pytest.mark.parametrize("status, body, kind", [
    (200, b"not json", "bad_reply"),
    (200, b"[1, 2]", "bad_reply"),
    (200, b'{"success": true}', "bad_reply"),
    (200, b'{"success": true, "result": 3}', "bad_reply"),
    (200, b'{"success": false, "errMsg": "nope"}', "agent_failed"),
    (422, b'{"detail": []}', "refused"),
    (500, b"Internal Server Error", "agent_failed"),
    (404, b"Not Found", "unreachable"),
])
def test_bad_interact_replies_raise_agent_errors(status: int, body: bytes, kind: str) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/interact"):
            return httpx.Response(status, content=body)
        return httpx.Response(200, json={"success": True})

    agent = WiSAgent("http://wis.test", transport=httpx.MockTransport(handler))
    with pytest.raises(AgentError) as err:
        agent.speak(_obs())
    assert err.value.kind == kind


def test_timeout_and_answer_and_other_games() -> None:
    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow", request=request)

    agent = WiSAgent("http://wis.test", transport=httpx.MockTransport(slow))
    with pytest.raises(AgentError) as err:
        agent.speak(_obs())
    assert err.value.kind == "timeout"
    with pytest.raises(AgentError) as err:
        agent.answer(_obs())
    assert err.value.kind == "refused"
    with pytest.raises(AgentError) as err:
        agent.speak(_obs().model_copy(update={"game": "avalon"}))
    assert err.value.kind == "refused"


def test_one_agent_in_concurrent_matches_keeps_state_per_match() -> None:
    """The same WiSAgent sits in P2 and P4 of two concurrent matches: every (match, seat)
    gets its own init/start/distribution and its own history catch-up."""
    received: list[dict] = []
    clue = itertools.count(1)

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content or b"{}")
        received.append({"route": request.url.path.rsplit("/", 1)[-1], **body})
        if request.url.path.endswith("/interact"):
            if body["status"] == "round":
                return httpx.Response(200, json={"success": True, "result": f"mock clue {next(clue)}"})
            return httpx.Response(200, json={"success": True, "result": body["message"].split(",")[0]})
        return httpx.Response(200, json={"success": True})

    agent = WiSAgent("http://wis.test", transport=httpx.MockTransport(handler))
    local = LocalAgent()
    games = [new_game(), new_game()]
    seats = {s: SeatAgent(agent, "wis") if s in ("P2", "P4") else SeatAgent(local, "local") for s in SEATS}

    async def both() -> list[MatchOutcome]:
        return await asyncio.gather(*(play(g, seats) for g in games))

    outcomes = asyncio.run(both())
    assert all(o.status == "finished" for o in outcomes)
    for o in outcomes:
        assert all(c.status == "ok" for s in ("P2", "P4") for c in calls(o, s))
    assert sum(r["route"] == "init" for r in received) == 4
    starts = sorted(r["message"] for r in received if r.get("status") == "start")
    assert starts == ["P2", "P2", "P4", "P4"]
    words = sorted(r["word"] for r in received if r.get("status") == "distribution")
    assert words == ["coffee", "coffee", "tea", "tea"]
    host_rounds = [r for r in received if r.get("status") == "round" and r["route"] == "perceive"
                   and "name" not in r]
    assert len(host_rounds) == 4 * 3  # each (match, seat) hears each round opened exactly once
    agent.close()
