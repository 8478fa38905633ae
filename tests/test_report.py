"""`python -m space_app report NAME`: each paper's tables from real SQLite stores filled by the
arena's own commands with house agents (MuMA-ToM bench runs of the muma fixture, coe and
coe-matrix matches, Avalon intention and rule-bot matches, spy tournaments and a study): exact
columns in the paper's order, n and intervals recomputed from the store, the published block
labelled and apart, Markdown/CSV/LaTeX that parse, and runs of mixed settings refused or split."""

from __future__ import annotations

import csv
import io
import re
import sqlite3
from pathlib import Path

import pytest

from space_app.cli import main
from space_app.core.report import Cell, ReportQuery, Table
from space_app.games.avalon.events import KINDS as AVALON_KINDS
from space_app.games.avalon.events import QuestResult
from space_app.games.mystery.catalog import get_script
from space_app.games.mystery.coe.matrix import matrix
from space_app.games.mystery.coe.results import quiz_tags
from space_app.games.spy.metrics import records as spy_records
from space_app.reports import build, csv_text, latex, markdown
from space_app.stats import wilson
from space_app.store import Store

FIXTURES = Path(__file__).parent / "fixtures" / "muma"
GUESS, OVERLAP = "house:guess", "house:overlap"
NAIVE, RANDOM = "house:mystery-naive", "house:mystery-random"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def md_tables(text: str) -> dict[str, tuple[list[str], list[list[str]]]]:
    """The Markdown tables by heading: (header cells, body rows' cells)."""
    found: dict[str, tuple[list[str], list[list[str]]]] = {}
    heading = ""
    for line in text.splitlines():
        if line.startswith("### "):
            heading = line[4:]
        elif line.startswith("|") and heading:
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            if heading not in found:
                found[heading] = (cells, [])
            elif not all(set(c) <= {"-"} for c in cells):
                found[heading][1].append(cells)
    return found


def figure(text: str) -> tuple[float, float, float, int]:
    m = re.fullmatch(r"(-?[\d.]+) \[(-?[\d.]+), (-?[\d.]+)\] n=(\d+)( \(.\))?", text)
    assert m, text
    return float(m[1]), float(m[2]), float(m[3]), int(m[4])


def wilson_text(k: int, n: int) -> str:
    low, high = wilson(k, n)
    return f"{100 * k / n:.1f} [{100 * low:.1f}, {100 * high:.1f}] n={n}"


# ------------------------------------------------------------------------------ MuMA-ToM
@pytest.fixture(scope="module")
def muma_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    root = tmp_path_factory.mktemp("muma")
    db, suite = str(root / "arena.db"), root / "mumatom.jsonl"
    assert main(["import-muma-tom", str(FIXTURES / "clean_questions.json"), "--texts",
                 str(FIXTURES / "clean_texts.json"), str(suite)]) == 0
    for agent in (GUESS, OVERLAP):
        assert main(["--db", db, "bench", str(suite), "--agent", agent]) == 0
    return db, root


def test_muma_is_the_papers_table_with_n_and_wilson_intervals(muma_store, capsys):
    db, _ = muma_store
    code, out, _ = run(["--db", db, "report", "muma", "--agents", f"{GUESS},{OVERLAP}"], capsys)
    assert code == 0
    tables = md_tables(out)
    head, rows = tables["MuMA-ToM Table 1: accuracy by question type, %"]
    assert head == ["agent", "Belief", "Social goal", "Belief of goal", "All"]
    assert [r[0] for r in rows] == [GUESS, OVERLAP]
    store = Store(db)
    for row in rows:
        answers = store.answers("file:mumatom", row[0])
        for cell, kind in zip(row[1:4], ("belief", "social_goal", "belief_of_goal"), strict=True):
            typed = [a for a in answers if kind in a["types"]]
            assert cell == wilson_text(sum(a["correct"] for a in typed), len(typed))
        assert row[4] == wilson_text(sum(a["correct"] for a in answers), len(answers))
        assert figure(row[4])[3] == 7  # every question of the fixture


