"""ToM in play vs ToM in questions: `experiment tom-in-play` plays probed matches of every game
and asks the tom-household suite for the house agents, in a real SQLite file; its figures are
the probe report's and the suite runner's computed apart, a run again plays and asks nothing,
and the Results tab shows the same table from the store. The correlation's arithmetic by hand."""

from __future__ import annotations

import json

import pytest

from space_app.agents.catalogue import AgentCatalogue
from space_app.api import ArenaAPI
from space_app.cli import TOM_IN_PLAY
from space_app.cli import main as cli_main
from space_app.config import ArenaConfig
from space_app.core.report import Cell
from space_app.correlation import MIN_AGENTS, correlate, pearson, ranks, spearman
from space_app.probe_report import scored_probes, summarise
from space_app.store import Store
from space_app.tom_in_play import STUDY, entrants, house_bot, probed_games, run_tag, tables, unscored
from space_app.ui.results import SUITES_PAGE, page_for

GAMES, LIMIT = 1, 9


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> tuple[str, str]:
    db = str(tmp_path_factory.mktemp("tominplay") / "arena.db")
    args = ["--db", db, "experiment", "tom-in-play", "--games", str(GAMES), "--limit", str(LIMIT)]
    assert cli_main(args) == 0
    return db, " ".join(args)


def _counts(db: str) -> tuple[int, int, int]:
    store = Store(db, recover=False)
    counts = (store.count_matches(), len(store.answers("tom-household", "house:overlap")),
              len(store.answers("tom-household", "house:guess")))
    store.close()
    return counts


def test_the_study_prints_probe_scores_beside_suite_scores_and_the_correlation_note(study, capsys) -> None:
    db, _ = study
    assert cli_main(["--db", db, "experiment", "tom-in-play", "--games", str(GAMES), "--limit", str(LIMIT)]) == 0
    out = capsys.readouterr().out
    assert STUDY == TOM_IN_PLAY
    assert "ToM in play (belief probes) beside ToM in questions" in out
    assert "| house-rules | avalon, mystery, spy, werewolf | house:overlap | 4 |" in out
    assert "| house-random | avalon, mystery, spy, werewolf | house:guess | 4 |" in out
    assert "Probe skill (1 − Brier) against suite accuracy" in out
    assert "too few agents (2) for a correlation" in out  # two entrants by default


