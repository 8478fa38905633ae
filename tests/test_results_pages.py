"""The Results tab's pages, from real matches and answers in a real SQLite store: Avalon's
intention metrics (a real offline run of the intention study) and game metrics over exactly the
matches the Leaderboard's filter counts, and the Theory-of-Mind page with per-type accuracy per
agent and the people who took the quiz in the browser."""

from __future__ import annotations

import asyncio

import gradio as gr
import pytest

from space_app.api import ArenaAPI, results_scope
from space_app.config import ArenaConfig
from space_app.core import GAMES
from space_app.ui.results import SUITES_PAGE, games_with_results, page_for, section_component, tom_suites


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    api = ArenaAPI(ArenaConfig(db=str(tmp_path_factory.mktemp("results") / "a.db"), demo_matches=0))
    spec = GAMES["avalon"]
    study = spec.extras.studies["intentions"]

    async def fill() -> None:
        await api.run_match({"game": "avalon", "seats": ["house:avalon-rules", "house:avalon-random"] * 3,
                             "seed": 1})  # a visitor match: in the leaderboard's default filter
        await api.run_study("avalon", "intentions", base=study.base, games=2, seed=7)
        await api.run_benchmark("tom-household", "house:guess", 6)

    asyncio.run(fill())
    question = api.quiz_question("tom-household", "visitor-1")
    api.quiz_answer("tom-household", question["item_id"], "a", 3.0, "visitor-1")
    return api


def test_the_results_tab_lists_avalon_mystery_and_the_tom_suites():
    ids = [value for _, value in games_with_results()]
    assert {"avalon", "mystery", SUITES_PAGE} <= set(ids)
    assert "tom-household" in tom_suites() and "avalon-intentions" not in tom_suites()


def test_avalon_shows_its_intention_metrics_with_how_to_produce_them(api):
    page = api.results_page("avalon")
    titles = [s.title for s in page.sections]
    table = next(s for s in page.sections if s.title.startswith("Intention metrics")).value
    guided = table[table["condition"] == "intention-guided"].iloc[0]
    assert guided["games"] == "2" and "[" in guided["summarisation_f1"] and "n=" in guided["guessing_f1"]
    how = next(s for s in page.sections if s.title.startswith("What the run rests on")).value
    assert "experiment intentions --game avalon" in how and "study:intentions:" in how and "?match=" in how
    chart = next(s for s in page.sections if s.kind == "bar").value
    assert (chart["low"] <= chart["value"]).all() and (chart["value"] <= chart["high"]).all()
    assert "Game metrics per agent" in titles


def test_avalon_game_metrics_count_the_leaderboards_matches(api):
    default = api.results_page("avalon")
    games = next(s for s in default.sections if s.title == "Game metrics per agent").value
    board = api.leaderboard("avalon")
    assert sorted(games["agent"]) == sorted(r["agent"] for r in board)  # the study's matches are left out
    assert dict(zip(games["agent"], games["matches"], strict=True)) == {r["agent"]: r["matches"] for r in board}
    note = next(s for s in default.sections if s.title == "What the game metrics rest on").value
    assert "Over the 1 finished Avalon matches" in note and "study matches left out" in note
    every = api.results_page("avalon", "all")
    agents = set(next(s for s in every.sections if s.title == "Game metrics per agent").value["agent"])
    assert "house:avalon-scripted-model" in agents  # the study's seats, once study matches are asked for


def test_the_tom_page_has_per_type_accuracy_per_agent_and_the_people_row(api):
    page = page_for(api, SUITES_PAGE)
    table = next(s for s in page.sections if s.kind == "table").value
    assert list(table.columns) == ["agent", "answered", "accuracy %", "belief %", "social_goal %",
                                   "belief_of_goal %"]
    rows = {a.split(" (")[0]: r for a, (_, r) in zip(table["agent"], table.iterrows(), strict=True)}
    assert "house:guess" in rows and "people" in rows
    assert rows["house:guess"]["answered"] == 6 and "[" in rows["house:guess"]["accuracy %"]
    assert "(1 people)" in " ".join(table["agent"])
    chart = next(s for s in page.sections if s.kind == "bar").value
    assert (chart["low"] <= chart["accuracy"]).all() and (chart["accuracy"] <= chart["high"]).all()
    assert "bench tom-household" in next(s for s in page.sections if s.kind == "markdown").value


def test_every_page_draws_and_a_bad_filter_is_refused(api):
    with gr.Blocks():
        for page in (api.results_page("avalon"), api.results_page("mystery"), page_for(api, SUITES_PAGE)):
            for section in page.sections:
                section_component(section)
    with pytest.raises(Exception, match="unknown match source"):
        results_scope("bogus")