def test_muma_shows_published_figures_apart_and_labelled(muma_store, capsys):
    db, _ = muma_store
    _, out, _ = run(["--db", db, "report", "muma", "--agents", f"{GUESS},{OVERLAP}"], capsys)
    tables = md_tables(out)
    published = [h for h in tables if h.endswith("[published]")]
    assert published == ["MuMA-ToM: published results, % [published]"]
    head, rows = tables[published[0]]
    assert head == ["published", "Belief", "Social goal", "Belief of goal", "All"]
    assert rows == [["AutoToM (a)", "– (*)", "– (*)", "– (*)", "81.4"]]
    assert "arXiv:2502.15676, Table 1" in out
    measured = tables["MuMA-ToM Table 1: accuracy by question type, %"][1]
    assert all(not r[0].startswith("AutoToM") for r in measured)  # never mixed with measured rows


def test_muma_in_csv_and_latex(muma_store, capsys):
    db, root = muma_store
    out_file = root / "muma.csv"
    code, _, err = run(["--db", db, "report", "muma", "--format", "csv", "--out", str(out_file)], capsys)
    assert code == 0 and "written to" in err
    rows = list(csv.reader(io.StringIO(out_file.read_text(encoding="utf-8"))))
    header = rows[0]
    assert header[:3] == ["table", "kind", "agent"]
    assert header[3:7] == ["Belief", "Belief low", "Belief high", "Belief n"]
    measured = [r for r in rows if len(r) > 1 and r[1] == "measured"]
    assert [r[2] for r in measured] == [GUESS, OVERLAP]
    for r in measured:
        assert len(r) == len(header)
        value, low, high, n = float(r[-4]), float(r[-3]), float(r[-2]), int(r[-1])
        assert low <= value <= high and n == 7
    assert any(len(r) > 2 and r[1] == "published" and r[2] == "AutoToM (a)" and r[-4] == "81.4" for r in rows)
    _, tex, _ = run(["--db", db, "report", "muma", "--format", "latex"], capsys)
    assert tex.count(r"\begin{table}") == tex.count(r"\end{table}") == 2
    assert r"\caption{MuMA-ToM: published results, \% [published]}" in tex
    for line in tex.splitlines():
        if line.endswith(r" \\") and "&" in line:
            assert line.count(" & ") == 4  # five columns in every row


def test_muma_runs_of_two_suite_files_are_refused_or_split(muma_store, capsys, tmp_path):
    db, root = muma_store
    other = tmp_path / "muma-texts.jsonl"  # the same questions imported with the texts as context
    assert main(["import-muma-tom", str(FIXTURES / "clean_questions.json"), "--texts",
                 str(FIXTURES / "clean_texts.json"), "--context", "texts", str(other)]) == 0
    mixed = str(tmp_path / "mixed.db")
    for suite in (root / "mumatom.jsonl", other):
        assert main(["--db", mixed, "bench", str(suite), "--agent", GUESS]) == 0
    capsys.readouterr()
    code, out, err = run(["--db", mixed, "report", "muma"], capsys)
    assert code == 3 and out == ""
    assert "file:muma-texts" in err and "file:mumatom" in err and "--split" in err
    code, out, _ = run(["--db", mixed, "report", "muma", "--split"], capsys)
    assert code == 0
    assert out.count("Stored answers to the suite") == 2
    code, out, _ = run(["--db", mixed, "report", "muma", "--tag", "file:muma-texts"], capsys)
    assert code == 0 and "Stored answers to the suite file:muma-texts" in out and "file:mumatom" not in out


# ------------------------------------------------------------------------------ WhodunitBench
@pytest.fixture(scope="module")
def mystery_store(tmp_path_factory: pytest.TempPathFactory) -> str:
    db = str(tmp_path_factory.mktemp("mystery") / "arena.db")
    assert main(["coe-matrix", "--agents", f"{NAIVE},{RANDOM}", "--scripts", "larkspur,hobbs-island",
                 "--matches", "1", "--rounds", "1", "--db", db]) == 0
    for agent in (NAIVE, RANDOM):
        assert main(["coe", "--agent", agent, "--scripts", "larkspur", "--matches", "1", "--rounds", "1",
                     "--quiz-limit", "1", "--db", db]) == 0
    return db


