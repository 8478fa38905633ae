"""Results tab: each game's own results page (`Presentation.results`), built from the store when
opened; shown for the games that declare one (the murder mystery: its win-rate matrix and
Chain of Evaluation)."""

from __future__ import annotations

from typing import Any

import gradio as gr

from ..api import ArenaAPI
from ..core import GAMES, ResultsPage, ResultsSection
from .i18n import Interface, text


def games_with_results(language: str = "en") -> list[tuple[str, str]]:
    return [(g.facts.title_in(language), g.id) for g in GAMES.values() if g.presentation.results is not None]


def page_for(api: ArenaAPI, game_id: str) -> ResultsPage | None:
    return api.results_page(game_id)


def section_component(section: ResultsSection) -> Any:
    """The component that shows one section (built inside a render block)."""
    if section.kind == "markdown":
        return gr.Markdown(section.value)
    if section.kind == "html":
        return gr.HTML(section.value)
    if section.kind == "table":
        return gr.Dataframe(section.value, interactive=False, wrap=True)
    if section.kind == "bar":
        # bars in the frame's order (the plot would sort them by name)
        return gr.BarPlot(section.value, x=section.x, y=section.y, color=section.color, x_label_angle=-40,
                          sort=list(dict.fromkeys(section.value[section.x])) or None,
                          y_title=section.y_title or section.y, y_lim=list(section.y_lim) if section.y_lim else None)
    raise ValueError(f"unknown results section kind {section.kind!r}")


def build_results_tab(api: ArenaAPI, tab: gr.Tab, words: Interface, language: gr.Radio) -> dict[str, Any]:
    """The page is built when the tab is opened, a game chosen or Refresh pressed. The page
    itself (titles, notes, tables) is the game's own, in its words; around it, the page's."""
    choices = games_with_results()
    with gr.Row():
        game = words(gr.Dropdown(choices=choices, value=choices[0][1] if choices else None,
                                 label=text("en", "play.game")), label="play.game", choices=games_with_results)
        refresh = words(gr.Button(text("en", "results.refresh"), elem_id="refresh-results"), value="results.refresh")

    @gr.render(inputs=[game, language], triggers=[refresh.click, game.change, tab.select])
    def show(game_id: str | None, lang: str | None) -> None:
        page = page_for(api, game_id) if game_id else None
        if page is None:
            gr.Markdown(text(lang, "results.no_page"))
            return
        gr.Markdown(f"### {page.title}\n{page.note}")
        for section in page.sections:
            gr.Markdown(f"#### {section.title}")
            section_component(section)

    return {"refresh": refresh, "game": game}
