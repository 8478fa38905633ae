"""Leaderboard tab: the game's table (its columns and their meaning come from its spec),
and plots where looking beats reading."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from ..api import ApiError, ArenaAPI
from ..core import GAMES, GameSpec, get_game
from ..export import write
from ..leaderboard import cell, columns
from ..safe_text import markdown_text
from ..sources import DEFAULT_KINDS, DEMO, KINDS, kind_of
from ..standings import from_row
from ..tables import figure
from .common import game_choices, visitor_of
from .i18n import Interface, normal, text

DEFAULT_GAME = "spy" if "spy" in GAMES else next(iter(GAMES))


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
    out = []
    for r in rows:
        for role in spec.facts.record_roles:
            value = r.get(f"win_rate_{role}")
            if value is not None:
                # one bar per (agent, role): Gradio stacks bars that share an x value
                out.append({"agent · role": f"{r['agent']} · {role}", "role": role, "win rate": round(value, 3)})
    return pd.DataFrame(out, columns=["agent · role", "role", "win rate"])


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


def charted_study(spec: GameSpec) -> tuple[str, Any] | None:
    """The game's first study that draws a chart of its newest run."""
    return next(((name, s) for name, s in spec.extras.studies.items() if s.chart is not None), None)


def study_frame(api: ArenaAPI, spec: GameSpec) -> pd.DataFrame:
    found = charted_study(spec)
    if found is None:
        return pd.DataFrame(columns=["bar", "condition", "value"])
    return api.study_chart(spec.id, found[0])


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
    return text(lang, "leaderboard.study_how", agent=spec.house.demo[0], describe=charted[1].describe)


def history_title(lang: str, label: str) -> str:
    return text(lang, "leaderboard.history_title", label=label.replace("_", " ").capitalize())


