"""Leaderboard tab: the game's table (its columns and their meaning come from its spec),
and plots where looking beats reading."""

from __future__ import annotations

from typing import Any

import gradio as gr
import pandas as pd

from ..api import ArenaAPI
from ..games import GAMES, GameSpec, get_game
from ..leaderboard import columns
from ..safe_text import markdown_text
from ..standings import EXPERIMENT_PREFIXES, from_row

DEFAULT_GAME = "spy" if "spy" in GAMES else next(iter(GAMES))


def leaderboard_frame(spec: GameSpec, rows: list[dict[str, Any]]) -> pd.DataFrame:
    shown = columns(spec)
    frame = pd.DataFrame(rows, columns=[c.key for c in shown])
    for c in shown[1:]:
        if c.text:
            frame[c.key] = frame[c.key].fillna("-").astype(str)
            continue
        values = pd.to_numeric(frame[c.key], errors="coerce").astype(float)
        frame[c.key] = (values * 100).round(1) if c.percent else values.round(3)
    return frame.rename(columns={c.key: c.label for c in shown})


def columns_markdown(spec: GameSpec) -> str:
    return "\n".join(f"- **{markdown_text(c.label)}**: {markdown_text(c.meaning)}" for c in columns(spec)[1:])


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


def history_frame(api: ArenaAPI, spec: GameSpec, rows: list[dict[str, Any]], include_studies: bool) -> pd.DataFrame:
    """The game's value over each top agent's seats, from the stored records (no events)."""
    label = spec.history_label
    if spec.history is None or not rows:
        return pd.DataFrame(columns=["agent", "game", label])
    agents = [r["agent"] for r in rows[:HISTORY_AGENTS]]
    played: dict[str, list] = {a: [] for a in agents}
    skip = None if include_studies else EXPERIMENT_PREFIXES
    for record in api.store.records(spec.id, agents=agents, exclude_prefix=skip):
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


def build_leaderboard_tab(api: ArenaAPI) -> dict[str, Any]:
    default = get_game(DEFAULT_GAME)
    with gr.Row():
        game = gr.Dropdown(choices=[(g.title, g.id) for g in GAMES.values()], value=default.id, label="Game")
        min_games = gr.Slider(0, 100, value=0, step=1, label="Minimum games")
        studies = gr.Checkbox(label="Include study and comparison matches", value=False)
        refresh = gr.Button("Refresh", elem_id="refresh-leaderboard")
    table = gr.Dataframe(leaderboard_frame(default, []), interactive=False, elem_id="leaderboard-table",
                         label=default.ranking_note)
    with gr.Accordion("What the columns mean", open=False):
        meanings = gr.Markdown(columns_markdown(default))
    with gr.Row():
        label = default.history_label
        history = gr.LinePlot(pd.DataFrame(columns=["agent", "game", label]), x="game",
                              y=label, color="agent", title=f"{label.replace('_', ' ').capitalize()} over games",
                              x_title="seats played", y_title=label.replace("_", " "))
        roles = gr.BarPlot(pd.DataFrame(columns=["agent · role", "role", "win rate"]), x="agent · role",
                           y="win rate", color="role", title="Win rate by role", y_lim=[0, 1])
    charted = charted_study(default)
    with gr.Row(visible=charted is not None):
        study = gr.BarPlot(pd.DataFrame(columns=["bar", "condition", "value"]), x="bar", y="value",
                           color="condition", title=f"{charted[1].title if charted else 'Study'} (newest run)",
                           x_label_angle=-30, x_title="metric: condition", y_title="rate", y_lim=[0, 1],
                           sort=list(charted[1].chart_order) if charted else None)
        with gr.Column():
            gr.Markdown(f"Run it with `{default.demo_agents[0]}`: {charted[1].describe}."
                        if charted and default.demo_agents else "")
            study_games = gr.Slider(5, 50, value=10, step=5, label="Games per condition")
            run_study = gr.Button("Run the study")

    def load(game_id: str, minimum: float, include: bool):
        spec = get_game(game_id)
        rows = api.leaderboard(game_id, int(minimum), include_studies=include)  # computed once per click
        return (gr.Dataframe(leaderboard_frame(spec, rows), label=spec.ranking_note), columns_markdown(spec),
                history_frame(api, spec, rows, include), role_frame(spec, rows), study_frame(api, spec))

    outputs = [table, meanings, history, roles, study]
    refresh.click(load, [game, min_games, studies], outputs, api_visibility="private")
    game.change(load, [game, min_games, studies], outputs, api_visibility="private")
    min_games.release(load, [game, min_games, studies], outputs, api_visibility="private")
    studies.change(load, [game, min_games, studies], outputs, api_visibility="private")

    async def study_now(game_id: str, n: float):
        spec = get_game(game_id)
        found = charted_study(spec)
        if found is None or not spec.demo_agents:
            return study_frame(api, spec)
        with api.admit("study"):
            await found[1].run(api.arena, base=spec.demo_agents[0], games=int(n), seed=7)
        return study_frame(api, spec)

    run_study.click(study_now, [game, study_games], [study], api_visibility="private", concurrency_limit=1)
    return {"load": load, "inputs": [game, min_games, studies], "outputs": outputs}
