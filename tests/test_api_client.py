"""The arena's named endpoints, driven through gradio_client against the real app
running in-process, with real SDK agents served on loopback."""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import gradio as gr
import httpx
import pytest
from browser_support import running_arena
from gradio_client import Client
from gradio_client.exceptions import AppError

from sdk import Agent, Observation, Reply, serve
from space_app.config import ArenaConfig

PAIR = {"pair": {"civilian": "tea", "spy": "coffee"}}
JOB_TIMEOUT = 180


class Steady(Agent):
    """Deterministic: a statement unique to its seat and round; votes the first option."""

    description = "deterministic test agent"
    games = ("spy",)

    def __init__(self, name: str, delay: float = 0.0) -> None:
        super().__init__(name)
        self.delay = delay

    def speak(self, obs: Observation) -> str:
        time.sleep(self.delay)
        return f"{obs.you} in round {obs.round}: something warm for cold mornings, says {self.name}"

    def vote(self, obs: Observation) -> str:
        time.sleep(self.delay)
        return obs.options[0] if obs.options else "abstain"

    def answer(self, obs: Observation) -> str:
        return obs.options[0] if obs.options else "no idea"


class Dying(Steady):
    """Answers its first call, then crashes on every later one."""

    def __init__(self, name: str, on_first_call: Callable[[], None] | None = None) -> None:
        super().__init__(name)
        self.calls = 0
        self.lock = threading.Lock()
        self.on_first_call = on_first_call

    def act(self, obs: Observation) -> Reply:
        with self.lock:
            self.calls += 1
            n = self.calls
        if n >= 2:
            raise RuntimeError(f"simulated crash on call {n}")
        if self.on_first_call is not None:
            self.on_first_call()
        return super().act(obs)


# -- fixtures --------------------------------------------------------------------
@pytest.fixture
def arena(tmp_path) -> Iterator[Callable[..., str]]:
    """Start the real arena in-process: arena(**config overrides, launch={...}) -> URL."""
    stack: list[Any] = []

    def start(launch: dict[str, Any] | None = None, **overrides: Any) -> str:
        settings = {"db": str(tmp_path / f"arena{len(stack)}.db"), "demo_matches": 0,
                    "allow_private_urls": True, **overrides}
        ctx = running_arena(ArenaConfig(**settings), **(launch or {}))
        _, url = ctx.__enter__()
        stack.append(ctx)
        return url

    yield start
    for ctx in reversed(stack):
        ctx.__exit__(None, None, None)


def client_for(url: str) -> Client:
    return Client(url, verbose=False, httpx_kwargs={"timeout": 120})


def call(client: Client, api_name: str, *args: Any, **kwargs: Any) -> Any:
    return client.submit(*args, api_name=api_name, **kwargs).result(timeout=JOB_TIMEOUT)


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/"


def registered_ids(client: Client) -> list[str]:
    return sorted(a["id"] for a in call(client, "/list_agents"))


def assert_refused(client: Client, src: str, *reasons: str, **kwargs: Any) -> str:
    before = registered_ids(client)
    with pytest.raises(AppError) as info:
        call(client, "/register_agent", src=src, **kwargs)
    message = str(info.value)
    assert any(r.lower() in message.lower() for r in reasons), message
    assert "Traceback" not in message
    assert registered_ids(client) == before, "a refused agent must not be stored"
    return message


