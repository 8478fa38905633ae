"""A stand-in for the Hugging Face Hub's `whoami` on loopback: it answers
`GET /api/whoami-v2` with the user a token belongs to (401 for any other token), counts
every lookup, and can hold each answer until the test opens its gate (or for `delay`
seconds), as a slow hub does. `lookup()` gives the function the arena's sign-in calls;
huggingface_hub itself can be pointed at it too (`HF_ENDPOINT`)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx


class StandInHub:
    def __init__(self, users: dict[str, str], delay: float = 0.0) -> None:
        self.users = users  # token -> user name
        self.delay = delay
        self.gate = threading.Event()  # opened: answers go out at once
        self.gate.set()
        self.calls: list[str] = []  # the token of every lookup, in order
        self.waiting = threading.Semaphore(0)  # released once per lookup received
        self._lock = threading.Lock()
        self.url = ""

    def lookup(self) -> Callable[[str], str | None]:
        """The sign-in lookup as the arena makes it: blocking HTTP, a user name or None."""
        def whoami(token: str) -> str | None:
            reply = httpx.get(f"{self.url}api/whoami-v2", headers={"authorization": f"Bearer {token}"},
                              timeout=120)
            if reply.status_code == 401:
                return None
            reply.raise_for_status()
            return str(reply.json()["name"])

        return whoami

    def _answer(self, handler: BaseHTTPRequestHandler) -> None:
        token = (handler.headers.get("authorization") or "").removeprefix("Bearer ").strip()
        with self._lock:
            self.calls.append(token)
        self.waiting.release()
        if self.delay:
            threading.Event().wait(self.delay)
        self.gate.wait(120)
        user = self.users.get(token)
        body = json.dumps({"name": user, "type": "user"} if user else {"error": "Invalid credentials"}).encode()
        handler.send_response(200 if user else 401)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)


@contextmanager
def stand_in_hub(users: dict[str, str], delay: float = 0.0) -> Iterator[StandInHub]:
    hub = StandInHub(users, delay)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            if self.path.startswith("/api/whoami"):
                hub._answer(self)
            else:
                self.send_error(404)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    hub.url = f"http://127.0.0.1:{server.server_address[1]}/"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield hub
    finally:
        hub.gate.set()
        server.shutdown()
        server.server_close()
