"""Shared test setup: offline, loopback-only, quiet Gradio."""

from __future__ import annotations

import os

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ["NO_PROXY"] = "127.0.0.1,localhost"
os.environ["no_proxy"] = "127.0.0.1,localhost"
os.environ.pop("AGENT_SECRET", None)
os.environ.pop("SPACE_ID", None)

from collections.abc import Callable, Iterator  # noqa: E402

import gradio as gr  # noqa: E402
import pytest  # noqa: E402
from hostile_servers import gzip_bomb, http_server  # noqa: E402


@pytest.fixture
def launch() -> Iterator[Callable[[gr.Blocks], str]]:
    """Launch Gradio apps on loopback; returns their base URL; closes them after the test."""
    apps: list[gr.Blocks] = []

    def _launch(app: gr.Blocks) -> str:
        app.launch(prevent_thread_lock=True, server_name="127.0.0.1", server_port=None, quiet=True)
        apps.append(app)
        return app.local_url

    yield _launch
    for app in apps:
        app.close()


@pytest.fixture
def internal():
    """A service that must never be reached from an agent call."""
    with http_server() as server:
        yield server


@pytest.fixture
def hostile(internal):
    # build the (cached) bomb before serving: compressing 1 GiB must not eat a client's time limit
    gzip_bomb()
    with http_server() as server:
        server.redirect_to = internal.url
        yield server
