"""The in-process engine: every item on this process's event loop, `concurrency` at once."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from .base import Done, Job, OnEnd, OnStart, first_line


class LocalEngine:
    name = "local"
    workers = 1

    def __init__(self, concurrency: int = 8) -> None:
        self.concurrency = max(1, concurrency)

    async def map(self, job: Job, items: Sequence[Any], on_start: OnStart | None = None,
                  on_end: OnEnd | None = None) -> list[Done]:
        worker = job.open()
        gate = asyncio.Semaphore(self.concurrency)

        async def one(index: int, item: Any) -> Done:
            async with gate:
                if on_start is not None:
                    on_start(index)
                try:
                    done = Done(index, await worker.run(item))
                except Exception as exc:  # noqa: BLE001 - one item's failure is that item's result
                    done = Done(index, None, first_line(exc))
            if on_end is not None:
                on_end(done)
            return done

        return list(await asyncio.gather(*(one(i, item) for i, item in enumerate(items))))

    def close(self) -> None:
        pass
