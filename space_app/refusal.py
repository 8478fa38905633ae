"""A refusal a page can word in its visitor's language. Refusals are raised deep in the
arena (admission, the agent catalogue, the API's checks) in English; those a visitor meets
on a page also carry a key naming their words in the interface's catalogues
(`refusal.<key>`) and the values that fill them, so the Chinese page says them in Chinese.
`str()` stays the English message: the CLI, the logs and API clients read that."""

from __future__ import annotations

from typing import Any


class Refusal(ValueError):
    """A refused request: the English message, and optionally the key and values that word
    it in any language."""

    def __init__(self, message: str, key: str | None = None, **values: Any) -> None:
        super().__init__(message)
        self.key = key
        self.values = values

    @classmethod
    def carrying(cls, exc: BaseException) -> Refusal:
        """`exc` as this kind of refusal, keeping its words when it has them."""
        if isinstance(exc, Refusal):
            return cls(str(exc), exc.key, **exc.values)
        return cls(str(exc))
