"""The provider presets (sdk/providers.py): each one yields a caller whose requests reach the
provider's path with its key and headers, checked on a real loopback HTTP server
(tests/provider_server.py) that answers at the preset's own path prefix."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

import pytest
from provider_server import Reply, provider_server

from sdk import AgentError
from sdk.providers import PROVIDERS, ProviderPreset, preset, provider_caller, providers_table

MESSAGES = [{"role": "user", "content": "Say something."}]
OPENAI_COMPATIBLE = [name for name, p in PROVIDERS.items() if p.template == "openai"]


def on_loopback(url: str | None, server_url: str) -> str:
    """The preset's URL with its host replaced by the test server's (the path is kept)."""
    if url is None:
        return server_url
    parts = urlsplit(url)
    loop = urlsplit(server_url)
    return urlunsplit((loop.scheme, loop.netloc, parts.path, "", ""))


@pytest.mark.parametrize("name", OPENAI_COMPATIBLE)
def test_each_openai_compatible_preset_reaches_its_path_with_its_key(name: str,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    p = preset(name)
    if p.key_env:
        monkeypatch.setenv(p.key_env, f"key-for-{name}")
    with provider_server(Reply("Final answer: P2", truncated=True)) as server:
        call = provider_caller(name, base_url=on_loopback(p.base_url, server.url), agent_name="Sly Fox")
        reply = call(MESSAGES)
    assert reply == "Final answer: P2" and reply.truncated
    assert reply.usage is not None and reply.usage.prompt_tokens == 11
    (seen,) = server.seen
    assert seen.path == urlsplit(p.base_url).path + "/chat/completions"
    assert seen.body["model"] == p.model
    expected_key = f"key-for-{name}" if p.key_env else "not-needed"
    assert seen.headers["authorization"] == f"Bearer {expected_key}"
    for header, value in p.headers.items():
        assert seen.headers[header.lower()] == value.replace("{name}", "Sly Fox")
    assert bool(seen.body.get("stream")) is p.stream


def test_openrouter_sends_its_attribution_headers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "or-key")
    with provider_server() as server:
        provider_caller("openrouter", model="meta-llama/llama-3.1-8b-instruct",
                        base_url=server.url + "/api/v1", agent_name="Sly Fox")(MESSAGES)
    (seen,) = server.seen
    assert seen.path == "/api/v1/chat/completions"
    assert seen.headers["x-title"] == "Sly Fox" and seen.headers["http-referer"].startswith("https://")
    assert seen.body["model"] == "meta-llama/llama-3.1-8b-instruct"


def test_llamacpp_streams_so_a_cancelled_request_stops_on_the_server() -> None:
    with provider_server(Reply("It grows in gardens")) as server:
        reply = provider_caller("llamacpp", base_url=server.url + "/v1")(MESSAGES)
    assert reply == "It grows in gardens"
    assert server.seen[0].body["stream"] is True
    assert reply.usage is not None and reply.usage.completion_tokens == 3


@pytest.mark.parametrize(("name", "path", "key_header"), [
    ("anthropic", "/v1/messages", "x-api-key"),
    ("gemini", "/models/gemini-2.0-flash:generateContent", "x-goog-api-key"),
])
def test_litellm_presets_speak_their_providers_api(name: str, path: str, key_header: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    p = preset(name)
    assert p.key_env is not None
    monkeypatch.setenv(p.key_env, f"key-for-{name}")
    with provider_server(Reply("Final answer: P3")) as server:
        reply = provider_caller(name, base_url=server.url, max_tokens=40)(MESSAGES)
    assert reply == "Final answer: P3"
    (seen,) = server.seen
    assert seen.path == path
    assert seen.headers[key_header] == f"key-for-{name}"


@pytest.mark.parametrize("name", ["hf", "openrouter", "openai", "anthropic"])
def test_a_preset_whose_key_is_unset_names_the_variable(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    p = preset(name)
    assert p.key_env is not None
    monkeypatch.delenv(p.key_env, raising=False)
    with pytest.raises(AgentError) as err:
        provider_caller(name)
    assert p.key_env in str(err.value) and err.value.kind == "agent_failed"


def test_an_unknown_provider_lists_the_known_ones() -> None:
    with pytest.raises(ValueError) as err:
        preset("bedrock-ish")
    assert "bedrock-ish" in str(err.value) and "ollama" in str(err.value) and "anthropic" in str(err.value)


def test_a_bad_preset_is_refused_by_its_model() -> None:
    with pytest.raises(ValueError):
        ProviderPreset(name="Bad Name", title="x", template="openai", base_url=None, key_env=None,
                       model="m", model_naming="m")
    with pytest.raises(ValueError):
        ProviderPreset(name="x", title="x", template="grpc", base_url=None, key_env=None,  # type: ignore[arg-type]
                       model="m", model_naming="m")


def test_the_docs_table_lists_every_preset() -> None:
    table = providers_table()
    for p in PROVIDERS.values():
        assert f"| `{p.name}` |" in table and p.model in table
    assert "https://router.huggingface.co/v1" in table and "http://localhost:11434/v1" in table
