"""Replies a hostile or careless agent server sends, read by the arena's real clients and
recorded by the real arena on a real SQLite file: a reply given as a bare string, JSON
nested past the parser's depth, and token counts no model could have used."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from sdk import AgentError, Observation, RemoteAgent
from space_app.api import ArenaAPI
from space_app.config import ArenaConfig
from space_app.games.spy.wis import WiSAgent
from space_app.runner import MAX_TOKENS

PAIR = {"pair": {"civilian": "marmalade", "spy": "chutney"}}
SPEAK = Observation(game="spy", verb="speak", you="P1", round=2, match_id="m1")
VOTE = Observation(game="spy", verb="vote", you="P1", options=["P2", "P3"], match_id="m1",
                   private={"facts": {"word": "tea"}, "text": "Your word is tea."})  # a WiS agent needs the word


@pytest.fixture
def api(tmp_path) -> Iterator[ArenaAPI]:
    """The arena's API on a fresh SQLite file, local mode (agents on loopback allowed)."""
    arena = ArenaAPI(ArenaConfig(db=str(tmp_path / "arena.db"), demo_matches=0, allow_private_urls=True))
    yield arena
    arena.store.close()


def play_with(api: ArenaAPI, first: str) -> dict[str, Any]:
    """One real match with `first` in seat P1 and house agents elsewhere; the stored record."""
    seats = [first] + ["house:heuristic", "house:random"] * 2 + ["house:heuristic"]
    outcome = api.arena.run_in_own_loop(api.run_match({"game": "spy", "seats": seats, "seed": 5,
                                                       "settings": PAIR}, visitor="v"))
    assert outcome["status"] == "finished", outcome
    match = api.store.get_match(outcome["match_id"])
    assert match is not None
    return match


def calls_of(match: dict[str, Any], seat: str = "P1") -> list[dict[str, Any]]:
    calls = [e for e in match["events"] if e["kind"] == "call" and e["actor"] == seat]
    assert calls
    return calls


# -- {"data": "text"} ----------------------------------------------------------------------
def test_a_reply_given_as_a_bare_string_is_read_whole(hostile):
    agent = RemoteAgent(hostile.url + "flat/", timeout=10, wake_timeout=1)
    assert agent.act(SPEAK).text == "P1 says it is often found in a kitchen round 2"
    assert asyncio.run(agent.aact(VOTE)).text == "P2"
    agent.close()


def test_a_bare_string_reply_plays_as_the_agents_words(hostile, api):
    match = play_with(api, f"remote:{hostile.url}flat/")
    for call in calls_of(match):
        assert call["data"]["status"] == "ok", call["data"]
        if call["data"]["verb"] == "speak":
            assert call["data"]["reply"].startswith("P1 says it is often found in a kitchen")
        else:
            assert call["data"]["parsed"] in [s["seat"] for s in match["seats"]]


# -- JSON nested past the parser's depth ---------------------------------------------------
def test_deeply_nested_json_is_a_bad_reply_with_the_reason(hostile):
    remote = RemoteAgent(hostile.url + "deep/", timeout=10, wake_timeout=1)
    for call in (lambda: remote.act(SPEAK), lambda: asyncio.run(remote.aact(SPEAK))):
        with pytest.raises(AgentError) as err:
            call()
        assert err.value.kind == "bad_reply" and "nested too deeply" in err.value.message
    remote.close()
    wis = WiSAgent(hostile.url + "deep", timeout=10)
    with pytest.raises(AgentError) as err:
        wis.vote(VOTE)
    assert err.value.kind == "bad_reply" and "nested too deeply" in err.value.message


def test_deeply_nested_json_is_recorded_as_the_replys_fault_and_the_match_goes_on(hostile, api):
    match = play_with(api, f"remote:{hostile.url}deep/")
    for call in calls_of(match):
        detail = call["data"]["detail"]
        assert call["data"]["status"] == "error" and detail.startswith("bad_reply: reply nested too deeply"), detail
        assert "RecursionError" not in detail and "agent_failed" not in detail


# -- token counts --------------------------------------------------------------------------
def test_reported_token_counts_are_bounded_and_the_record_says_so(hostile, api):
    match = play_with(api, f"remote:{hostile.url}tokens/")
    for call in calls_of(match):
        data = call["data"]
        assert (data["prompt_tokens"], data["completion_tokens"]) == (MAX_TOKENS, 0)
        assert data["tokens_clamped"] == {"prompt_tokens": str(10**30), "completion_tokens": "-7"}
    # an honest seat's counts are stored as reported, with nothing marked
    assert all("tokens_clamped" not in c["data"] for c in calls_of(match, "P2"))
    # the bounded counts are what the seat's stored record and the leaderboard sum
    calls = len(calls_of(match))
    record = next(r for r in api.store.records("spy") if r["match_id"] == match["id"] and r["seat"] == "P1")
    assert record["stats"]["tokens"] == calls * MAX_TOKENS
    row = next(r for r in api.leaderboard("spy", 0, "all") if r["agent"] == match["seats"][0]["agent_id"])
    assert row["tokens"] == calls * MAX_TOKENS