def build_leaderboard_tab(api: ArenaAPI, words: Interface, language: gr.Radio) -> dict[str, Any]:
    default = get_game(DEFAULT_GAME)
    with gr.Row():
        game = words(gr.Dropdown(choices=game_choices("en"), value=default.id,
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
        refresh = words(gr.Button(text("en", "leaderboard.refresh"), elem_id="refresh-leaderboard"),
                        value="leaderboard.refresh")
    with gr.Row():
        # worded by `load` (the tab loads the table whenever it is opened, in the page's language)
        includes_note = gr.Markdown(text("en", "leaderboard.sentence", note=includes("en", DEFAULT_KINDS)),
                                    elem_id="leaderboard-includes")
        csv_file = gr.DownloadButton("⬇ CSV", value=None, size="sm", elem_id="download-csv", scale=0)
        json_file = words(gr.DownloadButton(text("en", "leaderboard.download_json"), value=None, size="sm",
                                            elem_id="download-json", scale=0), label="leaderboard.download_json")
    # the table's caption (how the game ranks) and column names are the game's own words
    table = gr.Dataframe(leaderboard_frame(default, []), interactive=False, elem_id="leaderboard-table",
                         label=default.metrics.ranking_note)
    with words(gr.Accordion(text("en", "leaderboard.columns_box"), open=False), label="leaderboard.columns_box"):
        meanings = gr.Markdown(columns_markdown(default))
    with words(gr.Accordion(text("en", "leaderboard.methodology_box"), open=False, elem_id="methodology"),
               label="leaderboard.methodology_box"):
        gr.Markdown(methodology_text())  # documentation: English in every language
    with gr.Row():
        label = default.metrics.history_label
        history = words(gr.LinePlot(pd.DataFrame(columns=["agent", "game", label]), x="game",
                                    y=label, color="agent", title=history_title("en", label),
                                    x_title=text("en", "leaderboard.seats_played"), y_title=label.replace("_", " ")),
                        title=lambda lang: history_title(lang, label), x_title="leaderboard.seats_played")
        roles = words(gr.BarPlot(pd.DataFrame(columns=["agent · role", "role", "win rate"]), x="agent · role",
                                 y="win rate", color="role", title=text("en", "leaderboard.roles_title"), y_lim=[0, 1],
                                 x_label_angle=-40, elem_id="role-plot"),  # angled: many agents' labels stay apart
                      title="leaderboard.roles_title")
    charted = charted_study(default)

    def study_title(lang: str) -> str:
        return (text(lang, "leaderboard.study_title", title=charted[1].title) if charted
                else text(lang, "leaderboard.study"))

    with gr.Row(visible=charted is not None):
        study = words(gr.BarPlot(pd.DataFrame(columns=["bar", "condition", "value"]), x="bar", y="value",
                                 color="condition", title=study_title("en"), x_label_angle=-30,
                                 x_title=text("en", "leaderboard.metric_condition"),
                                 y_title=text("en", "leaderboard.rate"), y_lim=[0, 1],
                                 sort=list(charted[1].chart_order) if charted else None),
                      title=study_title, x_title="leaderboard.metric_condition", y_title="leaderboard.rate")
        with gr.Column():
            words(gr.Markdown(study_how("en", default)), value=lambda lang: study_how(lang, default))
            study_games = words(gr.Slider(5, 50, value=10, step=5, label=text("en", "leaderboard.study_games")),
                                label="leaderboard.study_games")
            run_study = words(gr.Button(text("en", "leaderboard.run_study")), value="leaderboard.run_study")
    study_report = gr.Markdown("", elem_id="study-report", visible=charted is not None)

    def load(game_id: str, minimum: float, chosen: list[str], voided: bool, lang: str | None = None):
        lang = normal(lang)
        spec = get_game(game_id)
        kinds = frozenset(chosen or [])
        # one computation per click: the table, the plots and both downloads come from it
        doc = api.leaderboard_snapshot(game_id, kinds, int(minimum), voided)
        rows = doc["rows"] if kinds else []
        note = includes(lang, kinds)
        if voided:
            note = text(lang, "leaderboard.voided", note=note)
        note = text(lang, "leaderboard.counted", note=note, agents=len(rows), matches=doc["matches"] if kinds else 0)
        csv_path, json_path = download_files(doc)
        if not rows and DEMO not in kinds:
            note = text(lang, "leaderboard.no_matches", note=note)
        return (note, csv_path, json_path,
                gr.Dataframe(leaderboard_frame(spec, rows), label=spec.metrics.ranking_note),
                columns_markdown(spec, lang),
                history_frame(api, spec, rows, kinds), role_frame(spec, rows), study_frame(api, spec),
                study_markdown(api, spec, lang))

    outputs = [includes_note, csv_file, json_file, table, meanings, history, roles, study, study_report]
    inputs = [game, min_games, sources, void, language]
    refresh.click(load, inputs, outputs, api_visibility="private")
    game.change(load, inputs, outputs, api_visibility="private")
    min_games.release(load, inputs, outputs, api_visibility="private")
    sources.change(load, inputs, outputs, api_visibility="private")
    void.change(load, inputs, outputs, api_visibility="private")

    async def study_now(game_id: str, n: float, lang: str, request: gr.Request):
        spec = get_game(game_id)
        found = charted_study(spec)
        if found is None or not spec.house.demo:
            return study_frame(api, spec), study_markdown(api, spec, normal(lang))
        # the visitor's own slots: a study's matches count against their cap and the arena's
        visitor = visitor_of(request, api.config.trusted_proxy_hops, None)
        try:
            await api.run_study(spec.id, found[0], base=spec.house.demo[0], games=int(n), seed=7,
                                visitor=visitor)
        except ApiError as exc:
            raise gr.Error(str(exc)) from exc
        return study_frame(api, spec), study_markdown(api, spec, normal(lang))

    run_study.click(study_now, [game, study_games, language], [study, study_report], api_visibility="private",
                    concurrency_limit=1)
    return {"load": load, "inputs": inputs, "outputs": outputs}