# -- the happy path through every endpoint ----------------------------------------------
def test_every_endpoint_through_gradio_client(arena, launch):
    url = arena()
    alpha_url = launch(serve(Steady("alpha")))
    bravo_url = launch(serve(Steady("bravo"), secret="s3"))
    client = client_for(url)

    alpha = call(client, "/register_agent", src=alpha_url, name="alpha")
    bravo = call(client, "/register_agent", src=bravo_url, name="bravo", secret="s3")
    assert alpha["name"] == "alpha" and alpha["info"]["name"] == "alpha"
    assert bravo["info"]["secret_required"] is True
    alpha_id, bravo_id = alpha["agent_id"], bravo["agent_id"]

    agents = call(client, "/list_agents")
    by_id = {a["id"]: a for a in agents}
    assert {alpha_id, bravo_id, "house:heuristic", "house:random"} <= set(by_id)
    assert by_id[bravo_id]["has_secret"] is True and by_id[alpha_id]["has_secret"] is False
    assert "s3" not in repr(agents), "a secret value leaked through list_agents"
    assert all("secret" not in a for a in agents)

    seats = [alpha_id, bravo_id, "house:heuristic", "house:random", "", ""]
    outcome = call(client, "/run_match", game="spy", seats=seats, seed=11, settings=PAIR)
    assert outcome["status"] == "finished", outcome
    match_id = outcome["match_id"]
    assert outcome["result"]["winner"] in ("spy", "civilian")

    match = call(client, "/get_match", match_id=match_id)
    assert match["status"] == "finished" and match["result"]
    assert [s["agent_id"] for s in match["seats"]][:4] == seats[:4]
    kinds = {e["kind"] for e in match["events"]}
    assert {"setup", "private", "statement", "vote", "call", "end"} <= kinds
    setup = next(e for e in match["events"] if e["kind"] == "setup")
    assert setup["data"]["pair"]["civilian"] == "tea" and setup["data"]["pair"]["spy"] == "coffee"
    alpha_lines = [e["text"] for e in match["events"] if e["kind"] == "statement" and e["actor"] == "P1"]
    assert alpha_lines and all("says alpha" in t for t in alpha_lines)
    bravo_calls = [e for e in match["events"] if e["kind"] == "call" and e["actor"] == "P2"]
    assert bravo_calls and all(e["data"]["status"] == "ok" for e in bravo_calls), \
        "the registered secret must reach the agent"

    seen = call(client, "/get_match", match_id=match_id, seat="P1")
    seen_kinds = {e["kind"] for e in seen["events"]}
    assert "setup" not in seen_kinds and "call" not in seen_kinds
    privates = [e for e in seen["events"] if e["kind"] == "private"]
    assert len(privates) == 1 and privates[0]["visible_to"] == ["P1"]
    assert all(e["visible_to"] is None or e["visible_to"] == ["P1"] for e in seen["events"])
    assert "statement" in seen_kinds

    listed = call(client, "/list_matches")
    assert match_id in [m["id"] for m in listed]
    assert [m for m in call(client, "/list_matches", agent=alpha_id) if m["id"] == match_id]

    board = call(client, "/leaderboard", game="spy")
    ranked = {r["agent"]: r for r in board}
    assert {alpha_id, bravo_id} <= set(ranked)
    assert ranked[alpha_id]["matches"] == 1
    # the match came through the API: a visitor match, in the default filter and not in 'demo'
    assert [m["source"] for m in listed if m["id"] == match_id] == ["visitor"]
    assert alpha_id not in {r["agent"] for r in call(client, "/leaderboard", game="spy", sources="demo")}
    assert call(client, "/leaderboard", game="spy", sources="all") == board
    with pytest.raises(AppError, match="unknown match source 'bogus'"):
        call(client, "/leaderboard", game="spy", sources="default,bogus")

    # head to head over the same match: each pair on opposite teams met once, mirrored cells add up to 1
    h2h = call(client, "/head_to_head", game="spy")
    assert h2h["matches"] == 1 and h2h["filter"]["sources"] == "default" and "opposite teams" in h2h["definition"]
    assert set(h2h["agents"]) <= set(ranked) and h2h["cells"]
    cells = {(c["a"], c["b"]): c for c in h2h["cells"]}
    for (a, b), c in cells.items():
        mirror = cells[(b, a)]
        assert c["matches"] == 1 and (c["wins"], c["losses"], c["draws"]) == (mirror["losses"], mirror["wins"],
                                                                            mirror["draws"])
        assert c["win_rate"] + mirror["win_rate"] == pytest.approx(1.0)
        assert c["win_rate_low"] <= c["win_rate"] <= c["win_rate_high"] and c["win_rate_n"] == 1
    winners = {r["agent"] for r in board if r["win_rate"] == 1.0}
    losers = {r["agent"] for r in board if r["win_rate"] == 0.0}
    assert all(cells[(w, x)]["wins"] == 1 for w in winners for x in losers if (w, x) in cells)
    only = call(client, "/head_to_head", game="spy", agents=f"{alpha_id},{bravo_id}")
    assert set(only["agents"]) <= {alpha_id, bravo_id}
    assert all({c["a"], c["b"]} == {alpha_id, bravo_id} for c in only["cells"])
    assert call(client, "/head_to_head", game="spy", sources="demo")["matches"] == 0
    with pytest.raises(AppError, match="unknown game 'chess'"):
        call(client, "/head_to_head", game="chess")

    page = httpx.get(f"{url}?match={match_id}", timeout=60)
    assert page.status_code == 200 and "<html" in page.text.lower()


