"""Build the whole arena from the environment: config, store, sync, UI."""

from __future__ import annotations

from typing import Any

import gradio as gr

from .api import ArenaAPI
from .config import ArenaConfig
from .demo import warm_up
from .store import Store
from .sync import sync_for
from .ui.app import build_app, launch_kwargs


def create_arena(config: ArenaConfig | None = None, *, hf_api: Any = None,
                 fs: Any = None) -> tuple[gr.Blocks, dict[str, Any]]:
    """`hf_api`/`fs` replace the Hub client and file system of the dataset sync (tests)."""
    config = config or ArenaConfig.from_env()
    store = Store(config.db)
    sync = sync_for(store, config, hf_api=hf_api, fs=fs)  # restores before the demo matches
    api = ArenaAPI(config, store, sync=sync)
    if sync is not None:
        api.arena.on_finished.append(sync.record_match)
    warm_up(api.arena, config.demo_matches)
    return build_app(api), launch_kwargs()
