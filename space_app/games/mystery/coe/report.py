"""The `whodunit` report: WhodunitBench's Table 2 (the win-rate matrix) and Table 3 (the
Chain-of-Evaluation scores) from stored runs, agents as rows.

Table 2 reads the faction matches of `coe-matrix` (tag `study:coe-matrix`, or `--tag`): a row
plays the innocents, a column the murderer; a cell is the innocents' win rate of its decided
matches with its Wilson interval; the diagonal (an agent against itself) is left out, and each
average is over the other agents only. Table 3 reads each agent's `coe` matches (tag
`study:coe:<agent>`, or every match of `--tag`) for RP, SPC, ITD and CMD, judged by the
heuristic judge, and every stored answer to the scripts' question sets for LSU, TIU, MIU and
MMR; an Avg row (the mean over the agents) and a Random row (chance per question, from each
question's option count) follow. Matches are pooled over scripts (as the paper pools them);
runs that differ in any other setting or in the rules version are refused or split.
"""

from __future__ import annotations

from typing import Any

from ....core.report import (
    MISSING,
    Cell,
    Report,
    ReportQuery,
    Table,
    choose,
    groups,
    label,
    mean_cell,
    missing,
    rate_cell,
)
from ..catalog import catalog
from .command import MATRIX_TAG
from .judges import HeuristicJudge
from .matrix import Matrix, matrix
from .results import quiz_tags
from .scores import QUIZ_KEYS, SCORE_KEYS, Score, play_scores, quiz_scores

__all__ = ["REPORT", "build", "coe_table", "matrix_table"]

# the paper pools every script; the seat count and the language follow the script
POOLED = ("script", "players", "language")
LISTED = 100_000
COE_PREFIX = "study:coe:"


def _matches(store: Any, tag: str | None, prefix: str | None = None) -> list[dict[str, Any]]:
    listed = store.list_matches(game="mystery", tag=tag, limit=LISTED) if tag is not None else [
        m for m in store.list_matches(game="mystery", limit=LISTED) if (m.get("tag") or "").startswith(prefix or "")]
    found = [store.get_match(m["id"]) for m in reversed(listed)]  # oldest first: the order played
    return [m for m in found if m is not None]


def _avg(rates: list[float]) -> Cell:
    # a mean of the cells' win rates (each opponent counts once, as in the paper), with a
    # bootstrap interval over those cells
    return mean_cell(rates, digits=1, percent=True, note="b") if rates else missing("b")


def matrix_table(found: Matrix, agents: list[str], caption: str) -> Table:
    table = Table(key="whodunit-table-2", title="WhodunitBench Table 2: win rate of the innocents (row) against "
                  "the murderer (column), %", columns=["innocents \\ murderer", *agents, "Avg"], caption=caption)
    for row in agents:
        cells: list[Cell] = [label(row)]
        rates = []
        for column in agents:
            if column == row:
                cells.append(missing("a"))
                continue
            cell = found.cell(row, column)
            cells.append(rate_cell(cell.wins, cell.decided))
            if cell.win_rate is not None:
                rates.append(cell.win_rate)
        table.add([*cells, _avg(rates)])
    bottom: list[Cell] = [label("Avg (murderer's loss rate)")]
    for column in agents:
        bottom.append(_avg([r for row in agents if row != column
                            and (r := found.cell(row, column).win_rate) is not None]))
    table.add([*bottom, label("")])
    draws = sum(c.draws for c in found.cells.values() if c.innocents in agents and c.murderer in agents)
    errors = sum(c.errors for c in found.cells.values() if c.innocents in agents and c.murderer in agents)
    table.footnotes = [
        f"a: {MISSING} on the diagonal: an agent against itself is left out, as in the paper (the matches are "
        "played and stored, and `coe-matrix` prints them).",
        "b: Avg is the mean of the row's (column's) cells over the other agents, each opponent counting once; its "
        "interval is a seeded bootstrap over those cells and n the number of cells averaged.",
        f"Cells: the innocents' wins of the decided matches with a 95% Wilson interval and n decided matches; "
        f"{draws} draws and {errors} matches with agent errors (a call that failed or timed out, or no end) are "
        "left out of every rate (the arena's choice: the paper has neither).",
    ]
    return table


def _score_cell(s: Score) -> Cell:
    if s.value is None:
        return Cell(value=None, n=s.n)
    if s.unit == "share":
        return Cell(value=s.value, low=s.low, high=s.high, n=s.n, percent=True)
    return Cell(value=s.value, low=s.low, high=s.high, n=s.n, digits=2 if s.unit == "1-10" else 1)


