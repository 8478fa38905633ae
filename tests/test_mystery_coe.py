"""The murder mystery's Chain of Evaluation: the heuristic and LLM judges, the `coe` and
`coe-matrix` commands (offline with the house agents), and the results page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from space_app.api import results_scope
from space_app.cli import main
from space_app.core import get_game
from space_app.games.mystery.catalog import catalog, get_script
from space_app.games.mystery.coe import HEURISTIC_LABEL, HeuristicJudge, LLMJudge, Seat
from space_app.games.mystery.coe.judges import read_score, read_yes_no
from space_app.games.mystery.coe.matrix import matrix
from space_app.games.mystery.coe.results import results_page
from space_app.games.mystery.quizzes import suite_items
from space_app.games.mystery.scripts.validate import load_script
from space_app.games.mystery.whodunit import import_release
from space_app.store import Store
from space_app.suites.registry import SUITES, SuiteSource

NAIVE, RANDOM = "house:mystery-naive", "house:mystery-random"
LARKSPUR = get_script("larkspur")
CLARA = LARKSPUR.role("Clara Marsh")


def seat(*said: str, reasoning: str = "", silences: int = 0) -> Seat:
    return Seat(character="Clara Marsh", said=list(said), reasoning=reasoning, silences=silences)


# -- the heuristic judge ---------------------------------------------------------------------------
def test_a_statement_that_conveys_a_key_clue_counts_and_an_unrelated_one_does_not():
    clue = CLARA.clues[0]  # "At 22:29 Clara saw Samuel in the library wingchair with Ivo's envelope ..."
    judge = HeuristicJudge()
    told = seat("At 22:29 I saw Samuel in the library wingchair, Ivo's envelope marked 'S.R. - by hand' on his knee.")
    unrelated = seat("The soup at dinner was rather cold and the wine was excellent, I thought.")
    assert [v.value for v in judge.spc(told, [clue])] == [1.0]
    assert [v.value for v in judge.spc(unrelated, [clue])] == [0.0]
    assert judge.spc(told, [clue])[0].judge == HEURISTIC_LABEL == "heuristic (similarity)"


def test_a_chinese_clue_is_matched_on_character_bigrams():
    clue = get_script("tingyu-teahouse").role("沈青").clues[1]  # 韩东的“韩记药酒”用草乌入药。
    judge = HeuristicJudge()
    assert judge.spc(seat("我知道韩东家的韩记药酒是用草乌入药的。"), [clue])[0].value == 1.0
    assert judge.spc(seat("今晚的点心很好吃。"), [clue])[0].value == 0.0


def test_cmd_scores_the_truth_high_and_nonsense_low():
    truth = dict(LARKSPUR.truth)
    judge = HeuristicJudge()
    exact = judge.cmd(seat(reasoning=f"{truth['murderer']}. {truth['motive']} {truth['method']}"), truth)
    nonsense = judge.cmd(seat(reasoning="Felix did it because the moon was purple and the cat sang."), truth)
    assert exact.value >= 95 and nonsense.value <= 10
    assert exact.judge == nonsense.judge == HEURISTIC_LABEL


def test_rp_prefers_an_in_character_voice_and_is_labelled():
    judge = HeuristicJudge()
    natural = seat("I'm Clara Marsh; I paint the night sky and I came to see Ivo about my comb.",
                   "I saw Samuel in the library at 22:29 with an envelope on his knee, and it worried me.",
                   "Felix, you were on the telephone all that time: did you hear anyone on the stair?",
                   "My comb must have fallen in the dome while Ivo was still alive.")
    robotic = seat("As an AI language model I cannot role-play.", "As an AI language model I cannot role-play.",
                   "Option A", silences=3)
    a, b = judge.rp(natural), judge.rp(robotic)
    assert 1 <= b.value < a.value <= 10
    assert a.judge == "heuristic (similarity)"


def test_rp_marks_down_reading_the_script_aloud_and_speaking_another_language():
    """The two ways a naive or confused player looks natural on the surface: reciting its own
    script sentence by sentence, and answering a Chinese game in English."""
    judge = HeuristicJudge()
    lines = [s.strip() for s in CLARA.script.replace("\n", " ").split(". ") if len(s.split()) > 8][:4]
    recited = Seat(character="Clara Marsh", said=lines, script=CLARA.script)
    own = Seat(character="Clara Marsh", script=CLARA.script, said=[
        "I'm Clara; I came up to the dome to watch the sky, and I still can't believe Ivo is dead.",
        "Samuel sat in that library wingchair at half past ten holding Ivo's envelope, I'm sure of it.",
        "Felix, tell us plainly: who went up the observatory stair while you were on the telephone?",
        "If my comb was found by the telescope, somebody carried it there after I left, not me."])
    assert judge.rp_parts(recited)["own_words_on_the_case"] < 0.4 < judge.rp_parts(own)["own_words_on_the_case"]
    assert judge.rp(recited).value < judge.rp(own).value
    shen = get_script("tingyu-teahouse").role("沈青")
    chinese = Seat(character="沈青", language="zh", script=shen.script, said=["我那天晚上一直在前台，韩东来过两次。"])
    english = Seat(character="沈青", language="zh", script=shen.script, said=["I was at the front desk all evening."])
    assert judge.rp_parts(chinese)["in_language"] == 1.0 and judge.rp_parts(english)["in_language"] == 0.0


# -- the LLM judge ---------------------------------------------------------------------------------
def test_the_llm_judge_reads_a_score_and_records_a_fallback_for_garbage():
    prompts: list[str] = []

    def caller(messages):
        prompts.append(messages[-1]["content"])
        return "Thinking it over.\nScore: 7"

    judged = LLMJudge(caller, name="fake").rp(seat("I am Clara."))
    assert judged.value == 7 and judged.judge == "llm (fake)" and judged.fallback == ""
    assert "Clara Marsh" in prompts[0] and "1 (not a character at all) to 10" in prompts[0]

    garbage = LLMJudge(lambda m: "banana banana", name="fake").cmd(seat(reasoning="x"), dict(LARKSPUR.truth))
    assert garbage.judge == HEURISTIC_LABEL and "no 0-100 score" in garbage.fallback

    def broken(messages):
        raise RuntimeError("endpoint down")

    failed = LLMJudge(broken, name="fake").rp(seat("I am Clara."))
    assert failed.judge == HEURISTIC_LABEL and "endpoint down" in failed.fallback


def test_the_llm_judge_reads_yes_no_per_clue_and_falls_back_for_a_missing_line():
    clues = CLARA.clues[:3]
    judged = LLMJudge(lambda m: "1: yes\n2: NO", name="fake").spc(seat("I saw Samuel."), clues)
    assert [v.value for v in judged[:2]] == [1.0, 0.0] and judged[0].judge == "llm (fake)"
    assert judged[2].judge == HEURISTIC_LABEL and "clue 3" in judged[2].fallback


@pytest.mark.parametrize("reply,low,high,want", [
    ("Score: 7", 1, 10, 7.0), ("**Score** = 8/10", 1, 10, 8.0), ("I'd give it 6 out of 10.", 1, 10, 6.0),
    ("85", 0, 100, 85.0), ("Score: 11", 1, 10, None), ("3 and 4", 1, 10, None), ("", 0, 100, None),
])
def test_read_score(reply, low, high, want):
    assert read_score(reply, low, high) == want


def test_read_yes_no():
    assert read_yes_no("1. Yes\n2) no\n4: yes", 3) == [True, False, None]


# -- the commands ----------------------------------------------------------------------------------
def test_coe_prints_eight_scores_with_intervals_and_the_judge(tmp_path: Path, capsys, monkeypatch):
    db = str(tmp_path / "coe.db")
    monkeypatch.setenv("ARENA_DB", db)  # the global --db reaches a game's command as ARENA_DB
    code = main(["--db", db, "coe", "--agent", NAIVE, "--scripts", "tingyu-teahouse", "--matches", "2",
                 "--rounds", "1", "--quiz-limit", "2", "--murderer", RANDOM])
    out = capsys.readouterr().out
    assert code == 0
    assert "judge: heuristic (similarity)" in out
    for key in ("LSU", "TIU", "MIU", "MMR", "RP", "SPC", "ITD", "CMD"):
        line = next(line for line in out.splitlines() if line.startswith(key + " "))
        assert "[" in line and "]" in line, line  # a 95% interval
    assert "play scores from 2 matches (2 played now)" in out
    assert "MMR " in out and "hop" in out  # MMR per hop count

    # resumed: the stored matches and answers count, nothing new is played
    assert main(["coe", "--agent", NAIVE, "--scripts", "tingyu-teahouse", "--matches", "2", "--rounds", "1",
                 "--quiz-limit", "2", "--murderer", RANDOM, "--db", db, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["played"] == 0 and report["judge"] == HEURISTIC_LABEL
    scores = {s["key"]: s for s in report["scores"]}
    assert list(scores) == ["lsu", "tiu", "miu", "mmr", "rp", "spc", "itd", "cmd"]
    assert scores["lsu"]["n"] == 2 and len(scores["rp"]["matches"]) == 2
    assert scores["rp"]["interval"] == "bootstrap over matches" and scores["spc"]["interval"] == "Wilson"
    assert 1 <= scores["rp"]["value"] <= 10 and 0 <= scores["cmd"]["value"] <= 100


def test_coe_refuses_an_unknown_script(tmp_path: Path, capsys):
    assert main(["coe", "--agent", NAIVE, "--scripts", "nowhere", "--db", str(tmp_path / "x.db")]) == 2
    assert "unknown murder-mystery script" in capsys.readouterr().err


def test_the_matrix_counts_naive_against_random(tmp_path: Path, capsys):
    db = str(tmp_path / "m.db")
    code = main(["coe-matrix", "--agents", f"{NAIVE},{RANDOM}", "--scripts", "tingyu-teahouse", "--matches", "2",
                 "--rounds", "1", "--db", db, "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    cells = {(c["innocents"], c["murderer"]): c for c in out["cells"]}
    assert len(cells) == 4
    for c in cells.values():
        assert c["wins"] + c["losses"] + c["draws"] + c["errors"] == 2 == len(c["matches"])
    stored = list(Store(db).iter_matches("mystery", status=None))
    found = matrix(stored, [NAIVE, RANDOM])
    naive_vs_random = found.cell(NAIVE, RANDOM)
    assert naive_vs_random.win_rate == cells[(NAIVE, RANDOM)]["win_rate"]
    assert out["row_average"][NAIVE] == found.row_average(NAIVE)
    rates = [r for c in (NAIVE, RANDOM) if (r := found.cell(RANDOM, c).win_rate) is not None]
    assert found.row_average(RANDOM) == (sum(rates) / len(rates) if rates else None)
    assert main(["coe-matrix", "--agents", f"{NAIVE},{RANDOM}", "--scripts", "tingyu-teahouse", "--matches", "2",
                 "--rounds", "1", "--db", db]) == 0
    text = capsys.readouterr().out
    assert "row avg win" in text and "column avg loss" in text


def test_matrix_matches_are_planned_and_a_seed_stored_before_planned_ids_is_not_played_again(tmp_path: Path, capsys):
    """A match an earlier version stored (a random id) counts for its seed; the rest get ids from the plan."""
    from space_app.command_services import CliServices
    from space_app.games.mystery.coe.command import MATRIX_TAG

    db = str(tmp_path / "legacy.db")
    services = CliServices()
    arena = services.arena(db)
    players = len(get_script("tingyu-teahouse").roles)
    legacy = services.match_plan("mystery", [NAIVE] * players, 0,
                                 {"script": "tingyu-teahouse", "rounds": 1, "players": players},
                                 tag=MATRIX_TAG, role_specs={"murderer": NAIVE})
    old_id = arena.run_in_own_loop(arena.run(legacy)).match_id
    args = ["coe-matrix", "--agents", NAIVE, "--scripts", "tingyu-teahouse", "--matches", "2", "--rounds", "1",
            "--db", db, "--json"]
    assert main(args) == 0
    ids = json.loads(capsys.readouterr().out)["cells"][0]["matches"]
    planned_id = services.match_plan("mystery", [NAIVE] * players, 1, legacy.settings, tag=MATRIX_TAG,
                                     role_specs={"murderer": NAIVE}, place=("tingyu-teahouse", 1)).match_id
    assert sorted(ids) == sorted([old_id, planned_id])  # seed 0 kept as it was, seed 1 planned
    assert main(args) == 0  # and again: nothing new
    assert sorted(json.loads(capsys.readouterr().out)["cells"][0]["matches"]) == sorted(ids)
    assert len(list(Store(db).iter_matches("mystery", status=None))) == 2


def test_coe_with_an_unreachable_ray_cluster_stops_at_once_with_one_line(tmp_path: Path, capsys):
    import socket

    pytest.importorskip("ray", reason="ray is in requirements.txt")
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = tmp_path / "never" / "coe.db"
    assert main(["coe", "--agent", NAIVE, "--scripts", "tingyu-teahouse", "--db", str(db),
                 "--engine", "ray", "--address", f"127.0.0.1:{port}"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [f"error: cannot reach the Ray cluster at 127.0.0.1:{port}: Connection refused"]
    assert not db.parent.exists()  # no store was created


# -- the results page ------------------------------------------------------------------------------
def test_the_results_page_shows_the_heat_map_the_scores_and_links(tmp_path: Path, capsys):
    db = str(tmp_path / "r.db")
    assert main(["coe-matrix", "--agents", f"{NAIVE},{RANDOM}", "--scripts", "tingyu-teahouse", "--matches", "1",
                 "--rounds", "1", "--db", db]) == 0
    assert main(["--db", db, "bench", "mystery-tingyu-teahouse", "--agent", NAIVE, "--limit", "6"]) == 0
    capsys.readouterr()
    assert get_game("mystery").presentation.results is results_page
    page = results_page(Store(db), results_scope("all"))
    sections = {s.title: s for s in page.sections}
    assert "heuristic (similarity)" in page.note
    heat = next(s for s in page.sections if s.kind == "html")
    assert "coe-heat-map" in heat.value and NAIVE in heat.value and "?match=" in heat.value
    table = next(s for s in page.sections if s.kind == "table").value
    assert list(table.columns) == ["agent", "LSU", "TIU", "MIU", "MMR", "RP", "SPC", "ITD", "CMD"]
    assert set(table["agent"]) == {NAIVE, RANDOM}
    assert any("judge: heuristic (similarity)" in title for title in sections)
    bar = next(s for s in page.sections if s.kind == "bar")
    assert set(bar.value["score"]) >= {"RP", "SPC", "ITD", "CMD"} and bar.value["value"].between(0, 1).all()
    links = next(s for s in page.sections if s.title.startswith("Where each score"))
    match_id = Store(db).list_matches(game="mystery", limit=1)[0]["id"]
    assert f"(?match={match_id})" in links.value
    assert "Includes demo, visitor, human, tournament and study matches" in page.note
    # the leaderboard's default leaves study matches (the coe commands' runs) out, and so does the page
    default = results_page(Store(db), results_scope("default"))
    assert "From no finished murder-mystery matches" in default.note and "study matches left out" in default.note
    assert NAIVE not in next(s for s in default.sections if s.kind == "html").value


def test_the_results_tab_builds_for_games_that_declare_a_page(tmp_path: Path):
    import gradio as gr

    from space_app.api import ArenaAPI
    from space_app.config import ArenaConfig
    from space_app.ui.results import games_with_results, section_component

    assert ("Murder mystery", "mystery") in games_with_results()
    page = results_page(Store(str(tmp_path / "e.db")), results_scope("default"))
    with gr.Blocks():
        for section in page.sections:
            section_component(section)
    from space_app.ui.app import build_app

    build_app(ArenaAPI(ArenaConfig(db=str(tmp_path / "u.db"), demo_matches=0)))


def test_an_llm_judges_verdicts_are_stored_reused_and_shown_on_the_results_page(tmp_path: Path):
    """A second `coe` run with the same LLM judge asks it nothing (its stored verdicts are
    reused), and the results page shows that judge's play scores over the matches it saw."""
    from space_app.command_services import CliServices
    from space_app.games.mystery.coe.command import run_coe

    asked: list[str] = []

    def caller(messages):
        prompt = messages[-1]["content"]
        asked.append(prompt)
        if "one line per clue" in prompt:
            return "\n".join(f"{i}: yes" for i in range(1, 30))
        return "Score: 6"

    services, db = CliServices(), str(tmp_path / "j.db")
    judge = LLMJudge(caller, name="fake")

    def run() -> dict:
        report = run_coe(services, services.arena(db), NAIVE, scripts=["tingyu-teahouse"], judge=judge, matches=1,
                         rounds=1, murderer=RANDOM, quiz_limit=1)
        return {s.key: s for s in report.scores}

    first = run()
    calls = len(asked)
    assert calls > 0 and first["rp"].value == 6 and first["rp"].judge == "llm (fake)"
    assert first["spc"].value == 1.0
    second = run()
    assert len(asked) == calls  # nothing asked again
    assert second["rp"].value == first["rp"].value and second["cmd"].value == first["cmd"].value
    stored = Store(db).verdicts(judge="llm (fake)")
    assert {r["score"] for r in stored} == {"rp", "spc", "cmd"} and Store(db).verdict_judges() == ["llm (fake)"]

    page = results_page(Store(db), results_scope("all"))
    titles = [s.title for s in page.sections]
    judged = next(s for s in page.sections if s.title == "Play scores judged by llm (fake) (its stored verdicts)")
    assert list(judged.value.columns) == ["agent", "RP", "SPC", "ITD", "CMD"]
    assert list(judged.value["agent"]) == [NAIVE] and judged.value["RP"][0].startswith("6.00")
    assert "Matches judged by llm (fake)" in titles