def test_whodunit_table_2_leaves_the_diagonal_out_of_the_averages(mystery_store, capsys):
    code, out, _ = run(["--db", mystery_store, "report", "whodunit", "--agents", f"{NAIVE},{RANDOM}"], capsys)
    assert code == 0
    head, rows = md_tables(out)["WhodunitBench Table 2: win rate of the innocents (row) against the murderer "
                                "(column), %"]
    assert head == ["innocents \\\\ murderer", NAIVE, RANDOM, "Avg"]
    assert [r[0] for r in rows] == [NAIVE, RANDOM, "Avg (murderer's loss rate)"]
    store = Store(mystery_store)
    found = matrix([store.get_match(m["id"]) for m in store.list_matches(game="mystery", tag="study:coe-matrix")])
    for i, row_agent in enumerate((NAIVE, RANDOM)):
        other = RANDOM if row_agent == NAIVE else NAIVE
        assert rows[i][1 + i] == "– (a)"  # the diagonal
        cell = found.cell(row_agent, other)
        shown = rows[i][2 - i]
        if cell.decided:
            assert shown == wilson_text(cell.wins, cell.decided)
            # the average is over the other agent alone: its one cell, n=1 cell averaged
            value, _, _, n = figure(rows[i][3])
            assert n == 1 and value == pytest.approx(round(100 * cell.win_rate, 1))
        else:
            assert shown == "– n=0"


def test_whodunit_table_3_has_the_coe_columns_an_avg_and_a_random_row(mystery_store, capsys):
    _, out, _ = run(["--db", mystery_store, "report", "whodunit", "--agents", f"{NAIVE},{RANDOM}"], capsys)
    head, rows = md_tables(out)["WhodunitBench Table 3: the Chain of Evaluation (LSU, TIU, MIU, MMR, SPC, ITD in "
                                "%; RP 1-10; CMD 0-100)"]
    assert head == ["agent", "LSU", "TIU", "MIU", "MMR", "RP", "SPC", "ITD", "CMD"]
    assert [r[0] for r in rows] == [NAIVE, RANDOM, "Avg", "Random"]
    store = Store(mystery_store)
    tags, offered = quiz_tags()
    larkspur = get_script("larkspur")
    for r, agent in zip(rows[:2], (NAIVE, RANDOM), strict=True):
        answers = store.answers("mystery-larkspur", agent)
        lsu = [a for a in answers if "lsu" in a["types"]]
        assert r[1] == wilson_text(sum(a["correct"] for a in lsu), len(lsu))
        assert figure(r[5])[3] == 1  # RP: one coe match
    # Avg: the mean over the two agents, n=2
    for column in range(1, 9):
        cells = [rows[0][column], rows[1][column]]
        if all(c[0].isdigit() for c in cells):
            value, _, _, n = figure(rows[2][column])
            assert n == 2
            assert value == pytest.approx((figure(cells[0])[0] + figure(cells[1])[0]) / 2, abs=0.06)
    # Random: chance per question, 1 / its option count, over the questions answered
    asked = {a["item_id"]: a["types"] for agent in (NAIVE, RANDOM) for a in store.answers("mystery-larkspur", agent)}
    lsu_items = [i for i, types in asked.items() if "lsu" in types]
    chance = sum(1 / offered[i] for i in lsu_items) / len(lsu_items)
    assert rows[3][1] == f"{100 * chance:.1f} (d)"
    assert rows[3][5:] == ["– (e)"] * 4
    assert larkspur.roles and tags


def test_whodunit_refuses_runs_of_other_settings_then_splits_them(mystery_store, capsys, tmp_path):
    db = str(tmp_path / "mixed.db")
    # coe-matrix resumes: the second run plays one more match per line-up, with another setting
    for matches, rounds in (("1", "1"), ("2", "2")):
        assert main(["coe-matrix", "--agents", f"{NAIVE},{RANDOM}", "--scripts", "larkspur", "--matches", matches,
                     "--rounds", rounds, "--db", db]) == 0
    capsys.readouterr()
    code, out, err = run(["--db", db, "report", "whodunit"], capsys)
    assert code == 3 and out == ""
    assert "rounds: 1, 2" in err and "(4 runs)" in err
    code, out, _ = run(["--db", db, "report", "whodunit", "--split"], capsys)
    assert code == 0
    assert out.count("### WhodunitBench Table 2") == 2
    assert "rounds=1" in out and "rounds=2" in out


