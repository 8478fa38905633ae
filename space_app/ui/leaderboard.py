"""Leaderboard tab: the game's table (its columns and their meaning come from its spec),
and plots where looking beats reading."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from ..api import ArenaAPI
from ..export import snapshot, write
from ..games import GAMES, GameSpec, get_game
from ..leaderboard import cell, columns
from ..safe_text import markdown_text
from ..sources import DEFAULT_KINDS, DEMO, KINDS, describe, kind_of
from ..standings import from_row
from ..tables import figure

DEFAULT_GAME = "spy" if "spy" in GAMES else next(iter(GAMES))


def leaderboard_frame(spec: GameSpec, rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The table as shown: figures with their 95% interval and sample size, as the CLI prints them."""
    shown = columns(spec)
    return pd.DataFrame([[cell(c, r) for c in shown] for r in rows], columns=[c.label for c in shown])


METHODOLOGY = Path(__file__).resolve().parents[2] / "docs" / "methodology.md"


def methodology_text() -> str:
    """docs/methodology.md, shown in the tab (the generated column tables are the accordion above)."""
    try:
        text = METHODOLOGY.read_text(encoding="utf-8")
    except OSError:  # an install without the docs folder
        return "The methodology page is docs/methodology.md in the project's repository."
    head, _, rest = text.partition("<!-- columns:start")
    _, _, tail = rest.partition("<!-- columns:end -->")
    return head + "(the columns of the selected game: *What the columns mean* above)" + tail


INTERVALS_NOTE = ("A rate reads *value [95% interval] n=…*: a Wilson interval over the n events counted (seats, "
                  "votes, turns…); a mean per seat reads the same with mean ± 1.96·s/√n over n seats. "
                  "How every column is computed: *Methodology* below.")


def columns_markdown(spec: GameSpec) -> str:
    lines = [f"- **{markdown_text(c.label)}**: {markdown_text(c.meaning)}" for c in columns(spec)[1:]]
    return INTERVALS_NOTE + "\n\n" + "\n".join(lines)


def role_frame(spec: GameSpec, rows: list[dict[str, Any]]) -> pd.DataFrame:
    out = []
    for r in rows:
        for role in spec.record_roles:
            value = r.get(f"win_rate_{role}")
            if value is not None:
                # one bar per (agent, role): Gradio stacks bars that share an x value
                out.append({"agent · role": f"{r['agent']} · {role}", "role": role, "win rate": round(value, 3)})
    return pd.DataFrame(out, columns=["agent · role", "role", "win rate"])


HISTORY_AGENTS = 8  # the plot follows the top rows only
HISTORY_POINTS = 300  # per agent: a long history is thinned to this many points


