"""A benchmark run says how many questions it asked at once (1 by default: a local model or a
one-slot server answers one request at a time) and why each failed question failed, from the
runner, the CLI and the API alike."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from hostile_servers import http_server

from sdk import Agent, Observation, RemoteAgent
from space_app.api import ApiError, ArenaAPI
from space_app.cli import main as cli_main
from space_app.config import ArenaConfig
from space_app.store import Store
from space_app.suites import open_suite
from space_app.suites.run import run_suite

SUITE = "tom-household"


class Counting(Agent):
    """Answers 'A' to even questions and something unreadable to odd ones; keeps the most
    questions it was ever asked at once."""

    games = ("tom",)

    def __init__(self) -> None:
        super().__init__("counting")
        self.lock = threading.Lock()
        self.now = self.most = self.asked = 0

    def answer(self, obs: Observation) -> str:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
            self.asked += 1
            n = self.asked
        try:
            return "Final answer: A" if n % 2 == 0 else "I would rather not say."
        finally:
            with self.lock:
                self.now -= 1


def test_by_default_one_question_at_a_time_reported_with_a_reason_per_failure(tmp_path):
    agent = Counting()
    store = Store(tmp_path / "b.db")
    scores = asyncio.run(run_suite(store, open_suite(SUITE), agent, "counting", limit=12))
    assert agent.most == 1 and scores.concurrency == 1
    out = scores.to_dict()
    assert out["concurrency"] == 1
    unread = [f for f in out["failures"] if f["status"] == "unparseable"]
    assert len(unread) == 6 == scores.unparsed.k
    assert all(f["reason"] and not f["retry"] for f in unread)
    stored = {r["item_id"]: r for r in store.answers(SUITE, "counting")}
    assert all(stored[f["item_id"]]["detail"] == f["reason"] for f in unread)  # the stored reason, as given
    with pytest.raises(ValueError, match="concurrency must be 1 or more"):
        asyncio.run(run_suite(store, open_suite(SUITE), agent, "counting", limit=2, concurrency=0))
    store.close()


def test_a_question_whose_server_failed_says_why_and_is_asked_again(tmp_path):
    with http_server() as server:
        server.fail_act = 500
        agent = RemoteAgent(server.url + "any/", timeout=5)
        store = Store(tmp_path / "r.db")
        try:
            scores = asyncio.run(run_suite(store, open_suite(SUITE), agent, "broken", limit=3, concurrency=2))
        finally:
            agent.close()
    assert scores.to_retry == 3 and scores.concurrency == 2 and scores.answered == 0
    assert [f["retry"] for f in scores.failures] == [True] * 3
    assert all(f["reason"] == "agent_failed: HTTP 500: Internal Server Error" for f in scores.failures)
    store.close()


def test_the_cli_reports_its_concurrency_and_lists_failures(tmp_path, capsys):
    db = str(tmp_path / "c.db")
    with http_server() as server:
        server.fail_act = 503  # a Space restarting: unreachable, asked again next run
        assert cli_main(["--db", db, "bench", SUITE, "--agent", f"remote:{server.url}any/", "--limit", "2"]) == 0
    said = capsys.readouterr().out
    assert "answered 0 questions, 1 at a time" in said
    assert said.count("(asked again next run)") == 3  # the summary and each of the two questions
    assert "unreachable: HTTP 503" in said
    assert cli_main(["--db", db, "bench", SUITE, "--agent", "house:guess", "--limit", "4", "--concurrency", "3",
                     "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["concurrency"] == 3 and out["failures"] == []


def test_the_api_takes_a_concurrency_within_the_visitors_slots(tmp_path):
    api = ArenaAPI(ArenaConfig(db=str(tmp_path / "a.db"), demo_matches=0, max_matches_per_visitor=2))
    scores = asyncio.run(api.run_benchmark(SUITE, "house:guess", 4))
    assert scores["concurrency"] == 1 and scores["answered"] == 4
    assert asyncio.run(api.run_benchmark(SUITE, "house:guess", 4, concurrency="2"))["concurrency"] == 2
    for bad in (0, 3, "many"):
        with pytest.raises(ApiError, match="concurrency must be a whole number from 1 to 2"):
            asyncio.run(api.run_benchmark(SUITE, "house:guess", 4, concurrency=bad))