def coe_table(scores: dict[str, list[Score]], chance: dict[str, float | None], caption: str) -> Table:
    columns = [k.upper() for k in SCORE_KEYS]
    table = Table(key="whodunit-table-3", title="WhodunitBench Table 3: the Chain of Evaluation (LSU, TIU, MIU, "
                  "MMR, SPC, ITD in %; RP 1-10; CMD 0-100)", columns=["agent", *columns], caption=caption)
    for agent, got in scores.items():
        by_key = {s.key: s for s in got}
        table.add([label(agent), *(_score_cell(by_key[k]) for k in SCORE_KEYS)])
    avg: list[Cell] = [label("Avg")]
    for k in SCORE_KEYS:
        values = [s.value for got in scores.values() for s in got if s.key == k and s.value is not None]
        unit = next((s.unit for got in scores.values() for s in got if s.key == k), "share")
        avg.append(mean_cell(values, digits=2 if unit == "1-10" else 1, percent=unit == "share", note="c")
                   if values else missing("c"))
    table.add(avg)
    random: list[Cell] = [label("Random")]
    for k in SCORE_KEYS:
        if k in QUIZ_KEYS:
            value = chance.get(k)
            random.append(Cell(value=value, percent=True, note="d") if value is not None else missing("d"))
        else:
            random.append(missing("e"))
    table.add(random)
    table.footnotes = [
        "Quiz scores (LSU, TIU, MIU, MMR): accuracy over each agent's stored answers with a 95% Wilson interval, n "
        "questions; MMR pools every depth, an imported question of unknown depth included (`coe` prints MMR per "
        "depth).",
        "Play scores: RP (1-10) and CMD (0-100) by the heuristic judge with a seeded bootstrap over matches; SPC "
        "(key clue statements conveyed) and ITD (key roles questioned) with Wilson intervals. The paper's judge is "
        "an LLM: the heuristic judge is the arena's offline stand-in (`coe --judge` runs an LLM judge).",
        "c: Avg is the mean over the agents listed (n agents), with a bootstrap interval over them.",
        "d: Random is chance per question, 1 / its option count (questions have 2-4 options), averaged over the "
        "questions the listed agents answered.",
        f"e: {MISSING}: a judged play score has no chance level to compute.",
    ]
    return table


def _agents_of(matches: list[dict[str, Any]]) -> list[str]:
    return sorted({s["agent_id"] for m in matches for s in m["seats"]})


def build(store: Any, query: ReportQuery) -> list[Table]:
    tables: list[Table] = []
    # Table 2: the faction matches
    tag = query.tag if query.tag is not None else MATRIX_TAG
    faction = _matches(store, tag)
    for described, runs in choose(groups(faction, POOLED), query, f"the matches tagged {tag!r}"):
        found = matrix(runs, list(query.agents) if query.agents else None)
        agents = list(query.agents) if query.agents else sorted(set(found.rows) | set(found.columns))
        scripts = sorted({str((m.get("settings") or {}).get("script", "")) for m in runs})
        tables.append(matrix_table(found, agents, f"{len(runs)} matches tagged {tag} over scripts "
                                   f"{', '.join(scripts)}; {described}."))
    if not faction:
        tables.append(matrix_table(matrix([], list(query.agents) if query.agents else []),
                                   list(query.agents or ()), f"No matches tagged {tag}: run python -m space_app "
                                   "coe-matrix --agents A,B."))
    # Table 3: each agent's coe matches and its stored answers
    played = _matches(store, query.tag, COE_PREFIX)
    suites = {f"mystery-{s}" for s in catalog().scripts}
    answered: dict[str, list[str]] = {}
    for suite, agent, _ in store.suites_answered():
        if suite in suites:
            answered.setdefault(agent, []).append(suite)
    chosen = choose(groups(played, POOLED), query, "the Chain-of-Evaluation matches") if played else [
        ("no matches", [])]
    tags, offered = quiz_tags()
    for described, runs in chosen:
        if query.agents:
            agents = list(query.agents)
        elif query.tag is not None:
            agents = _agents_of(runs)
        else:  # the agents of the coe tags (the innocents), and whoever answered the quizzes
            agents = sorted({(m.get("tag") or "")[len(COE_PREFIX):] for m in runs} | set(answered))
        judge = HeuristicJudge()
        scores: dict[str, list[Score]] = {}
        asked: dict[str, list[str]] = {}  # item id -> its types, over every listed agent's answers
        for agent in agents:
            mine = [m for m in runs if query.tag is not None or m.get("tag") == f"{COE_PREFIX}{agent}"[:100]]
            rows = [r for suite in sorted(answered.get(agent, [])) for r in store.answers(suite, agent)]
            asked.update({r["item_id"]: list(r["types"] or []) for r in rows})
            play, _ = play_scores(mine, agent, judge)
            scores[agent] = [*quiz_scores(rows, tags, sorted(answered.get(agent, [])), offered), *play]
        chance = _chance(asked, tags, offered)
        source = f"matches tagged {query.tag}" if query.tag is not None else "each agent's coe matches"
        tables.append(coe_table(scores, chance, f"{len(runs)} {source} ({described}) and every stored answer to "
                                "the scripts' question sets; judge: heuristic."))
    return tables


def _chance(asked: dict[str, list[str]], tags: dict[str, dict[str, Any]], offered: dict[str, int]
            ) -> dict[str, float | None]:
    """Per quiz score, the mean over the questions asked of 1 / their option count."""
    rows = [{"item_id": i, "types": types, "correct": 0} for i, types in sorted(asked.items())]
    return {s.key: s.chance for s in quiz_scores(rows, tags, [], offered) if s.key in QUIZ_KEYS}


REPORT = Report(title="WhodunitBench (Tables 2 and 3)",
                describe="the win-rate matrix of coe-matrix and the Chain-of-Evaluation scores of coe, agents as rows",
                build=build)