# ------------------------------------------------------------------------------ InterIntent
@pytest.fixture(scope="module")
def avalon_store(tmp_path_factory: pytest.TempPathFactory) -> str:
    db = str(tmp_path_factory.mktemp("avalon") / "arena.db")
    assert main(["--db", db, "experiment", "intentions", "--game", "avalon", "--base",
                 "house:avalon-scripted-model", "--games", "2"]) == 0
    assert main(["--db", db, "tournament", "avalon", "--seats", "house:avalon-rules", "house:avalon-random",
                 "--games", "2"]) == 0
    return db


def test_interintent_game_metrics_per_side_count_team_selection_per_quest_led(avalon_store, capsys):
    code, out, _ = run(["--db", avalon_store, "report", "interintent"], capsys)
    assert code == 0
    tables = md_tables(out)
    loyal_head, loyal = tables["InterIntent game metrics, Loyal side (%)"]
    evil_head, evil = tables["InterIntent game metrics, Evil side (%)"]
    assert loyal_head == ["agent", "Win rate", "Quest win rate", "Quest engagement", "Team selection accuracy",
                          "Proposal change rate", "Merlin assassinated"]
    assert evil_head == ["agent", "Win rate", "Quest win rate", "Quest engagement", "Team selection accuracy",
                         "Failure vote rate", "Proposal change rate", "Assassination hit rate"]
    store = Store(avalon_store)
    matches = list(store.iter_matches("avalon"))
    quests = sum(isinstance(e, QuestResult) for m in matches for e in AVALON_KINDS.parse_all(m["events"]))
    led = [figure(r[4])[3] for r in loyal + evil if r[4] != "– n=0 (a)"]
    assert sum(led) == quests  # every quest that went is counted once, for its leader
    seats = sum(len(m["seats"]) for m in matches)
    assert sum(figure(r[1])[3] for r in loyal + evil if not r[1].startswith("–")) == seats


def test_interintent_intention_tables_have_the_papers_shapes(avalon_store, capsys):
    _, out, _ = run(["--db", avalon_store, "report", "interintent"], capsys)
    tables = md_tables(out)
    guided = "house:avalon-scripted-model+intentions"
    head, rows = tables["InterIntent intention summarisation (F1)"]
    assert head == ["agent", "All", "Round 1", "Round 2", "Round 3", "Round 4", "Round 5"]
    row = next(r for r in rows if r[0] == guided)
    total = figure(row[1])[3]
    assert total > 0 and total == sum(figure(c)[3] for c in row[2:] if c != "– n=0")
    head, rows = tables["InterIntent intention guessing: guesser (row) × the agent whose statement was guessed "
                        "(column), F1"]
    assert head[0] == "guesser \\\\ game source" and head[1:] == [r[0] for r in rows]
    head, rows = tables["InterIntent intention following: the distribution of scores 1-5, THINK and SPEAK rated "
                        "apart (% of statements)"]
    assert head == ["agent", "part", "1", "2", "3", "4", "5", "Mean"]
    think = next(r for r in rows if r[0] == guided and r[1] == "THINK")
    speak = next(r for r in rows if r[0] == guided and r[1] == "SPEAK")
    for part in (think, speak):
        shares = [figure(c) for c in part[2:7]]
        assert sum(s[0] for s in shares) == pytest.approx(100.0, abs=0.3)
        assert len({s[3] for s in shares}) == 1  # every level over the same statements
    head, rows = tables["InterIntent intention selection: statements whose chosen intentions are judged "
                        "reasonable (%)"]
    assert head == ["agent", "Judged reasonable"]
    assert "Differs from the paper on purpose" in out


# ------------------------------------------------------------------------------ WiS
@pytest.fixture(scope="module")
def spy_store(tmp_path_factory: pytest.TempPathFactory) -> str:
    db = str(tmp_path_factory.mktemp("spy") / "arena.db")
    assert main(["--db", db, "tournament", "spy", "--games", "4"]) == 0
    assert main(["--db", db, "experiment", "attack", "--game", "spy", "--games", "2"]) == 0
    return db