@pytest.mark.parametrize(("entrant", "answerer"), [("house-rules", "house:overlap"), ("house-random", "house:guess")])
def test_the_figures_are_the_probe_reports_and_the_suite_runners(study, capsys, entrant, answerer) -> None:
    db, _ = study
    assert cli_main(["--db", db, "experiment", "tom-in-play", "--games", str(GAMES), "--limit", str(LIMIT)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith(f"| {entrant} |"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    store = Store(db, recover=False)
    probes = [p for m in store.iter_matches(None, tag=run_tag(entrant, 0)) for p in scored_probes(m)]
    (apart,) = summarise(probes, by=())
    store.close()
    brier = Cell(value=apart["brier"], low=apart["brier_low"], high=apart["brier_high"], n=apart["brier_n"], digits=3)
    assert cells[4] == brier.text() and apart["brier_n"] > 0
    # the suite scored apart by `bench` on the same fixed sample: nothing is asked again
    assert cli_main(["--db", db, "bench", "tom-household", "--agent", answerer, "--limit", str(LIMIT), "--json"]) == 0
    bench = json.loads(capsys.readouterr().out)
    assert bench["answered"] == LIMIT
    assert cells[8] == Cell(value=bench["accuracy"], low=bench["accuracy_low"], high=bench["accuracy_high"],
                            n=bench["accuracy_n"], percent=True).text()
    for column, kind in zip(cells[9:], ("belief", "social_goal", "belief_of_goal"), strict=True):
        found = bench["by_type"].get(kind)
        assert column == (Cell(value=found["accuracy"], low=found["accuracy_low"], high=found["accuracy_high"],
                               n=found["accuracy_n"], percent=True).text() if found else "– n=0")


def test_running_again_resumes_without_playing_or_asking(study, capsys) -> None:
    db, _ = study
    before = _counts(db)
    assert before == (2 * len(probed_games()) * GAMES, LIMIT, LIMIT)
    assert cli_main(["--db", db, "experiment", "tom-in-play", "--games", str(GAMES), "--limit", str(LIMIT)]) == 0
    first = capsys.readouterr().out
    assert cli_main(["--db", db, "experiment", "tom-in-play", "--games", str(GAMES), "--limit", str(LIMIT)]) == 0
    assert capsys.readouterr().out == first
    assert _counts(db) == before


def test_the_results_tab_and_the_report_show_the_stored_runs(study, capsys) -> None:
    db, _ = study
    api = ArenaAPI(ArenaConfig(db=db, demo_matches=0))
    page = page_for(api, SUITES_PAGE)
    table = next(s for s in page.sections if s.title.startswith("ToM in play") and s.kind == "table").value
    assert sorted(table["agent"]) == ["house-random", "house-rules"]
    assert all("n=" in text for text in table["Brier"]) and all("n=9" in text for text in table["accuracy %"])
    assert any(s.title.startswith("Probe skill") for s in page.sections)
    assert cli_main(["--db", db, "report", "tom-in-play", "--agents", "house-rules"]) == 0
    out = capsys.readouterr().out
    assert "| house-rules |" in out and "| house-random |" not in out


def test_agents_that_cannot_answer_or_play_are_left_out_and_say_why(tmp_path) -> None:
    catalogue = AgentCatalogue(Store(str(tmp_path / "a.db")))
    found, left = entrants(["house-rules", "house:heuristic", "house:guess"], catalogue)
    assert [e.name for e in found] == ["house-rules"]
    assert found[0].players["spy"] == "house:heuristic" and found[0].answerer == "house:overlap"
    assert "house:heuristic: left out, house:heuristic does not answer the suite's questions" in left[0]
    assert "house:guess: left out, house:guess plays none of the games with probes" in left[1]
    paired, left = entrants(["house:heuristic@house:guess", "house-rules@house:heuristic"], catalogue)
    assert [(e.players, e.answerer) for e in paired] == [({"spy": "house:heuristic"}, "house:guess")]
    assert left == ["house-rules@house:heuristic: left out, house:heuristic does not answer the suite's questions "
                    "(it declares spy, not 'tom')"]
    assert house_bot("avalon", "random") == "house:avalon-random" and house_bot("werewolf", "rules") == \
        "house:werewolf-rules"
    with pytest.raises(ValueError, match="named twice"):
        entrants(["house-rules", "house-rules"], catalogue)


def test_crossed_pairings_give_a_correlation_of_zero_and_say_it_means_little(tmp_path, capsys) -> None:
    """The same rule and random bots in play, each paired with both answerers: in play the
    crossed entrants repeat their family's matches, so the correlation is exactly zero."""
    agents = "house-rules,house-random,house-rules@house:guess,house-random@house:overlap"
    db = str(tmp_path / "a.db")
    assert cli_main(["--db", db, "experiment", "tom-in-play", "--agents", agents, "--games", "1", "--limit", "12"]) == 0
    out = capsys.readouterr().out
    row = next(x for x in out.splitlines() if x.startswith("| all |"))
    assert row.startswith("| all | 4 | 0.00 [") and "n=4 | 0.00 [" in row
    assert "only 4 agents: a correlation across so few means little" in out
    assert "95% percentile bootstrap over the agents (2000 resamples, seed 0)" in out
    assert "| house-rules@house:guess | avalon, mystery, spy, werewolf | house:guess | 4 |" in out


def test_an_unknown_agent_or_a_misplaced_option_is_refused(tmp_path, capsys) -> None:
    db = str(tmp_path / "a.db")
    assert cli_main(["--db", db, "experiment", "tom-in-play", "--agents", "house:nobody", "--games", "1"]) == 2
    assert "house:nobody" in capsys.readouterr().err
    assert cli_main(["--db", db, "experiment", "attack", "--limit", "5"]) == 2
    assert "belong to the tom-in-play study" in capsys.readouterr().err
    assert cli_main(["--db", db, "experiment", "tom-in-play", "--base", "house:heuristic"]) == 2
    assert "takes --agents, not --base" in capsys.readouterr().err


def test_correlations_by_hand() -> None:
    assert ranks([3.0, 1.0, 3.0, 2.0]) == [3.5, 1.0, 3.5, 2.0]
    x, y = [0.1, 0.2, 0.3, 0.4], [0.3, 0.5, 0.4, 0.9]
    # Pearson by hand: deviations (-.15, -.05, .05, .15) and (-.225, -.025, -.125, .375)
    assert pearson(x, y) == pytest.approx(0.085 / (0.05 ** 0.5 * 0.2075 ** 0.5))
    assert spearman(x, y) == pytest.approx(0.8)  # ranks 1,2,3,4 against 1,3,2,4
    assert pearson([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]) is None  # a side that does not vary
    few = correlate(x[:MIN_AGENTS - 1], y[:MIN_AGENTS - 1])
    assert few.value is None and few.n == 2
    found = correlate(x, y, "spearman", seed=3)
    assert found.value == pytest.approx(0.8) and found.low <= found.value <= found.high
    assert found.resamples + found.dropped == 2000 and found == correlate(x, y, "spearman", seed=3)
    with pytest.raises(ValueError, match="unknown correlation"):
        correlate(x, y, "kendall")


def test_in_restricts_every_agent_to_the_games_named(tmp_path, capsys) -> None:
    """`--in spy`: every agent plays only Who is the Spy (what makes a slow model's row
    affordable), the rows and the stored matches say so, and a game without probes is refused."""
    db = str(tmp_path / "a.db")
    assert cli_main(["--db", db, "experiment", "tom-in-play", "--in", "spy", "--games", "2", "--limit", "3"]) == 0
    out = capsys.readouterr().out
    assert "2 probed self-play matches per game (spy only) and agent" in out
    assert "| house-rules | spy | house:overlap | 2 |" in out and "| house-random | spy | house:guess | 2 |" in out
    store = Store(db, recover=False)
    assert sorted(m["game"] for m in store.list_matches(limit=100)) == ["spy"] * 4
    store.close()
    assert cli_main(["--db", db, "experiment", "tom-in-play", "--in", "spy,chess"]) == 2
    assert "--in chess: not a game with probes" in capsys.readouterr().err
    assert cli_main(["--db", db, "experiment", "attack", "--in", "spy"]) == 2
    assert "--in belong to the tom-in-play study" in capsys.readouterr().err


def test_agents_are_compared_on_the_games_all_of_them_play(tmp_path) -> None:
    """An agent that plays only Who is the Spy (the game's rule bot, paired with an answerer)
    beside a family that plays every game: both are compared on spy alone, and the games left
    out are named."""
    catalogue = AgentCatalogue(Store(str(tmp_path / "a.db")))
    found, left = entrants(["house-rules", "house:heuristic@house:guess"], catalogue)
    assert [sorted(e.players) for e in found] == [["spy"], ["spy"]]
    assert found[0].players == {"spy": "house:heuristic"}
    assert left == [f"{game}: left out for every agent, house:heuristic@house:guess does not play it "
                    "(all are compared on spy)" for game in ("avalon", "mystery", "werewolf")]
    with pytest.raises(ValueError, match="play no probed game in common"):
        entrants(["house:heuristic@house:guess", "house:werewolf-rules@house:guess"], catalogue)


def test_an_agent_whose_probes_are_missing_says_why() -> None:
    """A row without scored probes (a model whose matches end before the first probe moment,
    or whose replies hold no readable belief) carries a footnote saying which; the house
    agents' rows, every probe read, carry none."""
    suite = {"accuracy": None, "by_type": {}}
    base = {"how": "plays", "answerer": "x", "games": ["spy"], "tags": ["t"], "uniform_brier": None, "suite": suite}
    early = {**base, "agent": "early", "matches": 1, "probes": None}
    muddled = {**base, "agent": "muddled", "matches": 1, "probes": {"asked": 12, "unreadable": 9, "brier": None}}
    clear = {**base, "agent": "clear", "matches": 1, "probes": {"asked": 12, "unreadable": 0, "brier": None}}
    assert unscored(early) == "early: no probe asked (each of its 1 matches ended before its first probe moment)"
    assert unscored({**early, "matches": 0}) == "early: no probe asked (no finished match)"
    assert unscored(muddled) == ("muddled: 9 of 12 probes unreadable (no belief could be read from the reply, or no "
                                 "reply in time): not scored")
    assert unscored(clear) is None
    notes = tables([early, muddled, clear])[0].footnotes
    assert unscored(early) in notes and unscored(muddled) in notes and not any(n.startswith("clear: no") for n in notes)
