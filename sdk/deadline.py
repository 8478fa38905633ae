"""The time left for the current turn, for code deep inside an agent (an `llm_caller`) that
is not handed the observation: `LLMAgent` sets it from `obs.limits.seconds` when a turn
starts, in the thread that runs the turn; a caller reads `time_left()`."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_deadline: ContextVar[float | None] = ContextVar("turn_deadline", default=None)


@contextmanager
def turn(seconds: float) -> Iterator[None]:
    token = _deadline.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


def time_left() -> float | None:
    """Seconds left in the current turn, or None outside a turn."""
    deadline = _deadline.get()
    return None if deadline is None else deadline - time.monotonic()


__all__ = ["time_left", "turn"]
