"""Tables in a paper's shape, as data: a `Table` (a title, columns in the paper's order, rows of
cells, footnotes, and whether its rows were measured here or copied from a publication) that
one renderer writes as Markdown, CSV or LaTeX (`space_app/reports.py`), and a `Report` (a
paper's main tables, built from the store by the game or suite that owns them) that the
`report` command and the Results tab find by name. Pure: no I/O, no game.

Runs that mix settings or rule versions do not mean one thing: `groups` sorts a report's
matches by what must be equal for them to be pooled (rules version and settings, less the keys
the paper itself pools over, e.g. a murder script), and `one_group` refuses a mix, naming
the values that differ, unless the caller asked to split them into a table set per group.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..stats import Rate, mean_interval

MISSING = "–"  # a column the stored runs cannot give (a footnote says why)


class Cell(BaseModel):
    """One figure: its value (a share 0-1, a mean, a count, or text), 95% interval and n."""

    value: float | str | None = None
    low: float | None = None
    high: float | None = None
    n: int | None = None
    percent: bool = False  # a share shown ×100
    digits: int = 1
    note: str = ""  # a footnote mark, e.g. "a"

    def text(self, with_interval: bool = True) -> str:
        """The cell as a person reads it: '62.5 [30.6, 86.3] n=8', or '–'."""
        if self.value is None:  # nothing to count (n=0), or a figure the stored runs cannot give
            return MISSING + (" n=0" if with_interval and self.n == 0 else "") + self.note_mark()
        if isinstance(self.value, str):
            return self.value + self.note_mark()
        scale = 100.0 if self.percent else 1.0
        out = f"{self.value * scale:.{self.digits}f}"
        if with_interval and self.low is not None and self.high is not None:
            out += f" [{self.low * scale:.{self.digits}f}, {self.high * scale:.{self.digits}f}]"
        if with_interval and self.n is not None:
            out += f" n={self.n}"
        return out + self.note_mark()

    def note_mark(self) -> str:
        return f" ({self.note})" if self.note else ""


def label(text: str) -> Cell:
    return Cell(value=text)


def rate_cell(k: float, n: float, note: str = "") -> Cell:
    """k of n as a percentage with its Wilson interval ('–' when n is 0)."""
    rate = Rate(k, n)
    low, high = rate.interval or (None, None)
    return Cell(value=rate.value, low=low, high=high, n=int(n), percent=True, note=note)


def mean_cell(values: Sequence[float], digits: int = 2, percent: bool = False, note: str = "") -> Cell:
    """The mean with its seeded bootstrap interval (`stats.mean_interval`), '–' for none."""
    found = mean_interval(list(values), resamples=2000, seed=0)
    if found is None:
        return Cell(value=None, n=0, note=note)
    value, low, high = found
    return Cell(value=value, low=low, high=high, n=len(values), digits=digits, percent=percent, note=note)


def missing(note: str) -> Cell:
    return Cell(value=None, note=note)


class Table(BaseModel):
    """A paper's table: `columns` in the paper's order, the first naming the rows (agents)."""

    key: str  # a short id, e.g. "table-2"; file names and CSV sections use it
    title: str
    columns: list[str]
    rows: list[list[Cell]] = Field(default_factory=list)
    # measured: figures from this store's runs; published: a publication's figures, copied with
    # their source, never mixed with measured rows
    kind: Literal["measured", "published"] = "measured"
    footnotes: list[str] = Field(default_factory=list)  # "a: why ..." lines
    caption: str = ""  # what was read: the runs, their tags, the settings

    def add(self, cells: Iterable[Cell]) -> None:
        row = list(cells)
        if len(row) != len(self.columns):
            raise ValueError(f"table {self.key}: a row of {len(row)} cells for {len(self.columns)} columns")
        self.rows.append(row)


@dataclass(frozen=True)
class ReportQuery:
    """What a report is asked for: which agents (None: every agent found), which tag (None:
    the report's own runs), and whether runs of mixed settings are split rather than refused."""

    agents: tuple[str, ...] | None = None
    tag: str | None = None
    split: bool = False


@dataclass(frozen=True)
class Report:
    """A paper's main tables, built from the store: `build(store, query) -> tables`."""

    title: str  # the paper, e.g. "WhodunitBench (Tables 2 and 3)"
    describe: str  # what it reads and how to produce it
    build: Callable[[Any, ReportQuery], list[Table]]


class MixedRuns(ValueError):
    """Runs that differ in settings or rules version, asked to be read as one."""


def run_key(match: dict[str, Any], pooled: Iterable[str] = ()) -> str:
    """What must be equal for two matches to be pooled: the rules version and the settings,
    less `pooled` keys (ones the paper pools over, or that only say how many seats)."""
    settings = {k: v for k, v in sorted((match.get("settings") or {}).items()) if k not in set(pooled)}
    return json.dumps({"rules": str(match.get("rules") or ""), "settings": settings}, sort_keys=True, default=str)


def groups(matches: Iterable[dict[str, Any]], pooled: Iterable[str] = ()) -> dict[str, list[dict[str, Any]]]:
    """The matches by `run_key`, in the order first met."""
    pooled = tuple(pooled)
    out: dict[str, list[dict[str, Any]]] = {}
    for match in matches:
        out.setdefault(run_key(match, pooled), []).append(match)
    return out


def describe_key(key: str) -> str:
    """A run key in words: 'rules version 2; rounds=3, language=en'."""
    data = json.loads(key)
    settings = ", ".join(f"{k}={json.dumps(v, default=str)}" for k, v in data["settings"].items())
    return f"rules version {data['rules'] or '?'}; " + (settings or "default settings")


def differences(keys: Sequence[str]) -> list[str]:
    """What differs between run keys, a line per setting that differs (the rules version
    first) with the values met, e.g. 'rounds: 1, 2'."""
    read = [json.loads(k) for k in keys]
    out = []
    versions = sorted({r["rules"] for r in read})
    if len(versions) > 1:
        out.append("rules version: " + ", ".join(versions))
    names = sorted({name for r in read for name in r["settings"]})
    for name in names:
        values = sorted({json.dumps(r["settings"].get(name, "(unset)"), default=str) for r in read})
        if len(values) > 1:
            out.append(f"{name}: " + ", ".join(values))
    return out


def one_group(found: dict[str, list[dict[str, Any]]], what: str) -> list[tuple[str, list[dict[str, Any]]]]:
    """The one group (with its description) when the runs agree; a mix is refused, naming what
    differs and each group's run count."""
    if len(found) <= 1:
        return [(describe_key(k), v) for k, v in found.items()]
    counts = "; ".join(f"{describe_key(k)} ({len(v)} runs)" for k, v in found.items())
    raise MixedRuns(f"{what} mix settings or rule versions, which do not mean one thing pooled: "
                    + " | ".join(differences(list(found))) + f". Groups: {counts}. Narrow them with --tag, "
                    "or give --split for a table set per group.")


def split_groups(found: dict[str, list[dict[str, Any]]]) -> list[tuple[str, list[dict[str, Any]]]]:
    return [(describe_key(k), v) for k, v in found.items()]


def choose(found: dict[str, list[dict[str, Any]]], query: ReportQuery, what: str
           ) -> list[tuple[str, list[dict[str, Any]]]]:
    """The groups a report builds tables for: one (refusing a mix) or, with `query.split`, each."""
    return split_groups(found) if query.split else one_group(found, what)


__all__ = ["MISSING", "Cell", "MixedRuns", "Report", "ReportQuery", "Table", "choose", "describe_key",
           "differences", "groups", "label", "mean_cell", "missing", "one_group", "rate_cell", "run_key",
           "split_groups"]
