"""MuMA-ToM's table from stored bench runs: agents as rows, the question types as columns in
the paper's order (belief, social goal, belief of goal), then All, each accuracy with its 95%
Wilson interval and n questions; and the published results in a separate table labelled
"published" (`published.json`), never mixed with the measured rows.

The runs are the stored answers to an imported MuMA-ToM suite file (`import-muma-tom`, then
`bench FILE`): every answered suite whose id names MuMA (`file:mumatom`, `file:muma-tom`, ...),
or exactly the suite `--tag` names. Answers to two such suites (e.g. one imported with the
descriptions as context and one with the texts) are not one run: they are refused, naming
each, or split into a table per suite.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...core.report import Cell, MixedRuns, Report, ReportQuery, Table, label, missing, rate_cell

__all__ = ["COLUMNS", "PUBLISHED", "REPORT", "build", "muma_suites", "published_table"]

PUBLISHED = Path(__file__).resolve().with_name("published.json")
TYPES = ("belief", "social_goal", "belief_of_goal")
COLUMNS = ("Belief", "Social goal", "Belief of goal", "All")


def muma_suites(store: Any, tag: str | None) -> list[str]:
    """The answered suites the report reads: `tag` exactly, or every one whose id names MuMA."""
    answered = sorted({suite for suite, _, _ in store.suites_answered()})
    if tag is not None:
        return [tag] if tag in answered else []
    return [s for s in answered if "muma" in s.casefold()]


def measured_table(store: Any, suite: str, agents: tuple[str, ...] | None) -> Table:
    rows = store.answers(suite)
    by_agent: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_agent.setdefault(r["agent_id"], []).append(r)
    names = list(agents) if agents else sorted(by_agent)
    table = Table(key=f"muma-{suite}".replace(":", "-"), title="MuMA-ToM Table 1: accuracy by question type, %",
                  columns=["agent", *COLUMNS],
                  caption=f"Stored answers to the suite {suite} ({len(rows)} answers).")
    asked: dict[str, frozenset[str]] = {}
    for agent in names:
        mine = by_agent.get(agent, [])
        asked[agent] = frozenset(r["item_id"] for r in mine)
        cells: list[Cell] = [label(agent)]
        for kind in TYPES:
            typed = [r for r in mine if kind in (r["types"] or [])]
            cells.append(rate_cell(sum(int(r["correct"]) for r in typed), len(typed)))
        cells.append(rate_cell(sum(int(r["correct"]) for r in mine), len(mine)))
        table.add(cells)
    table.footnotes = [
        "Accuracy with a 95% Wilson interval and n questions answered; an unreadable reply, a timeout or an error "
        "counts as wrong (as `bench` scores it); a call that never reached the agent is asked again, not scored.",
        "Text only, on purpose: the arena asks the imported text (the episode descriptions or texts, as imported) "
        "without the videos the paper's questions come with, so these are text-only answers.",
    ]
    if len({q for q in asked.values() if q}) > 1:
        table.footnotes.append("The agents answered different samples of the questions (bench --limit): compare "
                               "them on a common sample with the same --limit.")
    return table


def published_table() -> Table:
    """The published rows of `published.json`, each with its source, in a table of their own."""
    data = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    table = Table(key="muma-published", title="MuMA-ToM: published results, %", kind="published",
                  columns=["published", *COLUMNS],
                  caption="Copied from the publications named below, not measured here.")
    for i, row in enumerate(data["rows"]):
        mark = chr(ord("a") + i)
        figures = row["figures"]
        table.add([label(f"{row['name']} ({mark})"),
                   *(Cell(value=figures[k] / 100, percent=True) if figures.get(k) is not None else missing("*")
                     for k in data["columns"])])
        table.footnotes.append(f"{mark}: {row['source']}")
    table.footnotes.append("*: the source gives no figure for this column that has been copied here.")
    table.footnotes.append(data["left_out"])
    return table


def build(store: Any, query: ReportQuery) -> list[Table]:
    suites = muma_suites(store, query.tag)
    if len(suites) > 1 and not query.split:
        raise MixedRuns("the stored MuMA-ToM runs answer different suite files, which are not one run (another "
                        f"import: another context or sample): {', '.join(suites)}. Name one with --tag SUITE, or "
                        "give --split for a table per suite.")
    tables = [measured_table(store, suite, query.agents) for suite in suites]
    if not tables:
        empty = Table(key="muma-measured", title="MuMA-ToM Table 1: accuracy by question type, %",
                      columns=["agent", *COLUMNS],
                      caption="No stored answers to a MuMA-ToM suite: import the published files with "
                      "`python -m space_app import-muma-tom questions.json --texts texts.json mumatom.jsonl`, then "
                      "`python -m space_app bench mumatom.jsonl --agent AGENT`.")
        for agent in query.agents or ():
            empty.add([label(agent), *(missing("") for _ in COLUMNS)])
        tables.append(empty)
    return [*tables, published_table()]


REPORT = Report(title="MuMA-ToM (Table 1, with published results apart)",
                describe="accuracy per question type and All from stored bench runs of an imported MuMA-ToM file",
                build=build)
