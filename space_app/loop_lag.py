"""How late the event loop runs: a task that asks to wake every `interval` seconds and records
by how much each wake-up was late. Everything the arena serves shares one loop, so a wake-up
late by 300 ms means every request, running match and page update waited 300 ms. It keeps the
worst stall since it started and the worst of a recent window, for the operator
(`loop_health`) and the benchmarks."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

from pydantic import BaseModel


class LoopHealth(BaseModel):
    """What the monitor has seen, in milliseconds."""

    running: bool
    interval_ms: float
    worst_ms: float  # the longest stall since the monitor started
    worst_at: float | None  # when it happened (Unix time)
    recent_worst_ms: float  # the longest stall over the last `window_s` seconds
    recent_mean_ms: float
    window_s: float
    samples: int


class LoopLag:
    def __init__(self, interval: float = 0.02, window: float = 60.0) -> None:
        self.interval = interval
        self.window = window
        self.worst = 0.0
        self.worst_at: float | None = None
        self.samples = 0
        self._recent: deque[tuple[float, float]] = deque()  # (monotonic time, lag)
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        """Start on the running loop (once)."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._watch(), name="loop-lag")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    @asynccontextmanager
    async def running(self, _app: Any = None) -> AsyncIterator[None]:
        """As a FastAPI lifespan: started with the server, stopped with it."""
        self.start()
        try:
            yield
        finally:
            await self.stop()

    def record(self, lag: float, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        self.samples += 1
        if lag > self.worst:
            self.worst, self.worst_at = lag, time.time()
        self._recent.append((now, lag))
        while self._recent and self._recent[0][0] < now - self.window:
            self._recent.popleft()

    async def _watch(self) -> None:
        while True:
            asked = time.monotonic()
            await asyncio.sleep(self.interval)
            self.record(max(0.0, time.monotonic() - asked - self.interval))

    def health(self) -> LoopHealth:
        recent = [lag for _, lag in self._recent]
        return LoopHealth(running=self._task is not None and not self._task.done(),
                          interval_ms=round(self.interval * 1000, 1), worst_ms=round(self.worst * 1000, 1),
                          worst_at=self.worst_at,
                          recent_worst_ms=round(max(recent, default=0.0) * 1000, 1),
                          recent_mean_ms=round(sum(recent) / len(recent) * 1000, 2) if recent else 0.0,
                          window_s=self.window, samples=self.samples)


__all__ = ["LoopHealth", "LoopLag"]
