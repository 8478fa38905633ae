"""A served agent started with `python app.py` never takes the arena's port 7860: it serves on
the first free port from 7861 and prints the URL to register (GRADIO_SERVER_PORT and a
Space's own port win)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from sdk import Agent, RemoteAgent, launch_agent, serve
from sdk.ports import ARENA_PORT, FIRST_PORT, agent_port


@contextmanager
def held(port: int) -> Iterator[bool]:
    """Listen on `port` for the block (True), or say it was taken already (False)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            yield False
            return
        sock.listen()
        yield True
    finally:
        sock.close()


def test_the_arenas_port_is_never_chosen_and_a_taken_port_is_skipped():
    with held(ARENA_PORT), held(FIRST_PORT):
        port = agent_port({})
        assert port != ARENA_PORT and port != FIRST_PORT and FIRST_PORT < port <= FIRST_PORT + 99
        with held(port) as got:
            assert got, "the port chosen was free"


def test_an_explicit_port_and_a_spaces_port_win():
    assert agent_port({"GRADIO_SERVER_PORT": "8123"}) == 8123
    assert agent_port({"SPACE_ID": "alice/agent"}) == ARENA_PORT
    for bad in ("http", "0", "70000"):
        with pytest.raises(ValueError, match="GRADIO_SERVER_PORT must be a port number"):
            agent_port({"GRADIO_SERVER_PORT": bad})


def test_launch_agent_serves_where_it_says(capsys, monkeypatch):
    monkeypatch.delenv("GRADIO_SERVER_PORT", raising=False)
    monkeypatch.delenv("SPACE_ID", raising=False)
    app = serve(Agent("porter"))
    with held(ARENA_PORT):  # an arena running on this machine, as when an author tests locally
        url = launch_agent(app, prevent_thread_lock=True, quiet=True)
    try:
        said = capsys.readouterr().out
        assert f"Agent served at {url} (the arena keeps 7860): register this URL in the arena." in said
        assert url.startswith("http://127.0.0.1:") and not url.endswith(":7860/")
        remote = RemoteAgent(url, timeout=10)
        try:
            assert remote.info(wait=False)["name"] == "porter"
        finally:
            remote.close()
    finally:
        app.close()
