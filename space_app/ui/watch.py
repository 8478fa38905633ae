"""Watch tab: the list of recorded matches and the step-by-step replay viewer."""

from __future__ import annotations

from typing import Any

import gradio as gr
import pandas as pd

from ..api import ApiError, ArenaAPI
from ..games import GAMES, Panel, UnknownGame, get_game
from ..safe_text import markdown_text
from .common import when
from .replay import MARKER_COLUMNS, SPECTATOR, markers, result_markdown, transcript_html, visible

MATCH_COLUMNS = ["id", "game", "status", "winner", "created", "seats", "tag"]


def matches_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame([{"id": r["id"], "game": r["game"], "status": r["status"],
                          "winner": r["winner"] or "", "created": when(r["created_at"]),
                          "seats": ", ".join(r["seats"]), "tag": r["tag"]} for r in rows],
                        columns=MATCH_COLUMNS)


def empty_frame(panel: Panel) -> pd.DataFrame:
    return pd.DataFrame(columns=list(panel.columns))


# every registered game's panels, in one list: the Watch tab builds a component for each
# and shows the ones of the open match's game
SLOTS: list[tuple[str, Panel]] = [(g.id, p) for g in GAMES.values() for p in g.view.panels]


def view_events(match: dict[str, Any] | None, view: str | None) -> list[dict[str, Any]]:
    if not match:
        return []
    return visible(match["events"], None if view in (None, "", SPECTATOR) else view)


def render_step(match: dict[str, Any] | None, view: str, step: float) -> tuple:
    """(position, transcript, markers, *every panel slot) at 1-based `step`; slots of other
    games than the match's are left as they are."""
    if not match:
        return ("", "<i>Open a match to replay it.</i>", pd.DataFrame(columns=MARKER_COLUMNS),
                *(empty_frame(panel) for _, panel in SLOTS))
    seat = None if view in (None, "", SPECTATOR) else view
    events = view_events(match, view)
    names = {s["seat"]: s["agent_name"] for s in match["seats"]}
    n = len(events)
    index = max(0, min(int(step or 1) - 1, n - 1)) if n else 0
    upto_seq = events[index]["seq"] if n else -1
    position = (f"Step **{index + 1} / {n}** · {'spectator view' if seat is None else f'what {seat} saw'}"
                if n else "No events.")
    marks = [m for m in markers(match["events"]) if m["seq"] <= upto_seq
             and (seat is None or m["seat"] == seat)]
    panels = [panel.build(events, index) if game == match["game"] else gr.skip() for game, panel in SLOTS]
    return (position, transcript_html(events, names, index), pd.DataFrame(marks, columns=MARKER_COLUMNS), *panels)


def panel_groups_for(game: str | None) -> list[Any]:
    return [gr.update(visible=g == game) for g in GAMES]


def header_for(match: dict[str, Any], view: str | None) -> str:
    """Spectators see the roles and scores; a seat's view shows only what it knew."""
    spec = get_game(match["game"])
    title = f"### {spec.title} — `{match['id']}`\n"
    if view in (None, "", SPECTATOR):
        return title + result_markdown(match, spec.view.result_columns)
    return title + (f"Replaying **what {markdown_text(view)} saw**: public events and its own private "
                    "information, nothing else. Switch to the spectator view for roles and scores.")


