"""Where a served agent listens when its author runs `python app.py`: never the arena's port.

The arena (`python app.py` in the arena's folder) serves on 7860, Gradio's default; an agent
started the same way on the same machine would take 7860 first, or be moved by Gradio to the
next free port without a word, and the author would register the wrong URL. So an agent picks
a free port from 7861 on and says where it is. On a Hugging Face Space the port is the Space's
own (7860, what its proxy forwards to), and GRADIO_SERVER_PORT always wins.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from typing import Any

ARENA_PORT = 7860
FIRST_PORT = 7861
LAST_PORT = 7960


def _free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((host, port))
        except OSError:
            return False
        return True


def agent_port(environ: Mapping[str, str] = os.environ, host: str = "127.0.0.1") -> int:
    """GRADIO_SERVER_PORT when set; on a Space (SPACE_ID) 7860; else the first free port
    from 7861 to 7960 on `host`."""
    named = (environ.get("GRADIO_SERVER_PORT") or "").strip()
    if named:
        if not named.isdigit() or not 0 < int(named) < 65536:
            raise ValueError(f"GRADIO_SERVER_PORT must be a port number (1-65535), not {named!r}")
        return int(named)
    if environ.get("SPACE_ID"):
        return ARENA_PORT
    for port in range(FIRST_PORT, LAST_PORT + 1):
        if _free(host, port):
            return port
    raise RuntimeError(f"no free port from {FIRST_PORT} to {LAST_PORT} on {host}: stop another server, or set "
                       "GRADIO_SERVER_PORT")


def launch_agent(app: Any, **launch_args: Any) -> str:
    """Launch a served agent (`serve(agent)`) on `agent_port()`, after printing the URL to
    register in the arena; returns that URL. Other arguments go to Gradio's `launch`."""
    host = launch_args.pop("server_name", None) or os.environ.get("GRADIO_SERVER_NAME") or "127.0.0.1"
    port = launch_args.pop("server_port", None) or agent_port(host=host)
    shown = "127.0.0.1" if host == "0.0.0.0" else host
    url = f"http://{shown}:{port}/"
    if not os.environ.get("SPACE_ID"):
        print(f"Agent served at {url} (the arena keeps {ARENA_PORT}): register this URL in the arena.",
              flush=True)
    app.launch(server_name=host, server_port=port, **launch_args)
    return url


__all__ = ["ARENA_PORT", "agent_port", "launch_agent"]
