"""Leaderboard tab: the game's table (its columns and their meaning come from its spec),
and plots where looking beats reading."""

from __future__ import annotations

from typing import Any

import gradio as gr
import pandas as pd

from ..api import ArenaAPI
from ..games import GAMES, GameSpec, get_game
from ..leaderboard import cell, columns
from ..safe_text import markdown_text
from ..sources import DEFAULT_KINDS, DEMO, KINDS, describe, kind_of
from ..standings import from_row

DEFAULT_GAME = "spy" if "spy" in GAMES else next(iter(GAMES))


def leaderboard_frame(spec: GameSpec, rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The table as shown: figures with their 95% interval and sample size, as the CLI prints them."""
    shown = columns(spec)
    return pd.DataFrame([[cell(c, r) for c in shown] for r in rows], columns=[c.label for c in shown])


INTERVALS_NOTE = ("A rate reads *value [95% interval] n=…*: a Wilson interval over the n events counted (seats, "
                  "votes, turns…); a mean per seat reads the same with mean ± 1.96·s/√n over n seats. "
                  "How every column is computed: docs/methodology.md.")


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


def build_leaderboard_tab(api: ArenaAPI) -> dict[str, Any]:
    default = get_game(DEFAULT_GAME)
    with gr.Row():
        game = gr.Dropdown(choices=[(g.title, g.id) for g in GAMES.values()], value=default.id, label="Game")
        min_games = gr.Slider(0, 100, value=0, step=1, label="Minimum games")
        sources = gr.CheckboxGroup(choices=list(KINDS), value=[k for k in KINDS if k in DEFAULT_KINDS],
                                   label="Match sources", elem_id="leaderboard-sources",
                                   info="demo: the arena's warm-up matches; study: fixed line-ups of a study")
        refresh = gr.Button("Refresh", elem_id="refresh-leaderboard")
    includes = gr.Markdown(describe(DEFAULT_KINDS) + ".", elem_id="leaderboard-includes")
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
                           y="win rate", color="role", title="Win rate by role", y_lim=[0, 1],
                           x_label_angle=-40, elem_id="role-plot")  # angled: many agents' labels stay apart
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

    def load(game_id: str, minimum: float, chosen: list[str]):
        spec = get_game(game_id)
        kinds = frozenset(chosen or [])
        rows = api.leaderboard(game_id, int(minimum), sources=sorted(kinds)) if kinds else []  # once per click
        note = describe(kinds) + f": {len(rows)} agents."
        if not rows and DEMO not in kinds:
            note += " No matches from these sources yet: tick *demo* to see the arena's warm-up matches."
        return (note,
                gr.Dataframe(leaderboard_frame(spec, rows), label=spec.ranking_note), columns_markdown(spec),
                history_frame(api, spec, rows, kinds), role_frame(spec, rows), study_frame(api, spec))

    outputs = [includes, table, meanings, history, roles, study]
    refresh.click(load, [game, min_games, sources], outputs, api_visibility="private")
    game.change(load, [game, min_games, sources], outputs, api_visibility="private")
    min_games.release(load, [game, min_games, sources], outputs, api_visibility="private")
    sources.change(load, [game, min_games, sources], outputs, api_visibility="private")

    async def study_now(game_id: str, n: float):
        spec = get_game(game_id)
        found = charted_study(spec)
        if found is None or not spec.demo_agents:
            return study_frame(api, spec)
        with api.admit("study"):
            await found[1].run(api.arena, base=spec.demo_agents[0], games=int(n), seed=7)
        return study_frame(api, spec)

    run_study.click(study_now, [game, study_games], [study], api_visibility="private", concurrency_limit=1)
    return {"load": load, "inputs": [game, min_games, sources], "outputs": outputs}
