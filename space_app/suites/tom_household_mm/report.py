"""The modality-ablation table in MuMA-ToM's shape, from stored `bench --condition` runs of
the suite: per agent, the conditions as rows (multi-modal, text only, video only, text + action
track) and the question types as columns (belief, social goal, belief of goal, all), each
accuracy with its 95% Wilson interval and n.

Each condition's answers are stored under `tom-household-mm@<condition>`, so they never mix;
a condition an agent was not run under is shown as missing, with the command that fills it.
"""

from __future__ import annotations

from typing import Any

from ...core.report import Cell, Report, ReportQuery, Table, label, missing, rate_cell
from ..conditions import CONDITIONS
from .episode import TYPES
from .suite import SUITE

COLUMNS = ("Belief", "Social goal", "Belief of goal", "All")
ROW_NAMES = {"multimodal": "multi-modal", "text": "text only", "video": "video only", "track": "text + action track"}
CHANCE = 1 / 3


def _row(condition: str, rows: list[dict[str, Any]]) -> list[Cell]:
    cells: list[Cell] = [label(ROW_NAMES[condition])]
    if not rows:
        return [*cells, *(missing("not run") for _ in COLUMNS)]
    for kind in TYPES:
        typed = [r for r in rows if kind in (r["types"] or [])]
        cells.append(rate_cell(sum(int(r["correct"]) for r in typed), len(typed)))
    cells.append(rate_cell(sum(int(r["correct"]) for r in rows), len(rows)))
    return cells


def build(store: Any, query: ReportQuery) -> list[Table]:
    by_condition = {c: store.answers(f"{SUITE}@{c}") for c in CONDITIONS}
    found = sorted({r["agent_id"] for rows in by_condition.values() for r in rows})
    agents = list(query.agents) if query.agents else found
    tables = []
    for agent in agents:
        table = Table(key=f"household-modality-{agent}".replace(":", "-"),
                      title=f"Household ToM, modality ablation: {agent}, accuracy %", columns=["condition", *COLUMNS],
                      caption=f"Stored answers of {agent} to the suite {SUITE} under each input condition.")
        for condition in CONDITIONS:
            table.add(_row(condition, [r for r in by_condition[condition] if r["agent_id"] == agent]))
        table.footnotes = [
            "Accuracy with a 95% Wilson interval and n questions; chance is 33.3% (three options).",
            "Every question needs both halves (the generator checks each one): under text only or video only "
            "more than one option fits, so an agent that reasons soundly is near chance there.",
            "A condition not run: `python -m space_app bench tom-household-mm --agent AGENT --condition CONDITION`.",
            "Video for an agent that does not read images is the action track in words (`suites/conditions.py`).",
        ]
        tables.append(table)
    if not tables:
        empty = Table(key="household-modality", title="Household ToM, modality ablation, accuracy %",
                      columns=["condition", *COLUMNS],
                      caption="No stored answers: run `python -m space_app bench tom-household-mm --agent AGENT "
                              "--condition CONDITION` for each condition.")
        for condition in CONDITIONS:
            empty.add(_row(condition, []))
        tables.append(empty)
    return tables


REPORT = Report(title="Household ToM modality ablation (MuMA-ToM's multi-modal / text / video comparison)",
                describe="accuracy per condition and question type from stored bench --condition runs of "
                         "tom-household-mm",
                build=build)

__all__ = ["COLUMNS", "REPORT", "build"]
