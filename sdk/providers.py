"""Model providers an agent can use, in one typed table: where each one answers, which
environment variable holds its key, how its models are named and what to watch for.

`python -m sdk new-agent --provider NAME` fills a template's defaults from this table,
docs/providers.md is generated from it (`python -m space_app.provider_docs`), and
`provider_caller(NAME, ...)` builds the matching caller in code:

    from sdk.providers import provider_caller
    llm_caller = provider_caller("ollama", model="llama3.2:3b")

OpenAI-compatible providers go through `openai_caller`; the others (Anthropic, Gemini)
through `litellm_caller`, which speaks their own APIs.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .errors import AgentError
from .prompts import Message


class ProviderPreset(BaseModel):
    """One provider's defaults and quirks."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    title: str
    template: Literal["openai", "litellm"]  # which caller (and scaffold template) speaks its API
    base_url: str | None  # None: the library's default endpoint for the provider
    key_env: str | None  # None: the server takes any key (or none)
    key_optional: bool = False  # a self-hosted server may run without a key
    model: str  # an example model name, the scaffold's default
    model_naming: str
    headers: dict[str, str] = Field(default_factory=dict)  # extra request headers ("{name}": the agent's)
    stream: bool = False  # the server stops a cancelled request only while streaming
    quirks: list[str] = Field(default_factory=list)

    def key(self) -> str | None:
        """The key from the environment, or None when unset (or not needed)."""
        return os.environ.get(self.key_env) if self.key_env else None

    def request_headers(self, agent_name: str) -> dict[str, str]:
        # HTTP header values are ASCII: a name in another script is left out of them
        name = "".join(c for c in agent_name if " " <= c <= "~").strip() or "deduction-arena-agent"
        return {header: value.replace("{name}", name) for header, value in self.headers.items()}


PROVIDERS: dict[str, ProviderPreset] = {p.name: p for p in (
    ProviderPreset(
        name="openai", title="OpenAI", template="openai", base_url="https://api.openai.com/v1",
        key_env="OPENAI_API_KEY", model="gpt-4o-mini",
        model_naming="the model id, e.g. `gpt-4o-mini`",
        quirks=["A 429 carries `Retry-After` / `retry-after-ms`; the caller honours it within the turn."]),
    ProviderPreset(
        name="ollama", title="Ollama", template="openai", base_url="http://localhost:11434/v1",
        key_env=None, model="llama3.2:3b",
        model_naming="the tag as in `ollama pull`, e.g. `llama3.2:3b`",
        quirks=["The OpenAI-compatible API is under `/v1`; `http://HOST:11434` alone answers 404.",
                "Any key is accepted; the caller sends a placeholder.",
                "The context length is the server's (`OLLAMA_CONTEXT_LENGTH`; a few thousand tokens by default), "
                "not settable per request here: set `context_tokens` in `LLMAgent` to match.",
                "A Space cannot reach `localhost` on your machine: expose the server on a public "
                "URL (ports 80, 443 or 8080 only) and set `OPENAI_BASE_URL`."]),
    ProviderPreset(
        name="vllm", title="vLLM", template="openai", base_url="http://localhost:8000/v1",
        key_env="VLLM_API_KEY", key_optional=True, model="Qwen/Qwen2.5-7B-Instruct",
        model_naming="the served model name (`--served-model-name`, else the repo id given to `vllm serve`)",
        quirks=["The key is whatever the server was started with (`--api-key` or `VLLM_API_KEY`); "
                "without one any key is accepted.",
                "A model name other than the served one answers 404 \"model does not exist\"."]),
    ProviderPreset(
        name="llamacpp", title="llama.cpp server", template="openai", base_url="http://localhost:8080/v1",
        key_env="LLAMA_API_KEY", key_optional=True, model="local-model",
        model_naming="any name (the server answers with the one model it loaded)",
        stream=True,
        quirks=["Often one request at a time (llama-cpp-python's server; `llama-server -np 1`): requests "
                "queue, so run benchmarks with concurrency 1.",
                "Streaming is on: llama-cpp-python's server stops a cancelled request only between "
                "streamed tokens, so nothing is left queued when a turn ends.",
                "Images need a vision projector (`--mmproj`); without one it answers 400 "
                "\"image input is not supported\" and the arena sends captions instead.",
                "The key is the server's `--api-key` (`LLAMA_API_KEY`); without one any key is accepted."]),
    ProviderPreset(
        name="hf", title="Hugging Face Inference Providers", template="openai",
        base_url="https://router.huggingface.co/v1", key_env="HF_TOKEN",
        model="meta-llama/Llama-3.1-8B-Instruct",
        model_naming="the Hub repo id, optionally with a provider or policy suffix: "
                     "`meta-llama/Llama-3.1-8B-Instruct:cerebras`, `...:fastest`",
        quirks=["The key is a Hugging Face token allowed to make calls to Inference Providers.",
                "On a Space, `HF_TOKEN` is a secret you add yourself; it is not set for you."]),
    ProviderPreset(
        name="openrouter", title="OpenRouter", template="openai", base_url="https://openrouter.ai/api/v1",
        key_env="OPENROUTER_API_KEY", model="openai/gpt-4o-mini",
        model_naming="`vendor/model`, e.g. `meta-llama/llama-3.1-8b-instruct`; `:free` variants are rate limited",
        headers={"HTTP-Referer": "https://huggingface.co/spaces", "X-Title": "{name}"},
        quirks=["The API is under `/api/v1`.",
                "`HTTP-Referer` and `X-Title` (optional) name your app on OpenRouter's rankings.",
                "Free models answer 429 often; the caller retries within the turn."]),
    ProviderPreset(
        name="anthropic", title="Anthropic", template="litellm", base_url=None,
        key_env="ANTHROPIC_API_KEY", model="anthropic/claude-3-5-haiku-latest",
        model_naming="`anthropic/` + the model id, e.g. `anthropic/claude-3-5-haiku-latest`",
        quirks=["Not OpenAI-compatible: `litellm_caller` speaks the Messages API (`/v1/messages`).",
                "`max_tokens` is required by the API; the caller always sends one.",
                "A reply stopped with `stop_reason: max_tokens` is flagged as truncated."]),
    ProviderPreset(
        name="gemini", title="Google Gemini (AI Studio)", template="litellm", base_url=None,
        key_env="GEMINI_API_KEY", model="gemini/gemini-2.0-flash",
        model_naming="`gemini/` + the model id, e.g. `gemini/gemini-2.0-flash`",
        quirks=["Not OpenAI-compatible: `litellm_caller` speaks `generateContent`.",
                "The key may also be in `GOOGLE_API_KEY`.",
                "A reply stopped with `finishReason: MAX_TOKENS` is flagged as truncated."]),
)}


