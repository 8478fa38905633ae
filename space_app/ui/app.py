"""The arena Space: Play, Watch, Leaderboard, Results, Suites, Agents, About, plus the API."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import gradio as gr

from ..api import ArenaAPI
from ..signin import SignIn
from .about import build_about_tab
from .agents_tab import build_agents_tab
from .common import CSS, THEME
from .endpoints import register_endpoints
from .i18n import Interface, normal, text
from .leaderboard import build_leaderboard_tab
from .play import SEAT_IDS_JS, build_play_tab
from .queue_upkeep import queue_upkeep, quiet_analytics
from .results import build_results_tab, games_with_results
from .sessions import Sessions
from .suites_tab import build_suites_tab
from .watch import build_watch_tab

# Gradio 6 draws its API page for `?view=api` only once the page's code is loaded, which it
# loads when the footer link is hovered; a visitor arriving on the link itself sees nothing.
# So: hover the link (loads it), then close and reopen the page (draws it).
OPEN_API_PAGE_JS = """async () => {
    if (new URLSearchParams(window.location.search).get('view') !== 'api') return;
    const link = await new Promise((done) => {
        const started = Date.now();
        const look = () => {
            const found = document.querySelector('.show-api');
            if (found || Date.now() - started > 20000) done(found); else setTimeout(look, 100);
        };
        look();
    });
    if (!link) return;
    link.dispatchEvent(new MouseEvent('mouseenter'));
    link.click();
    await new Promise((r) => setTimeout(r, 300));
    link.click();
}"""


def launch_kwargs(api: ArenaAPI, sessions: Sessions) -> dict[str, Any]:
    """What `launch()` needs besides the app: the page's look, and a server start that installs
    the bounded session store, starts the event loop's lag monitor and the queue's upkeep."""
    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            await stack.enter_async_context(sessions.lifespan(app))
            await stack.enter_async_context(api.loop_lag.running(app))
            await stack.enter_async_context(queue_upkeep(app))
            yield

    return {"css": CSS, "theme": THEME, "app_kwargs": {"lifespan": lifespan},
            "state_session_capacity": api.config.ui_sessions}


def build_app(api: ArenaAPI, sessions: Sessions | None = None, signin: SignIn | None = None) -> gr.Blocks:
    """`sessions`/`signin`: the session store and sign-in lookups the endpoints use (new ones
    from the settings when not given)."""
    sessions = sessions or Sessions(api.config.ui_sessions, api.config.ui_session_idle_seconds)
    signin = signin or SignIn(per_minute=api.config.signin_lookups_per_minute)
    quiet_analytics()  # before launch() makes the queue
    words = Interface()  # every component whose words follow the page's language

    def tab(key: str, tab_id: str) -> gr.Tab:
        return words(gr.Tab(text("en", f"app.tab_{key}"), id=tab_id), label=f"app.tab_{key}")

    with gr.Blocks(title="Deduction Arena") as demo:
        words(gr.Markdown(text("en", "app.header"), elem_id="page-header"), value="app.header")
        seat_dropdowns: list[gr.Dropdown] = []
        with gr.Tabs(selected="play") as tabs:
            with tab("play", "play") as play_tab:
                play = build_play_tab(api, seat_dropdowns, words)
            language = play["language"]
            with tab("watch", "watch") as watch_tab:
                watch = build_watch_tab(api, words, language)
            with tab("leaderboard", "leaderboard") as board_tab:
                board = build_leaderboard_tab(api, words, language)
            if games_with_results():
                with tab("results", "results") as results_tab:
                    build_results_tab(api, results_tab, words, language)
            with tab("suites", "suites") as suites_tab:
                suites = build_suites_tab(api, words, language)
            with tab("agents", "agents") as agents_tab:
                agents = build_agents_tab(api, words, language)
            with tab("about", "about"):
                build_about_tab(words)
        register_endpoints(api, sessions, signin)
        words.wire(language)

        play_tab.select(play["refresh"], play["refresh_inputs"], play["refresh_outputs"], api_visibility="private",
                        **play["refresh_queue"])
        watch_tab.select(watch["refresh"], None, watch["table"], api_visibility="private")
        board_tab.select(board["load"], board["inputs"], board["outputs"], api_visibility="private")
        agents_tab.select(agents["refresh"], agents["inputs"], agents["outputs"], api_visibility="private")
        suites_tab.select(suites["load"], suites["inputs"], suites["outputs"], api_visibility="private")

        def on_load(request: gr.Request):
            sessions.page(request)  # a page's session is kept (API calls' sessions are not)
            params = request.query_params if request else {}
            match_id = (params.get("match") or "").strip()
            agent = (params.get("agent") or "").strip()[:200]
            unchanged = [gr.update() for _ in watch["open_outputs"]]
            if params.get("lang"):  # ?lang=zh: the page (and the next game) in that language
                unchanged[watch["open_outputs"].index(language)] = gr.update(value=normal(params.get("lang")))
            if match_id:  # a replay link: the page takes the match's language
                return (gr.Tabs(selected="watch"), match_id[:40], *watch["open"](match_id[:40], params.get("lang")),
                        gr.update(), gr.update())
            if agent:  # ?agent=<name or id>: that agent's matches (the Agents tab links here)
                return (gr.Tabs(selected="watch"), gr.update(), *unchanged, *watch["agent_matches"](agent))
            return (gr.Tabs(), gr.update(), *unchanged, gr.update(), gr.update())

        demo.load(None, None, None, js=OPEN_API_PAGE_JS)
        demo.load(None, None, None, js=SEAT_IDS_JS)
        demo.load(on_load, None, [tabs, watch["match_id"], *watch["open_outputs"], watch["agent_filter"],
                                  watch["table"]], api_visibility="private")
    return demo