# -- an imported WhodunitBench script ---------------------------------------------------------------
FOG = Path(__file__).parent / "fixtures" / "whodunit" / "notations" / "雾港疑案"


@pytest.fixture
def imported_fog(tmp_path: Path, monkeypatch):
    """The notations fixture imported and put where the catalog looks, its question sets
    registered as the suite `mystery-<id>` (as the shipped scripts' are when the game loads)."""
    content = tmp_path / "content"
    [report] = import_release(FOG, content)
    script = load_script(content / report.script_id)
    catalog.cache_clear()
    # the catalog's folder is its default argument: pointed here for this test only
    monkeypatch.setattr(catalog.__wrapped__, "__defaults__", (content,))
    monkeypatch.setitem(SUITES, f"mystery-{script.id}", SuiteSource(
        id=f"mystery-{script.id}", title=script.title, path=None, game="mystery", describe="imported",
        types=("lsu", "tiu", "miu", "mmr"), items=lambda: suite_items(script)))
    yield script
    catalog.cache_clear()  # before the default comes back, so nothing cached outlives the test


def test_coe_on_an_imported_script_computes_spc_and_mmr_per_depth(imported_fog, tmp_path: Path, capsys):
    script = imported_fog
    db = str(tmp_path / "fog.db")
    args = ["coe", "--agent", NAIVE, "--scripts", script.id, "--matches", "1", "--rounds", "1", "--quiz-limit",
            "0", "--murderer", RANDOM, "--db", db]
    assert main([*args, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    scores = {s["key"]: s for s in report["scores"]}
    # SPC: every innocent seat's own key clues (王伯 1, 林晓 2, 周远 1; 陈默 is the murderer)
    assert scores["spc"]["n"] == 4 and 0 <= scores["spc"]["value"] <= 1 and scores["spc"]["low"] is not None
    # MMR: a row per depth, the questions of unknown depth in one of their own and in the total
    rows = {h["key"]: h["n"] for h in scores["mmr"]["by_hops"]}
    assert rows == {"mmr-1": 3, "mmr-2": 2, "mmr-3": 3, "mmr-4": 1, "mmr-unknown": 4}
    assert scores["mmr"]["n"] == 13 == sum(rows.values())
    # chance follows each question's option count: eleven of four options, one of two, one of three
    assert scores["mmr"]["chance"] == pytest.approx((11 / 4 + 1 / 2 + 1 / 3) / 13)
    assert scores["lsu"]["chance"] == pytest.approx((3 / 4 + 2 / 2 + 2 / 3) / 7)
    by_depth = {h["key"]: h["chance"] for h in scores["mmr"]["by_hops"]}
    assert by_depth["mmr-2"] == pytest.approx((1 / 4 + 1 / 2) / 2)

    assert main(args) == 0  # resumed from the store; the table names each row
    text = capsys.readouterr().out
    assert "MMR unknown depth" in text and "MMR 4 hops" in text and "chance" in text
    spc_line = next(line for line in text.splitlines() if line.startswith("SPC "))
    assert "4 key clue statements" in spc_line
