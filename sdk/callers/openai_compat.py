"""llm_caller for any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, the HF router)."""

from __future__ import annotations

import os
from collections.abc import Callable

from ..errors import AgentError
from ..prompts import Message
from ..usage import LLMText, Usage


def openai_caller(
    model: str,
    base_url: str | None = None,
    api_key: str | None = None,
    temperature: float = 0.7,
    timeout: float = 30.0,
    max_tokens: int = 512,
    max_retries: int = 1,
) -> Callable[[list[Message]], str]:
    """Build an `llm_caller` that sends chat messages (text or image parts) to `model`.

    `api_key` defaults to OPENAI_API_KEY; local servers accept any non-empty key.
    Failures of the endpoint become `AgentError`: kind `timeout` when it does not answer in
    time, `agent_failed` otherwise (unreachable provider, bad key, rate limit, 5xx), so the
    arena never mistakes a model outage for a sleeping Space or a refused secret.
    """
    import openai

    client = openai.OpenAI(
        api_key=api_key or os.environ.get("OPENAI_API_KEY") or "not-needed",
        base_url=base_url or os.environ.get("OPENAI_BASE_URL") or None,
        timeout=timeout,
        max_retries=max_retries,
    )

    def llm_caller(messages: list[Message]) -> str:
        try:
            response = client.chat.completions.create(
                model=model, messages=messages, temperature=temperature, max_tokens=max_tokens
            )
        except openai.APITimeoutError as exc:
            raise AgentError("timeout", f"model endpoint timed out: {exc}") from exc
        except openai.APIConnectionError as exc:
            # the agent's Space is up; its model provider is not: the agent failed
            raise AgentError("agent_failed", f"model endpoint unreachable: {exc}") from exc
        except openai.APIStatusError as exc:
            # a refusal by the *model* provider (bad key, rate limit, 5xx) is the agent's
            # failure; "refused" is kept for the agent refusing the arena's call
            raise AgentError("agent_failed",
                             f"model endpoint answered {exc.status_code}: {exc.message}") from exc
        except openai.APIError as exc:
            raise AgentError("agent_failed", f"model endpoint error: {exc}") from exc
        if not response.choices:
            raise AgentError("bad_reply", "model endpoint returned no choices")
        text = response.choices[0].message.content or ""
        usage = None
        if response.usage is not None:
            usage = Usage(prompt_tokens=response.usage.prompt_tokens or 0,
                          completion_tokens=response.usage.completion_tokens or 0)
        return LLMText(text, usage)

    llm_caller.model = model  # type: ignore[attr-defined]
    return llm_caller
