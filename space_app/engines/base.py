"""The engine interface: a job opens one worker per worker process, and the engine runs every
item through a worker's `run`, many at once, reporting each start and end as it happens."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

ENGINES = ("local", "ray")


class EngineError(ValueError):
    """An engine that cannot start (an unreachable cluster, Ray not installed): one line to show
    (a ValueError, as every bad-input error the command line reports without a traceback)."""


class Worker(Protocol):
    async def run(self, item: Any) -> Any: ...


class Job(Protocol):
    """What a batch runs. Picklable for a cluster: `open()` is called once in each worker process
    (a Ray worker loads what it needs, e.g. a local model, once for every item it runs)."""

    def open(self) -> Worker: ...


@dataclass(frozen=True)
class Done:
    """One item's end: its index in the batch, and its value or why it failed."""

    index: int
    value: Any = None
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error


class Tracker(Protocol):
    """Who follows a batch (a progress bar): items started, ended, and already done before it."""

    def start(self) -> None: ...

    def end(self, ok: bool) -> None: ...

    def skip(self, n: int) -> None: ...


OnStart = Callable[[int], None]
OnEnd = Callable[[Done], None]


class Engine(Protocol):
    name: str
    concurrency: int  # items in flight per worker

    async def map(self, job: Job, items: Sequence[Any], on_start: OnStart | None = None,
                  on_end: OnEnd | None = None) -> list[Done]:
        """Run every item; the results in the items' order. An item that raises is a failed
        `Done`, never the batch's end."""
        ...

    def close(self) -> None: ...


def first_line(exc: BaseException) -> str:
    lines = [x.strip() for x in str(exc).splitlines() if x.strip()]
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
