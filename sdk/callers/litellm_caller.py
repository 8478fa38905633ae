"""llm_caller for model APIs that are not OpenAI-compatible (Anthropic, Gemini, Bedrock, ...),
through LiteLLM, which translates the chat messages (text and image parts) to each API.

It keeps `openai_caller`'s contract: the call ends by the turn's deadline (retries and waits
included) and is cancelled when the arena gives up on the turn; 408/409/429/5xx and dropped
connections are retried with backoff and jitter, or after the provider's `Retry-After`, while
that fits in the budget; a reply stopped by the token limit (Anthropic's
`stop_reason: max_tokens`, Gemini's `finishReason: MAX_TOKENS`) is flagged `truncated`; token
usage is reported. LiteLLM's own retries are off, so only this budget decides.

The model is named `provider/model` (`anthropic/claude-3-5-haiku-latest`,
`gemini/gemini-2.0-flash`); the key comes from `api_key` or the provider's own variable
(`ANTHROPIC_API_KEY`, `GEMINI_API_KEY`), and a missing one fails the call before anything is
sent, naming the variable.

LiteLLM fetches its model price map from GitHub when imported unless
`LITELLM_LOCAL_MODEL_COST_MAP` is set: this module sets it (unless already set) so that an
agent starts without network access and never waits on that download. The SDK path of
LiteLLM sends no telemetry (its telemetry is the proxy server's, off unless an operator
turns it on), and no logging callbacks are registered here.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from ..errors import AgentError
from ..prompts import Message
from ..usage import LLMText, Usage
from .openai_compat import DEFAULT_TIMEOUT, attempts_within, retry_after, run_in_turn

# before LiteLLM is first imported: its bundled price map, not a download at import
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

_KEY_SUFFIXES = ("_API_KEY", "_TOKEN", "_KEY")


def _litellm() -> Any:
    import litellm

    litellm.suppress_debug_info = True  # no "Provider List: ..." banners in the agent's log
    return litellm


def _asked_wait(exc: BaseException | None) -> float | None:
    """The provider's Retry-After: LiteLLM keeps the provider's headers in
    `litellm_response_headers` (its `response` is a stand-in without them)."""
    kept = getattr(exc, "litellm_response_headers", None)
    if kept:
        headers = {str(k).lower(): v for k, v in dict(kept).items()}  # a plain dict is case-sensitive
        return retry_after(SimpleNamespace(response=SimpleNamespace(headers=headers)))  # type: ignore[arg-type]
    return retry_after(exc)


def missing_key(model: str) -> str | None:
    """The environment variable(s) the provider of `model` reads its key from, when none is set."""
    report = _litellm().validate_environment(model)
    missing = [key for key in report.get("missing_keys", []) if key.endswith(_KEY_SUFFIXES)]
    return " or ".join(missing) if missing and not report.get("keys_in_environment") else None


def litellm_caller(
    model: str,
    api_key: str | None = None,
    api_base: str | None = None,
    temperature: float | None = 0.7,
    timeout: float = DEFAULT_TIMEOUT,
    max_tokens: int | None = 512,
    max_retries: int = 4,
    *,
    top_p: float | None = None,
    stop: str | list[str] | None = None,
    extra: dict[str, Any] | None = None,
) -> Callable[[list[Message]], str]:
    """Build an `llm_caller` that sends chat messages to `model` (`provider/model`) via LiteLLM.

    `api_key` defaults to the provider's environment variable; `api_base` to the provider's
    endpoint (set it for a proxy, a regional endpoint or a test server). `temperature`,
    `top_p`, `max_tokens` and `stop` are sent as given (None: not sent); a setting the
    provider does not take is dropped rather than refused. `extra` goes to
    `litellm.acompletion` as it is (e.g. `{"aws_region_name": "eu-west-1"}` for Bedrock).
    `timeout` and `max_retries` behave as in `openai_caller`.
    """
    litellm = _litellm()
    options: dict[str, Any] = {"temperature": temperature, "top_p": top_p, "max_tokens": max_tokens,
                               "stop": stop}
    sent = {key: value for key, value in options.items() if value is not None}
    fixed: dict[str, Any] = {"num_retries": 0, "max_retries": 0, "drop_params": True, **(extra or {})}
    if api_key:
        fixed["api_key"] = api_key
    if api_base:
        fixed["api_base"] = api_base

    def llm_caller(messages: list[Message]) -> str:
        if "api_key" not in fixed:
            missing = missing_key(model)
            if missing:
                raise AgentError("agent_failed", f"no API key for {model}: set {missing} (or pass api_key=)")

        async def attempt(left: float) -> LLMText:
            return _read(await litellm.acompletion(model=model, messages=messages, timeout=left, **sent, **fixed))

        return run_in_turn(lambda ends, budget: attempts_within(attempt, ends, budget, max_retries, _asked_wait),
                           timeout)

    llm_caller.model = model  # type: ignore[attr-defined]
    llm_caller.settings = {"timeout": timeout, "max_retries": max_retries, **options}  # type: ignore[attr-defined]
    return llm_caller


def _read(response: Any) -> LLMText:
    if not response.choices:
        raise AgentError("bad_reply", "model endpoint returned no choices")
    choice = response.choices[0]
    raw = getattr(response, "usage", None)
    usage = Usage(prompt_tokens=raw.prompt_tokens or 0, completion_tokens=raw.completion_tokens or 0) if raw else None
    return LLMText(choice.message.content or "", usage, truncated=choice.finish_reason == "length")
