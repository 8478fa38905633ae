"""The current turn, for code deep inside an agent (an `llm_caller`) that is not handed the
observation: `LLMAgent` starts a turn from `obs.limits.seconds` when it is asked to act, in
the thread that runs it; a caller reads `time_left()`.

A turn can also be given up: when the arena cancels an in-process agent's call (its time is
over, or the match was stopped), `LLMAgent.aact` marks the turn abandoned, and a caller that
registered `on_abandon(callback)` stops its model request at once instead of letting it run
on the model server behind the next seat's request (`openai_caller` closes the connection).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar


class Abandon:
    """A turn given up by the arena: set once, from any thread; callbacks run when it is set
    (or at once when registered after)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._set = False
        self._callbacks: list[Callable[[], None]] = []

    @property
    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        with self._lock:
            if self._set:
                return
            self._set = True
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def add(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run `callback` when the turn is abandoned; returns a function that unregisters it."""
        with self._lock:
            if not self._set:
                self._callbacks.append(callback)
                return lambda: self._discard(callback)
        callback()
        return lambda: None

    def _discard(self, callback: Callable[[], None]) -> None:
        with self._lock:
            if callback in self._callbacks:
                self._callbacks.remove(callback)


class Turn:
    """A deadline (monotonic seconds) and the signal that the arena gave up on the turn."""

    def __init__(self, seconds: float, abandon: Abandon | None = None) -> None:
        self.deadline = time.monotonic() + seconds
        self.abandon = abandon or Abandon()


_current: ContextVar[Turn | None] = ContextVar("current_turn", default=None)


@contextmanager
def turn(seconds: float | Turn) -> Iterator[Turn]:
    """Run the body inside a turn of `seconds` (or inside a `Turn` made earlier, e.g. when the
    arena's call started). A turn inside a turn (a shorter deadline for one step) shares the
    outer turn's abandon signal."""
    if isinstance(seconds, Turn):
        current = seconds
    else:
        outer = _current.get()
        current = Turn(seconds, outer.abandon if outer is not None else None)
    token = _current.set(current)
    try:
        yield current
    finally:
        _current.reset(token)


def time_left() -> float | None:
    """Seconds left in the current turn, or None outside a turn."""
    current = _current.get()
    return None if current is None else current.deadline - time.monotonic()


def abandoned() -> bool:
    """Whether the arena has given up on the current turn (False outside a turn)."""
    current = _current.get()
    return current is not None and current.abandon.is_set


def on_abandon(callback: Callable[[], None]) -> Callable[[], None]:
    """Run `callback` (from another thread) if the arena gives up on the current turn; returns
    the function that unregisters it. Outside a turn nothing is registered."""
    current = _current.get()
    if current is None:
        return lambda: None
    return current.abandon.add(callback)


__all__ = ["Abandon", "Turn", "abandoned", "on_abandon", "time_left", "turn"]