def test_get_match_unknown_or_garbage_is_not_found(arena):
    client = client_for(arena())
    for bad in ("doesnotexist", "<script>alert(1)</script>", "../../etc/passwd", "x" * 500, ""):
        with pytest.raises(AppError, match="match not found"):
            call(client, "/get_match", match_id=bad)


def test_a_refused_call_leaves_no_traceback_in_the_server_log(arena, capfd):
    client = client_for(arena())
    capfd.readouterr()
    for api_name, kwargs in (("/get_match", {"match_id": "doesnotexist"}), ("/list_matches", {"limit": "abc"}),
                             ("/run_match", {"game": "chess", "seats": ["house:random"] * 6})):
        with pytest.raises(AppError):
            call(client, api_name, **kwargs)
    logged = capfd.readouterr().err
    assert "Traceback" not in logged, logged


def test_list_matches_refuses_a_limit_that_is_not_a_number_naming_it(arena):
    client = client_for(arena())
    call(client, "/run_match", game="spy", seats=["house:random"] * 6, seed=1, settings=PAIR)
    for bad, shown in (("abc", "'abc'"), ("2.5", "'2.5'"), ([3], "list"), ({"n": 1}, "dict")):
        with pytest.raises(AppError) as info:
            call(client, "/list_matches", limit=bad)
        assert str(info.value) == f"limit must be a whole number from 1 to 500, not {shown}"
    # numbers, as numbers or as text, are read; beyond the range they are kept within it
    for good in (20, "20", " 7 ", 10_000, -3):
        assert len(call(client, "/list_matches", limit=good)) == 1


# -- registration refusals -------------------------------------------------------------
def test_register_closed_port_is_refused(arena):
    client = client_for(arena())
    assert_refused(client, closed_port_url(), "did not answer")


def test_register_a_gradio_app_that_is_not_an_agent_is_refused(arena, launch):
    with gr.Blocks() as plain:
        gr.Markdown("# Just a page")
    client = client_for(arena())
    # Gradio answers an unknown endpoint with HTTP 500 ("Could not infer function index");
    # the refusal must say it was refused and why (ideally "not as a Deduction Arena agent")
    message = assert_refused(client, launch(plain), "not a Deduction Arena agent")
    assert message.startswith("refused")


def test_register_a_plain_404_server_is_refused(arena):
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class NotFound(BaseHTTPRequestHandler):
        def _404(self) -> None:
            self.send_response(404)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(b"not here")

        do_GET = do_POST = _404

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), NotFound)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = client_for(arena())
        assert_refused(client, f"http://127.0.0.1:{server.server_address[1]}/",
                       "not a Deduction Arena agent")
    finally:
        server.shutdown()
        server.server_close()


