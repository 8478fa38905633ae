"""Gradio's event queue, kept light under public traffic.

Gradio 6.31's queue does two things per event that a busy public arena cannot afford:
- It keeps every event's timing for its monitoring dashboard and, after each event, rebuilds the
  dashboard's summary from all of them: a pandas DataFrame of up to 10,000 records and a
  group-by, ~37 ms holding the GIL at 10,000 (measured here), on every one of dozens of events a
  second. That work set the rate the arena could serve reads at and stalled its event loop.
  Here the queue keeps the last `ANALYTICS_EVENTS` and summarises every `ANALYTICS_EVERY`th
  event (the dashboard still works; its summary is a little older).
- It keeps, per session, the set of that session's pending events, and leaves the emptied set
  behind when a plain API call (a new session each) has been answered: one entry per call,
  forever, which the lookup of a finished call then scans. `prune_sessions` drops the empty ones.

Both reach into the queue's attributes (the test of this module, `tests/test_queue_upkeep.py`,
reads them on the real app, so an upgrade that changes them fails there). An operator may set
Gradio's own variables, GRADIO_ANALYTICS_MAX_EVENTS and GRADIO_ANALYTICS_CACHE_FREQUENCY,
to other values.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

ANALYTICS_EVENTS = 500  # events the monitoring dashboard keeps (Gradio's default: 10,000)
ANALYTICS_EVERY = 200  # events between two rebuilds of its summary (Gradio's default: every event)
PRUNE_SECONDS = 30.0


def quiet_analytics() -> None:
    """Gradio's dashboard settings for this process, unless the operator set them. Call before
    the app's queue is made (`queue()`/`launch()` read them then)."""
    os.environ.setdefault("GRADIO_ANALYTICS_MAX_EVENTS", str(ANALYTICS_EVENTS))
    os.environ.setdefault("GRADIO_ANALYTICS_CACHE_FREQUENCY", str(ANALYTICS_EVERY))


def prune_sessions(queue: Any) -> int:
    """Drop the sessions whose events have all been answered; returns how many. Runs on the
    event loop, so no answer is half-delivered meanwhile: a session still streaming has an
    event id in its set, and a new event of a dropped session makes a new set."""
    pending: dict[str, set[str]] = queue.pending_event_ids_session
    empty = [session for session, events in pending.items() if not events]
    for session in empty:
        pending.pop(session, None)
    return len(empty)


@asynccontextmanager
async def queue_upkeep(app: Any, every: float | None = None) -> AsyncIterator[None]:
    """While the server runs: prune the queue's answered sessions every `every` seconds
    (default `PRUNE_SECONDS`)."""
    async def prune_forever() -> None:
        while True:
            await asyncio.sleep(PRUNE_SECONDS if every is None else every)
            queue = getattr(app.get_blocks(), "_queue", None)
            if queue is not None:
                prune_sessions(queue)

    task = asyncio.create_task(prune_forever())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


__all__ = ["ANALYTICS_EVENTS", "ANALYTICS_EVERY", "prune_sessions", "queue_upkeep", "quiet_analytics"]
