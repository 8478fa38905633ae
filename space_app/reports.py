"""`python -m space_app report NAME`: a paper's main tables from stored runs (agents as rows, the
paper's columns in its order, n and 95% intervals), written as Markdown, CSV or LaTeX from one
table model (`core.report.Table`). A report belongs to the game or suite whose runs it reads
(a game's `extras.reports`, a suite's `suites.registry.REPORTS`); this module only finds it by
name, asks it for its tables and writes them. Published reference rows come in tables of their
own, marked "published", and are written under that label, never beside measured rows.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

from .core.report import Report, ReportQuery, Table

FORMATS = ("markdown", "csv", "latex")


def suite_reports() -> dict[str, Report]:
    """The reports of question-suite runs: each suite's, and the suite's accuracy beside every
    game's belief probes (`experiment tom-in-play`, which reads both halves)."""
    from .suites import REPORTS
    from .tom_in_play import REPORT as TOM_IN_PLAY_REPORT
    from .tom_in_play import STUDY as TOM_IN_PLAY

    return {**REPORTS, TOM_IN_PLAY: TOM_IN_PLAY_REPORT}


def all_reports() -> dict[str, Report]:
    """Every report by name: each game's, then the suites' (loads the games and the suites)."""
    from .core import GAMES

    out: dict[str, Report] = {}
    for spec in GAMES.values():
        out.update(spec.extras.reports)
    out.update(suite_reports())
    return out


def get_report(name: str) -> Report:
    found = all_reports()
    if name not in found:
        raise ValueError(f"no report {name!r}; known: {', '.join(sorted(found)) or 'none'}")
    return found[name]


def build(store: Any, name: str, query: ReportQuery) -> list[Table]:
    return get_report(name).build(store, query)


# ------------------------------------------------------------------------------ rendering

def _heading(table: Table) -> str:
    return f"{table.title} [published]" if table.kind == "published" else table.title


def markdown(tables: Sequence[Table]) -> str:
    out = []
    for table in tables:
        out.append(f"### {_md(_heading(table))}\n")
        if table.caption:
            out.append(_md(table.caption) + "\n")
        out.append("| " + " | ".join(_md(c) for c in table.columns) + " |")
        out.append("|" + "|".join("---" for _ in table.columns) + "|")
        for row in table.rows:
            out.append("| " + " | ".join(_md(c.text()) for c in row) + " |")
        if table.footnotes:
            out.append("")
            out += [f"- {_md(note)}" for note in table.footnotes]
        out.append("")
    return "\n".join(out)


def _md(text: str) -> str:
    # a cell is one line, and a '|' would end it: agents' names are strangers' text
    return " ".join(str(text).split()).replace("\\", "\\\\").replace("|", "\\|")


def csv_text(tables: Sequence[Table]) -> str:
    """One CSV: a `table`, `kind` and `row` column before the table's own, and per figure its
    value, low, high and n as separate columns (`<column>`, `<column> low`, ...), so a
    spreadsheet reads numbers, not text."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for table in tables:
        head = ["table", "kind", table.columns[0]]
        for c in table.columns[1:]:
            head += [c, f"{c} low", f"{c} high", f"{c} n"]
        writer.writerow(head)
        for row in table.rows:
            line: list[Any] = [table.key, table.kind, row[0].text(with_interval=False)]
            for cell in row[1:]:
                line += _csv_figure(cell)
            writer.writerow(line)
        for note in table.footnotes:
            writer.writerow([table.key, "footnote", note])
        writer.writerow([])
    return buffer.getvalue()


def _csv_figure(cell: Any) -> list[Any]:
    if cell.value is None:
        return ["", "", "", "" if cell.n is None else cell.n]
    if isinstance(cell.value, str):
        return [cell.value, "", "", ""]
    scale = 100.0 if cell.percent else 1.0
    round_to = cell.digits + 2

    def shown(v: float | None) -> Any:
        return "" if v is None else round(v * scale, round_to)

    return [shown(cell.value), shown(cell.low), shown(cell.high), "" if cell.n is None else cell.n]


_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
          "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "–": "--"}


def _tex(text: str) -> str:
    return "".join(_LATEX.get(ch, ch) for ch in " ".join(str(text).split()))


def latex(tables: Sequence[Table]) -> str:
    """Each table a `table` float with a `tabular` (booktabs rules), its footnotes below."""
    out = []
    for table in tables:
        spec = "l" + "r" * (len(table.columns) - 1)
        out += [r"\begin{table}[t]", r"\centering", f"\\caption{{{_tex(_heading(table))}}}",
                f"\\label{{tab:{_tex(table.key)}}}", f"\\begin{{tabular}}{{{spec}}}", r"\toprule",
                " & ".join(_tex(c) for c in table.columns) + r" \\", r"\midrule"]
        out += [" & ".join(_tex(c.text()) for c in row) + r" \\" for row in table.rows]
        out.append(r"\bottomrule")
        out.append(r"\end{tabular}")
        notes = ([_tex(table.caption)] if table.caption else []) + [_tex(n) for n in table.footnotes]
        if notes:
            out.append(r"\par\footnotesize " + r" \\ ".join(notes))
        out += [r"\end{table}", ""]
    return "\n".join(out)


def render(tables: Sequence[Table], fmt: str) -> str:
    if fmt == "markdown":
        return markdown(tables)
    if fmt == "csv":
        return csv_text(tables)
    if fmt == "latex":
        return latex(tables)
    raise ValueError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")


def results_sections(store: Any, reports: dict[str, Report]) -> list[Any]:
    """The Results tab's view of these reports: each table as a table section (cells as text)
    with its caption and footnotes beneath. Each report reads its own runs, whatever the
    Leaderboard's filter, and runs of mixed settings come split into a table set per group."""
    import pandas as pd  # loaded when a page is drawn

    from .core.spec import ResultsSection

    sections: list[Any] = []
    for name, report in reports.items():
        tables = report.build(store, ReportQuery(split=True))
        for table in tables:
            frame = pd.DataFrame([[c.text() for c in row] for row in table.rows], columns=table.columns)
            notes = "\n".join(f"- {n}" for n in table.footnotes)
            sections += [ResultsSection(f"{_heading(table)} (`report {name}`)", "table", frame),
                         ResultsSection(f"{_heading(table)}: what it reads", "markdown",
                                        f"{table.caption}\n\n{notes}".strip())]
    return sections


def agents_arg(text: str | None) -> tuple[str, ...] | None:
    agents = tuple(dict.fromkeys(a.strip() for a in (text or "").split(",") if a.strip()))
    return agents or None


__all__ = ["FORMATS", "agents_arg", "all_reports", "build", "csv_text", "get_report", "latex", "markdown", "render",
           "results_sections"]
