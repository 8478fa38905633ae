"""Build the whole arena from the environment: config, store, sync, UI."""

from __future__ import annotations

from typing import Any

import gradio as gr

from .api import ArenaAPI
from .config import ArenaConfig
from .ui.app import build_app, launch_kwargs


def create_arena(config: ArenaConfig | None = None) -> tuple[gr.Blocks, dict[str, Any]]:
    config = config or ArenaConfig.from_env()
    api = ArenaAPI(config)
    api.warm_up()
    return build_app(api), launch_kwargs()
