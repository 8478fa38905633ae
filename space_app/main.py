"""Build the whole arena from the environment: config, store, sync, UI."""

from __future__ import annotations

from typing import Any

import gradio as gr

from .api import ArenaAPI
from .config import ArenaConfig
from .demo import warm_up
from .signin import Lookup, SignIn
from .store import Store
from .sync import sync_for
from .ui.app import build_app, launch_kwargs
from .ui.common import front_game
from .ui.sessions import Sessions


def create_arena(config: ArenaConfig | None = None, *, hf_api: Any = None, fs: Any = None,
                 whoami: Lookup | None = None) -> tuple[gr.Blocks, dict[str, Any]]:
    """`hf_api`/`fs` replace the Hub client and file system of the dataset sync, `whoami` the
    sign-in lookup of a bearer token (tests)."""
    config = config or ArenaConfig.from_env()
    front_game(config)  # an unknown game stops the start before the store is touched
    store = Store(config.db)
    sync = sync_for(store, config, hf_api=hf_api, fs=fs)  # restores before the demo matches
    api = ArenaAPI(config, store, sync=sync)
    if sync is not None:
        api.arena.on_finished.append(sync.record_match)
    warm_up(api.arena, config.demo_matches)
    sessions = Sessions(config.ui_sessions, config.ui_session_idle_seconds)
    signin = SignIn(whoami, per_minute=config.signin_lookups_per_minute)
    return build_app(api, sessions=sessions, signin=signin), launch_kwargs(api, sessions)
