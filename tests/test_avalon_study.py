"""Avalon's intention study through the CLI (offline, on the scripted model) and the
intention quizzes as a question suite run by `bench`."""

from __future__ import annotations

import json
import re

import pytest

from space_app.cli import main as cli_main
from space_app.core import get_game
from space_app.games.avalon.agents import RuleAvalonAgent
from space_app.games.avalon.exemplar import exemplar_agent
from space_app.games.avalon.intention_agent import AvalonIntentionAgent
from space_app.games.avalon.intentions import load_catalogue
from space_app.games.avalon.quizset import SUITE, TYPES, played
from space_app.games.avalon.study import COLUMNS, newest, study_row
from space_app.games.avalon.wrappers import NoModel, intention_guided
from space_app.store import Store
from space_app.suites import open_suite

BASE = "house:avalon-scripted-model"
FIGURES = [c for c in COLUMNS if c not in ("condition", "games", "llm_judge")]


def cells_of(out: str, condition: str) -> dict[str, str]:
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("condition ")).split()
    row = next(line for line in lines if line.startswith(condition + "  "))
    return dict(zip(header[1:], re.split(r"\s{2,}", row[len(condition):].strip()), strict=True))


def test_the_intention_wrapper_needs_a_model():
    assert isinstance(intention_guided(exemplar_agent()), AvalonIntentionAgent)
    with pytest.raises(NoModel, match="needs an agent that calls a model"):
        intention_guided(RuleAvalonAgent())


def test_the_intention_study_runs_offline_through_the_cli(tmp_path, capsys):
    db = str(tmp_path / "study.db")
    assert cli_main(["--db", db, "experiment", "intentions", "--game", "avalon", "--base", BASE, "--games", "2",
                     "--concurrency", "2", "--judge", BASE]) == 0
    out = capsys.readouterr().out
    assert f"Intention study (base agent {BASE}, 2 games per condition)" in out
    assert "heuristic judge" in out and "LLM judge" in out
    store = Store(db)
    tags = sorted({m["tag"] for m in store.list_matches(game="avalon", limit=100)})
    assert [t.split(":")[2] for t in tags] == ["intention-guided", "plain"]
    for tag in tags:
        condition = tag.split(":")[2]
        matches = list(store.iter_matches("avalon", tag=tag))
        row = study_row(matches)
        assert row["games"] == 2 and len(row["seeds"]) == 2
        assert f"- {condition}: " in out and f"tag {tag};" in out
        assert all(m in out for m in row["match_ids"])
        cells = cells_of(out, condition)
        assert cells["games"] == "2"
        for column in FIGURES:  # every figure: value [low, high] n=..., or - when nothing to measure
            if condition == "intention-guided" or column in ("deduction_accuracy", "good_win_rate"):
                value, n = re.fullmatch(r"(\S+) \[\S+, \S+\] n=(\d+)", cells[column]).group(1, 2)
                if "llm" not in column:
                    assert float(value) == pytest.approx(row[column], abs=5e-4), (condition, column)
                    assert int(n) == row[f"{column}_n"]
            else:
                assert cells[column] == "-", (condition, column)
    assert re.search(rf"{BASE} \(0 of \d+ replies unread\)", cells_of(out, "intention-guided")["llm_judge"])
    # the report for the arena: the newest run's rows, heuristic judge only
    rows = newest(store)
    assert [r["condition"] for r in rows] == ["intention-guided", "plain"]
    assert rows[0]["summarisation_f1_n"] > 0 and rows[1]["summarisation_f1_n"] == 0
    store.close()


def test_a_base_without_a_model_says_what_it_measured(tmp_path, capsys):
    db = str(tmp_path / "rules.db")
    assert cli_main(["--db", db, "experiment", "intentions", "--game", "avalon", "--base", "house:avalon-rules",
                     "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert "- intention-guided: not played: the base agent has no model to guide" in out
    assert cells_of(out, "intention-guided")["games"] == "0"
    assert re.fullmatch(r"\S+ \[\S+, \S+\] n=\d+", cells_of(out, "plain")["deduction_accuracy"])


def test_a_study_without_a_judge_refuses_one(tmp_path, capsys):
    assert cli_main(["--db", str(tmp_path / "x.db"), "experiment", "attack", "--game", "spy", "--games", "1",
                     "--judge", BASE]) == 2
    assert "takes no --judge" in capsys.readouterr().err


def test_the_quiz_suite_has_sound_items_built_the_same_every_time():
    spec = get_game("avalon")
    assert SUITE in spec.extras.quizzes and spec.extras.quizzes[SUITE].types == TYPES
    suite = open_suite(SUITE)
    items = suite.loaded.items
    assert suite.game == "avalon" and not suite.loaded.dropped and not suite.loaded.repaired
    assert {t for i in items for t in i.types} == set(TYPES)
    assert len({i.id for i in items}) == len(items)
    for item in items:
        assert len(item.options) == 4 and item.answer in item.options
        assert len(set(item.options.values())) == 4
    guess = next(i for i in items if i.types == ["guessing"])
    assert "SPEAK:" in guess.context and "THINK:" not in guess.context
    summary = next(i for i in items if i.types == ["summarisation"])
    assert "THINK:" in summary.context and "SPEAK:" in summary.context
    # every distractor is of another category than the gold intention's (so one option is right)
    by_text = {i.text: i for i in load_catalogue().intentions}
    for item in items:
        gold = by_text[item.options[item.answer]]
        assert gold.category == item.tags["category"]
        assert all(by_text[t].category != gold.category for label, t in item.options.items() if label != item.answer)
    again = [json.loads(i.model_dump_json()) for i in open_suite(SUITE).loaded.items]
    assert again == [json.loads(i.model_dump_json()) for i in items]
    assert played(11)["events"] == played(11)["events"]


def test_bench_runs_the_quiz_suite_with_the_chance_baseline(tmp_path, capsys):
    db = str(tmp_path / "bench.db")
    assert cli_main(["--db", db, "bench", SUITE, "--agent", "house:guess", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["by_type"]) == set(TYPES)
    for r in out["by_type"].values():
        assert r["accuracy_n"] > 0 and r["accuracy_low"] <= r["accuracy"] <= r["accuracy_high"]
