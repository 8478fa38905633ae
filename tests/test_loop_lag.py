"""The loop lag monitor: a blocking call on the loop shows as a stall of at least its length;
the recent window forgets old stalls while the worst since start keeps them."""

from __future__ import annotations

import asyncio
import time

from space_app.loop_lag import LoopLag


def test_a_blocking_call_on_the_loop_is_seen_as_a_stall():
    lag = LoopLag(interval=0.01)

    async def block() -> None:
        async with lag.running():
            while lag.samples < 3:
                await asyncio.sleep(0.01)
            time.sleep(0.25)  # what a synchronous network call inside a handler does
            seen = lag.samples
            while lag.samples == seen:
                await asyncio.sleep(0.01)

    asyncio.run(block())
    health = lag.health()
    assert health.worst_ms >= 240 and health.worst_at is not None
    assert health.running is False and health.samples >= 4


def test_the_recent_window_forgets_and_the_worst_remembers():
    lag = LoopLag(window=60.0)
    lag.record(0.300, now=1000.0)
    lag.record(0.010, now=1030.0)
    assert lag.health().recent_worst_ms == 300.0
    lag.record(0.020, now=1070.0)  # the 300 ms stall is now 70 s old
    health = lag.health()
    assert health.worst_ms == 300.0 and health.recent_worst_ms == 20.0
    assert health.recent_mean_ms == 15.0 and health.samples == 3
