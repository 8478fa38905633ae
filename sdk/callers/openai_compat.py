"""llm_caller for any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp's server, the
HF router, OpenRouter).

A call behaves like a good client inside the arena's turn:

- **Budget.** A call (every attempt and every wait between attempts) ends by the turn's
  deadline (`sdk.deadline.time_left()`, which `LLMAgent` sets from the observation's
  `limits.seconds`), or by `timeout` when that comes first or when there is no turn.
- **Cancellation.** The request runs as an asyncio task on one background event loop, so it
  can be cancelled: at the deadline, or as soon as the arena gives up on the turn
  (`sdk.deadline.on_abandon`). Cancelling it closes the HTTP connection, which a server such
  as llama.cpp's notices and stops generating: nothing is left queued on a one-slot server.
  llama-cpp-python's server (`python -m llama_cpp.server`) notices a closed connection only
  between streamed tokens, or before it starts a queued request: use `stream=True` there.
- **Retries.** 408, 409, 429, 5xx and connection failures (resets, refused connections) are
  retried with exponential backoff and full jitter, or after the server's `Retry-After`
  (`retry-after-ms`) when it sends one, for at most `max_retries` more attempts, and only
  while the wait plus a useful attempt fits in the budget. A `Retry-After` past the budget
  fails the call at once, saying so.
- **Truncation.** A reply stopped by `max_tokens` (`finish_reason == "length"`) comes back as
  an `LLMText` with `truncated=True`; `LLMAgent` asks once more for a shorter answer and the
  arena records the flag in the turn's call record.

Failures become `AgentError`: kind `timeout` when the budget ran out or the arena gave up,
`agent_failed` otherwise (unreachable provider, bad key, rate limit, 5xx), so the arena never
mistakes a model outage for a sleeping Space or a refused secret. The provider's own words
are kept in the error's message, so a refusal of pictures ("image input is not supported")
is recognised by `sdk.capabilities.refuses_images` and the arena sends captions instead.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import email.utils
import os
import threading
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..deadline import on_abandon, time_left
from ..errors import AgentError
from ..prompts import Message
from ..usage import LLMText, Usage

if TYPE_CHECKING:
    from tenacity import RetryCallState

DEFAULT_TIMEOUT = 120.0  # no turn in the arena is longer (ARENA_MAX_TURN_SECONDS)
MIN_ATTEMPT_SECONDS = 0.5  # a retry is made only when at least this much is left after its wait
RETRY_STATUS = frozenset({408, 409, 429})  # and every 5xx
BACKOFF_SECONDS = 0.5  # full jitter: a wait drawn from 0..0.5 s, then 0..1 s, 0..2 s, ... up to 0..8 s
BACKOFF_MAX = 8.0

_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()


def _calls_loop() -> asyncio.AbstractEventLoop:
    """The background event loop every model request runs on (one thread per process)."""
    global _loop
    with _loop_lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="sdk-model-calls", daemon=True).start()
            _loop = loop
        return _loop


def retry_after(exc: BaseException | None) -> float | None:
    """Seconds the server asked the client to wait (`retry-after-ms`, or `Retry-After` as
    seconds or an HTTP date), or None when it did not say."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _retryable(exc: BaseException) -> bool:
    import openai

    if isinstance(exc, openai.APITimeoutError):  # the budget is spent: nothing to retry with
        return False
    if isinstance(exc, openai.APIConnectionError):  # refused, reset, dropped
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in RETRY_STATUS or exc.status_code >= 500
    return False


async def attempts_within(attempt: Callable[[float], Awaitable[LLMText]], ends: float, budget: float,
                          max_retries: int,
                          asked_wait: Callable[[BaseException | None], float | None] = retry_after) -> LLMText:
    """`attempt(seconds left)` until it answers, within the budget: 408/409/429/5xx and dropped
    connections are retried after `asked_wait` (the server's Retry-After) or a jittered backoff,
    while the wait plus a useful attempt fits before `ends` (monotonic). Failures become
    `AgentError` (see the module docstring): the one place both callers' rules are kept."""
    import openai
    from tenacity import AsyncRetrying, retry_if_exception, wait_random_exponential

    backoff = wait_random_exponential(multiplier=BACKOFF_SECONDS, max=BACKOFF_MAX)
    attempts = 0

    def out_of_budget(state: RetryCallState) -> bool:
        left = ends - time.monotonic()
        return state.attempt_number > max_retries or left - state.upcoming_sleep < MIN_ATTEMPT_SECONDS

    def wait(state: RetryCallState) -> float:
        asked = asked_wait(state.outcome.exception() if state.outcome else None)
        return asked if asked is not None else backoff(state)

    retrying = AsyncRetrying(stop=out_of_budget, wait=wait, retry=retry_if_exception(_retryable), reraise=True)
    try:
        async for tried in retrying:
            with tried:
                attempts += 1
                left = ends - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                # the asyncio timeout bounds the whole attempt (the client's timeout
                # is per read, so a server that trickles bytes could outlast it)
                async with asyncio.timeout(left):
                    reply = await attempt(left)
    except (TimeoutError, openai.APITimeoutError) as exc:
        raise AgentError("timeout", f"model endpoint gave no reply within the {budget:.1f} s "
                                    f"this call had ({_tries(attempts)})") from exc
    except openai.APIConnectionError as exc:
        # the agent's Space is up; its model provider is not: the agent failed
        raise AgentError("agent_failed",
                         f"model endpoint unreachable: {exc} ({_tries(attempts)})") from exc
    except openai.APIStatusError as exc:
        # a refusal by the *model* provider (bad key, rate limit, 5xx) is the agent's
        # failure; "refused" is kept for the agent refusing the arena's call
        why = f"model endpoint answered {exc.status_code}: {exc.message}"
        asked = asked_wait(exc)
        left = ends - time.monotonic()
        if asked is not None and _retryable(exc) and asked > left - MIN_ATTEMPT_SECONDS:
            why += f"; it asked to retry after {asked:g} s, past the {max(0.0, left):.1f} s left"
        raise AgentError("agent_failed", f"{why} ({_tries(attempts)})") from exc
    except openai.APIError as exc:  # LiteLLM's exceptions derive from openai's too
        raise AgentError("agent_failed", f"model endpoint error: {exc}") from exc
    return reply


