"""Results tab: each game's own results page (`Presentation.results`: the murder mystery's
win-rate matrix and Chain of Evaluation, Avalon's intention and game metrics), read over the
Leaderboard's match filter so the two count the same matches, and the Theory-of-Mind suites'
page (per-type accuracy per agent, with the people who took the quiz in the browser); each page
ends with the tables of its game's (or the suites') paper-shaped reports (`space_app/reports.py`).
Built from the store when opened."""

from __future__ import annotations

import dataclasses
from typing import Any

import gradio as gr
import pandas as pd

from ..api import ApiError, ArenaAPI
from ..core import GAMES, ResultsPage, ResultsSection
from ..reports import suite_reports
from ..sources import DEFAULT_KINDS, KINDS
from ..suites import SUITES
from .charts import bars
from .i18n import Interface, text
from .leaderboard import kind_choices

SUITES_PAGE = "suites"  # the dropdown's value for the Theory-of-Mind suites' page


def tom_suites() -> list[str]:
    """The suites that belong to no game: the Theory-of-Mind question sets."""
    return [sid for sid, source in SUITES.items() if source.game not in GAMES]


def games_with_results(language: str = "en") -> list[tuple[str, str]]:
    pages = [(g.facts.title_in(language), g.id) for g in GAMES.values()
             if g.presentation.results is not None or g.extras.reports]
    if tom_suites():
        pages.append((text(language, "results.tom"), SUITES_PAGE))
    return pages


def _pct(r: dict[str, Any], key: str) -> str:
    if r.get(key) is None:
        return "-"
    low, high = r.get(f"{key}_low"), r.get(f"{key}_high")
    interval = f" [{100 * low:.1f}, {100 * high:.1f}]" if low is not None and high is not None else ""
    return f"{100 * r[key]:.1f}{interval} n={r.get(f'{key}_n', 0):g}"


def suites_page(api: ArenaAPI) -> ResultsPage:
    """Every Theory-of-Mind suite: each agent's accuracy overall and per question type, with
    95% Wilson intervals, from its stored answers; `people` pools everyone who took the quiz."""
    sections: list[ResultsSection] = []
    for sid in tom_suites():
        source = SUITES[sid]
        rows = api.benchmark_results(sid)
        types = list(source.types)
        table = pd.DataFrame([[r["agent"] + (f" ({r['people']} people)" if r.get("people") else ""),
                               r["answered"], _pct(r, "accuracy"),
                               *(_pct(r["by_type"].get(t, {}), "accuracy") for t in types)] for r in rows],
                             columns=["agent", "answered", "accuracy %", *(f"{t} %" for t in types)])
        chart = pd.DataFrame([{"agent · type": f"{r['agent']} · {t}", "type": t,
                               "accuracy": round(s["accuracy"], 3), "low": round(s["accuracy_low"], 3),
                               "high": round(s["accuracy_high"], 3)}
                              for r in rows for t, s in r["by_type"].items() if s.get("accuracy") is not None],
                             columns=["agent · type", "type", "accuracy", "low", "high"])
        how = (f"From every stored answer to `{sid}` ({len(rows)} agents): run an agent with `python -m space_app "
               f"bench {sid} --agent SPEC` or the Suites tab; `people` is everyone who took the quiz there. "
               "Suites are questions, not matches: the Leaderboard's match filter does not apply to them.")
        sections += [ResultsSection(f"{source.title or sid}: accuracy per question type", "table", table),
                     ResultsSection(f"{source.title or sid}: per type (95% intervals as error bars)", "bar", chart,
                                    x="agent · type", y="accuracy", color="type", y_title="accuracy",
                                    y_lim=(0.0, 1.0)),
                     ResultsSection(f"{source.title or sid}: what it rests on", "markdown", how)]
    return ResultsPage(title="Theory of Mind: accuracy per question type", note=(
        "Belief, social goal and belief of goal (after MuMA-ToM), each agent's accuracy with its 95% Wilson "
        "interval over the questions it answered; the chance level is one in the number of options."),
        sections=tuple(sections))


def page_for(api: ArenaAPI, game_id: str, sources: list[str] | None = None) -> ResultsPage | None:
    """The game's own page (or the suites'), followed by the paper-shaped tables of its reports."""
    if game_id == SUITES_PAGE:
        page: ResultsPage | None = suites_page(api)
        reports = suite_reports()
    else:
        page = api.results_page(game_id, sorted(sources or []))
        spec = GAMES.get(game_id)
        reports = dict(spec.extras.reports) if spec is not None else {}
    if not reports:
        return page
    extra = tuple(api.report_sections(reports))
    if page is None:
        title = GAMES[game_id].facts.title
        return ResultsPage(title=f"{title}: the papers' tables", note=REPORTS_NOTE, sections=extra)
    return dataclasses.replace(page, sections=(*page.sections, *extra))


REPORTS_NOTE = ("The papers' tables (`python -m space_app report NAME`, docs/reports.md) read their own stored runs "
                "whatever the match filter; runs of different settings come as a table set per group.")


def section_component(section: ResultsSection) -> Any:
    """The component that shows one section (built inside a render block)."""
    if section.kind == "markdown":
        return gr.Markdown(section.value)
    if section.kind == "html":
        return gr.HTML(section.value)
    if section.kind == "table":
        return gr.Dataframe(section.value, interactive=False, wrap=True)
    if section.kind == "bar":
        # bars in the frame's order, with error bars where the frame has an interval (low, high)
        return gr.Plot(bars(section.value, x=section.x, y=section.y, color=section.color,
                            y_title=section.y_title or section.y, y_domain=section.y_lim, x_title=""),
                       show_label=False)  # the section's title is above it
    raise ValueError(f"unknown results section kind {section.kind!r}")


def build_results_tab(api: ArenaAPI, tab: gr.Tab, words: Interface, language: gr.Radio) -> dict[str, Any]:
    """The page is built when the tab is opened, a game or a source chosen, or Refresh pressed.
    The page itself (titles, notes, tables) is the game's own, in its words; around it, the page's."""
    choices = games_with_results()
    with gr.Row():
        game = words(gr.Dropdown(choices=choices, value=choices[0][1] if choices else None,
                                 label=text("en", "play.game"), elem_id="results-game"),
                     label="play.game", choices=games_with_results)
        sources = words(gr.CheckboxGroup(choices=kind_choices("en"), value=[k for k in KINDS if k in DEFAULT_KINDS],
                                         label=text("en", "results.sources"), elem_id="results-sources",
                                         info=text("en", "results.sources_info")),
                        label="results.sources", info="results.sources_info", choices=kind_choices)
        refresh = words(gr.Button(text("en", "results.refresh"), elem_id="refresh-results"), value="results.refresh")

    @gr.render(inputs=[game, sources, language], triggers=[refresh.click, game.change, sources.change, tab.select])
    def show(game_id: str | None, chosen: list[str] | None, lang: str | None) -> None:
        try:
            page = page_for(api, game_id, chosen) if game_id and (chosen or game_id == SUITES_PAGE) else None
        except ApiError as exc:
            gr.Markdown(str(exc))
            return
        if page is None:
            gr.Markdown(text(lang, "results.no_page" if game_id and chosen else "results.no_sources"))
            return
        gr.Markdown(f"### {page.title}\n{page.note}", elem_id="results-note")
        for section in page.sections:
            gr.Markdown(f"#### {section.title}")
            section_component(section)

    return {"refresh": refresh, "game": game, "sources": sources}
