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


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--refresh-doc-screenshots", action="store_true",
                     help="the browser tests also rewrite the README's pictures in docs/screenshots/")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--refresh-doc-screenshots"):
        os.environ["ARENA_REFRESH_DOC_SCREENSHOTS"] = "1"


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


# -- stores on every backend: SQLite files and a real PostgreSQL server -------------------
from pg_server import PostgresServer, started_or_failed  # noqa: E402
from stores import BACKENDS, store_target  # noqa: E402


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    """One PostgreSQL server for the whole run, started on first use and stopped at the end.
    Missing binaries fail the tests that need it, saying how to install them."""
    server = started_or_failed()
    yield server
    server.stop()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def new_store(backend: str, tmp_path, request: pytest.FixtureRequest) -> Callable[[], str]:
    """Makes new, empty store targets on the test's backend (a SQLite path or a PostgreSQL URL)."""
    return lambda: store_target(backend, tmp_path, request)
