"""How many matches may run at once: per visitor and arena-wide, counted per match.

A single match (`run_match`, one `try_agent` call) takes a slot when it is asked for, or is
refused with the reason. A batch of matches (a comparison, a study, a benchmark's questions)
is admitted as a call (a visitor has at most as many batch calls as match slots), and then
each of its matches waits for a slot of its own: so a visitor never has more matches running
than their cap, whatever mix of calls they make, and every running match counts against the
arena's cap. Slots are shared across threads and event loops (the UI, the API and a test's own
loop), so waiting is done with a future on the waiter's own loop, woken in turn (FIFO).

The batch's matches find their slot through a context variable set for the call (`batch`),
so code that plays matches (the comparison, a game's study, the suite runner) takes one slot
per match without being told who asked (`match_slot`).
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter, deque
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from .refusal import Refusal


class Refused(Refusal):
    """No slot now; the message says whose limit was reached."""


@dataclass
class _Waiter:
    visitor: str
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future


class MatchSlots:
    def __init__(self, total: int, per_visitor: int, refuse: type[Refusal] = Refused) -> None:
        self.refuse = refuse  # the refusal raised (the API's own, with the message and its words)
        self.total = max(1, total)
        self.per_visitor = max(1, per_visitor)
        self._running: Counter[str] = Counter()  # matches holding a slot, per visitor
        self._calls: Counter[str] = Counter()  # batch calls admitted, per visitor
        self._waiting: deque[_Waiter] = deque()
        self._lock = threading.Lock()

    # -- reading ---------------------------------------------------------------------
    def running(self, visitor: str | None = None) -> int:
        with self._lock:
            return sum(self._running.values()) if visitor is None else self._running[visitor]

    def _free(self, visitor: str) -> bool:
        return sum(self._running.values()) < self.total and self._running[visitor] < self.per_visitor

    def _full(self) -> Exception:
        total = sum(self._running.values())
        return self.refuse(f"The arena is running {total} matches, its limit; try again in a minute.",
                           "arena_full", total=total)

    def _refusal(self, visitor: str) -> Exception:
        if sum(self._running.values()) >= self.total:
            return self._full()
        running = self._running[visitor]
        return self.refuse(f"You already have {running} matches running (limit {self.per_visitor}); "
                           "wait for one to finish.", "your_matches", running=running, limit=self.per_visitor)

    # -- one match, now or never -------------------------------------------------------
    @contextmanager
    def now(self, visitor: str) -> Iterator[None]:
        """A slot for one match at once, or `Refused`."""
        with self._lock:
            if not self._free(visitor):
                raise self._refusal(visitor)
            self._running[visitor] += 1
        try:
            yield
        finally:
            self._release(visitor)

    # -- a batch: admitted as a call, each match waits its turn -----------------------------
    @contextmanager
    def batch(self, visitor: str) -> Iterator[None]:
        """Admit a call that plays several matches; inside it `match_slot()` takes one slot
        per match for `visitor`. Refused when the visitor already has as many batch calls
        as match slots, or the arena is full."""
        with self._lock:
            if self._calls[visitor] >= self.per_visitor:
                running = self._calls[visitor]
                raise self.refuse(f"You already have {running} comparisons, studies or benchmarks running "
                                  f"(limit {self.per_visitor}); wait for one to finish.", "your_batches",
                                  running=running, limit=self.per_visitor)
            if sum(self._running.values()) >= self.total:
                raise self._full()
            self._calls[visitor] += 1
        token = _BATCH.set((self, visitor))
        try:
            yield
        finally:
            _BATCH.reset(token)
            with self._lock:
                self._calls[visitor] -= 1
                if not self._calls[visitor]:
                    del self._calls[visitor]

    @asynccontextmanager
    async def wait(self, visitor: str) -> AsyncIterator[None]:
        """A slot for one match of a batch: taken at once if free, else after the matches
        ahead of it."""
        loop = asyncio.get_running_loop()
        with self._lock:
            # a freed slot is handed to a waiter that fits at once (see _release), so a free
            # slot here has nobody ahead of this match who could take it
            if self._free(visitor):
                self._running[visitor] += 1
                waiter = None
            else:
                waiter = _Waiter(visitor, loop, loop.create_future())
                self._waiting.append(waiter)
        if waiter is not None:
            try:
                await waiter.future  # the slot is ours once this resolves (see _release)
            except asyncio.CancelledError:
                with self._lock:
                    if waiter in self._waiting:
                        self._waiting.remove(waiter)
                        raise
                # handed a slot as it was cancelled: give it back
                self._release(visitor)
                raise
        try:
            yield
        finally:
            self._release(visitor)

    def _release(self, visitor: str) -> None:
        handed: list[_Waiter] = []
        with self._lock:
            self._running[visitor] -= 1
            if self._running[visitor] <= 0:
                del self._running[visitor]
            # hand freed slots to the first waiters that fit (another visitor's waiter may
            # fit where the first one does not: nobody waits behind a visitor at their cap)
            for waiter in list(self._waiting):
                if self._free(waiter.visitor):
                    self._waiting.remove(waiter)
                    self._running[waiter.visitor] += 1
                    handed.append(waiter)
        for waiter in handed:
            waiter.loop.call_soon_threadsafe(_wake, waiter.future)


def _wake(future: asyncio.Future) -> None:
    # a future cancelled meanwhile gives its slot back itself (`wait`'s CancelledError branch)
    if not future.done():
        future.set_result(None)


_BATCH: ContextVar[tuple[MatchSlots, str] | None] = ContextVar("arena_batch", default=None)


@asynccontextmanager
async def match_slot() -> AsyncIterator[None]:
    """One match's slot when it belongs to an admitted batch (see `MatchSlots.batch`); no
    limit otherwise (the CLI, a tournament of the operator's, a match admitted on its own)."""
    current = _BATCH.get()
    if current is None:
        yield
        return
    slots, visitor = current
    token = _BATCH.set(None)  # a match's own work takes no further slot
    try:
        async with slots.wait(visitor):
            yield
    finally:
        _BATCH.reset(token)


__all__ = ["MatchSlots", "Refused", "match_slot"]