def build_watch_tab(api: ArenaAPI) -> dict[str, Any]:
    match_state = gr.State(None)
    with gr.Accordion("Recorded matches", open=True):
        with gr.Row():
            f_game = gr.Dropdown(choices=[("all", "")] + [(g.title, g.id) for g in GAMES.values()],
                                 value="", label="Game")
            f_agent = gr.Textbox(label="Agent (name or id)", placeholder="e.g. my-agent or house:heuristic",
                                 max_length=200, elem_id="watch-agent")
            f_status = gr.Dropdown(choices=["", "finished", "running", "aborted", "error"], value="",
                                   label="Outcome")
            f_days = gr.Number(value=0, label="Last N days (0 = all)", precision=0)
            refresh = gr.Button("Refresh")
        table = gr.Dataframe(matches_frame(api.list_matches(limit=50)), interactive=False,
                             label="Click a row to replay it", max_height=300, elem_id="match-list")
    with gr.Row():
        match_id = gr.Textbox(label="Match id", max_length=40, scale=3, elem_id="replay-match-id")
        open_btn = gr.Button("Open replay", scale=1, elem_id="open-replay")
    header = gr.Markdown("", elem_id="replay-header")
    with gr.Row():
        view = gr.Radio([SPECTATOR], value=SPECTATOR, label="View", elem_id="replay-view")
    with gr.Row():
        prev_btn = gr.Button("◀ Back", elem_id="step-back")
        play_btn = gr.Button("▶ Play", elem_id="step-play")
        next_btn = gr.Button("Forward ▶", elem_id="step-forward")
        step = gr.Slider(1, 2, value=1, step=1, label="Step", elem_id="replay-step")
    timer = gr.Timer(1.0, active=False)
    playing = gr.State(False)
    position = gr.Markdown("", elem_id="replay-position")
    with gr.Row():
        with gr.Column(scale=3):
            transcript = gr.HTML("<i>Open a match to replay it.</i>", elem_id="replay-transcript")
        with gr.Column(scale=2):
            marks = gr.Dataframe(pd.DataFrame(columns=MARKER_COLUMNS), label="Fouls, timeouts and errors",
                                 interactive=False, max_height=220)
    groups = []
    slots = []
    for spec in GAMES.values():
        with gr.Column(visible=spec.id == next(iter(GAMES)), elem_id=f"panels-{spec.id}") as group:
            for i, panel in enumerate(spec.view.panels):
                if panel.kind == "bar":
                    slots.append(gr.BarPlot(empty_frame(panel), x=panel.x, y=panel.y, color=panel.color,
                                            x_title=panel.x_title or None, y_title=panel.y_title or None,
                                            title=panel.title, y_aggregate="sum", elem_id=f"panel-{spec.id}-{i}"))
                else:
                    slots.append(gr.Dataframe(empty_frame(panel), label=panel.title, interactive=False,
                                              wrap=True, max_height=360, elem_id=f"panel-{spec.id}-{i}"))
        groups.append(group)
    share = gr.Markdown("", elem_id="share-link")

    step_outputs = [position, transcript, marks, *slots]

    def open_match(mid: str):
        try:
            match = api.get_match(mid)
            get_game(match["game"])  # a record of a game this arena does not have: said plainly
        except (ApiError, UnknownGame) as exc:
            msg = f"### Not found\n{markdown_text(exc)}. Check the link or pick a match from the list."
            return (None, msg, gr.update(choices=[SPECTATOR], value=SPECTATOR),
                    gr.update(minimum=1, maximum=2, value=1), "", *panel_groups_for(None),
                    *render_step(None, SPECTATOR, 1))
        n = len(view_events(match, SPECTATOR))
        seats = [s["seat"] for s in match["seats"]]
        link = f"Share this replay: [`?match={match['id']}`](?match={match['id']})"
        return (match, header_for(match, SPECTATOR),
                gr.update(choices=[SPECTATOR, *seats], value=SPECTATOR),
                gr.update(minimum=1, maximum=max(2, n), value=n), link, *panel_groups_for(match["game"]),
                *render_step(match, SPECTATOR, n))

    open_outputs = [match_state, header, view, step, share, *groups, *step_outputs]
    open_btn.click(open_match, [match_id], open_outputs, api_visibility="private")
    match_id.submit(open_match, [match_id], open_outputs, api_visibility="private")

    def pick_row(evt: gr.SelectData, frame: pd.DataFrame):
        row = evt.index[0] if isinstance(evt.index, (list, tuple)) else evt.index
        mid = str(frame.iloc[row]["id"]) if frame is not None and len(frame) > row else ""
        return (mid, *open_match(mid))

    table.select(pick_row, [table], [match_id, *open_outputs], api_visibility="private")

    def do_refresh(game: str, agent: str, status: str, days: float):
        return matches_frame(api.list_matches(game=game, agent=agent.strip(), status=status,
                                              since_days=days or 0, limit=100))

    refresh.click(do_refresh, [f_game, f_agent, f_status, f_days], [table], api_visibility="private")

    def change_view(match: dict | None, v: str):
        n = max(1, len(view_events(match, v)))
        head = header_for(match, v) if match else gr.update()
        return (head, gr.update(maximum=max(2, n), value=n), *render_step(match, v, n))

    view.change(change_view, [match_state, view], [header, step, *step_outputs], api_visibility="private")
    step.release(render_step, [match_state, view, step], step_outputs, api_visibility="private")

    def move(match: dict | None, v: str, s: float, delta: int):
        n = max(1, len(view_events(match, v)))
        new = max(1, min(int(s or 1) + delta, n))
        return (new, *render_step(match, v, new))

    prev_btn.click(lambda m, v, s: move(m, v, s, -1), [match_state, view, step], [step, *step_outputs],
                   api_visibility="private")
    next_btn.click(lambda m, v, s: move(m, v, s, 1), [match_state, view, step], [step, *step_outputs],
                   api_visibility="private")

    def toggle(is_playing: bool, match: dict | None, v: str, s: float):
        start = not is_playing
        n = max(1, len(view_events(match, v)))
        s = 1 if start and int(s or 1) >= n else s  # replay from the start when at the end
        return start, gr.Timer(active=start), gr.update(value="⏸ Pause" if start else "▶ Play"), s

    play_btn.click(toggle, [playing, match_state, view, step], [playing, timer, play_btn, step],
                   api_visibility="private")

    def tick(match: dict | None, v: str, s: float):
        n = max(1, len(view_events(match, v)))
        new = min(int(s or 1) + 1, n)
        done = new >= n
        return (new, *render_step(match, v, new), (not done),
                gr.Timer(active=not done), gr.update(value="▶ Play" if done else "⏸ Pause"))

    timer.tick(tick, [match_state, view, step], [step, *step_outputs, playing, timer, play_btn],
               api_visibility="private")

    def refresh_list():
        return matches_frame(api.list_matches(limit=100))

    def agent_matches(agent: str):  # ?agent=<name or id>: the list filtered by that agent
        return agent, matches_frame(api.list_matches(agent=agent, limit=100))

    return {"match_id": match_id, "open": open_match, "open_outputs": open_outputs, "table": table,
            "refresh": refresh_list, "agent_filter": f_agent, "agent_matches": agent_matches}
