"""A running match's events on their way to the store, in batches.

A match of house agents takes dozens of steps a second; one transaction per step made the
store's commits and the thread hops a third of a tournament's time. Events are therefore
written in batches: each event reaches the store within `delay` seconds of happening (a timer
writes what waits, so a step before a long wait, e.g. a person's turn, is not held back), a
batch is written at once when it grows past `max_batch`, and `close` writes the rest and waits
for every write before the match's end is recorded. Live viewers are told of each step at
once by the runner's callback, not through the store.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from .core.events import Event

Items = list[tuple[int, Event]]
WRITE_DELAY = 0.25  # seconds an event may wait for its batch (a crash loses at most this much)
MAX_BATCH = 256  # events written at once without waiting for the timer


class EventWriter:
    """Batches a match's events for `write` (an awaitable store write of (seq, event) pairs)."""

    def __init__(self, write: Callable[[Items], Awaitable[None]], delay: float = WRITE_DELAY,
                 max_batch: int = MAX_BATCH) -> None:
        self._write = write
        self._delay = delay
        self._max_batch = max_batch
        self._waiting: Items = []
        self._timer: asyncio.TimerHandle | None = None
        self._writes: set[asyncio.Task[None]] = set()
        self._failed: BaseException | None = None

    async def add(self, items: Items) -> None:
        """Take a step's events; write them now if the batch is full, else within `delay`."""
        self._raise_failure()
        self._waiting.extend(items)
        if len(self._waiting) >= self._max_batch or self._delay <= 0:
            await self._write_waiting()
        elif self._timer is None and self._waiting:
            self._timer = asyncio.get_running_loop().call_later(self._delay, self._write_in_background)

    async def close(self) -> None:
        """Write whatever waits and wait for every write in flight (a failed one is raised)."""
        await self._write_waiting()
        if self._writes:
            await asyncio.gather(*self._writes, return_exceptions=True)
        self._raise_failure()

    def _take(self) -> Items:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        taken, self._waiting = self._waiting, []
        return taken

    async def _write_waiting(self) -> None:
        taken = self._take()
        if taken:
            await self._write(taken)

    def _write_in_background(self) -> None:
        taken = self._take()
        if not taken:
            return
        task = asyncio.ensure_future(self._write(taken))
        self._writes.add(task)
        task.add_done_callback(self._written)

    def _written(self, task: asyncio.Task[None]) -> None:
        self._writes.discard(task)
        if not task.cancelled() and task.exception() is not None and self._failed is None:
            self._failed = task.exception()  # raised by the next add or by close: never lost

    def _raise_failure(self) -> None:
        if self._failed is not None:
            failed, self._failed = self._failed, None
            raise failed


__all__ = ["MAX_BATCH", "WRITE_DELAY", "EventWriter"]
