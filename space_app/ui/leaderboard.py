"""Leaderboard tab: what the chosen game declares and nothing else. A compact board (rank with
its range, conservative rating, rating with its interval, matches), every column of the game's
table one click away (its columns and their meaning come from its spec), the head-to-head
matrix, win rate by side with error bars, and, per game, the plot over games its metrics
declare and the charted study its extras declare: a game without a study shows no study."""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from ..api import ApiError, ArenaAPI
from ..core import GAMES, GameSpec, get_game
from ..export import write
from ..head_to_head import DEFINITION
from ..leaderboard import cell, columns, rank_ranges
from ..safe_text import markdown_text
from ..sources import DEFAULT_KINDS, DEMO, KINDS, kind_of
from ..standings import from_row
from ..tables import figure
from .charts import bars, lines
from .common import front_game, game_choices, visitor_of
from .i18n import Interface, normal, refusal, text


def leaderboard_frame(spec: GameSpec, rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The table as shown: figures with their 95% interval and sample size, as the CLI prints them."""
    shown = columns(spec)
    return pd.DataFrame([[cell(c, r) for c in shown] for r in rows], columns=[c.label for c in shown])


METHODOLOGY = Path(__file__).resolve().parents[2] / "docs" / "methodology.md"


def methodology_text() -> str:
    """docs/methodology.md, shown in the tab (the generated column tables are the accordion above).
    Documentation, not interface: it stays in English in every page language, like the docs."""
    try:
        text = METHODOLOGY.read_text(encoding="utf-8")
    except OSError:  # an install without the docs folder
        return "The methodology page is docs/methodology.md in the project's repository."
    head, _, rest = text.partition("<!-- columns:start")
    _, _, tail = rest.partition("<!-- columns:end -->")
    return head + "(the columns of the selected game: *What the columns mean* above)" + tail


def columns_markdown(spec: GameSpec, lang: str = "en") -> str:
    """How to read a figure (in the page's language), then each column's meaning as the game's
    spec words it (the game's own text, like its column names)."""
    lines = [f"- **{markdown_text(c.label)}**: {markdown_text(c.meaning)}" for c in columns(spec)[1:]]
    return text(lang, "leaderboard.intervals_note") + "\n\n" + "\n".join(lines)


def kind_choices(lang: str) -> list[tuple[str, str]]:
    """The match sources, worded; their values are the kinds the filter takes."""
    return [(text(lang, f"leaderboard.kind_{k}"), k) for k in KINDS]


def _listed(lang: str, items: list[str]) -> str:
    if len(items) == 1:
        return items[0]
    return text(lang, "leaderboard.and", items=text(lang, "leaderboard.comma").join(items[:-1]), last=items[-1])


def includes(lang: str, kinds: frozenset[str] | set[str]) -> str:
    """What the table includes, as `sources.describe` says it (the same words in English)."""
    names = {value: label for label, value in kind_choices(lang)}
    chosen = [names[k] for k in KINDS if k in kinds]
    left_out = [names[k] for k in KINDS if k not in kinds]
    out = (text(lang, "leaderboard.includes", kinds=_listed(lang, chosen)) if chosen
           else text(lang, "leaderboard.includes_none"))
    return text(lang, "leaderboard.left_out", includes=out, kinds=_listed(lang, left_out)) if left_out else out


def role_frame(spec: GameSpec, rows: list[dict[str, Any]]) -> pd.DataFrame:
    """One bar per (agent, side): its win rate there with the Wilson interval."""
    out = []
    for r in rows:
        for role in spec.facts.record_roles:
            value = r.get(f"win_rate_{role}")
            if value is not None:
                # rounded alike: rounding keeps the value inside its interval
                out.append({"agent · role": f"{r['agent']} · {role}", "role": role, "win rate": round(value, 3),
                            "low": _rounded(r.get(f"win_rate_{role}_low")),
                            "high": _rounded(r.get(f"win_rate_{role}_high")), "seats": r.get(f"win_rate_{role}_n")})
    return pd.DataFrame(out, columns=["agent · role", "role", "win rate", "low", "high", "seats"])


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def role_chart(spec: GameSpec, rows: list[dict[str, Any]], lang: str = "en") -> Any:
    return bars(role_frame(spec, rows), x="agent · role", y="win rate", color="role", y_domain=(0, 1),
                x_title="", y_title=text(lang, "leaderboard.rate"))


def headline_frame(rows: list[dict[str, Any]], lang: str = "en") -> pd.DataFrame:
    """The compact board: rank with the range its rating interval allows, the conservative
    rating (what the board is ranked by), the rating with its 95% interval, matches."""
    heads = [text(lang, f"leaderboard.{k}") for k in ("rank", "conservative", "rating_interval", "matches")]
    shown = []
    for r, (place, best, worst) in zip(rows, rank_ranges(rows), strict=True):
        rating = "-" if r.get("rating") is None else (
            f"{r['rating']:.2f} [{r['rating_low']:.2f}, {r['rating_high']:.2f}]")
        shown.append([f"{place} [{best}–{worst}]" if best != worst else str(place), r["agent"],
                      "-" if r.get("rating_low") is None else f"{r['rating_low']:.2f}", rating, r["matches"]])
    return pd.DataFrame(shown, columns=[heads[0], "agent", *heads[1:]])


H2H_AGENTS = 12  # the matrix follows the top rows of the board


def h2h_frame(doc: dict[str, Any]) -> pd.DataFrame:
    """Rows over columns: the row agent's win rate over the column agent, '62 [48, 75] n=20'
    (percent), '·' on the diagonal, '' where the two never met on opposite teams."""
    agents = doc["agents"]
    cells = {(c["a"], c["b"]): c for c in doc["cells"]}
    body = []
    for a in agents:
        line = [a]
        for b in agents:
            c = cells.get((a, b))
            line.append("·" if a == b else (figure(c, "win_rate", 100.0, 0) if c else ""))
        body.append(line)
    return pd.DataFrame(body, columns=["agent", *agents])


def h2h_note(doc: dict[str, Any], lang: str) -> str:
    if not doc["cells"]:
        return text(lang, "leaderboard.h2h_none")
    return text(lang, "leaderboard.h2h_note", definition=DEFINITION)


HISTORY_AGENTS = 8  # the plot follows the top rows only
HISTORY_POINTS = 300  # per agent: a long history is thinned to this many points


def history_frame(api: ArenaAPI, spec: GameSpec, rows: list[dict[str, Any]], kinds: frozenset[str]) -> pd.DataFrame:
    """The game's value over each top agent's seats, from the stored records (no events)."""
    label = spec.metrics.history_label
    if spec.metrics.history is None or not rows:
        return pd.DataFrame(columns=["agent", "game", label])
    agents = [r["agent"] for r in rows[:HISTORY_AGENTS]]
    played: dict[str, list] = {a: [] for a in agents}
    for record in api.seat_records(spec.id, agents):
        if kind_of(record["tag"]) not in kinds:
            continue
        played[record["agent_id"]].append(from_row(record))
    out = []
    for agent, records in played.items():
        points = spec.metrics.history(agent, records)
        step = max(1, len(points) // HISTORY_POINTS)
        out += [p for i, p in enumerate(points) if i % step == 0 or i == len(points) - 1]
    return pd.DataFrame(out, columns=["agent", "game", label])


def history_chart(api: ArenaAPI, spec: GameSpec, rows: list[dict[str, Any]], kinds: frozenset[str],
                  lang: str = "en") -> Any:
    label = spec.metrics.history_label
    return lines(history_frame(api, spec, rows, kinds), x="game", y=label, color="agent",
                 x_title=text(lang, "leaderboard.seats_played"), y_title=label.replace("_", " "))


def charted_study(spec: GameSpec) -> tuple[str, Any] | None:
    """The game's first study that draws a chart of its newest run."""
    return next(((name, s) for name, s in spec.extras.studies.items() if s.chart is not None), None)


def study_frame(api: ArenaAPI, spec: GameSpec) -> pd.DataFrame:
    found = charted_study(spec)
    if found is None:
        return pd.DataFrame(columns=["bar", "condition", "value", "low", "high"])
    return api.study_chart(spec.id, found[0])


def study_chart(api: ArenaAPI, spec: GameSpec, lang: str = "en") -> Any:
    found = charted_study(spec)
    if found is None:
        return None
    return bars(study_frame(api, spec), x="bar", y="value", color="condition", y_domain=(0, 1),
                order=found[1].chart_order, x_title=text(lang, "leaderboard.metric_condition"),
                y_title=text(lang, "leaderboard.rate"))


def download_files(doc: dict[str, Any]) -> tuple[str, str]:
    """The leaderboard as CSV (every row key: figures with _low/_high/_n) and as a snapshot
    (JSON: the filter, matches, rules and code versions), in a fresh temporary folder."""
    folder = Path(tempfile.mkdtemp(prefix="leaderboard-"))
    stem = f"{doc['game']}-leaderboard-{doc['filter']['sources']}"
    csv_path, json_path = folder / f"{stem}.csv", folder / f"{stem}.json"
    with csv_path.open("w", encoding="utf-8", newline="") as out:
        write(out, doc["rows"], "csv")
    json_path.write_text(json.dumps(doc, ensure_ascii=False, indent=1, default=str), encoding="utf-8")
    return str(csv_path), str(json_path)


SHOWN_IDS = 12  # match links per condition in the study report (all of them: export --tag)


def study_markdown(api: ArenaAPI, spec: GameSpec, lang: str = "en") -> str:
    """The charted study's newest run as it should be reported: each condition in words, its
    tag, seeds and match links, and its figures with their intervals and sample sizes. The
    study's own words (title, conditions, column names) are the game's, in English."""
    found = charted_study(spec)
    if found is None or found[1].newest is None:
        return ""
    study = found[1]
    rows = api.study_rows(spec.id, found[0])
    if not rows:
        return text(lang, "leaderboard.study_not_run", title=markdown_text(study.title))
    lines = [text(lang, "leaderboard.study_newest", title=markdown_text(study.title),
                  describe=markdown_text(study.describe)), ""]
    for r in rows:
        ids = r.get("match_ids") or []
        links = ", ".join(f"[{i}](?match={i})" for i in ids[:SHOWN_IDS]) + (f" … ({len(ids)})" if len(ids) > SHOWN_IDS
                                                                           else "")
        seeds = r.get("seeds") or []
        lines.append(text(lang, "leaderboard.study_condition", condition=markdown_text(r["condition"]),
                          what=markdown_text(r.get("what", "")), tag=markdown_text(r["tag"]),
                          seeds=", ".join(map(str, seeds[:6])) + (" …" if len(seeds) > 6 else ""),
                          links=links or text(lang, "leaderboard.none")))
    columns_shown = list(study.columns)
    lines += ["", "| " + " | ".join(columns_shown) + " |", "|" + "---|" * len(columns_shown)]
    lines += ["| " + " | ".join(markdown_text(figure(r, c)) for c in columns_shown) + " |" for r in rows]
    lines += ["", text(lang, "leaderboard.study_figures")]
    return "\n".join(lines)


def study_how(lang: str, spec: GameSpec) -> str:
    """How to run the game's charted study, here or from the CLI ('' without one)."""
    charted = charted_study(spec)
    if charted is None or not spec.house.demo:
        return ""
    return text(lang, "leaderboard.study_how", agent=charted[1].base or spec.house.demo[0],
                describe=charted[1].describe)


def history_title(lang: str, label: str) -> str:
    return text(lang, "leaderboard.history_title", label=label.replace("_", " ").capitalize())


@dataclass
class GameWidgets:
    """What the tab shows for one game beyond the generic board, as its spec declares it: the
    plot over games (`metrics.history`) and the charted study (`extras.studies`), in a group
    shown only while that game is chosen. None: the game does not declare it."""

    group: gr.Column
    history: gr.Plot | None = None
    study: gr.Plot | None = None
    study_report: gr.Markdown | None = None
    study_games: gr.Slider | None = None
    run_study: gr.Button | None = None


def game_widgets(spec: GameSpec, visible: bool, words: Interface) -> GameWidgets:
    """The game's own group of widgets (built inside the tab)."""
    with gr.Column(visible=visible, elem_id=f"board-extras-{spec.id}") as group:
        found = GameWidgets(group)
        label = spec.metrics.history_label
        if spec.metrics.history is not None:
            found.history = words(gr.Plot(label=history_title("en", label), elem_id=f"history-plot-{spec.id}"),
                                  label=lambda lang, label=label: history_title(lang, label))
        charted = charted_study(spec)
        if charted is not None:
            title = charted[1].title
            with gr.Row():
                found.study = words(gr.Plot(label=text("en", "leaderboard.study_title", title=title),
                                            elem_id=f"study-plot-{spec.id}"),
                                    label=lambda lang, title=title: text(lang, "leaderboard.study_title",
                                                                         title=title))
                with gr.Column():
                    words(gr.Markdown(study_how("en", spec)), value=lambda lang, spec=spec: study_how(lang, spec))
                    if spec.house.demo:
                        found.study_games = words(gr.Slider(5, 50, value=10, step=5,
                                                            label=text("en", "leaderboard.study_games")),
                                                  label="leaderboard.study_games")
                        found.run_study = words(gr.Button(text("en", "leaderboard.run_study"),
                                                          elem_id=f"run-study-{spec.id}"),
                                                value="leaderboard.run_study")
            found.study_report = gr.Markdown("", elem_id=f"study-report-{spec.id}")
    return found


def build_leaderboard_tab(api: ArenaAPI, words: Interface, language: gr.Radio) -> dict[str, Any]:
    default = front_game(api.config)
    with gr.Row():
        game = words(gr.Dropdown(choices=game_choices("en"), value=default.id, elem_id="leaderboard-game",
                                 label=text("en", "play.game")), label="play.game", choices=game_choices)
        min_games = words(gr.Slider(0, 100, value=0, step=1, label=text("en", "leaderboard.min_games")),
                          label="leaderboard.min_games")
        sources = words(gr.CheckboxGroup(choices=kind_choices("en"), value=[k for k in KINDS if k in DEFAULT_KINDS],
                                         label=text("en", "leaderboard.sources"), elem_id="leaderboard-sources",
                                         info=text("en", "leaderboard.sources_info")),
                        label="leaderboard.sources", info="leaderboard.sources_info", choices=kind_choices)
        void = words(gr.Checkbox(label=text("en", "leaderboard.void"), value=False,
                                 info=text("en", "leaderboard.void_info")),
                     label="leaderboard.void", info="leaderboard.void_info")
        by_version = words(gr.Checkbox(label=text("en", "leaderboard.by_version"), value=False,
                                       info=text("en", "leaderboard.by_version_info"),
                                       elem_id="leaderboard-by-version"),
                           label="leaderboard.by_version", info="leaderboard.by_version_info")
        refresh = words(gr.Button(text("en", "leaderboard.refresh"), elem_id="refresh-leaderboard"),
                        value="leaderboard.refresh")
    with gr.Row():
        # worded by `load` (the tab loads the table whenever it is opened, in the page's language)
        includes_note = gr.Markdown(text("en", "leaderboard.sentence", note=includes("en", DEFAULT_KINDS)),
                                    elem_id="leaderboard-includes")
        csv_file = gr.DownloadButton("⬇ CSV", value=None, size="sm", elem_id="download-csv", scale=0)
        json_file = words(gr.DownloadButton(text("en", "leaderboard.download_json"), value=None, size="sm",
                                            elem_id="download-json", scale=0), label="leaderboard.download_json")
    # the board's caption (how the game ranks) is the game's own words
    headline = gr.Dataframe(headline_frame([]), interactive=False, elem_id="leaderboard-board",
                            label=default.metrics.ranking_note)
    words(gr.Markdown(text("en", "leaderboard.rank_note")), value="leaderboard.rank_note")
    with words(gr.Accordion(text("en", "leaderboard.all_columns_box"), open=False, elem_id="leaderboard-all"),
               label="leaderboard.all_columns_box"):
        table = gr.Dataframe(leaderboard_frame(default, []), interactive=False, elem_id="leaderboard-table",
                             label=default.metrics.ranking_note)
        meanings = gr.Markdown(columns_markdown(default))
    with words(gr.Accordion(text("en", "leaderboard.methodology_box"), open=False, elem_id="methodology"),
               label="leaderboard.methodology_box"):
        gr.Markdown(methodology_text())  # documentation: English in every language
    words(gr.Markdown(f"#### {text('en', 'leaderboard.h2h_title')}"),
          value=lambda lang: f"#### {text(lang, 'leaderboard.h2h_title')}")
    h2h = gr.Dataframe(pd.DataFrame(columns=["agent"]), interactive=False, elem_id="head-to-head", wrap=True)
    h2h_words = gr.Markdown("", elem_id="head-to-head-note")
    roles = words(gr.Plot(label=text("en", "leaderboard.roles_title"), elem_id="role-plot"),
                  label="leaderboard.roles_title")
    extras = {spec.id: game_widgets(spec, spec.id == default.id, words) for spec in GAMES.values()}

    def load(game_id: str, minimum: float, chosen: list[str], voided: bool, split: bool = False,
             lang: str | None = None):
        lang = normal(lang)
        spec = get_game(game_id)
        kinds = frozenset(chosen or [])
        # one computation per click: the table, the plots and both downloads come from it
        doc = api.leaderboard_snapshot(game_id, kinds, int(minimum), voided, by_version=bool(split))
        rows = doc["rows"] if kinds else []
        note = includes(lang, kinds)
        if voided:
            note = text(lang, "leaderboard.voided", note=note)
        note = text(lang, "leaderboard.counted", note=note, agents=len(rows), matches=doc["matches"] if kinds else 0)
        csv_path, json_path = download_files(doc)
        if not rows and DEMO not in kinds:
            note = text(lang, "leaderboard.no_matches", note=note)
        # the matrix over the same matches, its agents in the board's order
        # (agents, not their versions: a split board's rows are '<agent> @ <version>')
        agents = list(dict.fromkeys(str(r.get("agent_id") or r["agent"]) for r in rows))
        pairs = api.head_to_head(game_id, sorted(kinds), void_infra=voided,
                                 agents=agents[:H2H_AGENTS]) if rows else \
            {"agents": [], "cells": []}
        out: list[Any] = [note, csv_path, json_path,
                          gr.Dataframe(headline_frame(rows, lang), label=spec.metrics.ranking_note),
                          gr.Dataframe(leaderboard_frame(spec, rows), label=spec.metrics.ranking_note),
                          columns_markdown(spec, lang), h2h_frame(pairs), h2h_note(pairs, lang),
                          role_chart(spec, rows, lang)]
        for game_id_, widgets in extras.items():
            chosen_game = game_id_ == spec.id
            out.append(gr.Column(visible=chosen_game))
            if widgets.history is not None:
                out.append(history_chart(api, spec, rows, kinds, lang) if chosen_game else gr.skip())
            if widgets.study is not None:
                out.append(study_chart(api, spec, lang) if chosen_game else gr.skip())
                out.append(study_markdown(api, spec, lang) if chosen_game else gr.skip())
        return out

    outputs: list[Any] = [includes_note, csv_file, json_file, headline, table, meanings, h2h, h2h_words, roles]
    for widgets in extras.values():
        outputs.append(widgets.group)
        if widgets.history is not None:
            outputs.append(widgets.history)
        if widgets.study is not None:
            outputs += [widgets.study, widgets.study_report]
    inputs = [game, min_games, sources, void, by_version, language]
    refresh.click(load, inputs, outputs, api_visibility="private")
    game.change(load, inputs, outputs, api_visibility="private")
    min_games.release(load, inputs, outputs, api_visibility="private")
    sources.change(load, inputs, outputs, api_visibility="private")
    void.change(load, inputs, outputs, api_visibility="private")
    by_version.change(load, inputs, outputs, api_visibility="private")

    for game_id, widgets in extras.items():
        if widgets.run_study is None:
            continue

        async def study_now(n: float, lang: str, request: gr.Request, game_id: str = game_id):
            spec = get_game(game_id)
            found = charted_study(spec)
            # the visitor's own slots: a study's matches count against their cap and the arena's
            visitor = visitor_of(request, api.config.trusted_proxy_hops, None)
            try:
                await api.run_study(spec.id, found[0], base=found[1].base or spec.house.demo[0], games=int(n), seed=7,
                                    visitor=visitor)
            except ApiError as exc:
                raise gr.Error(refusal(lang, exc)) from exc
            return study_chart(api, spec, normal(lang)), study_markdown(api, spec, normal(lang))

        widgets.run_study.click(study_now, [widgets.study_games, language], [widgets.study, widgets.study_report],
                                api_visibility="private", concurrency_limit=1)
    return {"load": load, "inputs": inputs, "outputs": outputs, "extras": extras}
