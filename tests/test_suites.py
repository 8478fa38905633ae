"""Question suites through `answer`: the tolerant loader on messy files, the runner's
scores (per type, with intervals, unparsed rate), resuming, the CLI and the API."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

import pytest
from browser_support import running_arena
from gradio_client import Client
from gradio_client.exceptions import AppError

from sdk import Agent, Observation, serve
from space_app.cli import main as cli_main
from space_app.config import ArenaConfig
from space_app.stats import wilson
from space_app.store import Store
from space_app.suites import SUITES, open_suite
from space_app.suites.items import SuiteFileError, load_suite
from space_app.suites.run import first_n, run_suite

FIXTURES = Path(__file__).parent / "fixtures" / "suites"


class Oracle(Agent):
    """Knows the gold answers of one question type; on the others replies something unreadable."""

    games = ("tom",)

    def __init__(self, gold: dict[str, str], knows: str) -> None:
        super().__init__("oracle")
        self.gold, self.knows = gold, knows
        self.asked: list[str] = []
        self.lock = threading.Lock()

    def answer(self, obs: Observation) -> str:
        with self.lock:
            self.asked.append(obs.match_id)
        assert obs.private.documents and obs.private.documents[0].kind == "context"
        assert obs.option_texts and set(obs.options) == set(obs.option_texts)
        kind, answer = self.gold[obs.match_id]
        return f"Final answer: {answer}" if kind == self.knows else "I cannot tell from this story."


def test_a_messy_file_gives_what_is_sound_and_names_every_drop_and_repair():
    loaded = load_suite(FIXTURES / "messy.jsonl")
    assert [i.id for i in loaded.items] == ["q1", "q2", "5", "q7"]
    q2 = loaded.items[1]
    assert q2.options == {"A": "helping", "B": "hindering", "C": "independent"}
    assert q2.answer == "B" and q2.types == ["social_goal"]
    assert loaded.items[2].answer == "A"
    dropped = "\n".join(loaded.dropped)
    assert len(loaded.dropped) == 6, dropped
    for expected in ("messy.jsonl:3 (q3): item: Value error, answer 'C)' is not one of the options",
                     "messy.jsonl:4: not JSON", "messy.jsonl:5: not a JSON object",
                     "messy.jsonl:6 (q4): question:", "messy.jsonl:7 (q1): id: repeats",
                     "messy.jsonl:9 (q6): options: Value error, needs at least two options"):
        assert expected in dropped
    repaired = "\n".join(loaded.repaired)
    for expected in ("messy.jsonl:2 (q2): options: a list", "messy.jsonl:2 (q2): answer: 'b' read as 'B'",
                     "messy.jsonl:2 (q2): types: a string", "messy.jsonl:8 (5): id: a number",
                     "messy.jsonl:8 (5): answer: 'A. ' read as 'A'"):
        assert expected in repaired
    assert "4 items, 6 dropped" in loaded.report()


def test_a_file_with_nothing_usable_is_refused_naming_it(tmp_path):
    with pytest.raises(SuiteFileError, match=r"unusable.jsonl: no usable question \(2 lines dropped"):
        load_suite(FIXTURES / "unusable.jsonl")
    (tmp_path / "latin1.jsonl").write_bytes('{"id": "\xe9"}'.encode("latin-1"))
    with pytest.raises(SuiteFileError, match="cannot be read as UTF-8"):
        load_suite(tmp_path / "latin1.jsonl")


def test_the_shipped_suite_loads_whole():
    suite = open_suite("tom-household")
    assert len(suite.loaded.items) == 600 and not suite.loaded.dropped and not suite.loaded.repaired
    assert suite.game == "tom" and set(SUITES["tom-household"].types) == {
        t for item in suite.loaded.items for t in item.types}


def test_scores_per_type_with_intervals_and_a_resumed_run_asks_only_the_rest(tmp_path):
    shipped = open_suite("tom-household").loaded.items
    mixed = [item for t in ("belief", "social_goal", "belief_of_goal") for item in shipped if t in item.types][::10]
    mixed = [mixed[i] for i in sorted(range(len(mixed)), key=lambda i: (i % 20, i))]  # types interleaved
    path = tmp_path / "mixed.jsonl"
    path.write_text("".join(item.model_dump_json() + "\n" for item in mixed), encoding="utf-8")
    suite = open_suite(str(path))
    assert suite.id == "file:mixed" and suite.game == "tom" and len(suite.loaded.items) == 60
    gold = {item.id: (item.types[0], item.answer) for item in suite.loaded.items}
    agent = Oracle(gold, knows="belief")
    store = Store(tmp_path / "q.db")
    first = asyncio.run(run_suite(store, suite, agent, "oracle", limit=30, concurrency=4))
    assert first.answered == 30 and len(agent.asked) == 30
    second = asyncio.run(run_suite(store, suite, agent, "oracle", limit=60, concurrency=4))
    assert second.answered == 60 and len(agent.asked) == 60, "answered questions are not asked again"
    assert len(set(agent.asked)) == 60
    items = suite.loaded.items
    beliefs = sum("belief" in i.types for i in items)
    assert second.accuracy.k == beliefs and second.by_type["belief"].value == 1.0
    assert second.by_type["social_goal"].value == 0.0
    assert second.unparsed.k == 60 - beliefs  # the rest were unreadable, and said so
    assert second.accuracy.interval == wilson(beliefs, 60)
    stored = store.answers("file:mixed", "oracle")
    assert len(stored) == 60 and all(r["reply"] for r in stored)
    fresh = asyncio.run(run_suite(store, suite, agent, "oracle", limit=10, fresh=True))
    assert fresh.answered == 10 and len(store.answers("file:mixed", "oracle")) == 10


def test_wilson_intervals():
    assert wilson(0, 0) is None
    low, high = wilson(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    assert wilson(0, 20)[0] == 0.0 and wilson(20, 20)[1] == 1.0


def test_the_cli_benchmarks_a_house_agent_and_a_users_file(tmp_path, capsys):
    db = str(tmp_path / "c.db")
    assert cli_main(["--db", db, "bench", "tom-household", "--agent", "house:guess", "--limit", "30", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["answered"] == 30 and set(out["by_type"]) <= {"belief", "social_goal", "belief_of_goal"}
    assert out["accuracy_low"] <= out["accuracy"] <= out["accuracy_high"] and out["unparsed_rate"] == 0.0
    assert cli_main(["--db", db, "bench", str(FIXTURES / "messy.jsonl"), "--agent", "house:guess"]) == 0
    captured = capsys.readouterr()
    assert "4 items, 6 dropped, 5 repaired" in captured.err
    assert "file:messy: house:guess answered 4 questions" in captured.out
    assert cli_main(["--db", db, "bench", str(FIXTURES / "messy.jsonl"), "--agent", "house:guess", "--strict"]) == 2
    assert "6 questions could not be read" in capsys.readouterr().err
    assert cli_main(["--db", db, "bench", "no-such-suite", "--agent", "house:guess"]) == 2
    assert "unknown suite 'no-such-suite'" in capsys.readouterr().err


def test_run_benchmark_through_gradio_client(tmp_path, launch):
    class AlwaysA(Agent):
        games = ("tom",)

        def answer(self, obs: Observation) -> str:
            return "After thinking it over, final answer: A"

    agent_url = launch(serve(AlwaysA("always-a")))
    config = ArenaConfig(db=str(tmp_path / "a.db"), demo_matches=0, allow_private_urls=True)
    with running_arena(config) as (_, url):
        client = Client(url, verbose=False, httpx_kwargs={"timeout": 120})
        reg = client.predict(agent_url, "always-a", "", "", "remote", "me", api_name="/register_agent")
        scores = client.predict("tom-household", reg["agent_id"], 24, api_name="/run_benchmark")
        assert scores["answered"] == 24 and scores["unparsed_rate"] == 0.0
        expected = sum(i.answer == "A" for i in first_n(open_suite("tom-household").loaded.items, 24))
        assert round(scores["accuracy"] * 24) == expected
        assert scores["accuracy_n"] == 24 and scores["accuracy_low"] <= scores["accuracy"]
        client.predict("tom-household", "house:guess", 24, api_name="/run_benchmark")
        results = client.predict("tom-household", api_name="/benchmark_results")
        assert {r["agent"] for r in results} == {reg["agent_id"], "house:guess"}
        for bad, message in ((("chess-puzzles", "house:guess", 5), "unknown suite"),
                             (("tom-household", "house:heuristic", 5), "does not play 'tom'"),
                             (("tom-household", "house:guess", 5000), "limit must be")):
            with pytest.raises(AppError, match=message):
                client.predict(*bad, api_name="/run_benchmark")


def test_people_who_take_the_quiz_are_one_row_with_their_count(tmp_path):
    from space_app.api import ApiError, ArenaAPI

    api = ArenaAPI(ArenaConfig(db=str(tmp_path / "h.db"), demo_matches=0))
    seen = {}
    for visitor in ("ip:10.0.0.1", "ip:10.0.0.2"):
        for _ in range(3):
            q = api.quiz_question("tom-household", visitor)
            assert q["item_id"] and q["options"] and q["question"]
            seen.setdefault(visitor, []).append(q["item_id"])
            verdict = api.quiz_answer("tom-household", q["item_id"], "A", 4.2, visitor)
            assert verdict["answer"] in q["options"]
    assert len(set(seen["ip:10.0.0.1"])) == 3, "a person is not asked the same question twice"
    people = next(r for r in api.benchmark_results("tom-household") if r["agent"] == "people")
    assert people["people"] == 2 and people["answered"] == 6
    with pytest.raises(ApiError, match="no question"):
        api.quiz_answer("tom-household", "not-an-id", "A", 1.0, "ip:10.0.0.1")


def test_tom_is_the_generated_suites_short_name():
    assert open_suite("tom").id == "tom-household"
    assert len(open_suite("tom").loaded.items) == len(open_suite("tom-household").loaded.items)
