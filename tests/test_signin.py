"""Sign-in by bearer token never makes the arena wait: the real arena on loopback, its sign-in
lookups going to a stand-in hub (`stand_in_hub.py`) that holds its answers until the test lets
them go. Other requests are served meanwhile; answers (refusals too) are cached by a hash of
the token; concurrent requests with one new token share a lookup; and an address may cause
only so many lookups a minute."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import httpx
from stand_in_hub import StandInHub, stand_in_hub

from space_app.config import ArenaConfig
from space_app.signin import SignIn, token_key

HELD = 120  # seconds a test waits for something that must happen (a failure bound, not a measure)


@contextmanager
def arena_signing_in_at(hub: StandInHub, tmp_path: Any, **settings: Any) -> Iterator[str]:
    """The real arena (Space mode unless told), its token lookups going to `hub`."""
    from space_app.main import create_arena

    config = ArenaConfig(**{"db": str(tmp_path / "arena.db"), "demo_matches": 0, "space_id": "x/y", **settings})
    demo, launch_kwargs = create_arena(config, whoami=hub.lookup())
    demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", server_port=None, quiet=True, **launch_kwargs)
    try:
        yield demo.local_url
    finally:
        demo.close()


def rest(url: str, name: str, data: list[Any], token: str | None = None) -> tuple[str, Any]:
    """One call through the plain REST route, as any HTTP client makes it: (event, payload)."""
    headers = {"authorization": f"Bearer {token}"} if token else {}
    with httpx.Client(timeout=HELD) as http:
        event = http.post(f"{url}gradio_api/call/{name}", json={"data": data}, headers=headers)
        event.raise_for_status()
        stream = http.get(f"{url}gradio_api/call/{name}/{event.json()['event_id']}", headers=headers).text
    final = [block for block in stream.strip().split("\n\n") if not block.startswith("event: heartbeat")][-1]
    kind, _, data = final.partition("\ndata: ")  # the final event (a long call sends heartbeats first)
    return kind.removeprefix("event: "), json.loads(data)


def test_slow_sign_in_lookups_hold_up_no_other_request(tmp_path):
    with stand_in_hub({}) as hub:
        hub.gate.clear()  # the hub answers nobody until the test says so
        with arena_signing_in_at(hub, tmp_path) as url, ThreadPoolExecutor(4) as pool:
            held = [pool.submit(rest, url, "cancel_match", ["0123456789ab"], f"hf_fresh{n}") for n in range(4)]
            for _ in held:
                assert hub.waiting.acquire(timeout=HELD)  # every lookup has reached the hub
            kind, agents = rest(url, "list_agents", [])
            assert kind == "complete" and any(a["id"] == "house:heuristic" for a in agents[0])
            kind, health = rest(url, "loop_health", [])
            assert kind == "complete" and health[0]["running"]
            assert not any(call.done() for call in held)  # still waiting on the hub
            hub.gate.set()
            answers = [call.result(timeout=HELD) for call in held]
        assert [kind for kind, _ in answers] == ["error"] * 4
        assert all("no running match" in payload["error"] for _, payload in answers)
        assert sorted(hub.calls) == [f"hf_fresh{n}" for n in range(4)]


def test_a_refused_token_is_remembered_and_not_asked_again(tmp_path):
    with stand_in_hub({"hf_alice": "alice"}) as hub, arena_signing_in_at(hub, tmp_path) as url:
        for _ in range(3):
            kind, payload = rest(url, "register_agent", ["http://127.0.0.1:9/", "x", "", "", "remote", ""],
                                 "hf_forged")
            assert kind == "error" and "sign in with Hugging Face to register" in payload["error"]
        for _ in range(3):
            kind, payload = rest(url, "cancel_match", ["0123456789ab"], "hf_alice")
            assert kind == "error" and "no running match" in payload["error"]
        assert hub.calls == ["hf_forged", "hf_alice"]  # one lookup each


def test_an_address_may_cause_only_so_many_lookups_a_minute(tmp_path):
    with stand_in_hub({"hf_0": "zero"}) as hub, \
            arena_signing_in_at(hub, tmp_path, signin_lookups_per_minute=3) as url:
        for n in range(3):
            kind, payload = rest(url, "cancel_match", ["0123456789ab"], f"hf_{n}")
            assert "no running match" in payload["error"]
        kind, payload = rest(url, "cancel_match", ["0123456789ab"], "hf_3")
        assert kind == "error"
        assert "too many sign-in checks from your address (3 new tokens a minute)" in payload["error"]
        kind, payload = rest(url, "cancel_match", ["0123456789ab"], "hf_0")  # known already: no lookup
        assert "no running match" in payload["error"]
        kind, payload = rest(url, "list_agents", [])  # and calls without a token go on as before
        assert kind == "complete"
        assert hub.calls == ["hf_0", "hf_1", "hf_2"]


def test_concurrent_requests_with_one_new_token_share_one_lookup():
    with stand_in_hub({"hf_alice": "alice"}) as hub:
        hub.gate.clear()
        signin = SignIn(hub.lookup())

        async def many() -> list[str | None]:
            asks = [asyncio.ensure_future(signin.user("hf_alice", f"ip:10.0.0.{n}")) for n in range(5)]
            await asyncio.to_thread(hub.waiting.acquire, True, HELD)  # the one lookup is at the hub
            await asyncio.sleep(0)  # every ask has started waiting on it
            hub.gate.set()
            return await asyncio.gather(*asks)

        assert asyncio.run(many()) == ["alice"] * 5
        assert hub.calls == ["hf_alice"] and signin.lookups == 1
        assert signin.cached("hf_alice") == (True, "alice")
        assert "hf_alice" not in signin._answers and token_key("hf_alice") in signin._answers  # only its hash
        signin.close()


def test_a_lookup_past_its_time_signs_nobody_in_and_its_answer_is_kept():
    with stand_in_hub({"hf_alice": "alice"}) as hub:
        hub.gate.clear()
        signin = SignIn(hub.lookup(), timeout=0.05)

        async def ask() -> str | None:
            user = await signin.user("hf_alice", "ip:10.0.0.1")
            hub.gate.set()  # the hub answers after the request gave up
            while signin._pending:
                await asyncio.sleep(0.01)
            return user

        assert asyncio.run(ask()) is None
        assert signin.cached("hf_alice") == (True, "alice")  # the next request is signed in at once
        signin.close()
