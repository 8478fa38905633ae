"""A match's events reach the store in batches, each within the delay, all before the end."""

from __future__ import annotations

import asyncio

import pytest

from space_app.core.events import Event
from space_app.event_writer import EventWriter


def step(first: int, n: int) -> list[tuple[int, Event]]:
    return [(seq, Event(kind="said", text=f"line {seq}")) for seq in range(first, first + n)]


class Recorder:
    def __init__(self, fail_at: int | None = None) -> None:
        self.batches: list[list[int]] = []
        self.fail_at = fail_at

    async def write(self, items: list[tuple[int, Event]]) -> None:
        await asyncio.sleep(0.01)  # a write takes time on the store's thread
        if self.fail_at is not None and len(self.batches) == self.fail_at:
            raise RuntimeError("the store is gone")
        self.batches.append([seq for seq, _ in items])


def test_fast_steps_are_written_as_one_batch_and_close_writes_the_rest() -> None:
    async def run() -> Recorder:
        rec = Recorder()
        writer = EventWriter(rec.write, delay=5.0, max_batch=100)
        for first in range(0, 30, 3):
            await writer.add(step(first, 3))
        assert rec.batches == []  # nothing is due yet
        await writer.close()
        return rec
    rec = asyncio.run(run())
    assert rec.batches == [list(range(30))]


def test_a_full_batch_is_written_at_once() -> None:
    async def run() -> Recorder:
        rec = Recorder()
        writer = EventWriter(rec.write, delay=5.0, max_batch=10)
        for first in range(0, 24, 4):
            await writer.add(step(first, 4))
        await writer.close()
        return rec
    rec = asyncio.run(run())
    assert rec.batches == [list(range(12)), list(range(12, 24))]


def test_a_step_before_a_long_wait_reaches_the_store_within_the_delay() -> None:
    async def run() -> tuple[Recorder, list[list[int]]]:
        rec = Recorder()
        writer = EventWriter(rec.write, delay=0.05, max_batch=100)
        await writer.add(step(0, 2))
        await asyncio.sleep(0.5)  # e.g. a person thinking: nothing else arrives
        seen_during_wait = [list(b) for b in rec.batches]
        await writer.add(step(2, 1))
        await writer.close()
        return rec, seen_during_wait
    rec, during = asyncio.run(run())
    assert during == [[0, 1]]
    assert rec.batches == [[0, 1], [2]]


def test_a_failed_background_write_is_raised_not_lost() -> None:
    async def run() -> None:
        rec = Recorder(fail_at=0)
        writer = EventWriter(rec.write, delay=0.01, max_batch=100)
        await writer.add(step(0, 2))
        await asyncio.sleep(0.2)
        await writer.close()
    with pytest.raises(RuntimeError, match="the store is gone"):
        asyncio.run(run())
