"""How many matches may run at once: per visitor and arena-wide, counted per match in the
database, so the caps hold across every replica on it.

Each slot is a lease (`space_app.leases`, `match_leases`) counted against ARENA_MAX_MATCHES
and ARENA_MAX_MATCHES_PER_VISITOR in one locked transaction (`Leases.take`), whichever replica
takes it; the replica holding it renews it on its heartbeat, gives it back when the match ends,
and if it dies the lease expires and the slot is free again. Nothing about the count lives in
process memory.

A single match (`run_match`, one `try_agent` call) takes a slot when it is asked for, or is
refused with the reason. A batch of matches (a comparison, a study, a benchmark's questions)
is admitted as a call (a lease of its own: a visitor has at most as many batch calls as match
slots, on all replicas together), and then each of its matches waits for a slot of its own:
so a visitor never has more matches running than their cap, whatever mix of calls they make
on whichever replicas, and every running match counts against the arena's cap.

Waiting is first come, first served within a process: waiters queue in order (each a future
on its own event loop: the UI, the API and a test's loop share the slots), and a hand-out
asks the database for a slot for each in turn, skipping a visitor at their cap (nobody waits
behind them) and stopping at a full arena. A hand-out runs when a slot of this process is
given back and on every heartbeat (`Leases.on_beat`: a slot freed on another replica, or a
dead replica's lease expired). Across replicas there is no queue: whoever asks the database
first gets a freed slot.

The batch's matches find their slot through a context variable set for the call (`batch`),
so code that plays matches (the comparison, a game's study, the suite runner) takes one slot
per match without being told who asked (`match_slot`).
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal

from .leases import Leases
from .off_loop import off_loop
from .refusal import Refusal


class Refused(Refusal):
    """No slot now; the message says whose limit was reached."""


def slot_key(kind: str) -> str:
    """A lease key of its own for a slot that is not a match's id (an agent call, a batch's
    match or question, a batch call): unique, within the table's 40 characters."""
    return f"{kind}:{uuid.uuid4().hex}"


@dataclass(eq=False)
class _Waiter:
    visitor: str
    key: str  # the lease it will hold
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future
    # "handed": its lease is taken (the slot is the waiter's); "gone": it stopped waiting
    state: Literal["waiting", "handed", "gone"] = "waiting"


class MatchSlots:
    """The caps of one replica's visitors, counted over `leases`' database."""

    def __init__(self, leases: Leases, total: int, per_visitor: int, refuse: type[Refusal] = Refused) -> None:
        self.leases = leases
        self.refuse = refuse  # the refusal raised (the API's own, with the message and its words)
        self.total = max(1, total)
        self.per_visitor = max(1, per_visitor)
        self._waiting: deque[_Waiter] = deque()
        self._lock = threading.Lock()  # the queue and the waiters' states
        self._handing = threading.Lock()  # one hand-out at a time (a release's, the heartbeat's)
        leases.on_beat.append(self._hand_out)

    # -- reading ---------------------------------------------------------------------
    def running(self, visitor: str | None = None) -> int:
        """Matches holding a slot now, on every replica (`visitor`: theirs)."""
        return self.leases.count(visitor)

    def waiting(self) -> int:
        """Matches of this process's batches waiting for a slot."""
        with self._lock:
            return len(self._waiting)

    def _take(self, key: str, visitor: str) -> None:
        self.leases.take(key, visitor, total=self.total, per_visitor=self.per_visitor, refuse=self.refuse)

    # -- one match, now or never -------------------------------------------------------
    @asynccontextmanager
    async def now(self, visitor: str, key: str | None = None) -> AsyncIterator[None]:
        """A slot for one match (or agent call) at once, or refused. `key`: the lease's key,
        the match's id for a match (so a cancel asked on another replica finds it)."""
        key = key or slot_key("call")
        await off_loop(self._take, key, visitor)
        try:
            yield
        finally:
            await asyncio.shield(off_loop(self._release, key))

    # -- a batch: admitted as a call, each match waits its turn -----------------------------
    @asynccontextmanager
    async def batch(self, visitor: str) -> AsyncIterator[None]:
        """Admit a call that plays several matches; inside it `match_slot()` takes one slot
        per match for `visitor`. Refused when the visitor already has as many batch calls
        as match slots, or the arena is full."""
        key = slot_key("batch")
        await off_loop(self.leases.take_call, key, visitor, limit=self.per_visitor, total=self.total,
                       refuse=self.refuse)
        token = _BATCH.set((self, visitor))
        try:
            yield
        finally:
            _BATCH.reset(token)
            await asyncio.shield(off_loop(self.leases.release, key))

    @asynccontextmanager
    async def wait(self, visitor: str) -> AsyncIterator[None]:
        """A slot for one match of a batch: taken at once if free and nobody of this process
        is ahead, else once a hand-out gives it one."""
        loop = asyncio.get_running_loop()
        waiter = _Waiter(visitor, slot_key("slot"), loop, loop.create_future())
        with self._lock:
            self._waiting.append(waiter)
        try:
            await off_loop(self._hand_out)  # it may fit now
            await waiter.future  # the slot is ours once this resolves (see _hand_out)
        except BaseException:  # cancelled, or the database failed
            with self._lock:
                handed = waiter.state == "handed"
                if not handed:
                    waiter.state = "gone"
                    self._waiting.remove(waiter)
            if handed:  # handed a slot as it stopped: give it back
                await asyncio.shield(off_loop(self._release, waiter.key))
            raise
        try:
            yield
        finally:
            await asyncio.shield(off_loop(self._release, waiter.key))

    def _release(self, key: str) -> None:
        self.leases.release(key)
        self._hand_out()

    def _hand_out(self) -> None:
        """Slots for the waiters, first come first served: each asks the database in turn; a
        visitor at their cap is skipped (another visitor's waiter may fit), a full arena ends
        the round. Blocking: on a store thread or the heartbeat's."""
        with self._handing:
            with self._lock:
                queue = [w for w in self._waiting if w.state == "waiting"]
            at_cap: set[str] = set()
            for waiter in queue:
                if waiter.visitor in at_cap:
                    continue
                try:
                    self._take(waiter.key, waiter.visitor)
                except Refusal as exc:
                    if exc.key == "arena_full":
                        return
                    at_cap.add(waiter.visitor)
                    continue
                with self._lock:
                    handed = waiter.state == "waiting"
                    if handed:
                        waiter.state = "handed"
                        self._waiting.remove(waiter)
                if not handed or not _handed_to(waiter):  # it stopped waiting meanwhile
                    self.leases.release(waiter.key)


def _handed_to(waiter: _Waiter) -> bool:
    try:
        waiter.loop.call_soon_threadsafe(_wake, waiter.future)
    except RuntimeError:  # its loop closed: nobody is there to play the match
        return False
    return True


def _wake(future: asyncio.Future) -> None:
    # a future cancelled meanwhile gives its slot back itself (`wait`'s except branch)
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


__all__ = ["MatchSlots", "Refused", "match_slot", "slot_key"]