def test_wis_leaderboard_and_study_tables(spy_store, capsys):
    code, out, _ = run(["--db", spy_store, "report", "wis"], capsys)
    assert code == 0
    tables = md_tables(out)
    head, rows = tables["WiS leaderboard"]
    assert head == ["agent", "Ranking score", "Win rate %", "Win rate spy %", "Win rate civilian %", "Avg score",
                    "Avg score spy", "Avg score civilian", "Vote accuracy %", "Foul rate %"]
    store = Store(spy_store)
    seats = [r for m in store.iter_matches("spy") if not m["tag"].startswith("study:") for r in spy_records(m)]
    for row in rows:
        mine = [r for r in seats if r.agent_id == row[0]]
        assert row[1] == f"{100 + sum(r.score for r in mine) - len(mine):.0f} n={len(mine)}"
        assert row[2] == wilson_text(sum(r.won for r in mine), len(mine))
    head, rows = tables["WiS prompt-injection attack and defence study"]
    assert [r[0] for r in rows] == ["baseline", "attacker spy", "defender-injection spy"]
    assert all(r[1] == "2" for r in rows)


def test_wis_refuses_a_mix_of_rule_versions_naming_it(spy_store, capsys, tmp_path):
    db = tmp_path / "versions.db"
    assert main(["--db", str(db), "tournament", "spy", "--games", "2"]) == 0
    with sqlite3.connect(db) as conn:  # one match as an older rules version would have stored it
        conn.execute("UPDATE matches SET rules = '0' WHERE id = (SELECT id FROM matches LIMIT 1)")
    capsys.readouterr()
    code, _, err = run(["--db", str(db), "report", "wis"], capsys)
    assert code == 3 and "rules version: 0, 1" in err


# ------------------------------------------------------------------------------ the renderers
def test_strangers_names_cannot_break_a_table_in_any_format():
    table = Table(key="t", title="A | title 50%", columns=["agent", "x_y & z"])
    table.add([Cell(value="evil|name\nnext_line %$"), Cell(value=0.5, low=0.25, high=0.75, n=4, percent=True)])
    table.footnotes = ["a: 100% & more"]
    md = markdown([table])
    assert md_tables(md)["A \\| title 50%"][1] == [["evil\\|name next_line %$", "50.0 [25.0, 75.0] n=4"]]
    rows = list(csv.reader(io.StringIO(csv_text([table]))))
    assert rows[1] == ["t", "measured", "evil|name\nnext_line %$", "50.0", "25.0", "75.0", "4"]
    tex = latex([table])
    assert r"evil|name next\_line \%\$ & 50.0 [25.0, 75.0] n=4 \\" in tex
    assert r"x\_y \& z" in tex and r"100\% \& more" in tex


def test_an_unknown_report_is_refused_with_the_known_ones(tmp_path):
    known = "household-modality, interintent, muma, tom-in-play, whodunit, wis"
    with pytest.raises(ValueError, match=f"no report 'nope'; known: {known}"):
        build(Store(str(tmp_path / "empty.db")), "nope", ReportQuery())


# ------------------------------------------------------------------------------ the Results tab
def test_the_results_tab_ends_each_page_with_its_reports_tables(spy_store, muma_store):
    from space_app.api import ArenaAPI
    from space_app.config import ArenaConfig
    from space_app.ui.results import SUITES_PAGE, games_with_results, page_for

    api = ArenaAPI(ArenaConfig(db=spy_store, demo_matches=0))
    assert "spy" in [g for _, g in games_with_results()]  # it has no page of its own, but a report
    page = page_for(api, "spy", ["tournament"])
    titles = [s.title for s in page.sections]
    assert titles[0] == "WiS leaderboard (`report wis`)" and page.sections[0].kind == "table"
    assert list(page.sections[0].value.columns) == ["agent", "Ranking score", "Win rate %", "Win rate spy %",
                                                     "Win rate civilian %", "Avg score", "Avg score spy",
                                                     "Avg score civilian", "Vote accuracy %", "Foul rate %"]
    assert "WiS prompt-injection attack and defence study (`report wis`)" in titles
    muma_api = ArenaAPI(ArenaConfig(db=muma_store[0], demo_matches=0))
    suites = page_for(muma_api, SUITES_PAGE)
    shown = {s.title: s for s in suites.sections}
    measured = shown["MuMA-ToM Table 1: accuracy by question type, % (`report muma`)"].value
    assert list(measured["agent"]) == [GUESS, OVERLAP]
    published = shown["MuMA-ToM: published results, % [published] (`report muma`)"].value
    assert list(published["All"]) == ["81.4"]