def run_in_turn(complete: Callable[[float, float], Awaitable[LLMText]], timeout: float) -> LLMText:
    """Run `complete(ends, budget)` on the calls loop within the turn's time left (or `timeout`),
    cancelling it as soon as the arena gives up on the turn (its connection is then closed)."""
    left = time_left()
    budget = timeout if left is None else min(timeout, left)
    if budget <= 0:
        raise AgentError("timeout", "the turn's time was used up before the model was called")
    future = asyncio.run_coroutine_threadsafe(complete(time.monotonic() + budget, budget), _calls_loop())
    unregister = on_abandon(future.cancel)
    try:
        return future.result(timeout=budget + 5)  # the task ends by the budget on its own
    except concurrent.futures.CancelledError as exc:
        raise AgentError("timeout", "the arena gave up on this turn; the model request was "
                                    "cancelled") from exc
    except concurrent.futures.TimeoutError as exc:
        future.cancel()
        raise AgentError("timeout", f"model endpoint gave no reply within {budget:.1f} s") from exc
    finally:
        unregister()


def openai_caller(
    model: str,
    base_url: str | None = None,
    api_key: str | None = None,
    temperature: float | None = 0.7,
    timeout: float = DEFAULT_TIMEOUT,
    max_tokens: int | None = 512,
    max_retries: int = 4,
    *,
    top_p: float | None = None,
    stop: str | list[str] | None = None,
    stream: bool = False,
    headers: dict[str, str] | None = None,
) -> Callable[[list[Message]], str]:
    """Build an `llm_caller` that sends chat messages (text or image parts) to `model`.

    `api_key` defaults to OPENAI_API_KEY and `base_url` to OPENAI_BASE_URL; local servers
    accept any non-empty key. `temperature`, `top_p`, `max_tokens` and `stop` are sent as
    given (None: not sent, the server's default). `timeout` caps one call, retries included;
    inside an arena turn the turn's time left caps it too, whichever ends first.
    `max_retries` is the most extra attempts after a 429, 5xx or dropped connection.
    `stream=True` reads the reply as it is generated: for servers that stop generating for a
    closed connection only between streamed tokens (llama-cpp-python's server); token usage
    is then known only when the server sends it in its last chunk. `headers` are sent with
    every request (OpenRouter's `HTTP-Referer` / `X-Title`, a gateway's own headers).
    Presets for Ollama, vLLM, llama.cpp's server, the HF router and OpenRouter are in
    `sdk.providers`.
    """
    import openai

    # The client's own retries are off (max_retries=0): they honour Retry-After but know
    # nothing of the turn's deadline, so a 429 could wait past it. tenacity runs the attempts
    # (`attempts_within`), with the remaining budget as the stop condition.
    client = openai.AsyncOpenAI(
        api_key=api_key or os.environ.get("OPENAI_API_KEY") or "not-needed",
        base_url=base_url or os.environ.get("OPENAI_BASE_URL") or None,
        timeout=timeout,
        max_retries=0,
        default_headers=headers,
    )
    options: dict[str, Any] = {"temperature": temperature, "top_p": top_p, "max_tokens": max_tokens,
                               "stop": stop}
    sent = {key: value for key, value in options.items() if value is not None}

    def llm_caller(messages: list[Message]) -> str:
        async def attempt(left: float) -> LLMText:
            if stream:
                return await _streamed(client, model, messages, left, sent)
            return _read(await client.chat.completions.create(model=model, messages=messages, timeout=left,
                                                              **sent))

        return run_in_turn(lambda ends, budget: attempts_within(attempt, ends, budget, max_retries), timeout)

    llm_caller.model = model  # type: ignore[attr-defined]
    llm_caller.settings = {"timeout": timeout, "max_retries": max_retries, "stream": stream, **options}  # type: ignore[attr-defined]
    return llm_caller


def _usage(raw: Any) -> Usage | None:
    if raw is None:
        return None
    return Usage(prompt_tokens=raw.prompt_tokens or 0, completion_tokens=raw.completion_tokens or 0)


def _read(response: Any) -> LLMText:
    if not response.choices:
        raise AgentError("bad_reply", "model endpoint returned no choices")
    choice = response.choices[0]
    return LLMText(choice.message.content or "", _usage(response.usage),
                   truncated=getattr(choice, "finish_reason", None) == "length")


async def _streamed(client: Any, model: str, messages: list[Message], left: float,
                    sent: dict[str, Any]) -> LLMText:
    """One streamed request, read to its end; leaving it early (cancelled) closes it."""
    parts: list[str] = []
    finish: str | None = None
    usage = None
    chunks = await client.chat.completions.create(model=model, messages=messages, timeout=left, stream=True,
                                                  stream_options={"include_usage": True}, **sent)
    async with chunks:
        async for chunk in chunks:
            if chunk.usage is not None:
                usage = _usage(chunk.usage)
            for choice in chunk.choices:
                if choice.index == 0:
                    parts.append(choice.delta.content or "")
                    finish = choice.finish_reason or finish
    return LLMText("".join(parts), usage, truncated=finish == "length")


def _tries(attempts: int) -> str:
    return "1 attempt" if attempts == 1 else f"{attempts} attempts"
