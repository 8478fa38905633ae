"""Avalon's results page: the intention metrics of the newest intention study run (summarisation
and guessing F1, deduction accuracy, the good side's win rate, the judges' scores) with their
intervals, tags and matches, and Avalon's own game metrics per agent over the matches the
Leaderboard's filter counts, each section saying how to produce more of it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...core.records import Tally, tallies_of_match, totals_from
from ...core.spec import MetricColumn, ResultsPage, ResultsScope, ResultsSection
from ...stats import Mean, Rate
from . import study
from .metrics import records, row

__all__ = ["results_page"]

SHOWN_IDS = 8  # match links per condition (all of them: `python -m space_app export --tag TAG`)
OFFLINE_RUN = "python -m space_app experiment intentions --game avalon --base house:avalon-scripted-model --games 20"
MODEL_RUN = ("python -m space_app experiment intentions --game avalon --base house:smollm2 --games 10 "
             "--judge house:smollm2 --concurrency 1")


def _figure(values: dict[str, Any], key: str, percent: bool = False) -> str:
    value = values.get(key)
    if value is None:
        return "-"
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return str(value)
    scale, digits = (100.0, 1) if percent else (1.0, 3)
    text = f"{value * scale:.{digits}f}" if isinstance(value, float) else str(value)
    low, high = values.get(f"{key}_low"), values.get(f"{key}_high")
    if low is not None and high is not None:
        text += f" [{low * scale:.{digits}f}, {high * scale:.{digits}f}]"
    if f"{key}_n" in values:
        text += f" n={values[f'{key}_n']:g}"
    return text


def _link(match_id: str) -> str:
    return f"[{match_id[:8]}](?match={match_id})"


def intention_sections(store: Any) -> list[ResultsSection]:
    import pandas as pd  # loaded when the page is drawn, not when the game is imported

    rows = study.newest(store)
    played = [r for r in rows if r.get("games")]
    how = (f"Produce it offline with `{OFFLINE_RUN}` (a scripted stand-in for a model, so the intentions can be "
           f"read back), or on a model with `{MODEL_RUN}`; the Leaderboard's *Run the study* runs the offline one. "
           "Each condition's matches are stored under the tag shown and are study matches, which the Leaderboard "
           "leaves out unless *study* is ticked: these figures are read from the run's own tags, whatever the filter.")
    if not played:
        return [ResultsSection("Intention metrics (the intention study)", "markdown",
                               f"No intention study has been run on this arena yet. {how}")]
    lines = []
    for r in rows:
        ids = r.get("match_ids") or []
        links = ", ".join(_link(i) for i in ids[:SHOWN_IDS]) + (f" … ({len(ids)})" if len(ids) > SHOWN_IDS else "")
        lines.append(f"- **{r['condition']}**: {r.get('what', '')}. Tag `{r['tag']}`; matches {links or 'none'}")
    shown = [c for c in study.COLUMNS if c != "llm_judge"]
    table = pd.DataFrame([[_figure(r, c) for c in shown] for r in rows], columns=shown)
    chart = study.chart(store)
    return [
        ResultsSection("Intention metrics (the intention study's newest run)", "table", table),
        ResultsSection("The 0-1 intention metrics side by side (95% intervals as error bars)", "bar", chart,
                       x="bar", y="value", color="condition", y_title="value (0-1)", y_lim=(0.0, 1.0)),
        ResultsSection("What the run rests on, and how to produce it", "markdown",
                       study.DESCRIBE + ".\n\n" + "\n".join(lines) + "\n\n" + how),
    ]


def game_sections(store: Any, scope: ResultsScope, columns: Sequence[MetricColumn]) -> list[ResultsSection]:
    import pandas as pd

    tallies: dict[tuple[str, str], Tally] = {}
    counted = 0
    for match in store.iter_matches("avalon", status="finished"):
        if not scope.keep(match.get("tag")):
            continue
        counted += 1
        for key, tally in tallies_of_match(records(match)).items():
            tallies.setdefault(key, Tally()).merge(tally)
    heads = ["agent", "matches", "win %", *(c.label for c in columns)]
    body = []
    for agent, totals in sorted(totals_from(tallies).items()):
        values: dict[str, Any] = {}
        for key, value in {"win_rate": totals.every.wins_rate(), **row(totals)}.items():
            values.update(value.to_dict(key) if isinstance(value, (Rate, Mean)) else {key: value})
        body.append([agent, totals.every.matches, _figure(values, "win_rate", True),
                     *(_figure(values, c.key, c.percent) for c in columns)])
    note = (f"Over the {counted} finished Avalon matches of the Leaderboard's filter ({scope.describe}): the same "
            "matches its board counts, so these are its own columns; change the filter above to read others. "
            "Figures read value [95% interval] n=…; the intention columns fill only for intention-guided seats "
            "(`+intentions`). Play more with the Play tab, `python -m space_app tournament avalon --seats A B "
            "--games N`, or the API's `run_match`.")
    meanings = "\n".join(f"- **{c.label}**: {c.meaning}" for c in columns)
    return [ResultsSection("Game metrics per agent", "table", pd.DataFrame(body, columns=heads)),
            ResultsSection("What the game metrics rest on", "markdown", note + "\n\n" + meanings)]


def results_page(store: Any, scope: ResultsScope, columns: Sequence[MetricColumn] = ()) -> ResultsPage:
    return ResultsPage(
        title="Avalon: intention metrics and game metrics",
        note=("The intention metrics come from the intention study (InterIntent's summarisation and guessing F1, "
              "deduction accuracy, and the judges' selection reasonableness and following score); the game "
              "metrics from every seat's stored record of the matches the Leaderboard's filter counts."),
        sections=(*intention_sections(store), *game_sections(store, scope, columns)))