def test_register_without_the_required_secret_is_refused(arena, launch):
    agent_url = launch(serve(Steady("locked"), secret="s3"))
    client = client_for(arena())
    assert_refused(client, agent_url, "requires a secret")
    assert_refused(client, agent_url, "secret", secret="wrong")


def test_space_mode_refuses_private_addresses(arena, launch):
    agent_url = launch(serve(Steady("inward")))
    url = arena(space_id="x/y", allow_private_urls=False,
                launch={"auth_dependency": lambda request: "tester"})
    client = client_for(url)
    message = assert_refused(client, agent_url, "non-public")
    assert "127.0.0.1" in message
    # without a signed-in user a Space refuses registration before looking at the URL
    anonymous = client_for(arena(space_id="x/y", allow_private_urls=False))
    assert_refused(anonymous, agent_url, "sign in")


# -- failures during a match -------------------------------------------------------------
@pytest.mark.parametrize("how", ["raises", "server_closed"])
def test_agent_dying_mid_match_does_not_stop_the_match(arena, launch, how):
    first_call = threading.Event()
    dying = Dying("dying", on_first_call=first_call.set)
    if how == "raises":
        dying_app = serve(dying)
    else:
        # answers its first call (slowly, while its server is being closed), then is gone
        dying = Steady("dying")
        steady_speak = dying.speak

        def slow_first(obs: Observation) -> str:
            first_call.set()
            time.sleep(1.5)
            return steady_speak(obs)

        dying.speak = slow_first  # type: ignore[method-assign]
        dying_app = serve(dying)
    dying_url = launch(dying_app)
    steady_url = launch(serve(Steady("steady")))
    client = client_for(arena())
    dying_id = call(client, "/register_agent", src=dying_url)["agent_id"]
    steady_id = call(client, "/register_agent", src=steady_url)["agent_id"]

    seats = [steady_id, steady_id, steady_id, steady_id, steady_id, dying_id]
    job = client.submit(game="spy", seats=seats, seed=5, settings=PAIR, api_name="/run_match")
    if how == "server_closed":
        assert first_call.wait(60), "the dying agent was never called"
        dying_app.close()
    outcome = job.result(timeout=JOB_TIMEOUT)
    assert outcome["status"] == "finished", outcome

    match = call(client, "/get_match", match_id=outcome["match_id"])
    events = match["events"]
    calls = [e for e in events if e["kind"] == "call" and e["actor"] == "P6"]
    assert calls[0]["data"]["status"] == "ok"
    failed = [e for e in calls if e["data"]["status"] == "error"]
    assert failed, [e["data"] for e in calls]
    expected = "simulated crash" if how == "raises" else "unreachable"
    assert all(expected in e["data"]["detail"] for e in failed), [e["data"]["detail"] for e in failed]
    # the game shows the failure where it happened: an abstention or a foul, with its reason
    shown = [e for e in events if e["actor"] == "P6" and e["kind"] in ("vote", "foul")
             and e["data"].get("reason") and e["data"]["reason"] != "abstained"]
    assert shown, "the failure must show as an abstention or a foul with a reason"
    for e in shown:
        if e["kind"] == "vote":
            assert e["text"] == "P6 abstains." and e["data"]["reason"].startswith("error:")
        else:
            assert "failed" in e["data"]["reason"]
    # the others kept playing to the end
    assert any(e["kind"] == "end" for e in events)
    assert [e for e in events if e["kind"] == "call" and e["actor"] != "P6"
            and e["data"]["status"] == "ok" and e["round"] and e["round"] >= 1]