def preset(name: str) -> ProviderPreset:
    """The preset called `name`, or a ValueError listing the known ones."""
    try:
        return PROVIDERS[name]
    except KeyError:
        raise ValueError(f"unknown provider {name!r}: choose one of {', '.join(PROVIDERS)}") from None


def provider_caller(name: str, model: str | None = None, *, base_url: str | None = None,
                    api_key: str | None = None, agent_name: str = "deduction-arena-agent",
                    **settings: Any) -> Callable[[list[Message]], str]:
    """A caller for provider `name` with its defaults filled in; `settings` go to the caller
    (`max_tokens`, `temperature`, `timeout`, ...). A key the provider needs and that is
    neither given nor in its environment variable is refused here, naming the variable."""
    p = preset(name)
    key = api_key or p.key()
    if p.key_env and not key and not p.key_optional:
        raise AgentError("agent_failed", f"no API key for {p.title}: set {p.key_env}")
    if p.template == "litellm":
        from .callers.litellm_caller import litellm_caller

        return litellm_caller(model or p.model, api_base=base_url or p.base_url, api_key=key, **settings)
    from .callers.openai_compat import openai_caller

    settings.setdefault("stream", p.stream)
    return openai_caller(model or p.model, base_url=base_url or p.base_url, api_key=key or "not-needed",
                         headers=p.request_headers(agent_name) or None, **settings)


def providers_table() -> str:
    """The generated part of docs/providers.md: the table, then each provider's notes."""
    lines = [
        "| Provider | `--provider` | Caller | Base URL | Key variable | Example model |",
        "|---|---|---|---|---|---|",
    ]
    for p in PROVIDERS.values():
        caller = "`openai_caller`" if p.template == "openai" else "`litellm_caller`"
        base = f"`{p.base_url}`" if p.base_url else "the provider's own"
        key = (f"`{p.key_env}`" + (" (if the server has one)" if p.key_optional else "")) if p.key_env \
            else "none (any text)"
        lines.append(f"| {p.title} | `{p.name}` | {caller} | {base} | {key} | `{p.model}` |")
    for p in PROVIDERS.values():
        lines += ["", f"### {p.title} (`{p.name}`)", "", f"- Model names: {p.model_naming}."]
        if p.headers:
            sent = ", ".join(f"`{h}: {v}`" for h, v in p.headers.items())
            lines.append(f"- Headers sent: {sent} (`{{name}}` is the agent's name).")
        lines += [f"- {quirk}" for quirk in p.quirks]
    return "\n".join(lines) + "\n"

