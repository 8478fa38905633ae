"""Leaderboard tab: the sortable table, and plots where looking beats reading."""

from __future__ import annotations

from typing import Any

import gradio as gr
import pandas as pd

from ..api import ArenaAPI
from ..experiments import ATTACK_CONDITIONS, attack_defence
from ..games import GAMES
from ..metrics.spy import score_history, study_row

TABLE_COLUMNS = {
    "agent": "agent", "ranking_score": "ranking score", "rating_mu": "rating μ", "rating_sigma": "rating σ",
    "games": "games", "win_rate_spy": "win % spy", "win_rate_civilian": "win % civilian",
    "avg_score_spy": "avg score spy", "avg_score_civilian": "avg score civilian",
    "vote_accuracy": "vote accuracy", "foul_rate": "foul rate", "survival_spy": "survival spy",
    "survival_civilian": "survival civilian", "avg_latency_ms": "latency ms",
}


def leaderboard_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    for col in ("win_rate_spy", "win_rate_civilian"):
        frame[col] = (frame[col].astype(float) * 100).round(1)
    for col in ("rating_mu", "rating_sigma", "avg_score_spy", "avg_score_civilian", "vote_accuracy",
                "foul_rate", "survival_spy", "survival_civilian", "avg_latency_ms", "ranking_score"):
        frame[col] = frame[col].astype(float).round(3)
    return frame.rename(columns=TABLE_COLUMNS)


def role_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    out = []
    for r in rows:
        for role in ("spy", "civilian"):
            value = r.get(f"win_rate_{role}")
            if value is not None:
                # one bar per (agent, role): Gradio stacks bars that share an x value
                out.append({"agent · role": f"{r['agent']} · {role}", "role": role,
                            "win rate": round(value, 3)})
    return pd.DataFrame(out, columns=["agent · role", "role", "win rate"])


def history_frame(api: ArenaAPI, game: str, agents: set[str]) -> pd.DataFrame:
    rows = [r for r in score_history(m for m in api.store.iter_matches(game)
                                     if not m["tag"].startswith("study:"))
            if r["agent"] in agents]
    return pd.DataFrame(rows, columns=["agent", "game", "ranking_score", "finished_at"])


STUDY_METRICS = {"vote_accuracy": "vote accuracy", "foul_rate": "foul rate",
                 "civilian_win_rate": "civilian wins"}
STUDY_SHORT = {"baseline": "baseline", "attacker spy": "attacker", "defender-injection spy": "defender"}
STUDY_BARS = [f"{label}: {STUDY_SHORT[name]}" for label in STUDY_METRICS.values() for name in ATTACK_CONDITIONS]


def study_frame(api: ArenaAPI) -> pd.DataFrame:
    """The newest stored attack/defence run: one bar per metric and condition, grouped
    by metric, conditions in the study's order."""
    runs: dict[str, float] = {}
    for m in api.store.list_matches(game="spy", limit=2000):
        if m["tag"].startswith("study:attack:"):
            run = m["tag"].rsplit(":", 1)[-1]
            runs[run] = max(runs.get(run, 0), m["created_at"])
    if not runs:
        return pd.DataFrame(columns=["bar", "condition", "value"])
    newest = max(runs, key=runs.get)
    rows = {name: study_row(api.store.iter_matches("spy", tag=f"study:attack:{name}:{newest}"))
            for name in ATTACK_CONDITIONS}
    out = [{"bar": f"{label}: {STUDY_SHORT[name]}", "condition": name, "value": round(row[metric], 3)}
           for metric, label in STUDY_METRICS.items()
           for name, row in rows.items() if row[metric] is not None]
    return pd.DataFrame(out, columns=["bar", "condition", "value"])


def build_leaderboard_tab(api: ArenaAPI) -> dict[str, Any]:
    with gr.Row():
        game = gr.Dropdown(choices=[(g.title, g.id) for g in GAMES.values()], value="spy", label="Game")
        min_games = gr.Slider(0, 100, value=0, step=1, label="Minimum games")
        studies = gr.Checkbox(label="Include study matches", value=False)
        refresh = gr.Button("Refresh", elem_id="refresh-leaderboard")
    table = gr.Dataframe(leaderboard_frame([]), interactive=False, elem_id="leaderboard-table",
                         label="Ranking score = 100 + sum of game scores − games played. "
                               "Rating: OpenSkill μ ± σ. Click a column header to sort.")
    with gr.Row():
        history = gr.LinePlot(pd.DataFrame(columns=["agent", "game", "ranking_score"]), x="game",
                              y="ranking_score", color="agent", title="Ranking score over games",
                              x_title="games played", y_title="ranking score")
        roles = gr.BarPlot(pd.DataFrame(columns=["agent · role", "role", "win rate"]), x="agent · role",
                           y="win rate", color="role", title="Win rate by role", y_lim=[0, 1])
    with gr.Row():
        study = gr.BarPlot(pd.DataFrame(columns=["bar", "condition", "value"]), x="bar", y="value",
                           color="condition", title="Attack / defence study (newest run)", x_label_angle=-30,
                           x_title="metric: condition", y_title="rate", y_lim=[0, 1], sort=STUDY_BARS)
        with gr.Column():
            gr.Markdown("Run the attack/defence study with the heuristic house agent: the same "
                        "seeds as baseline, with an attacker spy and with a defender-injection spy.")
            study_games = gr.Slider(5, 50, value=10, step=5, label="Games per condition")
            run_study = gr.Button("Run the study")

    def load(game_id: str, minimum: float, include: bool):
        rows = api.leaderboard(game_id, int(minimum), include_studies=include)
        agents = {r["agent"] for r in rows}
        return (leaderboard_frame(rows), history_frame(api, game_id, agents), role_frame(rows),
                study_frame(api))

    outputs = [table, history, roles, study]
    refresh.click(load, [game, min_games, studies], outputs, api_visibility="private")
    game.change(load, [game, min_games, studies], outputs, api_visibility="private")
    min_games.release(load, [game, min_games, studies], outputs, api_visibility="private")
    studies.change(load, [game, min_games, studies], outputs, api_visibility="private")

    async def study_now(n: float):
        with api.admit("study"):
            await attack_defence(api.arena, games=int(n), seed=7)
        return study_frame(api)

    run_study.click(study_now, [study_games], [study], api_visibility="private", concurrency_limit=1)
    return {"load": load, "inputs": [game, min_games, studies], "outputs": outputs}