# -- admission control -----------------------------------------------------------------
def test_one_visitor_cannot_exceed_their_match_limit(arena, launch):
    slow_url = launch(serve(Steady("slow", delay=0.5)))
    url = arena(max_matches_per_visitor=1)
    client = client_for(url)
    slow_id = call(client, "/register_agent", src=slow_url)["agent_id"]
    seats = [slow_id] * 6

    first = client.submit(game="spy", seats=seats, seed=3, settings=PAIR, api_name="/run_match")
    deadline = time.monotonic() + 60
    while not call(client, "/list_matches", status="running"):
        assert time.monotonic() < deadline, "the first match never started"
        assert not first.done(), f"the first match ended too soon: {first.result()}"
        time.sleep(0.1)
    second = client.submit(game="spy", seats=seats, seed=4, settings=PAIR, api_name="/run_match")
    with pytest.raises(AppError) as info:
        second.result(timeout=JOB_TIMEOUT)
    message = str(info.value)
    assert "already have" in message and "limit" in message, message
    assert first.result(timeout=JOB_TIMEOUT)["status"] == "finished"
    # once it is over, the same visitor may start another
    again = call(client, "/run_match", game="spy", seats=["house:random"] * 6, seed=9, settings=PAIR)
    assert again["status"] == "finished"


@pytest.mark.parametrize(("request_body", "why"), [
    ({"game": "spy", "seats": ["house:random" + "x" * 400]}, "seats.0"),
    ({"game": "spy", "seats": ["house:random"] * 13}, "seats"),
    ({"game": "g" * 41}, "game"),
    ({"game": "spy", "settings": {"pairs": [{"civilian": f"w{i}", "spy": f"v{i}"} for i in range(4000)]}},
     "larger than"),
    ({"game": "spy", "settings": {"rounds": 9}}, "rounds"),
])
def test_oversized_or_invalid_match_requests_are_refused_with_the_reason(tmp_path, request_body, why):
    from space_app.api import ApiError, ArenaAPI

    api = ArenaAPI(ArenaConfig(db=str(tmp_path / "a.db"), demo_matches=0))
    with pytest.raises(ApiError) as caught:
        api.plan(request_body, owner="visitor")
    assert why in str(caught.value)
    assert api.store.list_matches() == []
    api.store.close()


def test_a_match_request_can_bring_its_own_word_pairs(tmp_path):
    from space_app.api import ArenaAPI

    api = ArenaAPI(ArenaConfig(db=str(tmp_path / "a.db"), demo_matches=0))
    pairs = [{"civilian": "harbour", "spy": "marina"}]
    result = api.arena.run_in_own_loop(api.run_match({"game": "spy", "seats": ["house:heuristic"] * 6,
                                                      "seed": 4, "settings": {"pairs": pairs}},
                                                     visitor="v"))
    match = api.store.get_match(result["match_id"])
    assert set(match["result"]["words"].values()) == {"harbour", "marina"}
    api.store.close()


def test_the_readme_api_example_runs_as_written(arena, launch, capsys):
    """The README's gradio_client example, read from the README, with only its two
    addresses pointed at this test's arena and agent."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## API (`gradio_client`)", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert "http://127.0.0.1:7860/" in code and "http://127.0.0.1:7861/" in code

    url = arena()
    agent_url = launch(serve(Steady("my-agent")))
    live = {"http://127.0.0.1:7861/": agent_url, "http://127.0.0.1:7860/": url}  # one pass: ports may swap
    code = re.sub("|".join(map(re.escape, live)), lambda m: live[m.group(0)], code)
    scope: dict[str, Any] = {}
    exec(compile(code, "README.md (API example)", "exec"), scope)

    assert scope["reg"]["name"] == "my-agent"
    assert scope["match"]["status"] == "finished"
    match_id = scope["match"]["match_id"]
    record, seat_view = scope["record"], scope["seat_view"]
    assert record["id"] == match_id and record["result"]["winner"] in ("spy", "civilian")
    assert any(e["kind"] == "call" for e in record["events"])  # the spectator record has everything
    assert all(e["visible_to"] is None or "P1" in e["visible_to"] for e in seat_view["events"])
    assert len(seat_view["events"]) < len(record["events"])
    assert any(row["agent"] == scope["reg"]["agent_id"] for row in scope["board"])
    assert match_id in {m["id"] for m in scope["recent"]}
    assert f"?match={match_id}" in capsys.readouterr().out
