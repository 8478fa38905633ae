"""Token usage travels with the text a caller returns (a str subclass), so
`llm_caller(messages) -> str` stays the one simple hook."""

from __future__ import annotations

from pydantic import BaseModel


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage | None) -> Usage:
        if other is None:
            return self
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
        )


class LLMText(str):
    """A str that also carries the token usage of the call that produced it, optional
    private notes (e.g. an Avalon agent's chosen intentions and its private THINK), and
    `truncated`: the model stopped at its token limit (`finish_reason == "length"`) in this
    call or, on an agent's reply, in one of the calls of its turn."""

    usage: Usage | None
    notes: dict | None
    truncated: bool

    def __new__(cls, text: str, usage: Usage | None = None, notes: dict | None = None,
                truncated: bool = False) -> LLMText:
        obj = super().__new__(cls, text)
        obj.usage = usage
        obj.notes = notes
        obj.truncated = truncated
        return obj


def usage_of(text: object) -> Usage | None:
    return getattr(text, "usage", None)


def truncated_of(text: object) -> bool:
    return getattr(text, "truncated", False) is True


def with_notes(text: str, notes: dict) -> LLMText:
    """A reply that carries private notes: the arena records them where only this seat and
    spectators can see them (never another seat), e.g. `with_notes(speech, {"think": ...})`."""
    return LLMText(str(text), usage_of(text), notes, truncated_of(text))


def notes_of(text: object) -> dict | None:
    notes = getattr(text, "notes", None)
    return notes if isinstance(notes, dict) else None
