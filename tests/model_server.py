"""A small real OpenAI-compatible model server on loopback, for the caller tests.

It speaks the chat-completions wire format (`POST /v1/chat/completions`) with aiohttp on its
own event loop and thread, and answers each request with the next step of a script:

    Step(text="Final answer: P2")          a normal reply (finish_reason "stop")
    Step(text="P2 is the one who", finish="length")   a reply cut at the token limit
    Step(status=429, retry_after="1")     rate limited; until that time has passed it keeps
                                           answering 429 (counted in `too_early`), as a
                                           real rate limiter does
    Step(status=500)                      a server error
    Step(reset=True)                      the connection is dropped without an answer
    Step(slow=30)                         the reply comes after 30 s, unless the client
                                           goes away first (then the handler is cancelled,
                                           which is recorded in `disconnected`)

A request with `"stream": true` gets the same reply as server-sent chunks (a slow step
sends its first word, then waits).

With `refuse_images`, a request holding an `image_url` part is answered 400 "image input is
not supported", as llama.cpp's server answers when no vision projector is loaded (counted in
`refused_images`); other requests follow the script.

When the script is used up, every request gets `default`. One request is served at a time
(`slots=1`), like llama.cpp's server with one slot: a request left running by a client that
gave up would hold the next one back, and `running` would not drop to 0.
Everything is recorded: `requests` (the JSON bodies), `headers`, `disconnected`, `running`.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass
class Step:
    text: str = "Final answer: P2"
    finish: str = "stop"
    status: int = 200
    retry_after: str | None = None
    slow: float = 0.0
    reset: bool = False


@dataclass
class ModelServer:
    script: list[Step] = field(default_factory=list)
    default: Step = field(default_factory=Step)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    disconnected: int = 0
    too_early: int = 0
    refuse_images: bool = False
    refused_images: int = 0
    running: int = 0
    url: str = ""
    started: threading.Event = field(default_factory=threading.Event)  # a slow reply began
    settled: threading.Event = field(default_factory=threading.Event)  # a slow reply ended
    _not_before: float = 0.0
    _slot: asyncio.Semaphore | None = None

    def say(self, *steps: Step) -> None:
        self.script.extend(steps)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        assert self._slot is not None
        async with self._slot:
            body = await request.json()
            self.requests.append(body)
            self.headers.append({k.lower(): v for k, v in request.headers.items()})
            if self.refuse_images and _has_image(body):
                self.refused_images += 1
                return _error(400, "image input is not supported - hint: if this is unexpected, you may "
                                   "need to provide the mmproj")
            if time.monotonic() < self._not_before:
                self.too_early += 1
                return _error(429, "too early", retry_after=f"{self._not_before - time.monotonic():.3f}")
            step = self.script.pop(0) if self.script else self.default
            if step.reset:
                assert request.transport is not None
                request.transport.abort()  # a dropped connection, no HTTP answer
                return web.Response(status=500)
            if step.status == 429 and step.retry_after is not None:
                self._not_before = time.monotonic() + float(step.retry_after)
            if step.status != 200:
                return _error(step.status, f"scripted {step.status}", retry_after=step.retry_after)
            if body.get("stream"):
                return await self._stream(request, body, step)
            if step.slow:
                self.running += 1
                self.started.set()
                try:
                    await asyncio.sleep(step.slow)
                except asyncio.CancelledError:  # the client closed the connection
                    self.disconnected += 1
                    raise
                finally:
                    self.running -= 1
                    self.settled.set()
            return web.json_response(_completion(body, step))

    async def _stream(self, request: web.Request, body: dict[str, Any], step: Step) -> web.StreamResponse:
        """Server-sent chunks, one per word, then the finish reason and (when asked) usage; a
        slow step sends its first word and then waits."""
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        done = _completion(body, step)
        words = step.text.split(" ")

        async def send(delta: dict[str, Any] | None, finish: str | None = None, usage: Any = None) -> None:
            chunk = {"id": done["id"], "object": "chat.completion.chunk", "created": done["created"],
                     "model": done["model"], "usage": usage,
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish}] if delta is not None else []}
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())

        for i, word in enumerate(words):
            await send({"content": word if i == 0 else " " + word})
            if step.slow and i == 0:
                self.running += 1
                self.started.set()
                try:
                    await asyncio.sleep(step.slow)
                except asyncio.CancelledError:
                    self.disconnected += 1
                    raise
                finally:
                    self.running -= 1
                    self.settled.set()
        await send({}, step.finish)
        if (body.get("stream_options") or {}).get("include_usage"):
            await send(None, usage=done["usage"])
        await response.write(b"data: [DONE]\n\n")
        return response


def _has_image(body: dict[str, Any]) -> bool:
    return any(isinstance(m.get("content"), list) and any(p.get("type") == "image_url" for p in m["content"])
               for m in body.get("messages", []))


def _error(status: int, message: str, retry_after: str | None = None) -> web.Response:
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return web.json_response({"error": {"message": message, "type": "scripted", "code": status}},
                             status=status, headers=headers)


def _completion(body: dict[str, Any], step: Step) -> dict[str, Any]:
    prompt_words = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
    return {
        "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()),
        "model": body.get("model", "test"),
        "choices": [{"index": 0, "finish_reason": step.finish,
                     "message": {"role": "assistant", "content": step.text}}],
        "usage": {"prompt_tokens": prompt_words, "completion_tokens": len(step.text.split()),
                  "total_tokens": prompt_words + len(step.text.split())},
    }


@contextmanager
def model_server(*script: Step) -> Iterator[ModelServer]:
    """Serve on a free loopback port until the block ends; `server.url` ends in /v1."""
    server = ModelServer(list(script))
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    runner_box: dict[str, web.AppRunner] = {}

    async def start() -> None:
        server._slot = asyncio.Semaphore(1)
        app = web.Application()
        app.router.add_post("/v1/chat/completions", server.handle)
        # cancel a handler when its client disconnects, as llama.cpp's server stops a task
        runner = web.AppRunner(app, handler_cancellation=True, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        server.url = f"http://127.0.0.1:{port}/v1"
        runner_box["runner"] = runner
        ready.set()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(start())
        loop.run_forever()

    thread = threading.Thread(target=run, name="model-server", daemon=True)
    thread.start()
    if not ready.wait(10):
        raise RuntimeError("the test model server did not start")
    try:
        yield server
    finally:
        asyncio.run_coroutine_threadsafe(runner_box["runner"].cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
