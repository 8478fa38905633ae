"""An agent's own trace: a served agent keeps every turn it played (messages, raw reply, tokens,
seconds) per match and seat, readable with its secret only (the `trace` endpoint, JSON Lines),
and, by the author's choice, sends each turn's model calls back with the reply for the arena to
keep with the call record. Real served agents on loopback, real matches, a real SQLite store."""

from __future__ import annotations

import asyncio
import json

import pytest
from gradio_client import Client

from sdk import LLMAgent, serve
from sdk.callers.scripted import scripted_caller
from sdk.traces import TraceBook
from space_app.core.events import Call
from space_app.service import Arena, MatchPlan
from space_app.store import Store
from space_app.ui.watch import typed_events

SECRET = "trace-secret-51c2"
SAID = "It glows when it is dark. Final answer: P2"


def play(store: Store, seed: int) -> str:
    plan = MatchPlan(game="spy", seats=["me/served"] + ["house:heuristic"] * 4, seed=seed, tag="traces")
    out = asyncio.run(Arena(store).run(plan))
    assert out.status == "finished", out.error
    return out.match_id


def served(launch, tmp_path, share_trace: bool, secret: str | None = SECRET) -> tuple[Store, str]:
    url = launch(serve(LLMAgent(scripted_caller([SAID]), name="served"), secret=secret, share_trace=share_trace))
    store = Store(str(tmp_path / "s.db"))
    store.upsert_agent("me/served", name="served", kind="remote", src=url, secret=secret)
    return store, url


def seat_calls(store: Store, match_id: str) -> list[Call]:
    match = store.get_match(match_id)
    return [e for e in typed_events(match) if isinstance(e, Call) and e.actor == "P1"]


def test_a_shared_trace_reaches_the_call_record_and_the_agent_keeps_its_own(tmp_path, launch):
    store, url = served(launch, tmp_path, share_trace=True)
    match_id = play(store, 3)
    calls = seat_calls(store, match_id)
    assert calls and all(c.model_calls for c in calls)
    first = calls[0].model_calls[0]
    assert first["reply"] == SAID and first["messages"][0]["role"] == "system"
    assert SECRET not in json.dumps([c.model_dump() for c in calls])

    client = Client(url, verbose=False)
    lines = [json.loads(line) for line in client.predict(SECRET, match_id, api_name="/trace").splitlines()]
    assert len(lines) == len(calls)  # every turn the agent played in that match, none of another's
    assert {t["match_id"] for t in lines} == {match_id} and {t["seat"] for t in lines} == {"P1"}
    assert all(t["model_calls"] and t["model_calls"][0]["reply"] == SAID for t in lines)
    assert [t["verb"] for t in lines] == [c.verb for c in calls]

    other = play(store, 4)
    everything = client.predict(SECRET, "", api_name="/trace").splitlines()
    assert {json.loads(line)["match_id"] for line in everything} == {match_id, other}
    with pytest.raises(Exception, match="wrong or missing secret"):
        client.predict("not-the-secret", "", api_name="/trace")


def test_without_sharing_the_arena_keeps_no_model_calls_but_the_agent_still_does(tmp_path, launch):
    store, url = served(launch, tmp_path, share_trace=False)
    match_id = play(store, 5)
    calls = seat_calls(store, match_id)
    assert calls and not any(c.model_calls for c in calls)
    kept = Client(url, verbose=False).predict(SECRET, match_id, api_name="/trace").splitlines()
    assert len(kept) == len(calls)


def test_an_agent_without_a_secret_shows_no_trace(tmp_path, launch):
    _store, url = served(launch, tmp_path, share_trace=False, secret=None)
    with pytest.raises(Exception, match="has no secret"):
        Client(url, verbose=False).predict("", "", api_name="/trace")


def test_the_trace_is_bounded_and_describes_pictures_instead_of_keeping_them():
    from sdk.agent import Reply
    from sdk.observation import Observation

    book = TraceBook(limit=3)
    obs = Observation.model_validate({"game": "spy", "verb": "speak", "you": "P2", "match_id": "m1", "round": 1,
                                      "instruction": "Describe your word."})
    picture = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + "A" * 50_000}}
    calls = [{"messages": [{"role": "user", "content": [{"type": "text", "text": "look"}, picture]}],
              "reply": "ok", "prompt_tokens": 9, "completion_tokens": 1, "seconds": 0.1}]
    for n in range(5):
        book.record(obs, Reply(f"reply {n}", None, {"model_calls": calls}), 0.2)
    kept = book.turns()
    assert [t["reply"] for t in kept] == ["reply 2", "reply 3", "reply 4"]  # the oldest went first
    content = kept[0]["model_calls"][0]["messages"][0]["content"]
    assert content.startswith("look\n[image: ") and "AAAA" not in content
    assert len(book.jsonl()) < 5_000
