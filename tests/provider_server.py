"""A small real HTTP server on loopback that speaks three model APIs, for the provider tests:

    POST .../chat/completions             OpenAI chat completions (streamed when asked)
    POST .../v1/messages                  Anthropic Messages
    POST .../models/MODEL:generateContent Gemini generateContent

It answers at any path prefix (OpenRouter's `/api/v1`, the HF router's `/v1`, ...), records
every request (`seen`: path, lower-cased headers, JSON body) and answers each with the next
`Reply` of its script, then `default`:

    Reply(text="P2")                       a normal reply
    Reply(text="P2 is", truncated=True)    stopped at the token limit ("length", "max_tokens",
                                           "MAX_TOKENS", each API in its own words)
    Reply(status=429, retry_after="1")     rate limited; until that time has passed it keeps
                                           answering 429 (counted in `too_early`)
    Reply(status=401)                      any other error status, in the API's error shape
    Reply(slow=30)                         the reply comes after 30 s (or when the server stops);
                                           `abandoned` counts the slow replies whose client had
                                           gone by then (the write failed)
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    text: str = "Final answer: P2"
    truncated: bool = False
    status: int = 200
    retry_after: str | None = None
    slow: float = 0.0


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class ProviderServer:
    script: list[Reply] = field(default_factory=list)
    default: Reply = field(default_factory=Reply)
    seen: list[Seen] = field(default_factory=list)
    too_early: int = 0
    abandoned: int = 0
    url: str = ""  # http://127.0.0.1:PORT (no path)
    stopping: threading.Event = field(default_factory=threading.Event)
    _not_before: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def next_reply(self) -> Reply | None:
        """The scripted reply, or None while a rate limit's Retry-After has not passed."""
        with self._lock:
            if time.monotonic() < self._not_before:
                self.too_early += 1
                return None
            reply = self.script.pop(0) if self.script else self.default
            if reply.status == 429 and reply.retry_after is not None:
                self._not_before = time.monotonic() + float(reply.retry_after)
            return reply


def _openai(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "m"),
            "choices": [{"index": 0, "finish_reason": "length" if reply.truncated else "stop",
                         "message": {"role": "assistant", "content": reply.text}}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}}


def _anthropic(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": body.get("model", "m"),
            "content": [{"type": "text", "text": reply.text}],
            "stop_reason": "max_tokens" if reply.truncated else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 12, "output_tokens": 4}}


def _gemini(reply: Reply) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": reply.text}]},
                            "finishReason": "MAX_TOKENS" if reply.truncated else "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 13, "candidatesTokenCount": 5, "totalTokenCount": 18},
            "modelVersion": "gemini-test"}


def _error(path: str, status: int) -> dict[str, Any]:
    message = f"scripted {status}"
    if path.endswith("/messages"):
        kind = "rate_limit_error" if status == 429 else "authentication_error" if status == 401 else "api_error"
        return {"type": "error", "error": {"type": kind, "message": message}}
    if ":generateContent" in path:
        return {"error": {"code": status, "message": message, "status": "RESOURCE_EXHAUSTED"}}
    return {"error": {"message": message, "type": "scripted", "code": status}}


def _handler(server: ProviderServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, payload: dict[str, Any]) -> None:
            """The OpenAI reply as server-sent chunks: the text, then the finish reason and usage."""
            choice = payload["choices"][0]
            chunks = [
                {"choices": [{"index": 0, "delta": {"content": choice["message"]["content"]}, "finish_reason": None}]},
                {"choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]},
                {"choices": [], "usage": payload["usage"]},
            ]
            head = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": payload["model"]}
            data = b"".join(f"data: {json.dumps({**head, **c})}\n\n".encode() for c in chunks) + b"data: [DONE]\n\n"
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            path = self.path.split("?", 1)[0]
            server.seen.append(Seen(path, {k.lower(): v for k, v in self.headers.items()}, body))
            reply = server.next_reply()
            if reply is None:
                left = max(0.0, server._not_before - time.monotonic())
                self._send(429, _error(path, 429), {"Retry-After": f"{left:.3f}"})
                return
            if reply.slow:
                server.stopping.wait(reply.slow)
                try:
                    self._send(200, _anthropic(body, reply) if path.endswith("/v1/messages") else _openai(body, reply))
                except OSError:  # the client closed the connection while waiting
                    server.abandoned += 1
                return
            if reply.status != 200:
                headers = {"Retry-After": reply.retry_after} if reply.retry_after is not None else {}
                self._send(reply.status, _error(path, reply.status), headers)
            elif path.endswith("/chat/completions"):
                payload = _openai(body, reply)
                self._stream(payload) if body.get("stream") else self._send(200, payload)
            elif path.endswith("/v1/messages"):
                self._send(200, _anthropic(body, reply))
            elif path.endswith(":generateContent"):
                self._send(200, _gemini(reply))
            else:
                self._send(404, {"error": {"message": f"no such path {path}"}})

    return Handler


@contextmanager
def provider_server(*script: Reply) -> Iterator[ProviderServer]:
    """Serve on a free loopback port until the block ends."""
    server = ProviderServer(list(script))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(server))
    httpd.daemon_threads = True
    server.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, name="provider-server", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stopping.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(10)