def history_frame(api: ArenaAPI, spec: GameSpec, rows: list[dict[str, Any]], kinds: frozenset[str]) -> pd.DataFrame:
    """The game's value over each top agent's seats, from the stored records (no events)."""
    label = spec.history_label
    if spec.history is None or not rows:
        return pd.DataFrame(columns=["agent", "game", label])
    agents = [r["agent"] for r in rows[:HISTORY_AGENTS]]
    played: dict[str, list] = {a: [] for a in agents}
    for record in api.store.records(spec.id, agents=agents):
        if kind_of(record["tag"]) not in kinds:
            continue
        played[record["agent_id"]].append(from_row(record))
    out = []
    for agent, records in played.items():
        points = spec.history(agent, records)
        step = max(1, len(points) // HISTORY_POINTS)
        out += [p for i, p in enumerate(points) if i % step == 0 or i == len(points) - 1]
    return pd.DataFrame(out, columns=["agent", "game", label])


def charted_study(spec: GameSpec) -> tuple[str, Any] | None:
    """The game's first study that draws a chart of its newest run."""
    return next(((name, s) for name, s in spec.studies.items() if s.chart is not None), None)


def study_frame(api: ArenaAPI, spec: GameSpec) -> pd.DataFrame:
    found = charted_study(spec)
    if found is None:
        return pd.DataFrame(columns=["bar", "condition", "value"])
    return found[1].chart(api.store)


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


def study_markdown(api: ArenaAPI, spec: GameSpec) -> str:
    """The charted study's newest run as it should be reported: each condition in words, its
    tag, seeds and match links, and its figures with their intervals and sample sizes."""
    found = charted_study(spec)
    if found is None or found[1].newest is None:
        return ""
    study = found[1]
    rows = study.newest(api.store)
    if not rows:
        return f"**{markdown_text(study.title)}**: not run yet."
    lines = [f"**{markdown_text(study.title)}, newest run**: {markdown_text(study.describe)}. Every condition "
             "plays the same deals (seeds).", ""]
    for r in rows:
        ids = r.get("match_ids") or []
        links = ", ".join(f"[{i}](?match={i})" for i in ids[:SHOWN_IDS]) + (f" … ({len(ids)})" if len(ids) > SHOWN_IDS
                                                                           else "")
        seeds = r.get("seeds") or []
        lines.append(f"- **{markdown_text(r['condition'])}**: {markdown_text(r.get('what', ''))}. Tag "
                     f"{markdown_text(r['tag'])}; seeds {', '.join(map(str, seeds[:6]))}"
                     f"{' …' if len(seeds) > 6 else ''}; matches {links or 'none'}")
    columns_shown = list(study.columns)
    lines += ["", "| " + " | ".join(columns_shown) + " |", "|" + "---|" * len(columns_shown)]
    lines += ["| " + " | ".join(markdown_text(figure(r, c)) for c in columns_shown) + " |" for r in rows]
    lines.append("\nFigures: value [95% interval] n=…: Wilson for rates, a seeded bootstrap over seats for "
                 "mean scores.")
    return "\n".join(lines)


def build_leaderboard_tab(api: ArenaAPI) -> dict[str, Any]:
    default = get_game(DEFAULT_GAME)
    with gr.Row():
        game = gr.Dropdown(choices=[(g.title, g.id) for g in GAMES.values()], value=default.id, label="Game")
        min_games = gr.Slider(0, 100, value=0, step=1, label="Minimum games")
        sources = gr.CheckboxGroup(choices=list(KINDS), value=[k for k in KINDS if k in DEFAULT_KINDS],
                                   label="Match sources", elem_id="leaderboard-sources",
                                   info="demo: the arena's warm-up matches; study: fixed line-ups of a study")
        void = gr.Checkbox(label="Void matches with an unreachable agent", value=False,
                           info="a call that could not reach its agent may be the network's fault")
        refresh = gr.Button("Refresh", elem_id="refresh-leaderboard")
    with gr.Row():
        includes = gr.Markdown(describe(DEFAULT_KINDS) + ".", elem_id="leaderboard-includes")
        csv_file = gr.DownloadButton("⬇ CSV", value=None, size="sm", elem_id="download-csv", scale=0)
        json_file = gr.DownloadButton("⬇ snapshot (JSON)", value=None, size="sm", elem_id="download-json", scale=0)
    table = gr.Dataframe(leaderboard_frame(default, []), interactive=False, elem_id="leaderboard-table",
                         label=default.ranking_note)
    with gr.Accordion("What the columns mean", open=False):
        meanings = gr.Markdown(columns_markdown(default))
    with gr.Accordion("Methodology: sources, intervals, the rating and how to cite", open=False,
                      elem_id="methodology"):
        gr.Markdown(methodology_text())
    with gr.Row():
        label = default.history_label
        history = gr.LinePlot(pd.DataFrame(columns=["agent", "game", label]), x="game",
                              y=label, color="agent", title=f"{label.replace('_', ' ').capitalize()} over games",
                              x_title="seats played", y_title=label.replace("_", " "))
        roles = gr.BarPlot(pd.DataFrame(columns=["agent · role", "role", "win rate"]), x="agent · role",
                           y="win rate", color="role", title="Win rate by role", y_lim=[0, 1],
                           x_label_angle=-40, elem_id="role-plot")  # angled: many agents' labels stay apart
    charted = charted_study(default)
    with gr.Row(visible=charted is not None):
        study = gr.BarPlot(pd.DataFrame(columns=["bar", "condition", "value"]), x="bar", y="value",
                           color="condition", title=f"{charted[1].title if charted else 'Study'} (newest run)",
                           x_label_angle=-30, x_title="metric: condition", y_title="rate", y_lim=[0, 1],
                           sort=list(charted[1].chart_order) if charted else None)
        with gr.Column():
            gr.Markdown(f"Run it here with the game's fast demo agent (`{default.demo_agents[0]}`): "
                        f"{charted[1].describe}. A study on a model takes minutes to hours per game on a "
                        "small machine, so it runs from the CLI: `python -m space_app experiment STUDY --game "
                        "GAME --base AGENT --games N`." if charted and default.demo_agents else "")
            study_games = gr.Slider(5, 50, value=10, step=5, label="Games per condition")
            run_study = gr.Button("Run the study")
    study_report = gr.Markdown("", elem_id="study-report", visible=charted is not None)

    def load(game_id: str, minimum: float, chosen: list[str], voided: bool):
        spec = get_game(game_id)
        kinds = frozenset(chosen or [])
        # one computation per click: the table, the plots and both downloads come from it
        doc = snapshot(api.store, game_id, sources=kinds, min_matches=int(minimum), void_infra=voided)
        rows = doc["rows"] if kinds else []
        note = describe(kinds) + ("; matches with an unreachable agent voided" if voided else "")
        note += f": {len(rows)} agents over {doc['matches'] if kinds else 0} matches."
        csv_path, json_path = download_files(doc)
        if not rows and DEMO not in kinds:
            note += " No matches from these sources yet: tick *demo* to see the arena's warm-up matches."
        return (note, csv_path, json_path,
                gr.Dataframe(leaderboard_frame(spec, rows), label=spec.ranking_note), columns_markdown(spec),
                history_frame(api, spec, rows, kinds), role_frame(spec, rows), study_frame(api, spec),
                study_markdown(api, spec))

    outputs = [includes, csv_file, json_file, table, meanings, history, roles, study, study_report]
    inputs = [game, min_games, sources, void]
    refresh.click(load, inputs, outputs, api_visibility="private")
    game.change(load, inputs, outputs, api_visibility="private")
    min_games.release(load, inputs, outputs, api_visibility="private")
    sources.change(load, inputs, outputs, api_visibility="private")
    void.change(load, inputs, outputs, api_visibility="private")

    async def study_now(game_id: str, n: float):
        spec = get_game(game_id)
        found = charted_study(spec)
        if found is None or not spec.demo_agents:
            return study_frame(api, spec), study_markdown(api, spec)
        with api.admit("study"):
            await found[1].run(api.arena, base=spec.demo_agents[0], games=int(n), seed=7)
        return study_frame(api, spec), study_markdown(api, spec)

    run_study.click(study_now, [game, study_games], [study, study_report], api_visibility="private",
                    concurrency_limit=1)
    return {"load": load, "inputs": inputs, "outputs": outputs}
