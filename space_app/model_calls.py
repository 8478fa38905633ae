"""What an agent's model was sent and said during one call: the messages `LLMAgent` built, the
raw reply, tokens and seconds of each model call of the turn (`Reply.meta["model_calls"]`),
checked and bounded before the runner keeps them in the call record. An agent's own account
(it is not verified): a local agent object could report anything, so each field is validated,
long texts are cut with a note saying so, and inlined pictures (data URLs) are replaced by a
short description."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from sdk.traces import described_parts

MAX_CALLS = 6  # model calls kept per turn (LLMAgent makes at most three)
MAX_CONTENT = 12_000  # characters of one message or reply kept
MAX_TOTAL = 48_000  # characters of all the texts of one turn kept


def cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… [cut: {len(text) - limit} more characters]"


class ModelMessage(BaseModel):
    """One chat message as sent: text, or the text of its parts with pictures described."""

    model_config = ConfigDict(extra="ignore")

    role: str = Field(max_length=40)
    content: str

    @field_validator("content", mode="before")
    @classmethod
    def _text(cls, value: Any) -> str:
        if isinstance(value, str):
            return value
        if isinstance(value, list):  # OpenAI-style content parts
            return described_parts(value)
        raise ValueError(f"content is {type(value).__name__}, not text")


class ModelCall(BaseModel):
    """One model call of a turn."""

    model_config = ConfigDict(extra="ignore")

    messages: list[ModelMessage] = Field(default_factory=list)
    reply: str | None = None
    prompt_tokens: int | None = Field(default=None, ge=0, le=10**9)
    completion_tokens: int | None = Field(default=None, ge=0, le=10**9)
    seconds: float | None = Field(default=None, ge=0)
    error: str = ""
    truncated: bool = False


def bounded_model_calls(reported: Any) -> tuple[list[dict[str, Any]] | None, str]:
    """The turn's model calls as kept in the call record, and a note when some were cut or
    refused; (None, "") when the agent reported none."""
    if reported is None:
        return None, ""
    if not isinstance(reported, list):
        return None, f"model calls not kept: reported as {type(reported).__name__}, not a list"
    kept: list[dict[str, Any]] = []
    budget = MAX_TOTAL
    notes: list[str] = []
    for raw in reported[:MAX_CALLS]:
        try:
            call = ModelCall.model_validate(raw)
        except (ValidationError, RecursionError) as exc:
            notes.append(f"a model call not kept: {str(exc).splitlines()[0][:120]}")
            continue
        texts = [*(m.content for m in call.messages), call.reply or ""]
        whole = sum(len(t) for t in texts)
        limit = MAX_CONTENT if whole <= budget else max(200, budget // max(1, len(texts)))
        for m in call.messages:
            m.content = cut(m.content, limit)
        call.reply = None if call.reply is None else cut(call.reply, limit)
        call.error = call.error[:500]
        budget -= min(whole, sum(len(m.content) for m in call.messages) + len(call.reply or ""))
        if limit < MAX_CONTENT or any(len(t) > MAX_CONTENT for t in texts):
            notes.append("texts cut to the record's bound")
        kept.append(call.model_dump())
    if len(reported) > MAX_CALLS:
        notes.append(f"{len(reported) - MAX_CALLS} further model calls not kept")
    return kept, "; ".join(dict.fromkeys(notes))


__all__ = ["MAX_CALLS", "MAX_CONTENT", "MAX_TOTAL", "ModelCall", "ModelMessage", "bounded_model_calls", "cut"]
