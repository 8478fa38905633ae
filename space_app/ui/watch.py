"""Watch tab: the list of recorded matches and the step-by-step replay viewer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from ..api import ApiError, ArenaAPI, while_running
from ..calls import LIVE_NOTE, call_views
from ..core import GAMES, Panel, UnknownGame, get_game
from ..core.events import GENERIC, Event
from ..core.transcript import call_reasons
from ..run_log import RunLogError, read_log_file
from ..safe_text import markdown_text
from .calls_view import calls_html
from .common import when
from .documents import documents_html
from .i18n import LANGUAGES, Interface, language_choices, language_of, normal, text
from .media import image_resolver
from .replay import MARKER_COLUMNS, SPECTATOR, game_result, markers, transcript_html, visible

MATCH_COLUMNS = ["id", "game", "status", "winner", "created", "seats", "tag"]


def matches_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame([{"id": r["id"], "game": r["game"], "status": r["status"],
                          "winner": r["winner"] or "", "created": when(r["created_at"]),
                          "seats": ", ".join(r["seats"]), "tag": r["tag"]} for r in rows],
                        columns=MATCH_COLUMNS)


def italic(words: str) -> str:
    return f"<i>{words}</i>"


def empty_frame(panel: Panel) -> pd.DataFrame:
    return pd.DataFrame(columns=list(panel.columns))


# every registered game's panels, in one list: the Watch tab builds a component for each
# and shows the ones of the open match's game
SLOTS: list[tuple[str, Panel]] = [(g.id, p) for g in GAMES.values() for p in g.presentation.view.panels]


def typed_events(match: dict[str, Any]) -> list[Event]:
    """The match's stored events as the models of its game's kinds."""
    try:
        kinds = get_game(match["game"]).rules.events
    except UnknownGame:
        kinds = GENERIC  # a game this arena no longer has: its events as generic ones
    return kinds.parse_all(match["events"])


def view_events(match: dict[str, Any] | None, view: str | None) -> list[Event]:
    if not match:
        return []
    return visible(typed_events(match), None if view in (None, "", SPECTATOR) else view)


def render_step(match: dict[str, Any] | None, view: str, step: float, reveal: bool = False,
                language: str | None = None) -> tuple:
    """(position, transcript, result, markers, calls, documents, *every panel slot) at 1-based
    `step`; the result (and the spectators' hidden setup) shows only at the last step or when
    `reveal` is asked for, so a replay never spoils itself. Slots of other games than the match's
    are left as they are. Worded in the match's language (`language`: with no match)."""
    if not match:
        return ("", italic(text(normal(language), "watch.open_prompt")), "",
                pd.DataFrame(columns=MARKER_COLUMNS), "", "", *(empty_frame(panel) for _, panel in SLOTS))
    lang = language_of(match)
    seat = None if view in (None, "", SPECTATOR) else view
    every = typed_events(match)
    events = visible(every, seat)
    names = {s["seat"]: s["agent_name"] for s in match["seats"]}
    n = len(events)
    index = max(0, min(int(step or 1) - 1, n - 1)) if n else 0
    shown = bool(reveal) or index >= n - 1
    upto_seq = (events[index].seq or 0) if n else -1
    eyes = text(lang, "watch.spectator_view") if seat is None else text(lang, "watch.seat_view", seat=seat)
    position = (text(lang, "watch.position", step=index + 1, total=n, view=eyes) if n
                else text(lang, "watch.no_events"))
    marks = [m for m in markers(every) if m["seq"] is not None and m["seq"] <= upto_seq
             and (seat is None or m["seat"] == seat)]
    panels = [panel.build(events, index) if game == match["game"] else gr.skip() for game, panel in SLOTS]
    spec = get_game(match["game"])
    pictures = image_resolver(spec)
    reasons = call_reasons(every) if seat is None else None
    # what the chosen seat may read, as it stood at this step (its script, its role card)
    papers = documents_html(spec, events[: index + 1], seat, lang)
    return (position, transcript_html(events, names, index, fold_setup=not shown, image=pictures, language=lang,
                                      reasons=reasons),
            result_for(match, seat, shown),
            marker_frame(marks, lang), step_calls(match, every, events, index, seat), papers, *panels)


def step_calls(match: dict[str, Any], every: list[Event], events: list[Event], index: int, seat: str | None) -> str:
    """The calls that led to the step's event (those stored after the view's previous event and
    up to this one) that the view may open (`calls.visible_calls`)."""
    if not events:
        return ""
    after = (events[index - 1].seq or 0) if index > 0 else -1
    upto = events[index].seq if events[index].seq is not None else -1
    views, note = call_views(match, every, seat)
    return calls_html([v for v in views if v.seq is not None and after < v.seq <= upto], language_of(match),
                      {s["seat"]: s["agent_name"] for s in match["seats"]}, withheld=note == LIVE_NOTE)


def marker_frame(marks: list[dict[str, Any]], language: str) -> pd.DataFrame:
    """The fouls, timeouts and errors up to the step; with none, one line that says so (a bare
    header reads as a table that failed to load)."""
    if marks:
        return pd.DataFrame(marks, columns=MARKER_COLUMNS)
    return pd.DataFrame([{"marker": text(language, "watch.no_markers")}], columns=MARKER_COLUMNS).fillna("")


def result_for(match: dict[str, Any], seat: str | None, shown: bool) -> str:
    """The spectators' result table with the game's reason for the win, once it may be shown;
    a seat's view shows only what that seat knew."""
    lang = language_of(match)
    if seat is not None:
        return text(lang, "watch.seat_only", seat=markdown_text(seat))
    if not shown:
        return text(lang, "watch.result_hidden")
    spec = get_game(match["game"])
    return game_result(match, spec)


def panel_groups_for(game: str | None) -> list[Any]:
    return [gr.update(visible=g == game) for g in GAMES]


def header_for(match: dict[str, Any]) -> str:
    head = f"### {get_game(match['game']).facts.title_in(language_of(match))} — `{match['id']}`"
    links = branch_lines(match.get("branch_links") or {}, language_of(match), str(match["id"]))
    return "\n\n".join([head, *links])


def branch_lines(links: dict[str, Any], language: str, match_id: str = "MATCH") -> list[str]:
    """The replay's counterfactual links (`ArenaAPI.branch_links`): the match this one was
    branched from, and the branches of this one with the step where each first differs."""
    out = []
    parent = links.get("branched_from")
    if parent:
        out.append(text(language, "watch.branched_from", parent=markdown_text(parent["parent"]),
                        step=parent["from_step"], seat=markdown_text(parent["seat"]),
                        agent=markdown_text(parent["agent"])))
    children = links.get("branches") or []
    if children:
        out.append(text(language, "watch.branches", n=len(children)))
        for b in children:
            where = (text(language, "watch.branch_diverges", step=b["diverges_at"]) if b.get("diverges_at")
                     else text(language, "watch.branch_same"))
            out.append(text(language, "watch.branch_line", id=markdown_text(b["id"]), step=b["from_step"],
                            seat=markdown_text(b["seat"]), agent=markdown_text(b["agent"]),
                            arm=markdown_text(b["arm"]), sample=b["sample"],
                            winner=markdown_text(b.get("winner") or b["status"]), where=where))
    if links.get("more"):
        out.append(text(language, "watch.branches_more", n=links["more"], match=markdown_text(match_id)))
    return out


# the page's own address (on a Space, the app's, not the Hub page around it) + the query
FULL_URL_JS = ("(q) => (q && q.startsWith('?')) ? "
               "window.location.origin + window.location.pathname + q : q")
# the clipboard API is missing on plain-http pages and may be refused: the box shows the link anyway
def copy_js() -> str:
    """The copy button's script, with the three notes it can show in every language."""
    notes = {code: {key: text(code, f"watch.{key}") for key in ("copy_first", "copied", "copy_refused")}
             for code in LANGUAGES}
    return f"""async (url, lang) => {{
    const say = ({json.dumps(notes, ensure_ascii=False)})[lang] || {{}};
    if (!url) return say.copy_first;
    try {{ await navigator.clipboard.writeText(url); return say.copied; }}
    catch (e) {{ return say.copy_refused; }}
}}"""


MAX_LOG_BYTES = 64_000_000  # a run log opened in the page is read whole into its session


def log_label(match: dict[str, Any]) -> str:
    seats = ", ".join(f"{s['seat']}={s['agent_name']}" for s in match["seats"])
    return f"{match['id']} · {match['game']} · {match['status']} · {seats}"[:200]


SPEEDS = (0.5, 1.0, 2.0, 4.0)  # replay steps per second


def speed_choices(lang: str) -> list[tuple[str, float]]:
    return [(text(lang, "watch.speed_one") if v == 1 else text(lang, "watch.speed_option", speed=f"{v:g}"), v)
            for v in SPEEDS]


def play_label(lang: str, playing: bool) -> str:
    return text(lang, "watch.pause" if playing else "watch.play")


def spectator_choice(lang: str) -> tuple[str, str]:
    return (text(lang, "watch.spectator"), SPECTATOR)


STATUSES = ("finished", "running", "aborted", "error")


def panel_slots() -> tuple[list[Any], list[Any]]:
    """A column of components per registered game (its panels), only the open match's shown."""
    groups, slots = [], []
    for spec in GAMES.values():
        with gr.Column(visible=spec.id == next(iter(GAMES)), elem_id=f"panels-{spec.id}") as group:
            for i, panel in enumerate(spec.presentation.view.panels):
                if panel.kind == "bar":
                    # angled labels: many agents or rounds stay readable; the colour legend stays
                    slots.append(gr.BarPlot(empty_frame(panel), x=panel.x, y=panel.y, color=panel.color,
                                            x_title=panel.x_title or None, y_title=panel.y_title or None,
                                            title=panel.title, y_aggregate="sum", x_label_angle=-40,
                                            elem_id=f"panel-{spec.id}-{i}"))
                else:
                    slots.append(gr.Dataframe(empty_frame(panel), label=panel.title, interactive=False,
                                              wrap=True, max_height=360, elem_id=f"panel-{spec.id}-{i}"))
        groups.append(group)
    return groups, slots


def build_watch_tab(api: ArenaAPI, words: Interface, language: gr.Radio) -> dict[str, Any]:
    match_state = gr.State(None)
    # the replay first, the list of matches after it: a shared link lands on the transcript
    header = words.resting(gr.Markdown(text("en", "watch.title"), elem_id="replay-header"), "watch.title")
    with gr.Row(elem_id="replay-controls"):
        first_btn = gr.Button("⏮", size="sm", min_width=44, elem_id="step-first")
        prev_btn = words(gr.Button(text("en", "watch.back"), size="sm", min_width=70, elem_id="step-back"),
                         value="watch.back")
        play_btn = gr.Button(play_label("en", False), size="sm", min_width=70, elem_id="step-play")
        next_btn = words(gr.Button(text("en", "watch.forward"), size="sm", min_width=70, elem_id="step-forward"),
                         value="watch.forward")
        last_btn = gr.Button("⏭", size="sm", min_width=44, elem_id="step-last")
        speed = words(gr.Dropdown(speed_choices("en"), value=1.0, label=text("en", "watch.speed"), min_width=110,
                                  elem_id="replay-speed"), label="watch.speed", choices=speed_choices)
        step = words(gr.Slider(1, 2, value=1, step=1, label=text("en", "watch.step"), min_width=200,
                               elem_id="replay-step"), label="watch.step")
    timer = gr.Timer(1.0, active=False)
    playing = gr.State(False)
    with gr.Row(elem_id="replay-status", equal_height=True):
        position = gr.Markdown("", elem_id="replay-position")
        reveal = words(gr.Checkbox(False, label=text("en", "watch.show_result"), elem_id="show-result"),
                       label="watch.show_result")
    with gr.Row():
        with gr.Column(scale=3, min_width=300):
            transcript = words.resting(gr.HTML(italic(text("en", "watch.open_prompt")), elem_id="replay-transcript"),
                                       "watch.open_prompt", italic)
        with gr.Column(scale=2, min_width=300):
            # the chosen seat's script or role card, beside its transcript
            documents = gr.HTML("", elem_id="replay-documents")
            result = gr.Markdown("", elem_id="replay-result", elem_classes="da-table")
            marks = words(gr.Dataframe(pd.DataFrame(columns=MARKER_COLUMNS), label=text("en", "watch.markers"),
                                       interactive=False, max_height=220), label="watch.markers")
            calls = gr.HTML("", elem_id="replay-calls")
    view = words(gr.Radio([spectator_choice("en")], value=SPECTATOR, label=text("en", "watch.view"),
                          elem_id="replay-view"), label="watch.view")
    groups, slots = panel_slots()
    with gr.Row(equal_height=True):
        share = words(gr.Textbox("", label=text("en", "watch.share"), interactive=False, scale=4,
                                 buttons=["copy"], elem_id="share-link"), label="watch.share")
        copy_btn = words(gr.Button(text("en", "watch.copy"), scale=1, min_width=120, elem_id="copy-link"),
                         value="watch.copy")
    copied = gr.Markdown("", elem_id="copy-note")
    with words(gr.Accordion(text("en", "watch.matches"), open=True, elem_id="match-list-box"),
               label="watch.matches") as listing:
        with gr.Row():
            def game_choices(lang: str) -> list[tuple[str, str]]:
                return [(text(lang, "watch.all_games"), ""), *((g.facts.title_in(lang), g.id) for g in GAMES.values())]

            def status_choices(lang: str) -> list[tuple[str, str]]:
                return [(text(lang, "watch.any_outcome"), ""), *((s, s) for s in STATUSES)]

            f_game = words(gr.Dropdown(choices=game_choices("en"), value="", label=text("en", "play.game")),
                           label="play.game", choices=game_choices)
            f_agent = words(gr.Textbox(label=text("en", "watch.agent"), max_length=200, elem_id="watch-agent",
                                       placeholder=text("en", "watch.agent_placeholder")),
                            label="watch.agent", placeholder="watch.agent_placeholder")
            f_status = words(gr.Dropdown(choices=status_choices("en"), value="", label=text("en", "watch.outcome")),
                             label="watch.outcome", choices=status_choices)
            f_days = words(gr.Number(value=0, label=text("en", "watch.days"), precision=0), label="watch.days")
            refresh = words(gr.Button(text("en", "watch.refresh")), value="watch.refresh")
        table = words(gr.Dataframe(matches_frame(api.list_matches(limit=50)), interactive=False,
                                   label=text("en", "watch.pick_row"), max_height=300, elem_id="match-list"),
                      label="watch.pick_row")
        with gr.Row():
            match_id = words(gr.Textbox(label=text("en", "watch.match_id"), max_length=40, scale=3,
                                        elem_id="replay-match-id"), label="watch.match_id")
            open_btn = words(gr.Button(text("en", "watch.open"), scale=1, elem_id="open-replay"),
                             value="watch.open")

    with words(gr.Accordion(text("en", "watch.log_title"), open=False, elem_id="run-log-box"),
               label="watch.log_title"):
        words(gr.Markdown(text("en", "watch.log_help")), value="watch.log_help")
        with gr.Row():
            log_file = words(gr.File(label=text("en", "watch.log_file"), file_types=[".jsonl"], type="filepath",
                                     elem_id="run-log-file"), label="watch.log_file")
            log_pick = words(gr.Dropdown([], label=text("en", "watch.log_match"), elem_id="run-log-match"),
                             label="watch.log_match")
        log_note = gr.Markdown("", elem_id="run-log-note")
    log_matches = gr.State({})

    step_outputs = [position, transcript, result, marks, calls, documents, *slots]
    step_inputs = [match_state, view, step, reveal]

    def refused(reason: object, page_language: str | None):
        lang = normal(page_language)
        msg = text(lang, "watch.not_found", reason=markdown_text(reason))
        return (None, msg, gr.update(choices=[spectator_choice(lang)], value=SPECTATOR),
                gr.update(minimum=1, maximum=2, value=1), "", False, gr.update(open=True),
                gr.update(value=play_label(lang, False)), gr.update(),
                *panel_groups_for(None), *render_step(None, SPECTATOR, 1, language=lang))

    def shown(match: dict[str, Any], link: str, fold: bool = True):
        """Open at step 1 with the result hidden; the list folds away so the replay is in view;
        the page switches to the match's language (the interface speaks the game's)."""
        lang = language_of(match)
        n = len(view_events(match, SPECTATOR))
        seats = [s["seat"] for s in match["seats"]]
        return (match, header_for(match), gr.update(choices=[spectator_choice(lang), *seats], value=SPECTATOR),
                gr.update(minimum=1, maximum=max(2, n), value=1), link, False,
                gr.update(open=not fold), gr.update(value=play_label(lang, False)),
                gr.update(choices=language_choices(), value=lang),
                *panel_groups_for(match["game"]), *render_step(match, SPECTATOR, 1))

    def open_match(mid: str, page_language: str | None = None):
        try:
            match = api.get_match(mid)
            get_game(match["game"])  # a record of a game this arena does not have: said plainly
            match["branch_links"] = api.branch_links(match["id"])
        except (ApiError, UnknownGame) as exc:
            return refused(exc, page_language)
        return shown(match, f"?match={match['id']}")

    open_outputs = [match_state, header, view, step, share, reveal, listing, play_btn, language, *groups,
                    *step_outputs]
    open_btn.click(open_match, [match_id, language], open_outputs, api_visibility="private")
    match_id.submit(open_match, [match_id, language], open_outputs, api_visibility="private")
    share.change(None, [share], [share], js=FULL_URL_JS)

    def load_log(path: str | None, page_language: str | None):
        """Read an uploaded run log (no store involved) and open its first match."""
        lang = normal(page_language)
        if not path:
            return {}, gr.update(choices=[], value=None), "", *(gr.skip() for _ in open_outputs)
        try:
            if Path(path).stat().st_size > MAX_LOG_BYTES:
                raise RunLogError(f"larger than {MAX_LOG_BYTES // 1_000_000} MB")
            log = read_log_file(path)
        except (RunLogError, OSError) as exc:
            return ({}, gr.update(choices=[], value=None),
                    text(lang, "watch.log_refused", reason=markdown_text(exc)), *(gr.skip() for _ in open_outputs))
        matches = {m["id"]: m for m in log.matches}
        choices = [(log_label(m), m["id"]) for m in log.matches]
        head = log.header
        note = text(lang, "watch.log_read", matches=len(matches), version=markdown_text(head.package_version),
                    commit=markdown_text(head.commit[:12]), when=markdown_text(head.exported_at))
        first = next(iter(matches), None)
        opened = logged(matches, first, lang) if first else tuple(gr.skip() for _ in open_outputs)
        return matches, gr.update(choices=choices, value=first), note, *opened

    def logged(matches: dict[str, Any], mid: str | None, page_language: str | None):
        match = (matches or {}).get(mid or "")
        if match is None:
            return refused(f"no match {str(mid)[:40]!r} in the run log", page_language)
        try:
            get_game(match["game"])
        except UnknownGame as exc:
            return refused(exc, page_language)
        match = json.loads(json.dumps(match))  # the view works on its own copy
        if match["status"] == "running":  # as the store's own replay shows a running match
            match = while_running(match)
        return shown(match, "", fold=False)

    log_file.upload(load_log, [log_file, language], [log_matches, log_pick, log_note, *open_outputs],
                    api_visibility="private")
    log_pick.input(logged, [log_matches, log_pick, language], open_outputs, api_visibility="private")
    copy_btn.click(None, [share, language], [copied], js=copy_js())

    def pick_row(evt: gr.SelectData, frame: pd.DataFrame, page_language: str):
        row = evt.index[0] if isinstance(evt.index, (list, tuple)) else evt.index
        mid = str(frame.iloc[row]["id"]) if frame is not None and len(frame) > row else ""
        return (mid, *open_match(mid, page_language))

    table.select(pick_row, [table, language], [match_id, *open_outputs], api_visibility="private",
                 scroll_to_output=True)

    def do_refresh(game: str, agent: str, status: str, days: float):
        return matches_frame(api.list_matches(game=game, agent=agent.strip(), status=status,
                                              since_days=days or 0, limit=100))

    refresh.click(do_refresh, [f_game, f_agent, f_status, f_days], [table], api_visibility="private")

    def change_view(match: dict | None, v: str, s: float, shown: bool):
        """Another seat's eyes at the same point of the game (as near as its events allow)."""
        n = max(1, len(view_events(match, v)))
        new = max(1, min(int(s or 1), n))
        return (gr.update(maximum=max(2, n), value=new), *render_step(match, v, new, shown))

    view.change(change_view, step_inputs, [step, *step_outputs], api_visibility="private")
    step.release(render_step, step_inputs, step_outputs, api_visibility="private")
    reveal.change(render_step, step_inputs, step_outputs, api_visibility="private")

    def move(match: dict | None, v: str, s: float, shown: bool, delta: int):
        n = max(1, len(view_events(match, v)))
        new = max(1, min(int(s or 1) + delta, n))
        return (new, *render_step(match, v, new, shown))

    prev_btn.click(lambda m, v, s, r: move(m, v, s, r, -1), step_inputs, [step, *step_outputs],
                   api_visibility="private")
    next_btn.click(lambda m, v, s, r: move(m, v, s, r, 1), step_inputs, [step, *step_outputs],
                   api_visibility="private")
    first_btn.click(lambda m, v, s, r: move(m, v, 1, r, 0), step_inputs, [step, *step_outputs],
                    api_visibility="private")
    last_btn.click(lambda m, v, s, r: move(m, v, len(view_events(m, v)), r, 0), step_inputs,
                   [step, *step_outputs], api_visibility="private")

    def toggle(is_playing: bool, match: dict | None, v: str, s: float):
        start = not is_playing
        n = max(1, len(view_events(match, v)))
        s = 1 if start and int(s or 1) >= n else s  # replay from the start when at the end
        return start, gr.update(active=start), gr.update(value=play_label(language_of(match), start)), s

    play_btn.click(toggle, [playing, match_state, view, step], [playing, timer, play_btn, step],
                   api_visibility="private")
    speed.change(lambda per_second: gr.update(value=1.0 / float(per_second or 1.0)), [speed], [timer],
                 api_visibility="private")

    def tick(match: dict | None, v: str, s: float, shown: bool):
        n = max(1, len(view_events(match, v)))
        new = min(int(s or 1) + 1, n)
        done = new >= n
        return (new, *render_step(match, v, new, shown), (not done),
                gr.update(active=not done), gr.update(value=play_label(language_of(match), not done)))

    timer.tick(tick, step_inputs, [step, *step_outputs, playing, timer, play_btn], api_visibility="private")

    def refresh_list():
        return matches_frame(api.list_matches(limit=100))

    def agent_matches(agent: str):  # ?agent=<name or id>: the list filtered by that agent
        return agent, matches_frame(api.list_matches(agent=agent, limit=100))

    return {"match_id": match_id, "open": open_match, "open_outputs": open_outputs, "table": table,
            "refresh": refresh_list, "agent_filter": f_agent, "agent_matches": agent_matches}
