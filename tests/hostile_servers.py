"""Real HTTP servers on loopback for the security tests: a stand-in internal service
that records every request it gets, and a hostile agent server whose behaviour is
chosen by the first part of the path (so one server plays every attack):

    /agent/...      a well-behaved SDK agent: `info`, and `act` answering the first option
    /any/...        the same agent declaring no games (so it plays every game and suite)
    /redirect/...   307 to the internal service (same path), as an attacker's Space would
    /bomb/...       a gzip compression bomb (~1 MB on the wire, 1 GiB inflated)
    /brotli/...     a reply that claims an encoding nobody should inflate
    /named/...      an agent whose `info` name and description carry bidi and control
                    characters, and whose statements carry terminal escape codes
    /badinfo/...    an agent whose `info` lists its games as a string, not a list
    /flat/...       an agent whose `act` reply is `{"data": "<text>"}` (a string, not a list)
    /deep/...       an agent whose `act` reply is JSON nested 20,000 levels deep (~40 kB)
    /tokens/...     an agent that reports 10^30 prompt tokens and -7 completion tokens

`Server.down` makes every POST answer 503 (a Space asleep or restarting, `info` included);
`Server.fail_act` makes the `/agent/` and `/any/` calls other than `info` answer that HTTP status with a
bare server error (the agent's server failing, not the agent's code).

Every request (path, headers, body) is recorded, so a test can assert what was sent where.
"""

from __future__ import annotations

import json
import threading
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

T = TypeVar("T")

GIB = 1 << 30


def peak_rss_growth(work: Callable[[], T]) -> tuple[T, float]:
    """Run `work`, sampling this process's resident memory every 5 ms; returns its result
    and the peak growth in MB over the memory before it started."""
    import psutil

    proc = psutil.Process()
    before = peak = proc.memory_info().rss
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, proc.memory_info().rss)
            done.wait(0.005)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        result = work()
    finally:
        done.set()
        sampler.join()
    return result, (peak - before) / 2**20


@cache
def gzip_bomb(size: int = GIB) -> bytes:
    """`size` zero bytes, gzipped (about size/1030 bytes)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(1 << 20)
    parts = [packer.compress(block) for _ in range(size // len(block))]
    parts.append(packer.flush())
    return b"".join(parts)


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        try:
            return json.loads(self.body or b"null")
        except ValueError:
            return None


@dataclass
class Server:
    url: str  # base URL, ending in '/'
    requests: list[Seen] = field(default_factory=list)
    redirect_to: str = ""  # where /redirect/ sends callers
    down: bool = False  # every POST: 503, as a Space that is asleep or restarting answers
    fail_act: int = 0  # an HTTP status every /agent/ call but `info` answers (0: none)

    def paths(self) -> list[str]:
        return [r.path for r in self.requests]


def _handler(server: Server) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def _record(self) -> Seen:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            seen = Seen(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            server.requests.append(seen)
            return seen

        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            for key, value in {"Content-Type": "application/json", **(headers or {})}.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self._record()
            self._send(200, b'{"internal": "secret inventory"}')

        def do_POST(self) -> None:
            seen = self._record()
            head = self.path.strip("/").split("/", 1)[0]
            if server.down:
                self._send(503, b'{"error": "Space is starting"}')
            elif head in ("agent", "any") and server.fail_act and not self.path.rstrip("/").endswith("/info"):
                self._send(server.fail_act, b"Internal Server Error", {"Content-Type": "text/plain"})
            elif head == "redirect":
                self._send(307, b"", {"Location": server.redirect_to + self.path[len("/redirect/"):]})
            elif head == "bomb":
                self._send(200, gzip_bomb(), {"Content-Encoding": "gzip"})
            elif head == "brotli":
                self._send(200, b"\x0b\x02\x80hello\x03", {"Content-Encoding": "br"})
            elif head in ("agent", "any", "named", "badinfo", "tokens"):
                self._send(200, json.dumps({"data": [_agent_reply(seen, head)]}).encode())
            elif head in ("flat", "deep") and not self.path.rstrip("/").endswith("/info"):
                reply = _agent_reply(seen, head)["text"]
                body = json.dumps({"data": reply}) if head == "flat" else (
                    '{"data": [' + "[" * DEEP + "]" * DEEP + "]}")
                self._send(200, body.encode())
            elif head in ("flat", "deep"):
                self._send(200, json.dumps({"data": [_agent_reply(seen, head)]}).encode())
            else:  # the internal service: what an attacker would love to read back
                self._send(200, b'{"data": ["INTERNAL-ONLY: db password hunter2"], '
                                b'"success": true, "result": "INTERNAL-ONLY: db password hunter2"}')

    return Handler


DEEP = 20_000  # nesting of the /deep/ reply: far past the JSON parser's recursion limit
NASTY_NAME = "\u202egnp.exe\x1b[31m evil\u200b\x07"
ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x1b[31m"


def _agent_reply(seen: Seen, mode: str) -> Any:
    endpoint = seen.path.rstrip("/").rsplit("/", 1)[-1]
    if endpoint == "info":
        info = {"name": "recorder", "sdk_version": "0.1.0", "games": ["spy"], "secret_required": False}
        if mode == "named":
            info.update(name=NASTY_NAME, description="line one\u202e\x1b[1m\nline two\x00")
        if mode == "badinfo":
            info["games"] = "spy"
        if mode == "any":
            info["games"] = []
        return info
    payload = seen.json() or {}
    obs = (payload.get("data") or [{}])[0] or {}
    options = obs.get("options") or []
    extra = {"usage": {"prompt_tokens": 10**30, "completion_tokens": -7}} if mode == "tokens" else {}
    if obs.get("verb") in ("vote", "answer") and options:
        return {"text": options[0], **extra}
    escapes = ESCAPES if mode == "named" else ""
    who, when = obs.get("you", "someone"), obs.get("round")
    return {"text": f"{escapes}{who} says it is often found in a kitchen round {when}", **extra}


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client hanging up on a bomb is the expected outcome, not a failure


@contextmanager
def http_server(host: str = "127.0.0.1") -> Iterator[Server]:
    httpd = _QuietServer((host, 0), None)  # type: ignore[arg-type]
    server = Server(url=f"http://{host}:{httpd.server_address[1]}/")
    httpd.RequestHandlerClass = _handler(server)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        httpd.shutdown()
        httpd.server_close()
