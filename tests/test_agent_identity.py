"""An agent's identity, versions and accounting, through the real registration path, served
agents on loopback and real SQLite stores: re-registering moves an agent and keeps its id and
history; each match records each seat's version and the board splits by it; tokens, re-asks,
unreadable and truncated replies and latency are totalled per agent and game, with a cost."""

from __future__ import annotations

from typing import Any

import pytest

import sdk
from sdk import Agent, LLMAgent, LLMText, Observation, Usage, serve
from space_app.api import ApiError, ArenaAPI
from space_app.cli import main as cli_main
from space_app.config import ArenaConfig
from space_app.core import get_game
from space_app.prices import Price, PriceError, parse_prices
from space_app.service import MatchPlan
from space_app.store import Store
from space_app.ui.agents_tab import usage_frame, usage_note


class Counting(Agent):
    """Plays any game from the observation alone and counts the turns it was asked."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.turns = 0

    def speak(self, obs: Observation) -> str:
        self.turns += 1
        return f"{obs.you} speaks carefully."

    def vote(self, obs: Observation) -> str:
        self.turns += 1
        return ", ".join(obs.options[: obs.pick])


def make_api(tmp_path, **config: Any) -> ArenaAPI:
    return ArenaAPI(ArenaConfig(db=str(tmp_path / "arena.db"), demo_matches=0, allow_private_urls=True, **config))


def play(api: ArenaAPI, agent_id: str, seed: int) -> dict[str, Any]:
    spec = get_game("spy")
    fill = [name for name, house in spec.house.agents.items() if house.random_fill]
    seats = [agent_id, *(fill[i % len(fill)] for i in range(spec.facts.default_players - 1))]
    outcome = api.arena.run_in_own_loop(api.arena.run(MatchPlan("spy", seats, seed=seed)))
    match = api.store.get_match(outcome.match_id)
    assert match is not None and match["status"] == "finished", match and match.get("error")
    return match


def test_reregistering_moves_the_agent_and_keeps_its_id_and_history(tmp_path, launch):
    old, new = Counting("mover"), Counting("mover")
    old_url, new_url = launch(serve(old)), launch(serve(new, secret="s3cret"))
    api = make_api(tmp_path)
    first = api.register_agent(old_url, name="mover", owner="alice")
    played = play(api, first["agent_id"], seed=3)
    assert old.turns > 0

    # the Space moved and now wants a secret: the same owner registers the same name again
    moved = api.register_agent(new_url, name="mover", secret="s3cret", owner="alice")
    assert moved["agent_id"] == first["agent_id"]
    row = api.store.get_agent(first["agent_id"], with_secret=True)
    assert row["src"] == new_url and row["secret"] == "s3cret"
    assert [a["id"] for a in api.store.list_agents() if a["name"] == "mover"] == [first["agent_id"]]
    # its history is still its own
    assert played["id"] in [m["id"] for m in api.list_matches(agent=first["agent_id"])]

    turns_before = old.turns
    again = play(api, first["agent_id"], seed=4)
    assert new.turns > 0 and old.turns == turns_before  # the new URL (with its secret) is the one called
    listed = {m["id"] for m in api.list_matches(agent=first["agent_id"])}
    assert {played["id"], again["id"]} <= listed
    board = {r["agent"]: r for r in api.leaderboard("spy", sources="all")}
    assert board[first["agent_id"]]["matches"] == 2  # one agent, one history

    # another owner's agent of the same name is theirs: alice's is untouched
    bob = api.register_agent(old_url, name="mover", owner="bob")
    assert bob["agent_id"] != first["agent_id"] and bob["agent_id"].startswith("bob/")
    assert api.store.get_agent(first["agent_id"])["src"] == new_url
    api.store.close()


def revision_caller(messages: list[dict[str, Any]]) -> str:
    return LLMText("P1", Usage(prompt_tokens=10, completion_tokens=1))


revision_caller.model = "tiny-model"  # type: ignore[attr-defined]


def test_a_match_records_each_seats_version_and_the_board_splits_by_it(tmp_path, launch, monkeypatch, capsys):
    agent = LLMAgent(revision_caller, name="versioned")
    url = launch(serve(agent))
    api = make_api(tmp_path)
    reg = api.register_agent(url, name="versioned", owner="alice")

    monkeypatch.setenv("AGENT_REVISION", "aaaaaaa111")
    before = play(api, reg["agent_id"], seed=5)
    monkeypatch.setenv("AGENT_REVISION", "bbbbbbb222")  # the author redeployed: the next match sees it
    after = play(api, reg["agent_id"], seed=6)

    mine = before["seats"][0]
    assert mine["agent_id"] == reg["agent_id"]
    assert mine["version"] == {"sdk": sdk.__version__, "model": "tiny-model", "revision": "aaaaaaa111"}
    assert after["seats"][0]["version"]["revision"] == "bbbbbbb222"
    # house agents report their own (the SDK they are built on)
    assert all(s["version"].get("sdk") == sdk.__version__ for s in before["seats"][1:])
    # the version travels with the record: a copy of the match carries it
    copy = Store(tmp_path / "copy.db")
    assert copy.import_match(before)
    assert copy.get_match(before["id"])["seats"][0]["version"]["revision"] == "aaaaaaa111"
    copy.close()

    whole = [r for r in api.leaderboard("spy", sources="all") if r["agent"] == reg["agent_id"]]
    assert len(whole) == 1 and whole[0]["matches"] == 2
    split = [r for r in api.leaderboard("spy", sources="all", by_version=True) if r["agent_id"] == reg["agent_id"]]
    assert sorted(r["version"] for r in split) == [f"tiny-model rev aaaaaaa sdk {sdk.__version__}",
                                                   f"tiny-model rev bbbbbbb sdk {sdk.__version__}"]
    assert all(r["matches"] == 1 for r in split)
    only = api.leaderboard("spy", sources="all", version="tiny-model rev bbbbbbb")
    assert [(r["agent_id"], r["matches"]) for r in only] == [(reg["agent_id"], 1)]
    with pytest.raises(ApiError, match="version"):
        api.leaderboard("spy", version="x" * 201)
    api.store.close()

    assert cli_main(["--db", str(tmp_path / "arena.db"), "leaderboard", "spy", "--sources", "all",
                     "--by-version"]) == 0
    printed = capsys.readouterr().out
    assert "one row per agent and version" in printed
    assert f"{reg['agent_id']} @ tiny-model rev aaaaaaa" in printed
    assert f"{reg['agent_id']} @ tiny-model rev bbbbbbb" in printed


def test_seat_versions_are_kept_on_every_backend(new_store):
    store = Store(new_store())
    seats = [{"seat": "P1", "agent_id": "a", "agent_name": "a"}, {"seat": "P2", "agent_id": "b", "agent_name": "b"}]
    store.create_match("m1", "spy", 1, seats)
    store.set_seat_versions("m1", {"P1": {"sdk": "0.3.0", "model": "m", "revision": "r1"}})
    got = store.get_match("m1")["seats"]
    assert [s["version"] for s in got] == [{"sdk": "0.3.0", "model": "m", "revision": "r1"}, {}]
    assert store.seat_versions("spy") == {("m1", "P1"): {"sdk": "0.3.0", "model": "m", "revision": "r1"}}
    assert store.seat_versions("avalon") == {}
    store.close()


def accounting_caller(messages: list[dict[str, Any]]) -> str:
    """A statement cut at its token limit; a vote nobody can read (so it is re-asked once)."""
    asked = str(messages[-1]["content"])
    if "statement" in asked.lower() and "vote" not in asked.lower():
        return LLMText("It is something warm that", Usage(prompt_tokens=100, completion_tokens=7), truncated=True)
    return LLMText("I really cannot decide", Usage(prompt_tokens=50, completion_tokens=5))


accounting_caller.model = "priced-model"  # type: ignore[attr-defined]


def test_accounting_totals_tokens_reasks_unreadable_truncated_and_cost(tmp_path, launch):
    url = launch(serve(LLMAgent(accounting_caller, name="spender"), share_trace=True))
    api = make_api(tmp_path, prices={"priced-model": Price(input=2.0, output=8.0)})
    reg = api.register_agent(url, name="spender", owner="alice")
    matches = [play(api, reg["agent_id"], seed=s) for s in (7, 8)]

    calls = [e["data"] for m in matches for e in m["events"]
             if e["kind"] == "call" and e["actor"] == m["seats"][0]["seat"]]
    prompt = sum(c.get("prompt_tokens") or 0 for c in calls)
    completion = sum(c.get("completion_tokens") or 0 for c in calls)
    reasks = sum(max(0, len(c.get("model_calls") or []) - 1) for c in calls)
    unreadable = sum(c["status"] == "unparseable" for c in calls)
    truncated = sum(c.get("truncated") is True for c in calls)
    assert prompt and completion and reasks and unreadable and truncated  # the match exercised each

    got = api.accounting(sources="all")
    assert got["priced_models"] == ["priced-model"] and "tournament" in got["includes"]
    rows = {(r["game"], r["agent_id"]): r for r in got["rows"]}
    for game in ("spy", "all"):
        row = rows[(game, reg["agent_id"])]
        assert row["matches"] == 2 and row["calls"] == len(calls)
        assert (row["prompt_tokens"], row["completion_tokens"]) == (prompt, completion)
        assert row["tokens"] == prompt + completion
        assert (row["reasks"], row["unreadable"], row["truncated"]) == (reasks, unreadable, truncated)
        assert row["latency_ms"] == pytest.approx(sum(c["latency_ms"] for c in calls), abs=0.2)
        assert row["models"] == ["priced-model"]
        assert row["cost_usd"] == pytest.approx((prompt * 2.0 + completion * 8.0) / 1e6)
        assert row["unpriced_tokens"] == 0
    # the Agents tab shows the same totals
    tab = usage_frame(api)
    shown = tab[(tab["agent_id"] == reg["agent_id"]) & (tab["game"] == "all")].iloc[0]
    assert (int(shown["tokens"]), int(shown["reasks"])) == (prompt + completion, reasks)
    assert "models with a price: priced" in usage_note(api)
    house = next(r for (g, a), r in rows.items() if g == "spy" and a.startswith("house:"))
    assert house["cost_usd"] is None  # no model priced: no cost invented
    # one agent, one game
    assert {r["agent_id"] for r in api.accounting("spy", "all", reg["agent_id"])["rows"]} == {reg["agent_id"]}
    with pytest.raises(ApiError, match="unknown game"):
        api.accounting("chess")
    with pytest.raises(ApiError, match="unknown match source"):
        api.accounting("", "nonsense")
    api.store.close()


def test_accounting_is_exported(tmp_path, launch, monkeypatch, capsys):
    url = launch(serve(LLMAgent(accounting_caller, name="spender"), share_trace=True))
    api = make_api(tmp_path)
    reg = api.register_agent(url, name="spender", owner="alice")
    play(api, reg["agent_id"], seed=9)
    api.store.close()
    monkeypatch.setenv("ARENA_PRICES", '{"priced-model": [1, 1]}')
    out = tmp_path / "accounting.csv"
    assert cli_main(["--db", str(tmp_path / "arena.db"), "export", "--what", "accounting", "--game", "spy",
                     "--sources", "all", "--format", "csv", "--out", str(out)]) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    header = lines[0].split(",")
    assert {"prompt_tokens", "completion_tokens", "reasks", "unreadable", "truncated", "cost_usd"} <= set(header)
    mine = [dict(zip(header, line.split(","), strict=True)) for line in lines[1:]
            if line.split(",")[1] == reg["agent_id"]]
    assert {r["game"] for r in mine} == {"spy", "all"}
    assert all(float(r["cost_usd"]) > 0 and r["models"] == "priced-model" for r in mine)


@pytest.mark.parametrize(("text", "problem"), [
    ("not json", "not JSON"),
    ("[1, 2]", "JSON object"),
    ('{"m": {"input": -1, "output": 1}}', "ARENA_PRICES['m']: input"),
    ('{"m": {"in": 1}}', "ARENA_PRICES['m']"),
])
def test_a_bad_price_table_is_refused_naming_the_problem(text, problem):
    with pytest.raises(PriceError, match=problem.replace("[", r"\[").replace("]", r"\]")):
        parse_prices(text)


def test_a_price_table_reads_both_forms():
    prices = parse_prices('{"gpt-4o-mini": {"input": 0.15, "output": 0.6}, "other": [1, 2]}')
    assert prices["gpt-4o-mini"].cost(1_000_000, 1_000_000) == pytest.approx(0.75)
    assert prices["other"] == Price(input=1, output=2)
    assert parse_prices("") == {}
